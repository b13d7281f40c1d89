import type { AppServices } from "../../app";
import { AppError } from "../../errors";
import type { User } from "../../../generated/prisma/client";

/** Who asked, as services see it: no request object, just the facts they record. */
export interface RequestMeta {
  ip: string;
  userAgent: string;
}

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
