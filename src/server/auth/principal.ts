import type { AppServices } from "../app";
import { AppError } from "../errors";
import { sha256 } from "../ids";
import { isRole, type ApiKeyScope, type Role } from "../permissions";
import { looksLikeJwt, verifyAccessToken, type JwtKeys } from "./jwt";
import { SessionStore, type SessionRecord } from "./sessions";
import { authenticateApiKey, isApiKeySecret } from "./api-keys";

interface BasePrincipal {
  userId: string;
  email: string;
  organizationId: string;
  /** The user's current role in the organization (read per request, so a demotion bites at once). */
  role: Role;
}

/** A signed-in user: an access token or the web UI's session cookie. */
export interface SessionPrincipal extends BasePrincipal {
  kind: "session";
  sessionId: string;
  credential: "access_token" | "browser_session";
  session: SessionRecord;
}

/** A program or device acting as the key's creator, bounded by the key's scopes. */
export interface ApiKeyPrincipal extends BasePrincipal {
  kind: "api_key";
  keyId: string;
  keyKind: "user" | "device";
  scopes: ApiKeyScope[];
}

export type Principal = SessionPrincipal | ApiKeyPrincipal;

export interface Credentials {
  /** The Authorization header as sent. */
  authorization?: string;
  /** The X-API-Key header as sent. */
  apiKey?: string;
  /** The session id carried by the web UI's next-auth session cookie (already verified by next-auth). */
  browserSessionId?: string;
}

export function appJwtKeys(app: AppServices): JwtKeys {
  return app.config.keys.jwt;
}

/** A stable, non-secret key for per-credential rate limits. */
export function credentialKey(principal: Principal): string {
  return sha256(principal.kind === "session" ? principal.sessionId : principal.keyId).slice(0, 32);
}

async function currentRole(app: AppServices, userId: string, organizationId: string): Promise<Role | null> {
  return (await currentMembership(app, userId, organizationId))?.role ?? null;
}

/** The user's email and current role in the organization, in one query; null when either is gone. */
async function currentMembership(app: AppServices, userId: string, organizationId: string): Promise<{ email: string; role: Role } | null> {
  const membership = await app.db.prisma.membership.findFirst({
    where: { userId, organizationId, user: { deletedAt: null }, organization: { deletedAt: null } },
    select: { role: true, user: { select: { email: true } } },
  });
  return membership && isRole(membership.role) ? { email: membership.user.email, role: membership.role } : null;
}

/**
 * The one place a request's credentials become a Principal, used by REST, tRPC and the WebSocket.
 * Every call checks the session (or key) and the membership, so revoking a session, removing a
 * member or revoking a key takes effect on the very next request. A successful call renews the
 * session's idle timer and records last_accessed_at.
 */
export async function resolvePrincipal(
  app: AppServices,
  credentials: Credentials,
  options: { touch?: boolean; allowDeviceKeys?: boolean } = {},
): Promise<Principal> {
  const bearer = parseBearer(credentials.authorization);
  const keySecret = credentials.apiKey ?? (bearer !== undefined && !looksLikeJwt(bearer) ? bearer : undefined);
  if (keySecret !== undefined) {
    if (!isApiKeySecret(keySecret)) throw new AppError("TOKEN_INVALID", "API key is not valid");
    const principal = await authenticateApiKey(app, keySecret);
    if (principal.keyKind === "device" && !options.allowDeviceKeys) {
      throw new AppError("FORBIDDEN", "device keys can only connect devices over /ws");
    }
    return principal;
  }

  const sessions = new SessionStore(app.store);
  // The read renews the session in the same round trip (undone below by the revocation if the
  // membership is gone).
  const read = (id: string) => (options.touch === false ? sessions.get(id) : sessions.getAndTouch(id));
  let session: SessionRecord | null;
  let credential: SessionPrincipal["credential"];
  if (bearer !== undefined) {
    const claims = await verifyAccessToken(appJwtKeys(app), bearer);
    session = await read(claims.sid);
    if (!session || session.user_id !== claims.user_id) throw new AppError("SESSION_REVOKED", "session has ended; log in again");
    credential = "access_token";
  } else if (credentials.browserSessionId) {
    session = await read(credentials.browserSessionId);
    if (!session) throw new AppError("SESSION_REVOKED", "session has ended; log in again");
    credential = "browser_session";
  } else {
    throw new AppError("UNAUTHENTICATED", "authentication required: send a bearer access token or an API key");
  }

  const member = await currentMembership(app, session.user_id, session.organization_id);
  if (!member) {
    // Removed from the organization (or deleted): the session is of no use any more.
    await sessions.revoke(session);
    throw new AppError("SESSION_REVOKED", "you are no longer a member of this organization; log in again");
  }
  return {
    kind: "session",
    userId: session.user_id,
    email: member.email,
    organizationId: session.organization_id,
    role: member.role,
    sessionId: session.id,
    credential,
    session,
  };
}

export { currentRole };

function parseBearer(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw new AppError("TOKEN_INVALID", "Authorization header must be 'Bearer <token>'");
  return m[1];
}
