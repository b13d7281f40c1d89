import type { AppServices } from "../app";
import { AppError } from "../errors";
import { sha256 } from "../ids";
import { isRole, type Role } from "../permissions";
import { jwtKeys, looksLikeJwt, verifyAccessToken, type JwtKeys } from "./jwt";
import { SessionStore, type SessionRecord } from "./sessions";

/** Who is calling: the same shape whether the credential was a bearer token or the UI's session. */
export interface Principal {
  kind: "user";
  userId: string;
  email: string;
  organizationId: string;
  role: Role;
  sessionId: string;
  credential: "access_token" | "browser_session";
  session: SessionRecord;
}

export interface Credentials {
  /** The Authorization header as sent. */
  authorization?: string;
  /** The X-API-Key header as sent. */
  apiKey?: string;
  /** The session id carried by the web UI's next-auth session cookie (already verified by next-auth). */
  browserSessionId?: string;
}

const keysCache = new WeakMap<AppServices, JwtKeys>();

export function appJwtKeys(app: AppServices): JwtKeys {
  let keys = keysCache.get(app);
  if (!keys) {
    keys = jwtKeys(app.config.secrets.jwtSecret);
    keysCache.set(app, keys);
  }
  return keys;
}

/** A stable, non-secret key for per-credential rate limits. */
export function credentialKey(principal: Principal): string {
  return sha256(principal.sessionId).slice(0, 32);
}

/**
 * The one place a request's credentials become a Principal, used by REST, tRPC and the WebSocket.
 * Every call checks the session in the store, so a revoked session stops working at once; a
 * successful call renews the session's idle timer and records last_accessed_at.
 */
export async function resolvePrincipal(app: AppServices, credentials: Credentials, options: { touch?: boolean } = {}): Promise<Principal> {
  const sessions = new SessionStore(app.store);
  const bearer = parseBearer(credentials.authorization);
  if (credentials.apiKey !== undefined || (bearer !== undefined && !looksLikeJwt(bearer))) {
    throw new AppError("TOKEN_INVALID", "API key is not valid");
  }

  let session: SessionRecord | null;
  let email: string;
  let credential: Principal["credential"];
  if (bearer !== undefined) {
    const claims = await verifyAccessToken(appJwtKeys(app), bearer);
    session = await sessions.get(claims.sid);
    if (!session || session.user_id !== claims.user_id) throw new AppError("SESSION_REVOKED", "session has ended; log in again");
    email = claims.email;
    credential = "access_token";
  } else if (credentials.browserSessionId) {
    session = await sessions.get(credentials.browserSessionId);
    if (!session) throw new AppError("SESSION_REVOKED", "session has ended; log in again");
    const user = await app.db.prisma.user.findFirst({ where: { id: session.user_id, deletedAt: null }, select: { email: true } });
    if (!user) throw new AppError("SESSION_REVOKED", "session has ended; log in again");
    email = user.email;
    credential = "browser_session";
  } else {
    throw new AppError("UNAUTHENTICATED", "authentication required: send a bearer access token or an API key");
  }

  if (options.touch !== false) session = await sessions.touch(session);
  const role = session.role;
  if (!isRole(role)) throw new AppError("SESSION_REVOKED", "session has ended; log in again");
  return {
    kind: "user",
    userId: session.user_id,
    email,
    organizationId: session.organization_id,
    role,
    sessionId: session.id,
    credential,
    session,
  };
}

function parseBearer(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw new AppError("TOKEN_INVALID", "Authorization header must be 'Bearer <token>'");
  return m[1];
}
