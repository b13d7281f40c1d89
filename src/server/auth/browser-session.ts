import { getToken } from "next-auth/jwt";
import type { AuthDeps } from "./auth-deps";
import { deriveKey } from "./crypto";

/*
 * The browser session as every transport reads it (REST, tRPC, the WebSocket hub, server
 * components): next-auth's cookie carries our session id. No use cases here: the options next-auth
 * signs in with, which call the login services, are src/server/api/next-auth-options.ts.
 */

/** next-auth's secret is derived from JWT_SECRET, never a separate variable to configure. */
export function nextAuthSecret(app: Pick<AuthDeps, "config">): string {
  return deriveKey(app.config.secrets.jwtSecret, "next-auth-v1").toString("base64url");
}

function parseCookieHeader(header: string): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of header.split(";")) {
    const i = part.indexOf("=");
    if (i < 0) continue;
    const name = part.slice(0, i).trim();
    if (!name || name in cookies) continue;
    try {
      cookies[name] = decodeURIComponent(part.slice(i + 1).trim());
    } catch {
      cookies[name] = part.slice(i + 1).trim();
    }
  }
  return cookies;
}

/**
 * The session id in a request's next-auth cookie, if it carries a valid one and the request comes
 * from our own origin (cookies ride along on cross-site requests; the Origin check stops CSRF).
 */
/** next-auth's session cookie (`__Secure-` before it on https). */
export const SESSION_COOKIE = "next-auth.session-token";

export async function browserSessionId(app: Pick<AuthDeps, "config">, headers: { cookie?: string | null; origin?: string | null }): Promise<string | undefined> {
  if (!headers.cookie) return undefined;
  if (headers.origin && headers.origin !== new URL(app.config.publicUrl).origin) return undefined;
  const secureCookie = app.config.publicUrl.startsWith("https://");
  const cookies = parseCookieHeader(headers.cookie);
  // The session cookie's value (next-auth splits a large one into name.0, name.1, …).
  const name = secureCookie ? `__Secure-${SESSION_COOKIE}` : SESSION_COOKIE;
  const value = Object.keys(cookies)
    .filter((k) => k === name || k.startsWith(`${name}.`))
    .sort()
    .map((k) => cookies[k])
    .join("|");
  if (!value) return undefined;
  // Decrypting the cookie (an HKDF on libuv's thread pool, then AES-GCM) is a pure function of its
  // value: remember the answer until the cookie's own expiry. Whether the session still exists is
  // checked by the caller on every request, so a revocation bites as before.
  const memo = cookieMemo(app);
  const now = Date.now();
  const known = memo.get(value);
  if (known && known.expiresAt > now) return known.sid;
  // next-auth's getToken reads parsed `req.cookies`, never the raw Cookie header.
  const token = await getToken({
    req: { cookies, headers: {} } as unknown as Parameters<typeof getToken>[0]["req"],
    secret: nextAuthSecret(app),
    secureCookie,
  });
  const sid = typeof token?.sid === "string" ? token.sid : undefined;
  const exp = typeof token?.exp === "number" ? token.exp * 1000 : 0;
  if (sid && exp > now) {
    if (memo.size >= COOKIE_MEMO_MAX) memo.delete(memo.keys().next().value!);
    memo.set(value, { sid, expiresAt: exp });
  }
  return sid;
}

const COOKIE_MEMO_MAX = 10_000;
type CookieMemo = Map<string, { sid: string; expiresAt: number }>;
// Keyed by the app (one per process); a second copy of this module in a Next bundle keeps a
// second memo, which only costs a decryption more.
const cookieMemos = new WeakMap<object, CookieMemo>();
function cookieMemo(app: object): CookieMemo {
  let memo = cookieMemos.get(app);
  if (!memo) cookieMemos.set(app, (memo = new Map()));
  return memo;
}
