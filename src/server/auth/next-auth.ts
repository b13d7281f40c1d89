import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { getToken } from "next-auth/jwt";
import type { AppServices } from "../app-services";
import { deriveKey } from "./crypto";
import { toAppError } from "../errors";
import { login } from "../services/accounts/login";
import { loginInput, type LoginSuccess } from "../services/accounts/account.schemas";
import { endSession } from "../services/accounts/tokens";
import { SessionStore } from "./session-store";
import { CLIENT_IP_HEADER } from "../api/rest/client-ip";
import { tokenPolicy } from "../../shared/policy";
import { switchOrganization } from "../services/organizations/organizations";
import { switchOrganizationInput } from "../services/organizations/organization.schemas";

/** Error strings the login page understands (next-auth passes them through as `error`). */
export const SIGN_IN_ERRORS = {
  mfaRequired: "MFA_REQUIRED",
} as const;

/** What next-auth keeps of a login: the user, and our session id for its cookie. */
function sessionUser(result: LoginSuccess) {
  return {
    id: result.user.id,
    email: result.user.email,
    name: [result.user.first_name, result.user.last_name].filter(Boolean).join(" ") || result.user.email,
    sid: result.session_id,
    organizationId: result.user.organization_id,
    role: result.user.role,
  };
}

/** next-auth's secret is derived from JWT_SECRET, never a separate variable to configure. */
export function nextAuthSecret(app: AppServices): string {
  return deriveKey(app.config.secrets.jwtSecret, "next-auth-v1").toString("base64url");
}

function header(req: { headers?: Record<string, unknown> | Headers } | undefined, name: string): string {
  const headers = req?.headers;
  if (!headers) return "";
  if (headers instanceof Headers) return headers.get(name) ?? "";
  const value = headers[name];
  return typeof value === "string" ? value : "";
}

/**
 * The browser session: next-auth's credentials provider calls the same login service as the API
 * (MFA step included), and its cookie carries our session id, so revoking the session from any
 * device logs the browser out on its next request.
 */
export function buildAuthOptions(app: AppServices): NextAuthOptions {
  return {
    secret: nextAuthSecret(app),
    session: { strategy: "jwt", maxAge: tokenPolicy.sessionAbsoluteTtlSec },
    pages: { signIn: "/login", error: "/login" },
    useSecureCookies: app.config.publicUrl.startsWith("https://"),
    providers: [
      CredentialsProvider({
        name: "Email and password",
        credentials: {
          email: { label: "Email", type: "email" },
          password: { label: "Password", type: "password" },
          mfa_code: { label: "Authentication code", type: "text" },
          backup_code: { label: "Backup code", type: "text" },
        },
        async authorize(credentials, req) {
          const parsed = loginInput.safeParse({
            email: credentials?.email,
            password: credentials?.password,
            mfa_code: credentials?.mfa_code || undefined,
            backup_code: credentials?.backup_code || undefined,
          });
          if (!parsed.success) throw new Error("VALIDATION_FAILED");
          try {
            const result = await login(app, parsed.data, {
              ip: header(req, CLIENT_IP_HEADER) || "unknown",
              userAgent: header(req, "user-agent"),
            });
            if ("requires_mfa" in result) throw new Error(SIGN_IN_ERRORS.mfaRequired);
            return sessionUser(result);
          } catch (err) {
            if (err instanceof Error && err.message === SIGN_IN_ERRORS.mfaRequired) throw err;
            const appError = toAppError(err);
            if (appError.code === "INTERNAL") app.logger.error({ err }, "browser sign-in failed");
            throw new Error(appError.code === "RATE_LIMITED" ? `RATE_LIMITED:${appError.headers?.["Retry-After"] ?? "60"}` : appError.code);
          }
        },
      }),
      // Switching organization in the UI: a new session for the organization replaces the current
      // one (which ends), and the cookie follows.
      CredentialsProvider({
        id: "switch-organization",
        name: "Switch organization",
        credentials: { organization_id: { label: "Organization", type: "text" } },
        async authorize(credentials, req) {
          const organizationId = switchOrganizationInput.safeParse({ organization_id: credentials?.organization_id });
          if (!organizationId.success) throw new Error("VALIDATION_FAILED");
          const current = await browserSessionId(app, { cookie: header(req, "cookie"), origin: header(req, "origin") || null });
          if (!current) throw new Error("UNAUTHENTICATED");
          try {
            // The session itself, not the principal: the current organization may be the one just
            // deleted, and leaving it is exactly what the user wants to do.
            const session = await new SessionStore(app.store).get(current);
            if (!session) throw new Error("SESSION_REVOKED");
            const result = await switchOrganization(app, session.user_id, organizationId.data.organization_id, {
              ip: header(req, CLIENT_IP_HEADER) || "unknown",
              userAgent: header(req, "user-agent"),
            });
            await endSession(app, session);
            return sessionUser(result);
          } catch (err) {
            if (err instanceof Error && err.message === "SESSION_REVOKED") throw err;
            const appError = toAppError(err);
            throw new Error(appError.code === "RATE_LIMITED" ? `RATE_LIMITED:${appError.headers?.["Retry-After"] ?? "60"}` : appError.code);
          }
        },
      }),
    ],
    callbacks: {
      async jwt({ token, user }) {
        if (user) {
          const u = user as unknown as { id: string; sid: string; organizationId: string; role: string };
          token.sub = u.id;
          token.sid = u.sid;
          token.organizationId = u.organizationId;
          token.role = u.role;
        }
        return token;
      },
      async session({ session, token }) {
        // The UI learns who it is, never the session id itself.
        return { ...session, user: { ...session.user, id: token.sub, organizationId: token.organizationId, role: token.role } };
      },
    },
    events: {
      async signOut({ token }) {
        const sid = typeof token?.sid === "string" ? token.sid : undefined;
        if (!sid) return;
        const session = await new SessionStore(app.store).get(sid).catch(() => null);
        if (session) await endSession(app, session);
      },
    },
  };
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
export async function browserSessionId(app: AppServices, headers: { cookie?: string | null; origin?: string | null }): Promise<string | undefined> {
  if (!headers.cookie) return undefined;
  if (headers.origin && headers.origin !== new URL(app.config.publicUrl).origin) return undefined;
  const secureCookie = app.config.publicUrl.startsWith("https://");
  const cookies = parseCookieHeader(headers.cookie);
  // The session cookie's value (next-auth splits a large one into name.0, name.1, …).
  const name = secureCookie ? "__Secure-next-auth.session-token" : "next-auth.session-token";
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
const cookieMemos = new WeakMap<AppServices, CookieMemo>();
function cookieMemo(app: AppServices): CookieMemo {
  let memo = cookieMemos.get(app);
  if (!memo) cookieMemos.set(app, (memo = new Map()));
  return memo;
}
