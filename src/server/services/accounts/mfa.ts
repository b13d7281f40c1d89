import type { AppServices } from "../../app-services";
import { AppError } from "../../errors";
import { newId } from "../../ids";
import type { User } from "../../../generated/prisma/client";
import { decryptSecret, encryptSecret } from "../../auth/crypto";
import { createTotpSecret, totpQrDataUrl, totpUri, verifyTotp } from "../../auth/totp";
import { generateBackupCodes, hashBackupCode, normalizeBackupCode } from "../../auth/backup-codes";
import { authLimiters, ensureNotExhausted } from "../../auth/limits";
import { mfaChangedMail } from "../../mail/templates";
import { recordAudit } from "../audit/record-audit";
import { accountKeys, displayName, findActiveUser, verifyPasswordCounted } from "./shared";
import type { RequestMeta } from "../request-meta";
import { endOtherSessions } from "./tokens";

export type SecondFactor = { mfaCode?: string; backupCode?: string };

/** Classifies a free-form code field: six digits are a TOTP code, anything else a backup code. */
export function splitCode(code: string): SecondFactor {
  const compact = code.replace(/\s/g, "");
  return /^\d{6}$/.test(compact) ? { mfaCode: compact } : { backupCode: code };
}

async function checkTotp(app: AppServices, user: User, code: string, encryptedSecret: string | null): Promise<boolean> {
  if (!encryptedSecret) return false;
  const secret = decryptSecret(encryptedSecret, accountKeys(app).mfa);
  const result = verifyTotp(secret, code, { lastStep: user.mfaLastStep === null ? null : Number(user.mfaLastStep) });
  if (!result.ok) return false;
  // Only a later step than the last accepted one may pass: the conditional update makes a replay
  // (or two concurrent uses of one code) fail even across instances.
  const { count } = await app.db.prisma.user.updateMany({
    where: { id: user.id, OR: [{ mfaLastStep: null }, { mfaLastStep: { lt: BigInt(result.step) } }] },
    data: { mfaLastStep: BigInt(result.step) },
  });
  return count === 1;
}

async function redeemBackupCode(app: AppServices, user: User, input: string): Promise<boolean> {
  const code = normalizeBackupCode(input);
  if (!code) return false;
  const { count } = await app.db.prisma.backupCode.updateMany({
    where: { userId: user.id, codeHash: hashBackupCode(code, accountKeys(app).backupPepper), usedAt: null },
    data: { usedAt: new Date() },
  });
  return count === 1;
}

/**
 * Checks a second factor for a user with MFA on, with the per-account limit on wrong codes (a
 * success resets it). Throws MFA_INVALID or RATE_LIMITED.
 */
export async function verifySecondFactor(app: AppServices, user: User, factor: SecondFactor, meta: RequestMeta & { organizationId?: string | null }): Promise<void> {
  const limiter = authLimiters(app).mfaFailuresPerAccount;
  await ensureNotExhausted(limiter, user.id);
  let ok = false;
  if (factor.mfaCode) ok = await checkTotp(app, user, factor.mfaCode.replace(/\s/g, ""), user.mfaSecret);
  else if (factor.backupCode) {
    ok = await redeemBackupCode(app, user, factor.backupCode);
    // At login the request has no organization yet: the user's last one, as a failed code's entry.
    if (ok) await recordAudit(app, { action: "user.backup_code_used", organizationId: meta.organizationId ?? user.lastOrganizationId, actorId: user.id, targetType: "user", targetId: user.id, ipAddress: meta.ip });
  }
  if (!ok) {
    await limiter.consume(user.id);
    await recordAudit(app, { action: "user.mfa_failed", organizationId: meta.organizationId ?? user.lastOrganizationId, actorId: user.id, targetType: "user", targetId: user.id, ipAddress: meta.ip });
    throw new AppError("MFA_INVALID", "the authentication code is not valid");
  }
  await limiter.reset(user.id);
}

async function replaceBackupCodes(app: AppServices, userId: string, tx = app.db.prisma): Promise<string[]> {
  const codes = generateBackupCodes(8);
  const pepper = accountKeys(app).backupPepper;
  await tx.backupCode.deleteMany({ where: { userId } });
  await tx.backupCode.createMany({ data: codes.map((code) => ({ id: newId("bkc"), userId, codeHash: hashBackupCode(code, pepper) })) });
  return codes;
}

async function notify(app: AppServices, user: User, enabled: boolean, meta: RequestMeta) {
  await app.mailer.send({ to: user.email, ...mfaChangedMail({ firstName: displayName(user), enabled, when: new Date(), ip: meta.ip }) });
}

export async function setupMfa(app: AppServices, userId: string, password: string) {
  const user = await findActiveUser(app, userId);
  await verifyPasswordCounted(app, user, password);
  if (user.mfaEnabled) throw new AppError("MFA_ALREADY_ENABLED", "MFA is enabled already; disable it first to enrol a new authenticator");
  const secret = createTotpSecret();
  await app.db.prisma.user.update({ where: { id: user.id }, data: { mfaPendingSecret: encryptSecret(secret, accountKeys(app).mfa) } });
  const otpauthUrl = totpUri({ secret, accountName: user.email, issuer: "Flowplane" });
  return { secret, otpauth_url: otpauthUrl, qr_code: await totpQrDataUrl(otpauthUrl) };
}

export async function enableMfa(app: AppServices, userId: string, sessionId: string, code: string, meta: RequestMeta) {
  const user = await findActiveUser(app, userId);
  if (user.mfaEnabled) throw new AppError("MFA_ALREADY_ENABLED", "MFA is enabled already");
  if (!user.mfaPendingSecret) throw new AppError("MFA_NOT_ENABLED", "start the MFA setup first (POST /auth/mfa/setup)");
  const limiter = authLimiters(app).mfaFailuresPerAccount;
  await ensureNotExhausted(limiter, user.id);
  if (!(await checkTotp(app, user, code.replace(/\s/g, ""), user.mfaPendingSecret))) {
    await limiter.consume(user.id);
    throw new AppError("MFA_INVALID", "the authentication code is not valid");
  }
  await limiter.reset(user.id);
  const codes = await app.db.prisma.$transaction(async (tx) => {
    await tx.user.update({ where: { id: user.id }, data: { mfaEnabled: true, mfaSecret: user.mfaPendingSecret, mfaPendingSecret: null } });
    return replaceBackupCodes(app, user.id, tx as typeof app.db.prisma);
  });
  await endOtherSessions(app, user.id, sessionId);
  await recordAudit(app, { action: "user.mfa_enabled", organizationId: user.lastOrganizationId, actorId: user.id, targetType: "user", targetId: user.id, ipAddress: meta.ip });
  await notify(app, user, true, meta);
  return { backup_codes: codes };
}

export async function disableMfa(app: AppServices, userId: string, sessionId: string, input: { password: string; code: string }, meta: RequestMeta) {
  const user = await findActiveUser(app, userId);
  if (!user.mfaEnabled) throw new AppError("MFA_NOT_ENABLED", "MFA is not enabled");
  await verifyPasswordCounted(app, user, input.password);
  await verifySecondFactor(app, user, splitCode(input.code), meta);
  await app.db.prisma.$transaction([
    app.db.prisma.user.update({ where: { id: user.id }, data: { mfaEnabled: false, mfaSecret: null, mfaPendingSecret: null, mfaLastStep: null } }),
    app.db.prisma.backupCode.deleteMany({ where: { userId: user.id } }),
  ]);
  await endOtherSessions(app, user.id, sessionId);
  await recordAudit(app, { action: "user.mfa_disabled", organizationId: user.lastOrganizationId, actorId: user.id, targetType: "user", targetId: user.id, ipAddress: meta.ip });
  await notify(app, user, false, meta);
  return { ok: true as const, message: "MFA is disabled" };
}

export async function regenerateBackupCodes(app: AppServices, userId: string, code: string, meta: RequestMeta) {
  const user = await findActiveUser(app, userId);
  if (!user.mfaEnabled) throw new AppError("MFA_NOT_ENABLED", "MFA is not enabled");
  await verifySecondFactor(app, user, splitCode(code), meta);
  const codes = await app.db.prisma.$transaction(async (tx) => replaceBackupCodes(app, user.id, tx as typeof app.db.prisma));
  await recordAudit(app, { action: "user.backup_codes_regenerated", organizationId: user.lastOrganizationId, actorId: user.id, targetType: "user", targetId: user.id, ipAddress: meta.ip });
  return { backup_codes: codes };
}
