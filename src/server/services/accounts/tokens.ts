import type { AppServices } from "../../app-services";
import { AppError } from "../../errors";
import { newId, sha256 } from "../../ids";
import { signAccessToken, signRefreshToken, verifyRefreshToken } from "../../auth/jwt";
import { appJwtKeys } from "../../auth/principal";
import { SessionStore } from "../../auth/session-store";
import { tokenPolicy } from "../../../shared/policy";
import type { User } from "../../../generated/prisma/client";
import type { LoginSuccess } from "./account.schemas";
import { recordAudit } from "../audit/record-audit";
import { authLimiters, consumeOrThrow } from "../../auth/limits";
import type { RequestMeta } from "../request-meta";

/** Starts a session for the user in the organization and issues its first token pair. */
export async function startSession(
  app: AppServices,
  user: User,
  membership: { organizationId: string; role: string },
  meta: RequestMeta,
): Promise<LoginSuccess> {
  const session = await new SessionStore(app.store).create({
    userId: user.id,
    organizationId: membership.organizationId,
    role: membership.role,
    ip: meta.ip,
    userAgent: meta.userAgent,
  });
  const expiresAt = new Date(Date.parse(session.created_at) + tokenPolicy.refreshTokenTtlSec * 1000);
  const refreshToken = signRefreshToken(appJwtKeys(app), { userId: user.id, sessionId: session.id, expiresAt });
  await app.db.prisma.refreshToken.create({
    data: { id: newId("rft"), sessionId: session.id, userId: user.id, tokenHash: sha256(refreshToken), expiresAt },
  });
  const access = await signAccessToken(appJwtKeys(app), {
    userId: user.id,
    email: user.email,
    organizationId: membership.organizationId,
    role: membership.role,
    sessionId: session.id,
  });
  return {
    access_token: access.token,
    refresh_token: refreshToken,
    session_id: session.id,
    token_type: "Bearer",
    expires_in: access.expiresIn,
    user: {
      id: user.id,
      email: user.email,
      first_name: user.firstName,
      last_name: user.lastName,
      organization_id: membership.organizationId,
      role: membership.role,
    },
  };
}

/**
 * Exchanges a refresh token for a new pair. Tokens rotate with no grace window: the conditional
 * update lets exactly one exchange win; presenting a token that was already exchanged is treated
 * as theft and ends the whole session.
 */
export async function refreshTokens(app: AppServices, refreshToken: string, meta: RequestMeta) {
  // When this token was presented: a rotation later than this is a concurrent exchange, not a replay.
  const presentedAt = Date.now();
  await consumeOrThrow(authLimiters(app).refreshPerIp, meta.ip);
  const prisma = app.db.prisma;
  const sessions = new SessionStore(app.store);
  // Our signature first: garbage, forgeries and access tokens never reach the database.
  const claims = verifyRefreshToken(appJwtKeys(app), refreshToken);
  const row = await prisma.refreshToken.findUnique({ where: { tokenHash: sha256(refreshToken) } });
  if (!row || row.sessionId !== claims.sid || row.userId !== claims.sub) throw new AppError("TOKEN_INVALID", "refresh token is not valid");

  const endSessionForReuse = async () => {
    await sessions.revoke({ id: row.sessionId, user_id: row.userId });
    await prisma.refreshToken.deleteMany({ where: { sessionId: row.sessionId } });
    await recordAudit(app, { action: "user.refresh_token_reused", actorId: row.userId, targetType: "session", targetId: row.sessionId, ipAddress: meta.ip });
    return new AppError("TOKEN_REUSED", "refresh token was used already; the session has been ended for safety");
  };
  if (row.rotatedAt) {
    // Rotated after this request began (two tabs refreshing at once, the other one first): when this
    // one was presented the token was still current, so it is not a replay. It stops working at once
    // all the same (no grace window): refused, and the session the winner renewed is left alone.
    // Recorded: a thief's copy presented with the owner's refresh lands here too, and is told apart only by its address.
    if (row.rotatedAt.getTime() >= presentedAt) {
      await recordAudit(app, { action: "user.refresh_token_raced", actorId: row.userId, targetType: "session", targetId: row.sessionId, ipAddress: meta.ip });
      throw new AppError("TOKEN_REUSED", "refresh token was used already");
    }
    throw await endSessionForReuse();
  }
  if (row.expiresAt <= new Date()) throw new AppError("TOKEN_EXPIRED", "refresh token has expired; log in again");

  const session = await sessions.get(row.sessionId);
  if (!session) throw new AppError("SESSION_REVOKED", "session has ended; log in again");
  const user = await prisma.user.findFirst({ where: { id: row.userId, deletedAt: null } });
  if (!user) throw new AppError("SESSION_REVOKED", "session has ended; log in again");

  const { count } = await prisma.refreshToken.updateMany({ where: { id: row.id, rotatedAt: null }, data: { rotatedAt: new Date() } });
  // Lost a race with a concurrent exchange of the same token: the other one won; this one is refused
  // without ending the session (the winner's renewal is a compare-and-set and would find it gone).
  // A later replay of the token still reads rotatedAt above and ends the session.
  if (count !== 1) {
    await recordAudit(app, { action: "user.refresh_token_raced", actorId: row.userId, targetType: "session", targetId: row.sessionId, ipAddress: meta.ip });
    throw new AppError("TOKEN_REUSED", "refresh token was used already");
  }

  const next = signRefreshToken(appJwtKeys(app), { userId: row.userId, sessionId: row.sessionId, expiresAt: row.expiresAt });
  await prisma.refreshToken.create({
    data: { id: newId("rft"), sessionId: row.sessionId, userId: row.userId, tokenHash: sha256(next), parentId: row.id, expiresAt: row.expiresAt },
  });
  const touched = await sessions.touch(session);
  if (!touched) throw new AppError("SESSION_REVOKED", "session has ended; log in again");
  const access = await signAccessToken(appJwtKeys(app), {
    userId: user.id,
    email: user.email,
    organizationId: touched.organization_id,
    role: touched.role,
    sessionId: touched.id,
  });
  return { access_token: access.token, refresh_token: next, token_type: "Bearer" as const, expires_in: access.expiresIn };
}

/** Ends one session: its store record and its refresh tokens. */
export async function endSession(app: AppServices, session: { id: string; user_id: string }): Promise<void> {
  await new SessionStore(app.store).revoke(session);
  await app.db.prisma.refreshToken.deleteMany({ where: { sessionId: session.id } });
}

/** Ends every session of the user but `except`. */
export async function endOtherSessions(app: AppServices, userId: string, except?: string): Promise<void> {
  await new SessionStore(app.store).revokeAllForUser(userId, { except });
  await app.db.prisma.refreshToken.deleteMany({ where: { userId, ...(except ? { sessionId: { not: except } } : {}) } });
}
