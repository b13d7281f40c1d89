import type { AppServices } from "../../app-services";
import { AppError } from "../../errors";
import { verifyPassword } from "../../auth/password-hash";
import { authLimiters, ensureNotExhausted } from "../../auth/limits";
import type { User } from "../../../generated/prisma/client";

export function userSummaryView(user: User) {
  return {
    id: user.id,
    email: user.email,
    first_name: user.firstName,
    last_name: user.lastName,
    email_verified: user.emailVerifiedAt !== null,
  };
}

export function profileView(user: User) {
  return {
    ...userSummaryView(user),
    avatar_url: user.avatarUrl,
    locale: user.locale,
    timezone: user.timezone,
    mfa_enabled: user.mfaEnabled,
    created_at: user.createdAt.toISOString(),
  };
}

export async function findActiveUser(app: AppServices, userId: string): Promise<User> {
  const user = await app.db.prisma.user.findFirst({ where: { id: userId, deletedAt: null } });
  if (!user) throw new AppError("SESSION_REVOKED", "account no longer exists");
  return user;
}

/** Keys derived from ENCRYPTION_KEY: one encrypts TOTP secrets, one peppers backup-code hashes. */
export function accountKeys(app: AppServices) {
  return app.config.keys;
}

export function displayName(user: Pick<User, "firstName" | "email">): string {
  return user.firstName || user.email.split("@")[0]!;
}

/**
 * Re-checks the password of a signed-in user (change password, MFA setup and disable, account
 * deletion) under the same per-account failure limit as login: a stolen session cannot guess the
 * password at bcrypt speed. 429 once the account's failures are exhausted; a wrong password counts.
 */
export async function verifyPasswordCounted(app: AppServices, user: User, password: string, field = "password"): Promise<void> {
  const limiter = authLimiters(app).loginFailuresPerAccount;
  await ensureNotExhausted(limiter, user.email);
  if (await verifyPassword(password, user.passwordHash)) return;
  await limiter.consume(user.email);
  throw new AppError("INVALID_CREDENTIALS", `${field} is not correct`);
}
