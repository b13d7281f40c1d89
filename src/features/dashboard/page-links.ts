/**
 * Links between a dashboard's pages as Dashboard 2.0's flows write them. There a page is served at
 * `<ui-base path><page path>` (`/dashboard/audit-log`), so a markdown or text widget links to
 * another page with that URL or a relative one (`audit-log`). Here pages are served at
 * `/dashboard/<organization>/<page path>`: such a link is resolved as Dashboard 2.0 would resolve
 * it and, when it names a page of this dashboard, opens that page here.
 */

/** A base path as a prefix: "/dashboard/" → "/dashboard", "/" → "". */
function prefix(basePath: string): string {
  const p = basePath.trim().replace(/\/+$/, "");
  return p === "" || p.startsWith("/") ? p : `/${p}`;
}

const clean = (path: string) => `/${path.replace(/^\/+|\/+$/g, "")}`;

/**
 * The page path (as the dashboard's pages have it) that `href` opens on Dashboard 2.0, seen from
 * the page at `currentPath`; null for anything else (another site, another path, no such page).
 */
export function dashboardPageOfHref(href: string, basePath: string, currentPath: string, pagePaths: readonly string[]): string | null {
  const raw = href.trim();
  if (raw === "" || raw.startsWith("#")) return null;
  const origin = "http://dashboard.invalid";
  const base = prefix(basePath);
  let url: URL;
  let path: string;
  try {
    url = new URL(raw, `${origin}${base}${clean(currentPath)}`);
    path = decodeURIComponent(url.pathname);
  } catch {
    return null;
  }
  if (url.origin !== origin) return null;
  if (base && path !== base && !path.startsWith(`${base}/`)) return null;
  const rest = clean(path.slice(base.length));
  return pagePaths.find((p) => clean(p) === rest) ?? null;
}
