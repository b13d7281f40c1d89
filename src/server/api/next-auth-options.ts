import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import type { AppServices } from "../app-services";
import { toAppError } from "../errors";
import { browserSessionId, nextAuthSecret } from "../auth/browser-session";
import { recordAudit } from "../services/audit/record-audit";
import { SessionStore } from "../auth/session-store";
import { login } from "../services/accounts/login";
import { loginInput, type LoginSuccess } from "../services/accounts/account.schemas";
import { endSession } from "../services/accounts/tokens";
import { switchOrganization } from "../services/organizations/organizations";
import { switchOrganizationInput } from "../services/organizations/organization.schemas";
import { tokenPolicy } from "../../shared/policy";
import { requestMeta, type HeaderReader } from "./request-context";
import { markPageUnavailable } from "../http/page-outage";

/*
 * next-auth's options: a transport mount like trpc-handler.ts (src/app/api/auth/[...nextauth]/route.ts
 * serves them), calling the same account services as the API. Reading the session cookie on other
 * requests is src/server/auth/browser-session.ts.
 */

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
            const result = await login(app, parsed.data, requestMeta(headerReader(req)));
            if ("requires_mfa" in result) throw new Error(SIGN_IN_ERRORS.mfaRequired);
            return sessionUser(result);
          } catch (err) {
            if (err instanceof Error && err.message === SIGN_IN_ERRORS.mfaRequired) throw err;
            throw signInError(app, err);
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
          const header = headerReader(req);
          const organizationId = switchOrganizationInput.safeParse({ organization_id: credentials?.organization_id });
          if (!organizationId.success) throw new Error("VALIDATION_FAILED");
          const current = await browserSessionId(app, { cookie: header("cookie"), origin: header("origin") });
          if (!current) throw new Error("UNAUTHENTICATED");
          try {
            // The session itself, not the principal: the current organization may be the one just
            // deleted, and leaving it is exactly what the user wants to do.
            const session = await new SessionStore(app.store).get(current);
            if (!session) throw new Error("SESSION_REVOKED");
            const result = await switchOrganization(app, session.user_id, organizationId.data.organization_id, requestMeta(header));
            await endSession(app, session);
            return sessionUser(result);
          } catch (err) {
            if (err instanceof Error && err.message === "SESSION_REVOKED") throw err;
            throw signInError(app, err);
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
        if (!session) return;
        await endSession(app, session);
        // As POST /auth/logout records it (next-auth hands this event no request: the session's
        // own address stands for it).
        await recordAudit(app, { action: "user.logout", organizationId: session.organization_id, actorId: session.user_id, targetType: "session", targetId: session.id, ipAddress: session.ip_address });
      },
    },
  };
}

/**
 * A failed sign-in as next-auth passes it to the page: our code in `error` (RATE_LIMITED with its
 * seconds). An outage also makes the answer 503 with Retry-After instead of next-auth's 401
 * (src/server/http/page-outage.ts), so the page, and anything watching statuses, can tell.
 */
function signInError(app: AppServices, err: unknown): Error {
  const appError = toAppError(err);
  if (appError.code === "INTERNAL") app.logger.error({ err }, "browser sign-in failed");
  if (appError.code === "UNAVAILABLE") markPageUnavailable();
  return new Error(appError.code === "RATE_LIMITED" ? `RATE_LIMITED:${appError.headers?.["Retry-After"] ?? "60"}` : appError.code);
}

/** next-auth hands its callbacks a request whose headers are a plain object (or, at times, Headers). */
function headerReader(req: { headers?: Record<string, unknown> | Headers } | undefined): HeaderReader {
  const headers = req?.headers;
  return (name) => {
    if (!headers) return null;
    const value = headers instanceof Headers ? headers.get(name) : headers[name];
    // An empty header counts as absent, as it always has here ("unknown" IP, no Origin).
    return typeof value === "string" && value !== "" ? value : null;
  };
}
