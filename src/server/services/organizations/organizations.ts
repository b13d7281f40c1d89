import type { AppServices } from "../../app-services";
import { AppError, notFound } from "../../errors";
import { newId } from "../../ids";
import { deleteOrganizationContextRows } from "../../persistence/context-store";
import type { Principal } from "../../auth/principal";
import { recordAudit } from "../audit/record-audit";
import { slugify, suffixedSlug } from "../accounts/register";
import { findActiveUser } from "../accounts/shared";
import type { RequestMeta } from "../request-meta";
import { startSession } from "../accounts/tokens";
import type { Organization } from "../../../generated/prisma/client";
import { organizationLifecycleChannel, type OrganizationLifecycleEvent } from "../../auth/revocation-channels";
import { isRole } from "../../permissions";

export function organizationView(org: Organization) {
  return { id: org.id, name: org.name, slug: org.slug, plan: org.plan, created_at: org.createdAt.toISOString() };
}

/**
 * The organization a request may act on is the credential's; any other id answers 404, as a
 * missing one would (never reveal which organizations exist).
 */
export async function requireCurrentOrganization(app: AppServices, principal: Principal, id: string): Promise<Organization> {
  if (id !== principal.organizationId) throw notFound("organization");
  const org = await app.db.prisma.organization.findFirst({ where: { id, deletedAt: null } });
  if (!org) throw notFound("organization");
  return org;
}

export async function listMyOrganizations(app: AppServices, principal: Principal) {
  const memberships = await app.db.prisma.membership.findMany({
    where: { userId: principal.userId, organization: { deletedAt: null } },
    include: { organization: true },
    orderBy: { createdAt: "asc" },
  });
  return {
    organizations: memberships
      .filter((m) => isRole(m.role))
      .map((m) => ({ ...organizationView(m.organization), role: m.role as "owner", current: m.organizationId === principal.organizationId })),
  };
}

export async function createOrganization(app: AppServices, principal: Principal, input: { name: string; slug?: string }, meta: RequestMeta) {
  const prisma = app.db.prisma;
  let slug = input.slug ?? slugify(input.name);
  if (await prisma.organization.findUnique({ where: { slug }, select: { id: true } })) {
    if (input.slug) throw new AppError("SLUG_TAKEN", "slug is taken; choose another");
    slug = suffixedSlug(slug);
  }
  const id = newId("org");
  const org = await prisma
    .$transaction(async (tx) => {
      const created = await tx.organization.create({ data: { id, name: input.name, slug } });
      await tx.membership.create({ data: { userId: principal.userId, organizationId: id, role: "owner" } });
      return created;
    })
    .catch((err: { code?: string }) => {
      if (err?.code === "P2002") throw new AppError("SLUG_TAKEN", "slug is taken; choose another");
      throw err;
    });
  await recordAudit(app, { action: "organization.created", organizationId: id, actorId: principal.userId, targetType: "organization", targetId: id, ipAddress: meta.ip });
  return { organization: organizationView(org) };
}

export async function getOrganization(app: AppServices, principal: Principal, id: string) {
  return { organization: organizationView(await requireCurrentOrganization(app, principal, id)) };
}

export async function renameOrganization(app: AppServices, principal: Principal, input: { id: string; name: string }, meta: RequestMeta) {
  await requireCurrentOrganization(app, principal, input.id);
  const org = await app.db.prisma.organization.update({ where: { id: input.id }, data: { name: input.name } });
  await recordAudit(app, { action: "organization.renamed", organizationId: org.id, actorId: principal.userId, targetType: "organization", targetId: org.id, ipAddress: meta.ip });
  return { organization: organizationView(org) };
}

/** Soft delete: members lose access at once (their credentials resolve no membership any more). */
export async function deleteOrganization(app: AppServices, principal: Principal, id: string, meta: RequestMeta) {
  await requireCurrentOrganization(app, principal, id);
  await app.db.prisma.$transaction([
    app.db.prisma.organization.update({ where: { id }, data: { deletedAt: new Date() } }),
    app.db.prisma.apiKey.updateMany({ where: { organizationId: id, revokedAt: null }, data: { revokedAt: new Date() } }),
    app.db.prisma.invitation.updateMany({ where: { organizationId: id, acceptedAt: null, revokedAt: null }, data: { revokedAt: new Date() } }),
    deleteOrganizationContextRows(app.db.prisma, id),
  ]);
  try {
    await recordAudit(app, { action: "organization.deleted", organizationId: id, actorId: principal.userId, targetType: "organization", targetId: id, ipAddress: meta.ip });
    await retireOrganization(app, id);
  } finally {
    await app.access.changed({ organizationId: id });
  }
}

/**
 * What follows an organization's deletion once it is committed (deleting it, or deleting the
 * account of its only member): its sockets close on every instance (the hub listens to the
 * organization's lifecycle channel), and its flows stop wherever they run, so its webhooks answer 404.
 */
export async function retireOrganization(app: AppServices, id: string): Promise<void> {
  const event: OrganizationLifecycleEvent = { type: "organization.deleted", organization_id: id };
  await app.store.publish(organizationLifecycleChannel(id), JSON.stringify(event));
  const deployed = await app.db.prisma.flow.findMany({ where: { organizationId: id, currentDeploymentId: { not: null } }, select: { id: true } });
  for (const flow of deployed) await app.flowRuntime.stop(flow.id);
  // What the built-in broker keeps for it: sessions, their queues, retained messages (a deleted
  // organization's were kept for ever, and its queued messages held their bytes).
  await app.mqtt.retire(id).catch((err: unknown) => app.logger.warn({ err, organizationId: id }, "mqtt: could not retire a deleted organization's sessions"));
}

/** A new session in another organization of the user, shaped like a login response. */
export async function switchOrganization(app: AppServices, userId: string, organizationId: string, meta: RequestMeta) {
  const membership = await app.db.prisma.membership.findFirst({
    where: { userId, organizationId, organization: { deletedAt: null } },
  });
  if (!membership) throw new AppError("NOT_A_MEMBER", "you are not a member of that organization");
  const user = await findActiveUser(app, userId);
  await app.db.prisma.user.update({ where: { id: user.id }, data: { lastOrganizationId: organizationId } });
  const result = await startSession(app, user, membership, meta);
  await recordAudit(app, { action: "user.organization_switched", organizationId, actorId: user.id, targetType: "session", targetId: result.session_id, ipAddress: meta.ip });
  return result;
}
