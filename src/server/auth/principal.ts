import type { AuthDeps } from "./auth-deps";
import { AppError, rateLimited } from "../errors";
import type { RateLimiter } from "../store";
import type { MemberAccess } from "./access-cache";
import { credentialKeyOf, currentMembership } from "./membership";
import type { ApiKeyScope, Role } from "../permissions";
import { looksLikeJwt, verifyAccessToken, type JwtKeys } from "./jwt";
import { SessionStore, type SessionRecord } from "./session-store";
import { authenticateApiKey, isApiKeySecret } from "./api-key-auth";
import { credentialRound } from "./shared-rounds";

interface BasePrincipal {
  userId: string;
  email: string;
  organizationId: string;
  /** The user's current role in the organization (read per request, so a demotion bites at once). */
  role: Role;
  /**
   * The organization's flows generation (services/flows/flow-reads.ts), when it could be read in
   * this request's own store round trip: the organization was known before it (the access
   * token's claim, a key's or a session's organization, which never change) and turned out right.
   * Good for that request only: a principal kept longer (a WebSocket's) drops it.
   */
  flowsGeneration?: string;
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
  /** When the key stops working (ms since the epoch); null: never. */
  expiresAt: number | null;
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

export function appJwtKeys(app: Pick<AuthDeps, "config">): JwtKeys {
  return app.config.keys.jwt;
}

/** The membership through the access cache, valid for `generation` (read in the request's round trip). */
async function cachedMembership(app: Pick<AuthDeps, "access" | "db">, generation: string, userId: string, organizationId: string): Promise<MemberAccess | null> {
  const cached = app.access.member(generation, userId, organizationId);
  if (cached) return cached;
  const member = await currentMembership(app, userId, organizationId);
  if (member) app.access.rememberMember(generation, userId, organizationId, member);
  return member;
}

export interface ResolveOptions {
  /** Renews the session's idle timer (default true). */
  touch?: boolean;
  allowDeviceKeys?: boolean;
  /**
   * Consumes one point of this per-credential limit, in the same store round trip as the session
   * read; a refusal throws 429 once the credential itself has been accepted.
   */
  limit?: RateLimiter;
}

/** Credentials that name nobody at all: refused before anything is read or looked up. */
export function noCredentialError(credentials: Credentials): AppError | null {
  return credentials.authorization || credentials.apiKey || credentials.browserSessionId
    ? null
    : new AppError("UNAUTHENTICATED", "authentication required: send a bearer access token or an API key");
}

/**
 * The one place a request's credentials become a Principal, used by REST, tRPC and the WebSocket.
 * Every call checks the session (or key) and the membership, so revoking a session, removing a
 * member or revoking a key takes effect on the very next request: the session is read from the
 * store each time, and the membership through the access cache, whose generation is read in the
 * same round trip (access-cache.ts). A successful call renews the session's idle timer and records
 * last_accessed_at.
 */
export async function resolvePrincipal(app: AuthDeps, credentials: Credentials, options: ResolveOptions = {}): Promise<Principal> {
  const bearer = parseBearer(credentials.authorization);
  const keySecret = credentials.apiKey ?? (bearer !== undefined && !looksLikeJwt(bearer) ? bearer : undefined);
  if (keySecret !== undefined) {
    if (!isApiKeySecret(keySecret)) throw new AppError("TOKEN_INVALID", "API key is not valid");
    const principal = await authenticateApiKey(app, keySecret, options.limit);
    if (principal.keyKind === "device" && !options.allowDeviceKeys) {
      throw new AppError("FORBIDDEN", "device keys can only connect devices over /ws");
    }
    return principal;
  }

  let sessionId: string;
  let credential: SessionPrincipal["credential"];
  let claimedUser: string | undefined;
  let claimedOrganization: string | undefined;
  if (bearer !== undefined) {
    const claims = await verifyAccessToken(appJwtKeys(app), bearer);
    sessionId = claims.sid;
    claimedUser = claims.user_id;
    claimedOrganization = claims.organization_id;
    credential = "access_token";
  } else if (credentials.browserSessionId) {
    sessionId = credentials.browserSessionId;
    credential = "browser_session";
  } else {
    throw noCredentialError(credentials)!;
  }

  const sessions = new SessionStore(app.store);
  // A session belongs to one organization for its whole life: known up front from the token's
  // claim, or from an earlier request with this session, so its flows generation can come along.
  const organizationHint = claimedOrganization ?? app.access.sessionOrganization(sessionId);
  // One store round trip (one command on Redis): the session (renewed as it is read; undone below
  // by the revocation if the membership is gone), the access generation, the rate limit and the
  // flows generation.
  const touch = options.touch !== false;
  const limit = options.limit;
  const sessionRound = (count: number) => {
    const round = app.store.round();
    return Promise.all([
      touch ? sessions.getAndTouch(sessionId, undefined, round) : sessions.get(sessionId, undefined, round),
      app.access.current(round),
      limit?.consumeEach(credentialKeyOf(sessionId), count, round),
      organizationHint === undefined ? undefined : app.flowReads.current(organizationHint, round),
    ]);
  };
  // On Redis, this session's requests in flight together share one round sent after each of them
  // came (shared-rounds.ts): everything in it is the session's, so each request gets what its own
  // round would have said, its place in the rate limit included.
  const shared = await credentialRound(app.access.rounds, `s\n${sessionId}\n${touch ? 1 : 0}\n${organizationHint ?? ""}`, limit, sessionRound);
  const [session, generation, limits, flowsGeneration] = shared.value;
  const limited = limits?.[shared.index];
  if (!session || (claimedUser !== undefined && session.user_id !== claimedUser)) {
    throw new AppError("SESSION_REVOKED", "session has ended; log in again");
  }
  app.access.rememberSessionOrganization(session.id, session.organization_id);

  const member = await cachedMembership(app, generation, session.user_id, session.organization_id);
  if (!member) {
    // Removed from the organization (or deleted): the session is of no use any more.
    await sessions.revoke(session);
    throw new AppError("SESSION_REVOKED", "you are no longer a member of this organization; log in again");
  }
  if (limited && !limited.allowed) throw rateLimited(limited.retryAfterSec);
  return {
    kind: "session",
    userId: session.user_id,
    email: member.email,
    organizationId: session.organization_id,
    role: member.role,
    sessionId: session.id,
    credential,
    session,
    flowsGeneration: organizationHint === session.organization_id ? flowsGeneration : undefined,
  };
}


function parseBearer(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw new AppError("TOKEN_INVALID", "Authorization header must be 'Bearer <token>'");
  return m[1];
}
