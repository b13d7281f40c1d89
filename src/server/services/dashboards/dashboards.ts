/**
 * Who may see a dashboard page, and the page they see (SPEC §21): any member of the organization
 * (viewers included) through their own sign-in, whatever organization their session is on; or a
 * visitor with a share link's token, for that one page. Everything else is 404, as a missing page.
 */
import type { AppServices } from "../../app-services";
import { AppError, notFound } from "../../errors";
import { newId, randomToken, sha256 } from "../../ids";
import type { Principal } from "../../auth/principal";
import { resolvePrincipal, type Credentials } from "../../auth/principal";
import { currentMembership } from "../../auth/membership";
import { assertPermission } from "../../permissions";
import { recordAudit } from "../audit/record-audit";
import type { RequestMeta } from "../request-meta";
import type { DashboardPageSummary, DashboardPageView, DashboardShareLink } from "../../../shared/dashboard";
import { buildPageView, findPageByPath, loadDashboardModel, pageSummary, type DashboardConfigNode, type DashboardModel } from "./model";

/** A viewer allowed into an organization's dashboards: a member, or a share link's visitor. */
export interface DashboardViewer {
  organization: { id: string; slug: string; name: string };
  userId?: string;
  share?: { id: string; pageId: string; interactive: boolean };
}

const SHARE_TOKEN_PREFIX = "dsh_";

export async function organizationBySlug(app: AppServices, slug: string) {
  const org = await app.db.prisma.organization.findFirst({ where: { slug, deletedAt: null }, select: { id: true, slug: true, name: true } });
  if (!org) throw notFound("page");
  return org;
}

/** A share link's token → its live link in that organization, else 404. */
export async function shareByToken(app: AppServices, organizationId: string, token: string) {
  if (!token.startsWith(SHARE_TOKEN_PREFIX) || token.length > 200) throw notFound("page");
  const link = await app.db.prisma.dashboardShareLink.findFirst({ where: { tokenHash: sha256(token), organizationId, revokedAt: null } });
  if (!link) throw notFound("page");
  return { id: link.id, pageId: link.pageId, interactive: link.interactive };
}

/**
 * The viewer of `slug`'s dashboards: the share token when given (and valid), else the signed-in
 * user when a member of that organization (any role), else 404. No credentials at all: 401.
 */
export async function resolveDashboardViewer(app: AppServices, input: { slug: string; share?: string; credentials?: Credentials; principal?: Principal }): Promise<DashboardViewer> {
  const organization = await organizationBySlug(app, input.slug);
  if (input.share) return { organization, share: await shareByToken(app, organization.id, input.share) };
  const hasCredentials = input.credentials && (input.credentials.authorization || input.credentials.apiKey || input.credentials.browserSessionId);
  if (!input.principal && !hasCredentials) throw new AppError("UNAUTHENTICATED", "sign in to see this page");
  const principal = input.principal ?? (await resolvePrincipal(app, input.credentials!, { touch: false }));
  if (principal.kind === "api_key") {
    // A key acts in its own organization only.
    if (principal.organizationId !== organization.id) throw notFound("page");
    // And with the scope that lists the pages (dashboards.list's).
    assertPermission(principal, "dashboards:read");
    return { organization, userId: principal.userId };
  }
  const member = principal.organizationId === organization.id ? { role: principal.role } : await currentMembership(app, principal.userId, organization.id);
  if (!member) throw notFound("page");
  return { organization, userId: principal.userId };
}

/** The page a viewer opens at `path`, with what they may do on it; 404 when they may not see it. */
export function viewerPage(model: DashboardModel, viewer: DashboardViewer, path: string): DashboardConfigNode {
  const page = findPageByPath(model, path);
  if (!page) throw notFound("page");
  if (viewer.share && viewer.share.pageId !== page.id) throw notFound("page");
  return page;
}

export const viewerOptions = (viewer: DashboardViewer) => ({ interactive: viewer.share ? viewer.share.interactive : true, onlyThisPage: Boolean(viewer.share) });

/**
 * An avatar of a member's initials (an SVG data URL), as FlowFuse gives every user an image: the
 * user add-on's templates show `user.image` in the app bar. The colour follows the user id.
 */
export function initialsAvatar(name: string, userId: string): string {
  const letters = name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => [...w][0]!.toUpperCase())
    .join("")
    .replace(/[^\p{L}\p{N}]/gu, "");
  let hash = 0;
  for (const ch of userId) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><circle cx="32" cy="32" r="32" fill="hsl(${hash % 360},45%,40%)"/><text x="32" y="32" dy=".35em" text-anchor="middle" font-family="sans-serif" font-size="26" fill="#fff">${letters || "?"}</text></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

/**
 * A member as Dashboard 2.0 with FlowFuse's user add-on names them (`msg._client.user`,
 * `setup.socketio.auth.user`): `username` is the sign-in email (there is no other handle), `image`
 * the profile's avatar URL, or their initials as an image.
 */
export async function dashboardUserOf(app: AppServices, userId: string): Promise<NonNullable<DashboardPageView["user"]> | undefined> {
  const u = await app.db.prisma.user.findFirst({ where: { id: userId, deletedAt: null }, select: { email: true, firstName: true, lastName: true, avatarUrl: true } });
  if (!u) return undefined;
  const name = `${u.firstName} ${u.lastName}`.trim() || u.email;
  return { userId, username: u.email, email: u.email, name, image: u.avatarUrl ?? initialsAvatar(name, userId) };
}

/** `dashboards.page`: what dashui's page paints first (the socket then sends the same and keeps it live). */
export async function getDashboardPage(
  app: AppServices,
  input: { org_slug: string; path: string; share?: string },
  who: { credentials?: Credentials; principal?: Principal },
): Promise<DashboardPageView> {
  const viewer = await resolveDashboardViewer(app, { slug: input.org_slug, share: input.share, ...who });
  const model = await loadDashboardModel(app, viewer.organization);
  const page = viewerPage(model, viewer, input.path);
  const [view, user] = await Promise.all([buildPageView(app, model, page, viewerOptions(viewer)), viewer.userId && !viewer.share ? dashboardUserOf(app, viewer.userId) : undefined]);
  return user ? { ...view, user } : view;
}

export interface DashboardListEntry extends DashboardPageSummary {
  ui: { id: string; name: string };
  url: string;
  groups: Array<{ id: string; name: string; order: number; width: number }>;
}

/** `dashboards.list`: the deployed pages of the caller's organization, each dashboard's in order, with their groups and URL. */
export async function listDashboardPages(app: AppServices, principal: Principal): Promise<{ pages: DashboardListEntry[] }> {
  const org = await app.db.prisma.organization.findFirst({ where: { id: principal.organizationId, deletedAt: null }, select: { id: true, slug: true, name: true } });
  if (!org) throw notFound("organization");
  const model = await loadDashboardModel(app, org);
  const pages = [...model.pages.values()].map((p) => {
    const ui = String(p.config.ui ?? "");
    const groups = [...model.groups.values()]
      .filter((g) => g.config.page === p.id)
      .map((g) => ({ id: g.id, name: g.name, order: Number(g.config.order ?? -1), width: Number(g.config.width ?? 6) }))
      .sort((a, b) => a.order - b.order || a.id.localeCompare(b.id));
    const summary = pageSummary(p);
    return { ...summary, ui: { id: ui, name: model.bases.get(ui)?.name ?? "" }, url: pageUrl(app, org.slug, summary.path), groups };
  });
  pages.sort((a, b) => a.ui.id.localeCompare(b.ui.id) || a.order - b.order || a.id.localeCompare(b.id));
  return { pages };
}

export function pageUrl(app: AppServices, slug: string, path: string, token?: string): string {
  return `${app.config.publicUrl}/dashboard/${encodeURIComponent(slug)}${path}${token ? `?share=${encodeURIComponent(token)}` : ""}`;
}

// ---- share links (admins) ----

function permissionOf(principal: Principal) {
  return { role: principal.role, kind: principal.kind, scopes: principal.kind === "api_key" ? principal.scopes : undefined };
}

type LinkRow = { id: string; pageId: string; interactive: boolean; createdAt: Date; createdById: string | null; revokedAt: Date | null };

function linkView(app: AppServices, slug: string, pages: Map<string, string>, r: LinkRow): DashboardShareLink {
  const path = pages.get(r.pageId) ?? "";
  return {
    id: r.id,
    page_id: r.pageId,
    page_path: path,
    interactive: r.interactive,
    url: path ? pageUrl(app, slug, path) : "",
    created_at: r.createdAt.toISOString(),
    created_by: r.createdById,
    revoked_at: r.revokedAt ? r.revokedAt.toISOString() : null,
  };
}

/** The organization's ui-page configuration nodes: id → path (share links name pages saved, deployed or not). */
async function pagePaths(app: AppServices, organizationId: string): Promise<Map<string, string>> {
  const rows = await app.db.prisma.configNode.findMany({ where: { organizationId, type: "ui-page" }, select: { id: true, config: true } });
  return new Map(rows.map((r) => [r.id, String((r.config as Record<string, unknown>).path ?? "")]));
}

async function orgSlug(app: AppServices, organizationId: string): Promise<string> {
  const org = await app.db.prisma.organization.findFirst({ where: { id: organizationId }, select: { slug: true } });
  if (!org) throw notFound("organization");
  return org.slug;
}

export async function listShareLinks(app: AppServices, principal: Principal): Promise<{ share_links: DashboardShareLink[] }> {
  assertPermission(permissionOf(principal), "dashboards:share");
  const [rows, pages, slug] = await Promise.all([
    app.db.prisma.dashboardShareLink.findMany({ where: { organizationId: principal.organizationId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: 500 }),
    pagePaths(app, principal.organizationId),
    orgSlug(app, principal.organizationId),
  ]);
  return { share_links: rows.map((r) => linkView(app, slug, pages, r)) };
}

export async function createShareLink(app: AppServices, principal: Principal, input: { page_id: string; interactive: boolean }, meta: RequestMeta) {
  assertPermission(permissionOf(principal), "dashboards:share");
  const pages = await pagePaths(app, principal.organizationId);
  if (!pages.has(input.page_id)) throw notFound("page");
  const slug = await orgSlug(app, principal.organizationId);
  const token = `${SHARE_TOKEN_PREFIX}${randomToken(32)}`;
  const row = await app.db.prisma.dashboardShareLink.create({
    data: { id: newId("dsh"), organizationId: principal.organizationId, pageId: input.page_id, tokenHash: sha256(token), interactive: input.interactive, createdById: principal.userId },
  });
  await recordAudit(app, {
    action: "dashboard.share_created",
    organizationId: principal.organizationId,
    actorId: principal.userId,
    targetType: "dashboard_share_link",
    targetId: row.id,
    ipAddress: meta.ip,
    metadata: { page_id: input.page_id, interactive: input.interactive },
  });
  const view = linkView(app, slug, pages, row);
  return { share_link: { ...view, url: pageUrl(app, slug, pages.get(input.page_id)!, token), token } };
}

/** Revokes a link: its token stops opening the page at once, and its open sockets close within 2 s (every instance). */
export async function revokeShareLink(app: AppServices, principal: Principal, id: string, meta: RequestMeta): Promise<void> {
  assertPermission(permissionOf(principal), "dashboards:share");
  const row = await app.db.prisma.dashboardShareLink.findFirst({ where: { id, organizationId: principal.organizationId } });
  if (!row) throw notFound("share link");
  if (!row.revokedAt) {
    await app.db.prisma.dashboardShareLink.update({ where: { id }, data: { revokedAt: new Date() } });
    await recordAudit(app, {
      action: "dashboard.share_revoked",
      organizationId: principal.organizationId,
      actorId: principal.userId,
      targetType: "dashboard_share_link",
      targetId: id,
      ipAddress: meta.ip,
      metadata: { page_id: row.pageId },
    });
  }
  await app.dashboards.shareRevoked(id);
}

/** Whether a share link is still live (the socket checks again now and then, beside the revocation channel). */
export async function shareLinkLive(app: AppServices, id: string): Promise<boolean> {
  return (await app.db.prisma.dashboardShareLink.count({ where: { id, revokedAt: null } })) > 0;
}
