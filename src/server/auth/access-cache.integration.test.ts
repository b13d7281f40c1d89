import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, restClient } from "@/test/app";
import { joinAs, signUp } from "@/test/accounts";
import type { AppServices } from "@/server/app-services";
import { AppError } from "@/server/errors";
import { AccessCache, ACCESS_GENERATION_KEY } from "./access-cache";
import { resolvePrincipal } from "./principal";

let app: AppServices;
let request: ReturnType<typeof restClient>;
/** A second instance: its own access cache on the same database and store, as another process has. */
let other: AppServices;

beforeAll(async () => {
  app = await createTestApp();
  request = restClient(app);
  other = { ...app, access: new AccessCache(app.store) };
});
afterAll(async () => app?.close());

const asBearer = (token: string) => ({ authorization: `Bearer ${token}` });
const asKey = (secret: string) => ({ apiKey: secret });
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => "accepted",
    (err: unknown) => (AppError.is(err) ? err.code : String(err)),
  );

describe("the access cache across instances", () => {
  it("keeps serving memberships from memory until the access generation changes", async () => {
    const owner = await signUp(request);
    expect((await resolvePrincipal(other, asBearer(owner.accessToken))).role).toBe("owner");
    // A change that bypasses the services (and so the generation) is not seen: the cache is in use...
    await app.db.prisma.membership.updateMany({ where: { userId: owner.userId }, data: { role: "viewer" } });
    expect((await resolvePrincipal(other, asBearer(owner.accessToken))).role).toBe("owner");
    // ...and a new generation, written by any instance, makes every instance read again.
    await app.access.changed();
    expect(await app.store.get(ACCESS_GENERATION_KEY)).toMatch(/^[\w-]{16}$/);
    expect((await resolvePrincipal(other, asBearer(owner.accessToken))).role).toBe("viewer");
  });

  it("a lost generation key (Redis restarted empty) never brings back entries older than a change", async () => {
    const owner = await signUp(request);
    await app.store.del(ACCESS_GENERATION_KEY);
    expect((await resolvePrincipal(other, asBearer(owner.accessToken))).role).toBe("owner");
    const first = await app.store.get(ACCESS_GENERATION_KEY);
    expect(first).toMatch(/^[\w-]{16}$/);
    // A change whose new token is lost with the store's data...
    await app.db.prisma.membership.updateMany({ where: { userId: owner.userId }, data: { role: "member" } });
    await app.store.del(ACCESS_GENERATION_KEY);
    // ...is still seen: the missing key becomes a fresh token, never the one the cache was filled under.
    expect((await resolvePrincipal(other, asBearer(owner.accessToken))).role).toBe("member");
    expect(await app.store.get(ACCESS_GENERATION_KEY)).not.toBe(first);
  });

  it("a role change, a key revocation and a removal made on one instance bite on the other's very next request", async () => {
    const owner = await signUp(request);
    const member = await joinAs(app, request, owner, "admin");
    const key = await request("POST", "/api-keys", { token: member.token, body: { name: "deploy bot" } });
    expect(key.status).toBe(201);
    const spare = await request("POST", "/api-keys", { token: member.token, body: { name: "spare" } });
    // The other instance has both credentials cached.
    expect((await resolvePrincipal(other, asBearer(member.token))).role).toBe("admin");
    expect((await resolvePrincipal(other, asKey(key.body.secret))).role).toBe("admin");
    expect((await resolvePrincipal(other, asKey(spare.body.secret))).role).toBe("admin");

    const demoted = await request("PATCH", `/organizations/${owner.organizationId}/members/${member.userId}`, { token: owner.accessToken, body: { role: "viewer" } });
    expect(demoted.status).toBe(200);
    expect((await resolvePrincipal(other, asBearer(member.token))).role).toBe("viewer");
    const keyPrincipal = await resolvePrincipal(other, asKey(key.body.secret));
    expect(keyPrincipal.role).toBe("viewer");
    // The key's scopes shrank with its creator's role.
    expect(keyPrincipal.kind === "api_key" && keyPrincipal.scopes).not.toContain("flows:write");

    expect((await request("DELETE", `/api-keys/${key.body.api_key.id}`, { token: owner.accessToken })).status).toBe(204);
    expect(await refusal(resolvePrincipal(other, asKey(key.body.secret)))).toBe("TOKEN_INVALID");
    expect(await refusal(resolvePrincipal(other, asKey(spare.body.secret)))).toBe("accepted");

    expect((await request("DELETE", `/organizations/${owner.organizationId}/members/${member.userId}`, { token: owner.accessToken })).status).toBe(204);
    expect(await refusal(resolvePrincipal(other, asKey(spare.body.secret)))).toBe("TOKEN_INVALID");
    expect(await refusal(resolvePrincipal(other, asBearer(member.token)))).toBe("SESSION_REVOKED");
  });

  it("a deleted organization's members and keys stop on the other instance at once", async () => {
    const owner = await signUp(request);
    const key = await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "k" } });
    expect((await resolvePrincipal(other, asKey(key.body.secret))).organizationId).toBe(owner.organizationId);
    const second = await request("POST", "/organizations", { token: owner.accessToken, body: { name: "Second" } });
    expect(second.status).toBe(201);
    const deleted = await request("DELETE", `/organizations/${owner.organizationId}`, { token: owner.accessToken, body: { confirm: owner.organizationId } });
    expect(deleted.status, deleted.text).toBe(204);
    expect(await refusal(resolvePrincipal(other, asKey(key.body.secret)))).toBe("TOKEN_INVALID");
  });
});
