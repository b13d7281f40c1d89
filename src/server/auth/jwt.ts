import { createSecretKey, type KeyObject } from "node:crypto";
import jwt from "jsonwebtoken";
import { AppError } from "../errors";
import { newId, randomToken } from "../ids";
import { tokenPolicy } from "../../shared/policy";

/** The access token's claims: SEED.md's set plus `sid` (session), `jti` and `aud`. */
export interface AccessClaims {
  user_id: string;
  email: string;
  organization_id: string;
  role: string;
  token_type: "access";
  sid: string;
  jti: string;
  iss: string;
  aud: string;
  iat: number;
  exp: number;
}

// RFC 9068's media type for JWT access tokens: a token of another kind cannot pass for one.
const ACCESS_TYP = "at+jwt";

export interface JwtKeys {
  /** A KeyObject, not the raw bytes: given bytes, jsonwebtoken first tries (and fails) to parse
   * them as a public key on every call, an exception per request. */
  key: KeyObject;
  /**
   * Tokens this key has verified, by their exact text: a signature check gives the same answer for
   * the same bytes every time, so a client sending its token on every request pays for it once
   * (jsonwebtoken's verify was ~6 % of an authenticated request). Expiry is still checked on every
   * use; the session behind the token is still read on every request (principal.ts).
   */
  verified: Map<string, AccessClaims>;
}

const MAX_VERIFIED = 10_000;

export function jwtKeys(secret: string): JwtKeys {
  const key = Buffer.from(secret, "utf8");
  if (key.byteLength < 32) throw new Error("JWT secret must be at least 32 bytes");
  return { key: createSecretKey(key), verified: new Map() };
}

// Signing and verifying are synchronous HMACs on the calling thread (jsonwebtoken uses node:crypto
// directly). WebCrypto's async HMAC would queue behind bcrypt on libuv's thread pool, so a burst
// of logins would stall every authenticated request; this costs microseconds instead.

export async function signAccessToken(
  keys: JwtKeys,
  subject: { userId: string; email: string; organizationId: string; role: string; sessionId: string },
  now = Date.now(),
): Promise<{ token: string; expiresIn: number; claims: AccessClaims }> {
  const iat = Math.floor(now / 1000);
  const claims: AccessClaims = {
    user_id: subject.userId,
    email: subject.email,
    organization_id: subject.organizationId,
    role: subject.role,
    token_type: "access",
    sid: subject.sessionId,
    jti: newId("req").replace(/^req_/, ""),
    iss: tokenPolicy.issuer,
    aud: tokenPolicy.audience,
    iat,
    exp: iat + tokenPolicy.accessTokenTtlSec,
  };
  const token = jwt.sign({ ...claims }, keys.key, { algorithm: "HS256", header: { alg: "HS256", typ: ACCESS_TYP } });
  return { token, expiresIn: tokenPolicy.accessTokenTtlSec, claims };
}

/** True when the string looks like a JWT (three base64url parts), as opposed to an API key. */
export function looksLikeJwt(value: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]*$/.test(value);
}

/**
 * Verifies an access token: HS256 only (no `none`, no other algorithm), our issuer and audience,
 * the access-token `typ`, and `token_type: "access"`. Expired → TOKEN_EXPIRED; anything else → TOKEN_INVALID.
 */
export async function verifyAccessToken(keys: JwtKeys, token: string, now = Date.now()): Promise<AccessClaims> {
  const known = keys.verified.get(token);
  if (known) {
    // jsonwebtoken's rule: expired once the clock reaches `exp`.
    if (Math.floor(now / 1000) >= known.exp) {
      keys.verified.delete(token);
      throw new AppError("TOKEN_EXPIRED", "access token has expired; refresh it");
    }
    return known;
  }
  const claims = Object.freeze(verifyUncached(keys, token, now));
  if (keys.verified.size >= MAX_VERIFIED) keys.verified.clear();
  keys.verified.set(token, claims);
  return claims;
}

function verifyUncached(keys: JwtKeys, token: string, now: number): AccessClaims {
  let decoded: jwt.Jwt;
  try {
    decoded = jwt.verify(token, keys.key, {
      algorithms: ["HS256"],
      issuer: tokenPolicy.issuer,
      audience: tokenPolicy.audience,
      clockTimestamp: Math.floor(now / 1000),
      complete: true,
    });
  } catch (err) {
    if (err instanceof jwt.TokenExpiredError) throw new AppError("TOKEN_EXPIRED", "access token has expired; refresh it");
    throw new AppError("TOKEN_INVALID", "access token is invalid");
  }
  const payload = decoded.payload as Record<string, unknown>;
  if (decoded.header.typ !== ACCESS_TYP || payload.token_type !== "access") throw new AppError("TOKEN_INVALID", "not an access token");
  for (const claim of ["user_id", "email", "organization_id", "role", "sid", "jti"] as const) {
    if (typeof payload[claim] !== "string") throw new AppError("TOKEN_INVALID", "access token is malformed");
  }
  if (typeof payload.exp !== "number" || typeof payload.iat !== "number") throw new AppError("TOKEN_INVALID", "access token is malformed");
  return payload as unknown as AccessClaims;
}

// A refresh token's own media type: neither kind of token passes for the other.
const REFRESH_TYP = "rt+jwt";

/**
 * A refresh token (SEED: access and refresh tokens are JWTs signed with HMAC-SHA256): `sub` the
 * user, `sid` the session, `jti` 32 random bytes, `exp` the session's refresh limit. Its signature
 * keeps forged and garbled tokens away from the database; what makes it valid is its row (stored as
 * the SHA-256 of the whole text: rotation, reuse detection and revocation, services/accounts/tokens.ts).
 */
export function signRefreshToken(keys: JwtKeys, subject: { userId: string; sessionId: string; expiresAt: Date }, now = Date.now()): string {
  const payload = {
    token_type: "refresh",
    sub: subject.userId,
    sid: subject.sessionId,
    jti: randomToken(32),
    iss: tokenPolicy.issuer,
    aud: tokenPolicy.audience,
    iat: Math.floor(now / 1000),
    exp: Math.floor(subject.expiresAt.getTime() / 1000),
  };
  return jwt.sign(payload, keys.key, { algorithm: "HS256", header: { alg: "HS256", typ: REFRESH_TYP } });
}

/**
 * Whether the text is a refresh token this server signed: TOKEN_INVALID otherwise (an access
 * token included). Expiry is left to the stored row, which is checked after reuse: an expired
 * token presented again after its rotation still ends the session.
 */
export function verifyRefreshToken(keys: JwtKeys, token: string): { sub: string; sid: string } {
  let decoded: jwt.Jwt;
  try {
    decoded = jwt.verify(token, keys.key, { algorithms: ["HS256"], issuer: tokenPolicy.issuer, audience: tokenPolicy.audience, ignoreExpiration: true, complete: true });
  } catch {
    throw new AppError("TOKEN_INVALID", "refresh token is not valid");
  }
  const payload = decoded.payload as Record<string, unknown>;
  if (decoded.header.typ !== REFRESH_TYP || payload.token_type !== "refresh" || typeof payload.sub !== "string" || typeof payload.sid !== "string") {
    throw new AppError("TOKEN_INVALID", "refresh token is not valid");
  }
  return { sub: payload.sub, sid: payload.sid };
}
