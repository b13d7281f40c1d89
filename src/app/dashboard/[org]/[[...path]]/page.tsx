import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";
import { cache } from "react";
import { DashboardApp } from "@/features/dashboard/dashboard-app";
import { dashboardDocumentTitle } from "@/shared/dashboard";
import { serverCaller } from "@/trpc/server";

type Params = { params: Promise<{ org: string; path?: string[] }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

async function requested({ params, searchParams }: Params) {
  const { org, path } = await params;
  const query = await searchParams;
  const share = typeof query.share === "string" && query.share !== "" ? query.share : undefined;
  const pagePath = `/${(path ?? []).map((p) => decodeURIComponent(p)).join("/")}`;
  return { org, path, share, pagePath };
}

/** The request's caller (its session read once), and the page's view read once, for the page and its metadata. */
const callerOf = cache(serverCaller);
const viewOf = cache(async (org: string, pagePath: string, share: string | undefined) => {
  const { caller } = await callerOf();
  return caller.dashboards.page({ org_slug: org, path: pagePath, ...(share ? { share } : {}) });
});

/** The tab's title is the page's from the first byte (a client-set title could lose a race with Next's own). */
export async function generateMetadata(props: Params): Promise<Metadata> {
  const { org, share, pagePath } = await requested(props);
  try {
    return { title: { absolute: dashboardDocumentTitle(await viewOf(org, pagePath, share)) } };
  } catch {
    return { title: "Dashboard" };
  }
}

function trpcCode(err: unknown): string | null {
  const e = err as { name?: unknown; code?: unknown } | null;
  return e?.name === "TRPCError" && typeof e.code === "string" ? e.code : null;
}

async function firstPage(caller: Awaited<ReturnType<typeof serverCaller>>["caller"], org: string): Promise<string | null> {
  try {
    const { pages } = await caller.dashboards.list();
    // The list is the session's current organization: only its pages answer for this slug.
    const page = pages.find((p) => p.visible && p.url.includes(`/dashboard/${encodeURIComponent(org)}/`));
    return page ? page.path : null;
  } catch {
    return null;
  }
}

/**
 * A dashboard page (SPEC §21): `/dashboard/{org-slug}/{page path}`, for any member of the
 * organization (else 404, as for a page that does not exist), or anyone holding a share link's
 * `?share=` token; an anonymous visitor without one is sent to the login page. The first paint
 * is the server's view of the page (its durable widget state); the socket takes over from there.
 */
export default async function DashboardPage(props: Params) {
  const { org, path, share, pagePath } = await requested(props);
  const here = `/dashboard/${encodeURIComponent(org)}${(path ?? []).map((p) => `/${p}`).join("")}`;
  const login = `/login?callbackUrl=${encodeURIComponent(here).replace(/%2F/g, "/")}`;
  const { caller, signedIn } = await callerOf();
  if (!signedIn && !share) redirect(login);
  let view;
  try {
    view = await viewOf(org, pagePath, share);
  } catch (err) {
    const code = trpcCode(err);
    // `/dashboard/{org}` alone: the first page of the organization's first dashboard.
    if (code === "NOT_FOUND" && pagePath === "/" && signedIn && !share) {
      const first = await firstPage(caller, org);
      if (first) redirect(`/dashboard/${encodeURIComponent(org)}${first}`);
    }
    // A session that was revoked or expired: sign in again (a share link's visitor gets 404).
    if (code === "UNAUTHORIZED" && !share) redirect(login);
    if (code === "UNAUTHORIZED" || code === "NOT_FOUND" || code === "BAD_REQUEST" || code === "FORBIDDEN") notFound();
    throw err;
  }
  return <DashboardApp org={view.organization.slug} path={view.page.path} share={share ?? null} initialView={view} />;
}
