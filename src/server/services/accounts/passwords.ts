import type { AppServices } from "../../app-services";
import { AppError } from "../../errors";
import { sha256 } from "../../ids";
import { hashPassword, verifyPassword } from "../../auth/password-hash";
import { checkPassword } from "../../auth/password-policy";
import { authLimiters, consumeOrThrow } from "../../auth/limits";
import { passwordChangedMail, passwordResetMail } from "../../mail/templates";
import { recordAudit } from "../audit/record-audit";
import type { User } from "../../../generated/prisma/client";
import { consumeEmailToken, issueEmailToken, revokeEmailTokens } from "./email-tokens";
import { displayName, findActiveUser, verifyPasswordCounted } from "./shared";
import type { RequestMeta } from "../request-meta";
import { endOtherSessions } from "./tokens";

const RESET_TTL_MS = 3600 * 1000;

function assertPolicy(password: string, user: Pick<User, "email" | "firstName" | "lastName">) {
  const policy = checkPassword(password, { email: user.email, firstName: user.firstName, lastName: user.lastName });
  if (!policy.ok) {
    throw new AppError("VALIDATION_FAILED", `new_password: ${policy.message}`, { details: [{ path: "new_password", message: policy.message }] });
  }
}

async function notifyChanged(app: AppServices, user: User, meta: Partial<RequestMeta>) {
  await app.mailer.send({ to: user.email, ...passwordChangedMail({ firstName: displayName(user), when: new Date(), ip: meta.ip === "unknown" ? null : meta.ip }) });
}

export async function changePassword(app: AppServices, userId: string, sessionId: string, input: { old_password: string; new_password: string }, meta: RequestMeta) {
  const user = await findActiveUser(app, userId);
  await verifyPasswordCounted(app, user, input.old_password, "old_password");
  assertPolicy(input.new_password, user);
  if (await verifyPassword(input.new_password, user.passwordHash)) {
    throw new AppError("VALIDATION_FAILED", "new_password: must differ from the current password", {
      details: [{ path: "new_password", message: "must differ from the current password" }],
    });
  }
  const passwordHash = await hashPassword(input.new_password, app.config.env.BCRYPT_COST);
  await app.db.prisma.user.update({ where: { id: user.id }, data: { passwordHash, passwordChangedAt: new Date() } });
  await endOtherSessions(app, user.id, sessionId);
  await recordAudit(app, { action: "user.password_changed", organizationId: user.lastOrganizationId, actorId: user.id, targetType: "user", targetId: user.id, ipAddress: meta.ip });
  await notifyChanged(app, user, meta);
  return { ok: true as const, message: "password changed; your other sessions have been logged out" };
}

/** Always accepted, whether or not the email has an account, so nobody can probe for accounts. */
export async function requestPasswordReset(app: AppServices, email: string, meta: RequestMeta) {
  const limits = authLimiters(app);
  await consumeOrThrow(limits.passwordResetPerIp, meta.ip);
  const accepted = { accepted: true as const, message: "if an account exists for this email, a reset link is on its way" };
  const perAccount = await limits.passwordResetPerAccount.consume(email);
  if (!perAccount.allowed) return accepted;
  const user = await app.db.prisma.user.findFirst({ where: { email, deletedAt: null } });
  if (!user) return accepted;
  await revokeEmailTokens(app, user.id, "password_reset");
  const token = await issueEmailToken(app, user.id, "password_reset", RESET_TTL_MS);
  const link = `${app.config.publicUrl}/reset-password?token=${encodeURIComponent(token)}`;
  await app.mailer.send({ to: user.email, ...passwordResetMail({ firstName: displayName(user), link, expiresInMinutes: RESET_TTL_MS / 60_000 }) });
  await recordAudit(app, { action: "user.password_reset_requested", organizationId: user.lastOrganizationId, actorId: user.id, targetType: "user", targetId: user.id, ipAddress: meta.ip });
  return accepted;
}

/**
 * Sets a new password from a mailed token. MFA stays on (a reset never bypasses it: the next login
 * still asks for the code) and every session ends.
 */
export async function confirmPasswordReset(app: AppServices, input: { token: string; new_password: string }, meta: RequestMeta) {
  await consumeOrThrow(authLimiters(app).passwordResetPerIp, meta.ip);
  // Check the new password before using up the link, so a refused password does not burn it.
  const pending = await app.db.prisma.emailToken.findUnique({ where: { tokenHash: sha256(input.token) }, include: { user: true } });
  if (pending?.purpose === "password_reset" && !pending.usedAt) assertPolicy(input.new_password, pending.user);
  const userId = await consumeEmailToken(app, input.token, "password_reset");
  const user = await findActiveUser(app, userId).catch(() => {
    throw new AppError("TOKEN_INVALID", "this link is not valid; request a new one");
  });
  const passwordHash = await hashPassword(input.new_password, app.config.env.BCRYPT_COST);
  // Proving control of the mailbox also verifies the email address.
  await app.db.prisma.user.update({
    where: { id: user.id },
    data: { passwordHash, passwordChangedAt: new Date(), emailVerifiedAt: user.emailVerifiedAt ?? new Date() },
  });
  await endOtherSessions(app, user.id);
  await recordAudit(app, { action: "user.password_reset", organizationId: user.lastOrganizationId, actorId: user.id, targetType: "user", targetId: user.id, ipAddress: meta.ip });
  await notifyChanged(app, user, meta);
  return { ok: true as const, message: "password changed; log in with your new password" };
}
