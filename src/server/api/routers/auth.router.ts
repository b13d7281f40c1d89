import { z } from "zod";
import { sessionProcedure, publicProcedure, router, requestMeta } from "../trpc";
import * as s from "../../services/accounts/account.schemas";
import { register } from "../../services/accounts/register";
import { login } from "../../services/accounts/login";
import { refreshTokens } from "../../services/accounts/tokens";
import { listSessions, logout, revokeOtherSessions, revokeSession } from "../../services/accounts/sessions";
import { deleteAccount, getProfile, updateProfile } from "../../services/accounts/profile";
import { changePassword, confirmPasswordReset, requestPasswordReset } from "../../services/accounts/passwords";
import { confirmEmail, resendVerification } from "../../services/accounts/verify-email";
import { disableMfa, enableMfa, regenerateBackupCodes, setupMfa } from "../../services/accounts/mfa";
import { switchOrganization } from "../../services/organizations/organizations";
import { switchOrganizationInput } from "../../services/organizations/organization.schemas";

const tags = ["auth"];
const noContent = z.void();

export const authRouter = router({
  register: publicProcedure
    .meta({ rest: { method: "POST", path: "/auth/register", status: 201 }, summary: "Create an account with its first organization", tags })
    .input(s.registerInput)
    .output(s.registerOutput)
    .mutation(({ ctx, input }) => register(ctx.services, input, requestMeta(ctx))),

  login: publicProcedure
    .meta({
      rest: { method: "POST", path: "/auth/login" },
      summary: "Log in with email and password (and a TOTP or backup code when MFA is on)",
      description: "With MFA on and no code, answers 200 `{requires_mfa: true, message}` and no tokens; repeat the call with `mfa_code` or `backup_code`.",
      tags,
    })
    .input(s.loginInput)
    .output(s.loginOutput)
    .mutation(({ ctx, input }) => login(ctx.services, input, requestMeta(ctx))),

  refresh: publicProcedure
    .meta({ rest: { method: "POST", path: "/auth/refresh" }, summary: "Exchange a refresh token for a new token pair (rotation)", tags })
    .input(s.refreshInput)
    .output(s.refreshOutput)
    .mutation(({ ctx, input }) => refreshTokens(ctx.services, input.refresh_token, requestMeta(ctx))),

  logout: sessionProcedure
    .meta({ permission: "account:self", rest: { method: "POST", path: "/auth/logout", status: 204 }, summary: "End the current session", tags })
    .output(noContent)
    .mutation(({ ctx }) => logout(ctx.services, ctx.principal, ctx.ip)),

  sessions: sessionProcedure
    .meta({ permission: "account:self", rest: { method: "GET", path: "/auth/sessions" }, summary: "List my active sessions", tags })
    .output(s.sessionsOutput)
    .query(({ ctx }) => listSessions(ctx.services, ctx.principal)),

  revokeSession: sessionProcedure
    .meta({ permission: "account:self", rest: { method: "DELETE", path: "/auth/sessions/{id}", status: 204 }, summary: "Revoke one of my sessions", tags })
    .input(s.sessionIdInput)
    .output(noContent)
    .mutation(({ ctx, input }) => revokeSession(ctx.services, ctx.principal, input.id, ctx.ip)),

  revokeOtherSessions: sessionProcedure
    .meta({ permission: "account:self", rest: { method: "DELETE", path: "/auth/sessions", status: 204 }, summary: "Revoke all my sessions but the current one", tags })
    .output(noContent)
    .mutation(({ ctx }) => revokeOtherSessions(ctx.services, ctx.principal, ctx.ip)),

  profile: sessionProcedure
    .meta({ permission: "account:self", rest: { method: "GET", path: "/auth/profile" }, summary: "My profile, organization and role", tags })
    .output(s.profileOutput)
    .query(({ ctx }) => getProfile(ctx.services, ctx.principal)),

  updateProfile: sessionProcedure
    .meta({ permission: "account:self", rest: { method: "PUT", path: "/auth/profile" }, summary: "Update my profile (partial)", tags })
    .input(s.updateProfileInput)
    .output(s.updateProfileOutput)
    .mutation(({ ctx, input }) => updateProfile(ctx.services, ctx.principal, input)),

  deleteAccount: sessionProcedure
    .meta({ permission: "account:self", rest: { method: "DELETE", path: "/auth/profile", status: 204 }, summary: "Delete my account (soft delete; needs the password)", tags })
    .input(s.deleteAccountInput)
    .output(noContent)
    .mutation(({ ctx, input }) => deleteAccount(ctx.services, ctx.principal, input.password, requestMeta(ctx))),

  changePassword: sessionProcedure
    .meta({ permission: "account:self", rest: { method: "POST", path: "/auth/change-password" }, summary: "Change my password; my other sessions end", tags })
    .input(s.changePasswordInput)
    .output(s.okOutput)
    .mutation(({ ctx, input }) => changePassword(ctx.services, ctx.principal.userId, ctx.principal.sessionId, input, requestMeta(ctx))),

  requestPasswordReset: publicProcedure
    .meta({ rest: { method: "POST", path: "/auth/password-reset", status: 202 }, summary: "Mail a password reset link (always 202)", tags })
    .input(s.passwordResetInput)
    .output(s.acceptedOutput)
    .mutation(({ ctx, input }) => requestPasswordReset(ctx.services, input.email, requestMeta(ctx))),

  confirmPasswordReset: publicProcedure
    .meta({ rest: { method: "POST", path: "/auth/password-reset/confirm" }, summary: "Set a new password with the mailed token; all sessions end", tags })
    .input(s.passwordResetConfirmInput)
    .output(s.okOutput)
    .mutation(({ ctx, input }) => confirmPasswordReset(ctx.services, input, requestMeta(ctx))),

  verifyEmail: publicProcedure
    .meta({ rest: { method: "POST", path: "/auth/verify-email" }, summary: "Confirm an email address with the mailed token", tags })
    .input(s.verifyEmailInput)
    .output(s.updateProfileOutput)
    .mutation(({ ctx, input }) => confirmEmail(ctx.services, input.token)),

  resendVerification: sessionProcedure
    .meta({ permission: "account:self", rest: { method: "POST", path: "/auth/verify-email/resend", status: 202 }, summary: "Mail a new verification link", tags })
    .output(s.acceptedOutput)
    .mutation(({ ctx }) => resendVerification(ctx.services, ctx.principal.userId)),

  mfaSetup: sessionProcedure
    .meta({ permission: "account:self", rest: { method: "POST", path: "/auth/mfa/setup" }, summary: "Start MFA enrolment (needs the password): a new TOTP secret, its otpauth URL and QR code", tags })
    .input(s.mfaSetupInput)
    .output(s.mfaSetupOutput)
    .mutation(({ ctx, input }) => setupMfa(ctx.services, ctx.principal.userId, input.password)),

  mfaEnable: sessionProcedure
    .meta({ permission: "account:self", rest: { method: "POST", path: "/auth/mfa/enable" }, summary: "Confirm enrolment with a code; returns 8 backup codes, shown only here", tags })
    .input(z.object({ code: s.mfaCodeSchema }))
    .output(s.backupCodesOutput)
    .mutation(({ ctx, input }) => enableMfa(ctx.services, ctx.principal.userId, ctx.principal.sessionId, input.code, requestMeta(ctx))),

  mfaDisable: sessionProcedure
    .meta({ permission: "account:self", rest: { method: "POST", path: "/auth/mfa/disable" }, summary: "Turn MFA off (password and a TOTP or backup code)", tags })
    .input(s.mfaDisableInput)
    .output(s.okOutput)
    .mutation(({ ctx, input }) => disableMfa(ctx.services, ctx.principal.userId, ctx.principal.sessionId, input, requestMeta(ctx))),

  mfaBackupCodes: sessionProcedure
    .meta({ permission: "account:self", rest: { method: "POST", path: "/auth/mfa/backup-codes" }, summary: "Replace the backup codes (a TOTP or backup code required)", tags })
    .input(s.mfaCodeInput)
    .output(s.backupCodesOutput)
    .mutation(({ ctx, input }) => regenerateBackupCodes(ctx.services, ctx.principal.userId, input.code, requestMeta(ctx))),

  switchOrganization: sessionProcedure
    .meta({ permission: "account:self", rest: { method: "POST", path: "/auth/switch-organization" }, summary: "A new session in another of my organizations (login-shaped response)", tags })
    .input(switchOrganizationInput)
    .output(s.loginSuccess)
    .mutation(({ ctx, input }) => switchOrganization(ctx.services, ctx.principal.userId, input.organization_id, requestMeta(ctx))),
});
