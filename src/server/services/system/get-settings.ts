import { z } from "zod";
import type { AppServices } from "../../app-services";
import { mfaPolicy, passwordPolicy, tokenPolicy, bodyLimits } from "../../../shared/policy";

export const settingsSchema = z.object({
  name: z.string(),
  version: z.string(),
  registration_enabled: z.boolean(),
  /** The terms of service registration asks to accept (`TERMS_URL`); null when the operator has set none. */
  terms_url: z.string().nullable(),
  public_url: z.string(),
  ws_url: z.string(),
  password_policy: z.object({
    min_length: z.number().int(),
    max_length: z.number().int(),
    max_bytes: z.number().int(),
    rejects_common_passwords: z.boolean(),
  }),
  tokens: z.object({
    access_token_ttl_sec: z.number().int(),
    refresh_token_ttl_sec: z.number().int(),
    session_idle_ttl_sec: z.number().int(),
    session_absolute_ttl_sec: z.number().int(),
  }),
  mfa: z.object({
    type: z.literal("totp"),
    algorithm: z.string(),
    digits: z.number().int(),
    period_sec: z.number().int(),
    window: z.number().int(),
    backup_codes: z.number().int(),
  }),
  rate_limits: z.object({
    login_failures_per_account_per_15_min: z.number().int(),
    login_attempts_per_ip_per_15_min: z.number().int(),
    registrations_per_ip_per_15_min: z.number().int(),
    mfa_failures_per_account_per_15_min: z.number().int(),
    password_resets_per_ip_per_15_min: z.number().int(),
    api_requests_per_credential_per_minute: z.number().int(),
  }),
  limits: z.object({ body_bytes: z.number().int(), flow_body_bytes: z.number().int() }),
});

export type Settings = z.infer<typeof settingsSchema>;

export function getSettings(app: AppServices): Settings {
  const { env, publicUrl, version } = app.config;
  return {
    name: "Flowplane",
    version,
    registration_enabled: env.REGISTRATION_ENABLED,
    terms_url: env.TERMS_URL ?? null,
    public_url: publicUrl,
    ws_url: `${publicUrl.replace(/^http/, "ws")}/ws`,
    password_policy: {
      min_length: passwordPolicy.minLength,
      max_length: passwordPolicy.maxLength,
      max_bytes: passwordPolicy.maxBytes,
      rejects_common_passwords: passwordPolicy.rejectsCommonPasswords,
    },
    tokens: {
      access_token_ttl_sec: tokenPolicy.accessTokenTtlSec,
      refresh_token_ttl_sec: tokenPolicy.refreshTokenTtlSec,
      session_idle_ttl_sec: tokenPolicy.sessionIdleTtlSec,
      session_absolute_ttl_sec: tokenPolicy.sessionAbsoluteTtlSec,
    },
    mfa: {
      type: "totp",
      algorithm: mfaPolicy.algorithm,
      digits: mfaPolicy.digits,
      period_sec: mfaPolicy.periodSec,
      window: mfaPolicy.window,
      backup_codes: mfaPolicy.backupCodeCount,
    },
    rate_limits: {
      login_failures_per_account_per_15_min: env.RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT,
      login_attempts_per_ip_per_15_min: env.RATE_LIMIT_LOGIN_PER_IP,
      registrations_per_ip_per_15_min: env.RATE_LIMIT_REGISTER_PER_IP,
      mfa_failures_per_account_per_15_min: env.RATE_LIMIT_MFA_FAILURES_PER_ACCOUNT,
      password_resets_per_ip_per_15_min: env.RATE_LIMIT_PASSWORD_RESET_PER_IP,
      api_requests_per_credential_per_minute: env.RATE_LIMIT_API_PER_CREDENTIAL,
    },
    limits: { body_bytes: bodyLimits.defaultBytes, flow_body_bytes: bodyLimits.flowBytes },
  };
}
