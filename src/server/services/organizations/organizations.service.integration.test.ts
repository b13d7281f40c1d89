/**
 * The organization and member services called directly (the HTTP contract is in
 * organizations.integration.test.ts). The routers check each procedure's permission; what is tested
 * here is what the services decide themselves: who may give which role, the last owner, who an
 * invitation is for, and what ends with a membership or an organization.
 */
import { describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { tokenFromMail } from "@/test/accounts";
import { addMember, createAccount, signIn, testMeta, type TestAccount } from "@/test/principals";
import { resolvePrincipal } from "@/server/auth/principal";
import type { Role } from "@/server/permissions";
import { acceptInvitation, inviteMember, listInvitations, listMembers, removeMember, updateMemberRole } from "./members";
import { createOrganization, deleteOrganization, getOrganization, switchOrganization } from "./organizations";
import { createApiKey } from "../api-keys/api-keys";

const testApp = setUpTestApp();

const setRole = (actor: TestAccount, target: TestAccount, role: Role) =>
  updateMemberRole(testApp.app, actor.principal, { id: actor.organizationId, user_id: target.userId, role }, testMeta);
const remove = (actor: TestAccount, target: TestAccount) => removeMember(testApp.app, actor.principal, { id: actor.organizationId, user_id: target.userId }, testMeta);
/** What the member's access token resolves to now, as their next request would see it. */
const current = (account: TestAccount) => resolvePrincipal(testApp.app, { authorization: `Bearer ${account.session.access_token}` }, { touch: false });

describe("member roles", () => {
  it("lets admins grant up to admin; only owners grant owner or touch owners", async () => {
    const owner = await createAccount(testApp.app);
    const admin = await addMember(testApp.app, owner, "admin");
    const viewer = await addMember(testApp.app, owner, "viewer");
    expect((await setRole(admin, viewer, "admin")).member.role).toBe("admin");
    await expect(setRole(admin, viewer, "owner")).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(setRole(admin, owner, "viewer")).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(remove(admin, owner)).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect((await setRole(owner, viewer, "owner")).member.role).toBe("owner");
    // The change bites on the member's very next request.
    expect((await current(viewer)).role).toBe("owner");
  });

  it("keeps the last owner, and allows the change once there is another", async () => {
    const owner = await createAccount(testApp.app);
    const member = await addMember(testApp.app, owner, "member");
    await expect(setRole(owner, owner, "admin")).rejects.toMatchObject({ code: "LAST_OWNER" });
    await expect(remove(owner, owner)).rejects.toMatchObject({ code: "LAST_OWNER" });
    await setRole(owner, member, "owner");
    expect((await setRole(owner, owner, "admin")).member.role).toBe("admin");
  });

  it("lets only one of two owners demoting each other at once succeed: the organization keeps an owner", async () => {
    const a = await createAccount(testApp.app);
    const b = await addMember(testApp.app, a, "owner");
    const results = await Promise.allSettled([setRole(a, b, "admin"), setRole(b, a, "admin")]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refused = results.find((r): r is PromiseRejectedResult => r.status === "rejected")!;
    // The loser was demoted a moment before: it no longer acts as an owner.
    expect(refused.reason).toMatchObject({ code: expect.stringMatching(/^(LAST_OWNER|FORBIDDEN)$/) });
    const roles = (await listMembers(testApp.app, a.principal, a.organizationId)).members.map((m) => m.role).sort();
    expect(roles).toEqual(["admin", "owner"]);
  });

  it("reads the actor's own role at the change, not the role its request started with", async () => {
    const owner = await createAccount(testApp.app);
    const demoted = await addMember(testApp.app, owner, "owner");
    const viewer = await addMember(testApp.app, owner, "viewer");
    // `demoted.principal` still says owner, as a request resolved just before the demotion would.
    await setRole(owner, demoted, "admin");
    expect(demoted.principal.role).toBe("owner");
    await expect(setRole(demoted, viewer, "owner")).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("removing a member ends their sessions in that organization only", async () => {
    const owner = await createAccount(testApp.app);
    const member = await addMember(testApp.app, owner, "member");
    const own = await testApp.app.db.prisma.membership.findFirstOrThrow({ where: { userId: member.userId, role: "owner" } });
    const home = await signIn(testApp.app, member.email, member.password, own.organizationId);
    await remove(owner, member);
    await expect(current(member)).rejects.toMatchObject({ code: "SESSION_REVOKED" });
    expect((await resolvePrincipal(testApp.app, { authorization: `Bearer ${home.session.access_token}` })).organizationId).toBe(own.organizationId);
    await expect(switchOrganization(testApp.app, member.userId, owner.organizationId, testMeta)).rejects.toMatchObject({ code: "NOT_A_MEMBER" });
  });
});

describe("invitations", () => {
  it("are for the invited email only, replace a pending one, and are single use", async () => {
    const owner = await createAccount(testApp.app);
    const admin = await addMember(testApp.app, owner, "admin");
    const invitee = await createAccount(testApp.app);
    const invite = (role: Role, by = admin) => inviteMember(testApp.app, by.principal, { id: owner.organizationId, email: invitee.email, role }, testMeta);
    await expect(invite("owner")).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(inviteMember(testApp.app, admin.principal, { id: owner.organizationId, email: admin.email, role: "viewer" }, testMeta)).rejects.toMatchObject({ code: "EMAIL_TAKEN" });

    await invite("viewer");
    const firstToken = await tokenFromMail(testApp.app, invitee.email, "/invitations/accept");
    const { invitation } = await invite("member");
    expect((await listInvitations(testApp.app, owner.principal, owner.organizationId)).invitations.map((i) => i.id)).toEqual([invitation.id]);
    await expect(acceptInvitation(testApp.app, invitee.principal, firstToken, testMeta)).rejects.toMatchObject({ code: "TOKEN_INVALID" });

    const token = await tokenFromMail(testApp.app, invitee.email, "/invitations/accept");
    const stranger = await createAccount(testApp.app);
    await expect(acceptInvitation(testApp.app, stranger.principal, token, testMeta)).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await acceptInvitation(testApp.app, invitee.principal, token, testMeta)).toMatchObject({ organization: { id: owner.organizationId }, role: "member" });
    await expect(acceptInvitation(testApp.app, invitee.principal, token, testMeta)).rejects.toMatchObject({ code: "TOKEN_INVALID" });
    expect((await signIn(testApp.app, invitee.email, invitee.password, owner.organizationId)).principal.role).toBe("member");
  });

  it("refuses an expired invitation", async () => {
    const owner = await createAccount(testApp.app);
    const invitee = await createAccount(testApp.app);
    await inviteMember(testApp.app, owner.principal, { id: owner.organizationId, email: invitee.email, role: "viewer" }, testMeta);
    const token = await tokenFromMail(testApp.app, invitee.email, "/invitations/accept");
    await testApp.app.db.prisma.invitation.updateMany({ where: { email: invitee.email }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expect(acceptInvitation(testApp.app, invitee.principal, token, testMeta)).rejects.toMatchObject({ code: "TOKEN_EXPIRED" });
  });
});

describe("organizations", () => {
  it("answers only the caller's current organization; any other id is missing", async () => {
    const a = await createAccount(testApp.app);
    const b = await createAccount(testApp.app);
    expect((await getOrganization(testApp.app, a.principal, a.organizationId)).organization.id).toBe(a.organizationId);
    await expect(getOrganization(testApp.app, a.principal, b.organizationId)).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(listMembers(testApp.app, a.principal, b.organizationId)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("derives a free slug from the name, and refuses a taken slug asked for by name", async () => {
    const user = await createAccount(testApp.app);
    const name = `Acme ${Date.now().toString(36)}`;
    const first = (await createOrganization(testApp.app, user.principal, { name }, testMeta)).organization;
    const second = (await createOrganization(testApp.app, user.principal, { name }, testMeta)).organization;
    expect(second.slug).not.toBe(first.slug);
    expect(second.slug.startsWith(first.slug)).toBe(true);
    await expect(createOrganization(testApp.app, user.principal, { name: "Other", slug: first.slug }, testMeta)).rejects.toMatchObject({ code: "SLUG_TAKEN" });
  });

  it("deleting one revokes its keys and invitations and ends its members' access", async () => {
    const owner = await createAccount(testApp.app);
    const member = await addMember(testApp.app, owner, "member");
    await createApiKey(testApp.app, owner.principal, { name: "ci", kind: "user" }, testMeta);
    await inviteMember(testApp.app, owner.principal, { id: owner.organizationId, email: `later-${Date.now()}@example.com`, role: "viewer" }, testMeta);
    await deleteOrganization(testApp.app, owner.principal, owner.organizationId, testMeta);
    const prisma = testApp.app.db.prisma;
    expect(await prisma.apiKey.count({ where: { organizationId: owner.organizationId, revokedAt: null } })).toBe(0);
    expect(await prisma.invitation.count({ where: { organizationId: owner.organizationId, revokedAt: null } })).toBe(0);
    await expect(current(member)).rejects.toMatchObject({ code: "SESSION_REVOKED" });
    await expect(current(owner)).rejects.toMatchObject({ code: "SESSION_REVOKED" });
  });
});
