import type { AppServices } from "../../app-services";
import { AppError, notFound } from "../../errors";
import { newId, randomToken, sha256 } from "../../ids";
import type { Principal, SessionPrincipal } from "../../auth/principal";
import { SessionStore } from "../../auth/session-store";
import { isRole, mayGrant, mayManage, type Role } from "../../permissions";
import { invitationMail } from "../../mail/templates";
import { recordAudit } from "../audit/record-audit";
import { displayName } from "../accounts/shared";
import type { RequestMeta } from "../request-meta";
import { organizationView, requireCurrentOrganization } from "./organizations";

const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

type MemberRow = { userId: string; role: string; createdAt: Date; user: { email: string; firstName: string; lastName: string } };

function memberView(m: MemberRow) {
  return {
    user_id: m.userId,
    email: m.user.email,
    first_name: m.user.firstName,
    last_name: m.user.lastName,
    role: (isRole(m.role) ? m.role : "viewer") as Role,
    joined_at: m.createdAt.toISOString(),
  };
}

export async function listMembers(app: AppServices, principal: Principal, orgId: string) {
  await requireCurrentOrganization(app, principal, orgId);
  const rows = await app.db.prisma.membership.findMany({
    where: { organizationId: orgId, user: { deletedAt: null } },
    include: { user: { select: { email: true, firstName: true, lastName: true } } },
    orderBy: { createdAt: "asc" },
  });
  return { members: rows.map(memberView) };
}

async function findMember(app: AppServices, orgId: string, userId: string) {
  const m = await app.db.prisma.membership.findFirst({
    where: { organizationId: orgId, userId, user: { deletedAt: null } },
    include: { user: { select: { email: true, firstName: true, lastName: true } } },
  });
  if (!m) throw notFound("member");
  return m;
}

type Tx = Parameters<Parameters<AppServices["db"]["prisma"]["$transaction"]>[0]>[0];

/**
 * Runs `fn` in a transaction holding the organization's row lock (SELECT … FOR UPDATE): every change
 * that could remove an owner takes it first, so "is this the last owner?" and the change that
 * depends on the answer are one atomic step. Two owners demoting each other at once: the second
 * waits for the first, then sees one owner left and is refused.
 */
async function withOwnersLocked<T>(app: AppServices, orgId: string, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return app.db.prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM organizations WHERE id = ${orgId} FOR UPDATE`;
    return fn(tx);
  });
}

async function assertNotLastOwner(tx: Tx, orgId: string, userId: string): Promise<void> {
  const member = await tx.membership.findFirst({ where: { organizationId: orgId, userId }, select: { role: true } });
  if (member?.role !== "owner") return;
  const owners = await tx.membership.count({ where: { organizationId: orgId, role: "owner", user: { deletedAt: null } } });
  if (owners <= 1) throw new AppError("LAST_OWNER", "an organization must keep at least one owner; make someone else owner first");
}

/** Nobody grants a role above their own, and only owners touch owners (src/shared/permissions.ts). */
function assertCanManage(actor: Role, target: Role, next?: Role) {
  if (!mayManage(actor, target)) {
    throw new AppError("FORBIDDEN", `a ${actor} cannot change a member whose role is ${target}`);
  }
  if (next && !mayGrant(actor, next)) {
    throw new AppError("FORBIDDEN", `a ${actor} cannot grant the ${next} role`);
  }
}

export async function updateMemberRole(app: AppServices, principal: Principal, input: { id: string; user_id: string; role: Role }, meta: RequestMeta) {
  await requireCurrentOrganization(app, principal, input.id);
  const member = await findMember(app, input.id, input.user_id);
  const current = isRole(member.role) ? member.role : "viewer";
  assertCanManage(principal.role, current, input.role);
  const updated = await withOwnersLocked(app, input.id, async (tx) => {
    // The actor's own role, read under the lock: an owner demoted a moment ago cannot act as one.
    const actor = await tx.membership.findFirst({ where: { organizationId: input.id, userId: principal.userId }, select: { role: true } });
    assertCanManage(actor && isRole(actor.role) ? actor.role : "viewer", current, input.role);
    if (input.role !== "owner") await assertNotLastOwner(tx, input.id, input.user_id);
    return tx.membership.update({
      where: { userId_organizationId: { userId: input.user_id, organizationId: input.id } },
      data: { role: input.role },
      include: { user: { select: { email: true, firstName: true, lastName: true } } },
    });
  });
  try {
    await recordAudit(app, {
      action: "member.role_changed",
      organizationId: input.id,
      actorId: principal.userId,
      targetType: "user",
      targetId: input.user_id,
      ipAddress: meta.ip,
      metadata: { from: current, to: input.role },
    });
  } finally {
    // Every instance reads the new role on its next request.
    await app.access.changed({ organizationId: input.id });
  }
  return { member: memberView(updated) };
}

export async function removeMember(app: AppServices, principal: Principal, input: { id: string; user_id: string }, meta: RequestMeta) {
  await requireCurrentOrganization(app, principal, input.id);
  const member = await findMember(app, input.id, input.user_id);
  const role = isRole(member.role) ? member.role : "viewer";
  assertCanManage(principal.role, role);
  await withOwnersLocked(app, input.id, async (tx) => {
    const actor = await tx.membership.findFirst({ where: { organizationId: input.id, userId: principal.userId }, select: { role: true } });
    assertCanManage(actor && isRole(actor.role) ? actor.role : "viewer", role);
    await assertNotLastOwner(tx, input.id, input.user_id);
    await tx.membership.delete({ where: { userId_organizationId: { userId: input.user_id, organizationId: input.id } } });
  });
  try {
    await recordAudit(app, { action: "member.removed", organizationId: input.id, actorId: principal.userId, targetType: "user", targetId: input.user_id, ipAddress: meta.ip });
    // Sessions in this organization end now (other organizations' sessions of the user stay).
    const sessions = new SessionStore(app.store);
    for (const s of await sessions.listForUser(input.user_id)) {
      if (s.organization_id === input.id) await sessions.revoke(s);
    }
  } finally {
    await app.access.changed({ organizationId: input.id });
  }
}

function invitationView(inv: { id: string; email: string; role: string; invitedById: string; expiresAt: Date; createdAt: Date }) {
  return {
    id: inv.id,
    email: inv.email,
    role: (isRole(inv.role) ? inv.role : "viewer") as Role,
    invited_by: inv.invitedById,
    expires_at: inv.expiresAt.toISOString(),
    created_at: inv.createdAt.toISOString(),
  };
}

export async function inviteMember(app: AppServices, principal: Principal, input: { id: string; email: string; role: Role }, meta: RequestMeta) {
  const org = await requireCurrentOrganization(app, principal, input.id);
  assertCanManage(principal.role, "viewer", input.role);
  const existing = await app.db.prisma.membership.findFirst({ where: { organizationId: org.id, user: { email: input.email, deletedAt: null } } });
  if (existing) throw new AppError("EMAIL_TAKEN", "this person is a member already");
  // A new invitation replaces any pending one for the same email.
  await app.db.prisma.invitation.updateMany({
    where: { organizationId: org.id, email: input.email, acceptedAt: null, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  const token = randomToken(32);
  const invitation = await app.db.prisma.invitation.create({
    data: {
      id: newId("inv"),
      organizationId: org.id,
      email: input.email,
      role: input.role,
      tokenHash: sha256(token),
      invitedById: principal.userId,
      expiresAt: new Date(Date.now() + INVITATION_TTL_MS),
    },
  });
  const inviter = await app.db.prisma.user.findUnique({ where: { id: principal.userId } });
  const link = `${app.config.publicUrl}/invitations/accept?token=${encodeURIComponent(token)}`;
  await app.mailer.send({
    to: input.email,
    ...invitationMail({ organizationName: org.name, inviterName: inviter ? displayName(inviter) : "A colleague", role: input.role, link }),
  });
  await recordAudit(app, { action: "member.invited", organizationId: org.id, actorId: principal.userId, targetType: "invitation", targetId: invitation.id, ipAddress: meta.ip, metadata: { email: input.email, role: input.role } });
  return { invitation: invitationView(invitation) };
}

export async function listInvitations(app: AppServices, principal: Principal, orgId: string) {
  await requireCurrentOrganization(app, principal, orgId);
  const rows = await app.db.prisma.invitation.findMany({
    where: { organizationId: orgId, acceptedAt: null, revokedAt: null, expiresAt: { gt: new Date() } },
    orderBy: { createdAt: "desc" },
  });
  return { invitations: rows.map(invitationView) };
}

export async function revokeInvitation(app: AppServices, principal: Principal, input: { id: string; invitation_id: string }, meta: RequestMeta) {
  await requireCurrentOrganization(app, principal, input.id);
  const { count } = await app.db.prisma.invitation.updateMany({
    where: { id: input.invitation_id, organizationId: input.id, acceptedAt: null, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  if (count !== 1) throw notFound("invitation");
  await recordAudit(app, { action: "member.invitation_revoked", organizationId: input.id, actorId: principal.userId, targetType: "invitation", targetId: input.invitation_id, ipAddress: meta.ip });
}

/** Joins with a mailed token; the signed-in user's email must be the invited one. Single use. */
export async function acceptInvitation(app: AppServices, principal: SessionPrincipal, token: string, meta: RequestMeta) {
  const invitation = await app.db.prisma.invitation.findUnique({ where: { tokenHash: sha256(token) }, include: { organization: true } });
  if (!invitation || invitation.revokedAt || invitation.organization.deletedAt) throw new AppError("TOKEN_INVALID", "this invitation is not valid");
  if (invitation.acceptedAt) throw new AppError("TOKEN_INVALID", "this invitation has been used already");
  if (invitation.expiresAt <= new Date()) throw new AppError("TOKEN_EXPIRED", "this invitation has expired; ask for a new one");
  if (invitation.email !== principal.email.toLowerCase()) {
    throw new AppError("FORBIDDEN", "this invitation was sent to another email address; sign in with that account");
  }
  const role = isRole(invitation.role) ? invitation.role : "viewer";
  await app.db.prisma.$transaction(async (tx) => {
    const { count } = await tx.invitation.updateMany({ where: { id: invitation.id, acceptedAt: null }, data: { acceptedAt: new Date() } });
    if (count !== 1) throw new AppError("TOKEN_INVALID", "this invitation has been used already");
    await tx.membership.upsert({
      where: { userId_organizationId: { userId: principal.userId, organizationId: invitation.organizationId } },
      create: { userId: principal.userId, organizationId: invitation.organizationId, role },
      update: {},
    });
  });
  try {
    await recordAudit(app, { action: "member.joined", organizationId: invitation.organizationId, actorId: principal.userId, targetType: "invitation", targetId: invitation.id, ipAddress: meta.ip, metadata: { role } });
  } finally {
    await app.access.changed({ organizationId: invitation.organizationId });
  }
  return { organization: organizationView(invitation.organization), role };
}
