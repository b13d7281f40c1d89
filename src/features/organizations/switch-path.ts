/**
 * Where to continue in the other organization: the same section when it exists there too (the
 * settings pages, the flow list), else the organization's settings. A page about one resource
 * (a flow, an invitation) belongs to the organization left behind.
 */
export function pathAfterSwitch(pathname: string): string {
  if (/^\/flows\/[^/]+/.test(pathname)) return "/flows";
  if (pathname === "/flows" || pathname.startsWith("/settings/") || pathname.startsWith("/account/")) return pathname;
  return "/settings/organization";
}
