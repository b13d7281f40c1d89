import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";
import { DashboardApp } from "@/features/dashboard/dashboard-app";
import { serverCaller } from "@/trpc/server";

export const metadata: Metadata = { title: "Dashboard" };

function trpcCode(err: unknown): string | null {
  const e = err as { name?: unknown; code?: unknown } | null;
  return e?.name === "TRPCError" && typeof e.code === "string" ? e.code : null;
}

/**
 * A dashboard page (SPEC §21): `/dashboard/{org-slug}/{page path}`, for any member of the
 * organization (else 404, as for a page that does not exist), or anyone holding a share link's
 * `?share=` token; an anonymous visitor without one is sent to the login page. The first paint
 * is the server's view of the page (its durable widget state); the socket takes over from there.
 */
export default async function DashboardPage({ params, searchParams }: { params: Promise<{ org: string; path?: string[] }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { org, path } = await params;
  const query = await searchParams;
  const share = typeof query.share === "string" && query.share !== "" ? query.share : undefined;
  const pagePath = `/${(path ?? []).map((p) => decodeURIComponent(p)).join("/")}`;
  const here = `/dashboard/${encodeURIComponent(org)}${(path ?? []).map((p) => `/${p}`).join("")}`;
  const login = `/login?callbackUrl=${encodeURIComponent(here).replace(/%2F/g, "/")}`;
  const { caller, signedIn } = await serverCaller();
  if (!signedIn && !share) redirect(login);
  let view;
  try {
    view = await caller.dashboards.page({ org_slug: org, path: pagePath, ...(share ? { share } : {}) });
  } catch (err) {
    const code = trpcCode(err);
    // A session that was revoked or expired: sign in again (a share link's visitor gets 404).
    if (code === "UNAUTHORIZED" && !share) redirect(login);
    if (code === "UNAUTHORIZED" || code === "NOT_FOUND" || code === "BAD_REQUEST" || code === "FORBIDDEN") notFound();
    throw err;
  }
  return <DashboardApp org={view.organization.slug} path={view.page.path} share={share ?? null} initialView={view} />;
}
