/**
 * The API key services called directly (the HTTP contract — headers, 401/403 — is in
 * api-keys.integration.test.ts): what a role may create, who sees and revokes which key, and that a
 * revocation reaches every instance.
 */
import { describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { addMember, createAccount, testMeta, type TestAccount } from "@/test/principals";
import { authenticateApiKey } from "@/server/auth/api-key-auth";
import { API_KEY_REVOKED_CHANNEL } from "@/server/auth/revocation-channels";
import { sha256 } from "@/server/ids";
import { createApiKey, listApiKeys, revokeApiKey } from "./api-keys";

const testApp = setUpTestApp();

type CreateInput = Parameters<typeof createApiKey>[2];
const create = (account: TestAccount, input: Partial<CreateInput> = {}) => createApiKey(testApp.app, account.principal, { name: "key", kind: "user", ...input }, testMeta);
const revoke = (account: TestAccount, id: string) => revokeApiKey(testApp.app, account.principal, id, testMeta);
const listed = async (account: TestAccount) => (await listApiKeys(testApp.app, account.principal)).api_keys.map((k) => k.id);

describe("createApiKey", () => {
  it("returns the secret once and stores only its hash; without scopes the key follows its creator's role", async () => {
    const owner = await createAccount(testApp.app);
    const { api_key: key, secret } = await create(owner, { name: "CI" });
    expect(secret.startsWith(key.prefix)).toBe(true);
    const stored = await testApp.app.db.prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } });
    expect(stored).toMatchObject({ secretHash: sha256(secret), allScopes: true, createdById: owner.userId });
    expect(JSON.stringify(await listApiKeys(testApp.app, owner.principal))).not.toContain(secret);
    expect((await authenticateApiKey(testApp.app, secret)).scopes).toEqual(expect.arrayContaining(["flows:write", "nodes:inject", "org:read"]));
  });

  it("refuses device keys below admin and scopes beyond the creator's role, naming them", async () => {
    const owner = await createAccount(testApp.app);
    const member = await addMember(testApp.app, owner, "member");
    const viewer = await addMember(testApp.app, owner, "viewer");
    await expect(create(member, { kind: "device" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    // (The router lets no viewer in at all; the service's own bound is the role's scopes.)
    await expect(create(viewer, { scopes: ["flows:read", "flows:write", "nodes:inject"] })).rejects.toMatchObject({
      code: "FORBIDDEN",
      details: [
        { path: "scopes", message: "flows:write is beyond your role" },
        { path: "scopes", message: "nodes:inject is beyond your role" },
      ],
    });
    await expect(create(owner, { scopes: ["device:connect"] })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const device = await create(owner, { kind: "device" });
    expect(device.api_key.scopes).toEqual(["device:connect", "mqtt:publish", "mqtt:subscribe"]);
    expect(device.secret).toMatch(/^device_/);
    expect(await testApp.app.db.prisma.apiKey.count({ where: { organizationId: owner.organizationId } })).toBe(1);
  });
});

describe("listApiKeys and revokeApiKey", () => {
  it("shows members their own keys and admins all; a member cannot revoke (or see) another's key", async () => {
    const owner = await createAccount(testApp.app);
    const admin = await addMember(testApp.app, owner, "admin");
    const member = await addMember(testApp.app, owner, "member");
    const ownerKey = (await create(owner)).api_key.id;
    const memberKey = (await create(member)).api_key.id;
    expect(await listed(member)).toEqual([memberKey]);
    expect((await listed(admin)).sort()).toEqual([ownerKey, memberKey].sort());
    await expect(revoke(member, ownerKey)).rejects.toMatchObject({ code: "NOT_FOUND" });
    await revoke(admin, memberKey);
    await expect(revoke(admin, memberKey)).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await listed(owner)).toEqual([ownerKey]);
  });

  it("keeps another organization's keys out of reach", async () => {
    const a = await createAccount(testApp.app);
    const b = await createAccount(testApp.app);
    const key = (await create(a)).api_key.id;
    expect(await listed(b)).toEqual([]);
    await expect(revoke(b, key)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("ends the key on every instance: the access generation moves and the revocation is published", async () => {
    const owner = await createAccount(testApp.app);
    const { api_key: key, secret } = await create(owner);
    await authenticateApiKey(testApp.app, secret);
    const published: string[] = [];
    const unsubscribe = await testApp.app.store.subscribe(API_KEY_REVOKED_CHANNEL, (m) => published.push(m));
    const generation = await testApp.app.access.current();
    await revoke(owner, key.id);
    expect(await testApp.app.access.current()).not.toBe(generation);
    await expect.poll(() => published.map((m) => JSON.parse(m))).toEqual([{ key_id: key.id, organization_id: owner.organizationId }]);
    await expect(authenticateApiKey(testApp.app, secret)).rejects.toMatchObject({ code: "TOKEN_INVALID" });
    await unsubscribe();
  });
});
