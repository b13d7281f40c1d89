import { describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { joinAs as joinTestOrg, signUp, tokenFromMail } from "@/test/accounts";
import type { Role } from "@/server/permissions";

const testApp = setUpTestApp();
const request = testApp.request;


const joinAs = (owner: { organizationId: string }, role: Role) => joinTestOrg(testApp.app, request, owner, role);

describe("organizations", () => {
  it("lists mine, creates one (I own it), and switches to it with a login-shaped response", async () => {
    const user = await signUp(request);
    const created = await request("POST", "/organizations", { token: user.accessToken, body: { name: "Second Org" } });
    expect(created.status).toBe(201);
    expect(created.body.organization).toMatchObject({ name: "Second Org", plan: "free" });
    const list = await request("GET", "/organizations", { token: user.accessToken });
    expect(list.body.organizations).toHaveLength(2);
    expect(list.body.organizations.find((o: { current: boolean }) => o.current).id).toBe(user.organizationId);
    expect(list.body.organizations.every((o: { role: string }) => o.role === "owner")).toBe(true);

    const switched = await request("POST", "/auth/switch-organization", { token: user.accessToken, body: { organization_id: created.body.organization.id } });
    expect(switched.status).toBe(200);
    expect(switched.body.user.organization_id).toBe(created.body.organization.id);
    expect(switched.body.session_id).not.toBe(user.sessionId);
    const profile = await request("GET", "/auth/profile", { token: switched.body.access_token });
    expect(profile.body.organization.id).toBe(created.body.organization.id);
    // The next login lands in the most recently used organization.
    const relogin = await request("POST", "/auth/login", { body: { email: user.email, password: user.password } });
    expect(relogin.body.user.organization_id).toBe(created.body.organization.id);
  });

  it("refuses switching to an organization I am not in", async () => {
    const a = await signUp(request);
    const b = await signUp(request);
    const res = await request("POST", "/auth/switch-organization", { token: a.accessToken, body: { organization_id: b.organizationId } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("NOT_A_MEMBER");
  });

  it("renames (owner only) and soft-deletes (owner only); members lose access", async () => {
    const owner = await signUp(request);
    const admin = await joinAs(owner, "admin");
    const rename = await request("PATCH", `/organizations/${owner.organizationId}`, { token: admin.token, body: { name: "Nope" } });
    expect(rename.status).toBe(403);
    const ok = await request("PATCH", `/organizations/${owner.organizationId}`, { token: owner.accessToken, body: { name: "Renamed" } });
    expect(ok.status).toBe(200);
    expect(ok.body.organization.name).toBe("Renamed");
    expect((await request("GET", `/organizations/${owner.organizationId}`, { token: admin.token })).body.organization.name).toBe("Renamed");
    expect((await request("DELETE", `/organizations/${owner.organizationId}`, { token: admin.token })).status).toBe(403);
    expect((await request("DELETE", `/organizations/${owner.organizationId}`, { token: owner.accessToken })).status).toBe(204);
    expect((await request("GET", `/organizations/${owner.organizationId}`, { token: admin.token })).status).toBe(401);
  });
});

describe("members and roles", () => {
  it("lists members; admins change roles up to their own; only owners touch owners", async () => {
    const owner = await signUp(request);
    const admin = await joinAs(owner, "admin");
    const member = await joinAs(owner, "member");
    const viewer = await joinAs(owner, "viewer");
    const list = await request("GET", `/organizations/${owner.organizationId}/members`, { token: viewer.token });
    expect(list.status).toBe(200);
    expect(list.body.members.map((m: { role: string }) => m.role).sort()).toEqual(["admin", "member", "owner", "viewer"]);

    const path = (u: { userId: string }) => `/organizations/${owner.organizationId}/members/${u.userId}`;
    expect((await request("PATCH", path(viewer), { token: member.token, body: { role: "member" } })).status).toBe(403);
    const promote = await request("PATCH", path(viewer), { token: admin.token, body: { role: "admin" } });
    expect(promote.status).toBe(200);
    expect(promote.body.member.role).toBe("admin");
    const toOwner = await request("PATCH", path(member), { token: admin.token, body: { role: "owner" } });
    expect(toOwner.status).toBe(403);
    const demoteOwner = await request("PATCH", path(owner), { token: admin.token, body: { role: "viewer" } });
    expect(demoteOwner.status).toBe(403);
    // The demotion bites on the member's very next request.
    expect((await request("PATCH", path(member), { token: owner.accessToken, body: { role: "viewer" } })).status).toBe(200);
    expect((await request("POST", "/api-keys", { token: member.token, body: { name: "k" } })).status).toBe(403);
  });

  it("keeps the last owner (409 LAST_OWNER) and allows it once there is another owner", async () => {
    const owner = await signUp(request);
    const second = await joinAs(owner, "member");
    const self = `/organizations/${owner.organizationId}/members/${owner.userId}`;
    const res = await request("PATCH", self, { token: owner.accessToken, body: { role: "admin" } });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("LAST_OWNER");
    expect((await request("DELETE", self, { token: owner.accessToken })).body.error.code).toBe("LAST_OWNER");
    await request("PATCH", `/organizations/${owner.organizationId}/members/${second.userId}`, { token: owner.accessToken, body: { role: "owner" } });
    expect((await request("PATCH", self, { token: owner.accessToken, body: { role: "admin" } })).status).toBe(200);
  });

  it("removes a member: their sessions in the organization end at once", async () => {
    const owner = await signUp(request);
    const member = await joinAs(owner, "member");
    expect((await request("GET", "/auth/profile", { token: member.token })).status).toBe(200);
    expect((await request("DELETE", `/organizations/${owner.organizationId}/members/${member.userId}`, { token: owner.accessToken })).status).toBe(204);
    const after = await request("GET", "/auth/profile", { token: member.token });
    expect(after.status).toBe(401);
    // Their own organization is untouched.
    expect((await request("GET", "/auth/profile", { token: member.accessToken })).status).toBe(200);
    expect((await request("GET", `/organizations/${owner.organizationId}/members`, { token: owner.accessToken })).body.members).toHaveLength(1);
  });
});

describe("invitations", () => {
  it("mails a 7-day single-use link that the invited email accepts", async () => {
    const owner = await signUp(request);
    const invitee = await signUp(request);
    const inv = await request("POST", `/organizations/${owner.organizationId}/invitations`, { token: owner.accessToken, body: { email: invitee.email.toUpperCase(), role: "member" } });
    expect(inv.status).toBe(201);
    expect(inv.body.invitation).toMatchObject({ email: invitee.email, role: "member" });
    expect(Date.parse(inv.body.invitation.expires_at) - Date.now()).toBeGreaterThan(6.9 * 24 * 3600 * 1000);
    const pending = await request("GET", `/organizations/${owner.organizationId}/invitations`, { token: owner.accessToken });
    expect(pending.body.invitations).toHaveLength(1);

    const token = await tokenFromMail(testApp.app, invitee.email, "/invitations/accept");
    const stranger = await signUp(request);
    const wrongEmail = await request("POST", "/invitations/accept", { token: stranger.accessToken, body: { token } });
    expect(wrongEmail.status).toBe(403);

    const accepted = await request("POST", "/invitations/accept", { token: invitee.accessToken, body: { token } });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ organization: { id: owner.organizationId }, role: "member" });
    const again = await request("POST", "/invitations/accept", { token: invitee.accessToken, body: { token } });
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe("TOKEN_INVALID");
    const login = await request("POST", "/auth/login", { body: { email: invitee.email, password: invitee.password, organization_id: owner.organizationId } });
    expect(login.body.user.role).toBe("member");
  });

  it("refuses expired and revoked invitations, and roles above the inviter's", async () => {
    const owner = await signUp(request);
    const admin = await joinAs(owner, "admin");
    const invitee = await signUp(request);
    expect((await request("POST", `/organizations/${owner.organizationId}/invitations`, { token: admin.token, body: { email: invitee.email, role: "owner" } })).status).toBe(403);

    await request("POST", `/organizations/${owner.organizationId}/invitations`, { token: admin.token, body: { email: invitee.email, role: "viewer" } });
    const token = await tokenFromMail(testApp.app, invitee.email, "/invitations/accept");
    await testApp.app.db.prisma.invitation.updateMany({ where: { email: invitee.email }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const expired = await request("POST", "/invitations/accept", { token: invitee.accessToken, body: { token } });
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe("TOKEN_EXPIRED");

    const inv = await request("POST", `/organizations/${owner.organizationId}/invitations`, { token: admin.token, body: { email: invitee.email, role: "viewer" } });
    const fresh = await tokenFromMail(testApp.app, invitee.email, "/invitations/accept");
    expect((await request("DELETE", `/organizations/${owner.organizationId}/invitations/${inv.body.invitation.id}`, { token: admin.token })).status).toBe(204);
    expect((await request("POST", "/invitations/accept", { token: invitee.accessToken, body: { token: fresh } })).status).toBe(401);
  });
});

describe("audit log", () => {
  it("is for admins, newest first, paginated, and holds logins, failures, role changes and key events", async () => {
    const owner = await signUp(request);
    const viewer = await joinAs(owner, "viewer");
    await request("POST", "/auth/login", { body: { email: owner.email, password: "wrong password!!" } });
    await request("PATCH", `/organizations/${owner.organizationId}/members/${viewer.userId}`, { token: owner.accessToken, body: { role: "member" } });
    const key = await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "ci" } });
    await request("DELETE", `/api-keys/${key.body.api_key.id}`, { token: owner.accessToken });

    expect((await request("GET", "/audit-log", { token: viewer.token })).status).toBe(403);
    const page1 = await request("GET", "/audit-log?limit=3", { token: owner.accessToken });
    expect(page1.status).toBe(200);
    expect(page1.body.entries).toHaveLength(3);
    expect(page1.body.next_cursor).toEqual(expect.any(String));
    const all = await request("GET", "/audit-log?limit=200", { token: owner.accessToken });
    const actions = all.body.entries.map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(["user.registered", "user.login_succeeded", "user.login_failed", "member.role_changed", "api_key.created", "api_key.revoked"]));
    const times = all.body.entries.map((e: { created_at: string }) => Date.parse(e.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const page2 = await request("GET", `/audit-log?limit=3&cursor=${page1.body.next_cursor}`, { token: owner.accessToken });
    expect(page2.body.entries[0].id).toBe(all.body.entries[3].id);
    expect((await request("GET", "/audit-log?cursor=garbage", { token: owner.accessToken })).status).toBe(400);
    // The viewer's refused attempt is itself recorded.
    const denied = all.body.entries.find((e: { action: string }) => e.action === "access.denied");
    expect(denied).toMatchObject({ actor_id: viewer.userId, target_id: "audit:read" });
    expect(all.body.entries.every((e: { id: string }) => e.id.startsWith("aud_"))).toBe(true);
    // What a key or flow was called is kept with its events: the log reads by name after it is gone.
    const keyEvents = all.body.entries.filter((e: { action: string }) => e.action.startsWith("api_key."));
    expect(keyEvents.map((e: { metadata: unknown }) => e.metadata)).toEqual([{ name: "ci" }, { name: "ci", kind: "user" }]);
    const flow = await request("POST", "/flows", { token: owner.accessToken, body: { name: "Orders pipeline", nodes: [] } });
    expect((await request("DELETE", `/flows/${flow.body.flow.id}`, { token: owner.accessToken })).status).toBe(204);
    const flowEvents = (await request("GET", "/audit-log?limit=200", { token: owner.accessToken })).body.entries.filter((e: { target_id: string }) => e.target_id === flow.body.flow.id);
    expect(flowEvents.map((e: { action: string; metadata: unknown }) => [e.action, e.metadata])).toEqual([
      ["flow.deleted", { name: "Orders pipeline" }],
      ["flow.created", { name: "Orders pipeline" }],
    ]);
  });
});
