import { describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { joinAs as joinTestOrg, signUp } from "@/test/accounts";
import type { Role } from "@/server/permissions";
import { authenticateApiKey } from "@/server/auth/api-key-auth";

const testApp = setUpTestApp();
const request = testApp.request;


const joinAs = (owner: { organizationId: string }, role: Role) => joinTestOrg(testApp.app, request, owner, role);

const orgPath = (u: { organizationId: string }) => `/organizations/${u.organizationId}`;

describe("API keys", () => {
  it("creates a service_ key shown once, stored as SHA-256, accepted as X-API-Key and as Bearer", async () => {
    const owner = await signUp(request);
    const res = await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "CI pipeline" } });
    expect(res.status).toBe(201);
    expect(res.body.secret).toMatch(/^service_[A-Za-z0-9_-]{43}$/);
    expect(res.body.api_key).toMatchObject({ name: "CI pipeline", kind: "user", expires_at: null, last_used_at: null });
    expect(res.body.api_key.id).toMatch(/^key_/);
    expect(res.body.secret.startsWith(res.body.api_key.prefix)).toBe(true);
    expect(res.body.api_key.scopes).toEqual(expect.arrayContaining(["flows:read", "flows:write", "org:read"]));
    const stored = await testApp.app.db.prisma.apiKey.findUniqueOrThrow({ where: { id: res.body.api_key.id } });
    expect(JSON.stringify(stored)).not.toContain(res.body.secret.slice(8));

    const viaHeader = await request("GET", orgPath(owner), { headers: { "x-api-key": res.body.secret } });
    expect(viaHeader.status).toBe(200);
    const viaBearer = await request("GET", orgPath(owner), { token: res.body.secret });
    expect(viaBearer.status).toBe(200);

    const list = await request("GET", "/api-keys", { token: owner.accessToken });
    expect(list.body.api_keys).toHaveLength(1);
    expect(JSON.stringify(list.body)).not.toContain(res.body.secret);
    expect(list.body.api_keys[0].last_used_at).not.toBeNull();
  });

  it("refuses revoked, expired, unknown and malformed keys with 401", async () => {
    const owner = await signUp(request);
    const key = await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "k" } });
    expect((await request("DELETE", `/api-keys/${key.body.api_key.id}`, { token: owner.accessToken })).status).toBe(204);
    const revoked = await request("GET", orgPath(owner), { headers: { "x-api-key": key.body.secret } });
    expect(revoked.status).toBe(401);

    const soon = await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "short-lived", expires_at: new Date(Date.now() + 60_000).toISOString() } });
    expect(soon.status).toBe(201);
    await testApp.app.db.prisma.apiKey.update({ where: { id: soon.body.api_key.id }, data: { expiresAt: new Date(Date.now() - 1) } });
    const expired = await request("GET", orgPath(owner), { headers: { "x-api-key": soon.body.secret } });
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe("TOKEN_EXPIRED");

    expect((await request("GET", orgPath(owner), { headers: { "x-api-key": "service_" + "A".repeat(43) } })).status).toBe(401);
    expect((await request("GET", orgPath(owner), { headers: { "x-api-key": "not-a-key" } })).status).toBe(401);
    expect((await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "past", expires_at: "2001-01-01T00:00:00Z" } })).status).toBe(400);
  });

  it("limits a key to its scopes (403 INSUFFICIENT_SCOPE) and never to account or key management", async () => {
    const owner = await signUp(request);
    const key = await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "reader", scopes: ["flows:read"] } });
    expect(key.body.api_key.scopes).toEqual(["flows:read"]);
    const res = await request("GET", `${orgPath(owner)}/members`, { headers: { "x-api-key": key.body.secret } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("INSUFFICIENT_SCOPE");
    const full = await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "full" } });
    for (const [method, path] of [["GET", "/auth/profile"], ["GET", "/api-keys"], ["POST", "/auth/logout"], ["GET", "/audit-log"]] as const) {
      const r = await request(method, path, { headers: { "x-api-key": full.body.secret } });
      expect(r.status, path).toBe(403);
      expect(r.body.error.code, path).toBe("INSUFFICIENT_SCOPE");
    }
    expect((await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "x", scopes: ["nope"] } })).status).toBe(400);
  });

  it("shrinks with its creator's role and dies with the membership", async () => {
    const owner = await signUp(request);
    const member = await joinAs(owner, "member");
    const key = await request("POST", "/api-keys", { token: member.token, body: { name: "mine" } });
    expect(key.status).toBe(201);
    expect(key.body.api_key.scopes).toContain("flows:write");
    const members = `${orgPath(owner)}/members`;
    expect((await request("GET", members, { headers: { "x-api-key": key.body.secret } })).status).toBe(200);

    // Demoted to viewer, the creator's key keeps only what a viewer may do.
    await request("PATCH", `${members}/${member.userId}`, { token: owner.accessToken, body: { role: "viewer" } });
    const shrunk = await request("GET", members, { headers: { "x-api-key": key.body.secret } });
    expect(shrunk.status).toBe(200);
    const principal = await authenticateApiKey(testApp.app, key.body.secret);
    expect(principal.role).toBe("viewer");
    // files:read and mqtt:subscribe are a viewer's too (SPEC §23, §20); files:write and mqtt:publish are not.
    expect(principal.scopes).toEqual(["flows:read", "nodes:read", "org:read", "events:read", "files:read", "mqtt:subscribe"]);
    await request("PATCH", `${members}/${member.userId}`, { token: owner.accessToken, body: { role: "member" } });
    await request("DELETE", `${members}/${member.userId}`, { token: owner.accessToken });
    const dead = await request("GET", members, { headers: { "x-api-key": key.body.secret } });
    expect(dead.status).toBe(401);
  });

  it("refuses scopes above the creator's role and device keys below admin; device keys get 403 on REST", async () => {
    const owner = await signUp(request);
    const member = await joinAs(owner, "member");
    const viewer = await joinAs(owner, "viewer");
    expect((await request("POST", "/api-keys", { token: viewer.token, body: { name: "v" } })).status).toBe(403);
    expect((await request("POST", "/api-keys", { token: member.token, body: { name: "d", kind: "device" } })).status).toBe(403);
    const device = await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "sensor", kind: "device" } });
    expect(device.status).toBe(201);
    expect(device.body.secret).toMatch(/^device_/);
    // A device key holds its channel and the built-in MQTT broker (SPEC §20).
    expect(device.body.api_key.scopes).toEqual(["device:connect", "mqtt:publish", "mqtt:subscribe"]);
    const rest = await request("GET", orgPath(owner), { headers: { "x-api-key": device.body.secret } });
    expect(rest.status).toBe(403);
    expect(rest.body.error.code).toBe("FORBIDDEN");
    expect((await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "u", scopes: ["device:connect"] } })).status).toBe(403);
  });

  it("lets members see and revoke only their own keys; admins all", async () => {
    const owner = await signUp(request);
    const member = await joinAs(owner, "member");
    const ownerKey = await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "owner's" } });
    const memberKey = await request("POST", "/api-keys", { token: member.token, body: { name: "member's" } });
    expect((await request("GET", "/api-keys", { token: member.token })).body.api_keys.map((k: { id: string }) => k.id)).toEqual([memberKey.body.api_key.id]);
    expect((await request("GET", "/api-keys", { token: owner.accessToken })).body.api_keys).toHaveLength(2);
    expect((await request("DELETE", `/api-keys/${ownerKey.body.api_key.id}`, { token: member.token })).status).toBe(404);
    expect((await request("DELETE", `/api-keys/${memberKey.body.api_key.id}`, { token: owner.accessToken })).status).toBe(204);
  });
});
