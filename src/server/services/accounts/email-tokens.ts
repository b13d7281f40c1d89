import type { AppServices } from "../../app-services";
import { AppError } from "../../errors";
import { newId, randomToken, sha256 } from "../../ids";

export type EmailTokenPurpose = "verify_email" | "password_reset";

/** Issues a single-use mail token (32 random bytes, base64url); only its SHA-256 is stored. */
export async function issueEmailToken(app: AppServices, userId: string, purpose: EmailTokenPurpose, ttlMs: number): Promise<string> {
  const token = randomToken(32);
  await app.db.prisma.emailToken.create({
    data: { id: newId("emt"), userId, purpose, tokenHash: sha256(token), expiresAt: new Date(Date.now() + ttlMs) },
  });
  return token;
}

/**
 * Marks a token used and returns its user. The conditional update is the single-use guarantee:
 * two concurrent confirmations of one token cannot both succeed.
 */
export async function consumeEmailToken(app: AppServices, token: string, purpose: EmailTokenPurpose): Promise<string> {
  const tokenHash = sha256(token);
  const now = new Date();
  const row = await app.db.prisma.emailToken.findUnique({ where: { tokenHash } });
  if (!row || row.purpose !== purpose) throw new AppError("TOKEN_INVALID", "this link is not valid; request a new one");
  if (row.usedAt) throw new AppError("TOKEN_INVALID", "this link has been used already; request a new one");
  if (row.expiresAt <= now) throw new AppError("TOKEN_EXPIRED", "this link has expired; request a new one");
  const { count } = await app.db.prisma.emailToken.updateMany({ where: { id: row.id, usedAt: null }, data: { usedAt: now } });
  if (count !== 1) throw new AppError("TOKEN_INVALID", "this link has been used already; request a new one");
  return row.userId;
}

/** Invalidates the user's outstanding tokens of one purpose (a new reset link replaces the old). */
export async function revokeEmailTokens(app: AppServices, userId: string, purpose: EmailTokenPurpose): Promise<void> {
  await app.db.prisma.emailToken.updateMany({ where: { userId, purpose, usedAt: null }, data: { usedAt: new Date() } });
}
