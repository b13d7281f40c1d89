import type { AppServices } from "../../app-services";
import { AppError } from "../../errors";
import type { SessionPrincipal as Principal } from "../../auth/principal";
import { recordAudit } from "../audit/record-audit";
import { findActiveUser, profileView, verifyPasswordCounted } from "./shared";
import type { RequestMeta } from "../request-meta";
import { endOtherSessions } from "./tokens";
import { retireOrganization } from "../organizations/organizations";

export async function getProfile(app: AppServices, principal: Principal) {
  const user = await findActiveUser(app, principal.userId);
  const organization = await app.db.prisma.organization.findFirst({ where: { id: principal.organizationId, deletedAt: null } });
  if (!organization) throw new AppError("SESSION_REVOKED", "organization no longer exists; log in again");
  return {
    user: profileView(user),
    organization: { id: organization.id, name: organization.name, slug: organization.slug, plan: organization.plan },
    role: principal.role,
  };
}

export async function updateProfile(
  app: AppServices,
  principal: Principal,
  input: { first_name?: string; last_name?: string; locale?: string; timezone?: string; avatar_url?: string | null },
) {
  const user = await app.db.prisma.user.update({
    where: { id: principal.userId },
    data: {
      firstName: input.first_name,
      lastName: input.last_name,
      locale: input.locale === undefined ? undefined : Intl.getCanonicalLocales(input.locale)[0],
      timezone: input.timezone,
      avatarUrl: input.avatar_url,
    },
  });
  return { user: profileView(user) };
}

/**
 * Soft delete: the row stays (audit trails keep pointing at it) with deleted_at set, every session
 * ends, and the email is free to register again.
 */
export async function deleteAccount(app: AppServices, principal: Principal, password: string, meta: RequestMeta) {
  const user = await findActiveUser(app, principal.userId);
  await verifyPasswordCounted(app, user, password);
  const owned = await app.db.prisma.membership.findMany({ where: { userId: user.id, role: "owner", organization: { deletedAt: null } } });
  for (const m of owned) {
    const otherOwners = await app.db.prisma.membership.count({
      where: { organizationId: m.organizationId, role: "owner", userId: { not: user.id }, user: { deletedAt: null } },
    });
    const otherMembers = await app.db.prisma.membership.count({ where: { organizationId: m.organizationId, userId: { not: user.id }, user: { deletedAt: null } } });
    // An organization must keep an owner; one the user holds alone with other members must be
    // handed over first. An organization of one goes with its owner.
    if (otherOwners === 0 && otherMembers > 0) {
      throw new AppError("LAST_OWNER", "you are the last owner of an organization with other members; transfer ownership first");
    }
  }
  const now = new Date();
  const retired: string[] = [];
  await app.db.prisma.$transaction(async (tx) => {
    for (const m of owned) {
      const others = await tx.membership.count({ where: { organizationId: m.organizationId, userId: { not: user.id } } });
      if (others === 0) {
        await tx.organization.update({ where: { id: m.organizationId }, data: { deletedAt: now } });
        // Its flows' and global context go with it (SPEC §13).
        await tx.contextEntry.deleteMany({ where: { organizationId: m.organizationId } });
        retired.push(m.organizationId);
      }
    }
    await tx.membership.deleteMany({ where: { userId: user.id } });
    await tx.backupCode.deleteMany({ where: { userId: user.id } });
    await tx.user.update({ where: { id: user.id }, data: { deletedAt: now, mfaSecret: null, mfaPendingSecret: null } });
  });
  try {
    await endOtherSessions(app, user.id);
    await recordAudit(app, { action: "user.deleted", organizationId: principal.organizationId, actorId: user.id, targetType: "user", targetId: user.id, ipAddress: meta.ip });
    // An organization that went with its only member goes as a deleted one does: flows stopped.
    for (const id of retired) await retireOrganization(app, id);
  } finally {
    // The user's keys and memberships stop working on every instance at once.
    await app.access.changed({ userId: user.id });
  }
}
