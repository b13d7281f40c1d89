import type { AppServices } from "../../app-services";
import type { User } from "../../../generated/prisma/client";
import { verifyEmailMail } from "../../mail/templates";
import { authLimiters, consumeOrThrow } from "../../auth/limits";
import { recordAudit } from "../audit/record-audit";
import { consumeEmailToken, issueEmailToken, revokeEmailTokens } from "./email-tokens";
import { displayName, findActiveUser, profileView } from "./shared";

const VERIFY_TTL_MS = 48 * 3600 * 1000;

export async function sendVerificationMail(app: AppServices, user: User): Promise<void> {
  await revokeEmailTokens(app, user.id, "verify_email");
  const token = await issueEmailToken(app, user.id, "verify_email", VERIFY_TTL_MS);
  // The link is built from the configured public URL, never from the request's Host header.
  const link = `${app.config.publicUrl}/verify-email?token=${encodeURIComponent(token)}`;
  await app.mailer.send({ to: user.email, ...verifyEmailMail({ firstName: displayName(user), link }) });
}

export async function confirmEmail(app: AppServices, token: string) {
  const userId = await consumeEmailToken(app, token, "verify_email");
  const user = await app.db.prisma.user.update({
    where: { id: userId },
    data: { emailVerifiedAt: new Date() },
  });
  await recordAudit(app, { action: "user.email_verified", organizationId: user.lastOrganizationId, actorId: user.id, targetType: "user", targetId: user.id });
  return { user: profileView(user) };
}

export async function resendVerification(app: AppServices, userId: string) {
  await consumeOrThrow(authLimiters(app).verificationPerAccount, userId);
  const user = await findActiveUser(app, userId);
  if (user.emailVerifiedAt === null) await sendVerificationMail(app, user);
  return { accepted: true as const, message: user.emailVerifiedAt ? "your email is verified already" : "a new verification link is on its way" };
}
