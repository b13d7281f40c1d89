import type { AppServices } from "../../app-services";
import { AppError } from "../../errors";
import { burnPasswordCheck, verifyPassword } from "../../auth/password-hash";
import { authLimiters, consumeOrThrow, ensureNotExhausted } from "../../auth/limits";
import { recordAudit } from "../audit/record-audit";
import type { LoginInput, LoginOutput } from "./account.schemas";
import type { RequestMeta } from "../request-meta";
import { verifySecondFactor } from "./mfa";
import { startSession } from "./tokens";

const invalid = () => new AppError("INVALID_CREDENTIALS", "email or password is not correct");

/** Picks the organization: the one asked for (must be a member), else the most recently used. */
async function chooseMembership(app: AppServices, user: { id: string; lastOrganizationId: string | null }, requested?: string) {
  const memberships = await app.db.prisma.membership.findMany({
    where: { userId: user.id, organization: { deletedAt: null } },
    orderBy: { createdAt: "asc" },
  });
  if (requested) {
    const m = memberships.find((x) => x.organizationId === requested);
    if (!m) throw new AppError("NOT_A_MEMBER", "you are not a member of that organization");
    return m;
  }
  const m = memberships.find((x) => x.organizationId === user.lastOrganizationId) ?? memberships[0];
  if (!m) throw new AppError("NOT_A_MEMBER", "your account does not belong to any organization");
  return m;
}

/**
 * Email and password, then (when MFA is on) a TOTP or backup code. An unknown email and a wrong
 * password take the same bcrypt time and give the same answer, and whether MFA is on is only told
 * after the password is right.
 */
export async function login(app: AppServices, input: LoginInput, meta: RequestMeta): Promise<LoginOutput> {
  const limits = authLimiters(app);
  await consumeOrThrow(limits.loginPerIp, meta.ip);
  // Keyed by the email as typed (normalized), whether or not an account exists, so the limit
  // itself does not reveal which emails have accounts.
  await ensureNotExhausted(limits.loginFailuresPerAccount, input.email);

  const user = await app.db.prisma.user.findFirst({ where: { email: input.email, deletedAt: null } });
  const passwordOk = user
    ? await verifyPassword(input.password, user.passwordHash)
    : await burnPasswordCheck(input.password, app.config.env.BCRYPT_COST);
  if (!user || !passwordOk) {
    await limits.loginFailuresPerAccount.consume(input.email);
    await recordAudit(app, {
      action: "user.login_failed",
      organizationId: user?.lastOrganizationId ?? null,
      actorId: user?.id ?? null,
      targetType: "user",
      targetId: user?.id,
      ipAddress: meta.ip,
      metadata: { reason: user ? "wrong_password" : "unknown_email" },
    });
    throw invalid();
  }

  if (user.mfaEnabled) {
    if (!input.mfa_code && !input.backup_code) {
      return { requires_mfa: true, message: "enter the 6-digit code from your authenticator app, or a backup code" };
    }
    await verifySecondFactor(app, user, { mfaCode: input.mfa_code, backupCode: input.mfa_code ? undefined : input.backup_code }, meta);
  }

  const membership = await chooseMembership(app, user, input.organization_id);
  await limits.loginFailuresPerAccount.reset(input.email);
  if (user.lastOrganizationId !== membership.organizationId) {
    await app.db.prisma.user.update({ where: { id: user.id }, data: { lastOrganizationId: membership.organizationId } });
  }
  const result = await startSession(app, user, membership, meta);
  await recordAudit(app, {
    action: "user.login_succeeded",
    organizationId: membership.organizationId,
    actorId: user.id,
    targetType: "session",
    targetId: result.session_id,
    ipAddress: meta.ip,
    metadata: { mfa: user.mfaEnabled },
  });
  return result;
}
