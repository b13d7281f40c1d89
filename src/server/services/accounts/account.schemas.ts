import { z } from "zod";
import { passwordSchema } from "../../auth/password-policy";

/** Length in characters AND in bytes: bcrypt reads only 72 bytes, so longer would be truncated. */
export const newPasswordSchema = passwordSchema;

/** A password being checked (login, confirmation): bounded so nobody can make bcrypt hash megabytes. */
export const currentPasswordSchema = z.string().min(1, "is required").max(1024, "is too long");

export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email({ error: "must be a valid email address" }).max(254, "must be at most 254 characters"));

export const slugSchema = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{1,46}[a-z0-9])$/, "must be 3-48 lowercase letters, digits or dashes, starting and ending with a letter or digit");

const nameSchema = z.string().trim().max(100, "must be at most 100 characters");

export const mfaCodeSchema = z.string().trim().regex(/^\d{3} ?\d{3}$/, "must be a 6-digit code");
export const backupCodeSchema = z.string().trim().regex(/^[A-Za-z0-9]{4}-?[A-Za-z0-9]{4}$/, "must look like XXXX-XXXX");
const tokenSchema = z.string().min(16, "is not a valid token").max(256, "is not a valid token");
const idParam = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_[\\w-]{10,64}$`), `must be an id starting with ${prefix}_`);

export const registerInput = z.object({
  email: emailSchema,
  password: newPasswordSchema,
  first_name: nameSchema.optional(),
  last_name: nameSchema.optional(),
  organization_name: z.string().trim().min(1, "is required").max(100, "must be at most 100 characters"),
  organization_slug: slugSchema.optional(),
  accept_terms: z.boolean(),
  subscribe_newsletter: z.boolean().optional(),
});
export type RegisterInput = z.infer<typeof registerInput>;

export const userSummary = z.object({
  id: z.string(),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  email_verified: z.boolean(),
});

export const organizationSchema = z.object({ id: z.string(), name: z.string(), slug: z.string(), plan: z.string() });

export const registerOutput = z.object({ user: userSummary, organization: organizationSchema });

export const loginInput = z.object({
  email: emailSchema,
  password: currentPasswordSchema,
  organization_id: idParam("org").optional(),
  mfa_code: mfaCodeSchema.optional(),
  backup_code: backupCodeSchema.optional(),
});
export type LoginInput = z.infer<typeof loginInput>;

export const loginSuccess = z.object({
  access_token: z.string(),
  refresh_token: z.string(),
  session_id: z.string(),
  token_type: z.literal("Bearer"),
  expires_in: z.number().int(),
  user: z.object({
    id: z.string(),
    email: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    organization_id: z.string(),
    role: z.string(),
  }),
});
export type LoginSuccess = z.infer<typeof loginSuccess>;

export const mfaChallenge = z.object({ requires_mfa: z.literal(true), message: z.string() });
export const loginOutput = z.union([loginSuccess, mfaChallenge]);
export type LoginOutput = z.infer<typeof loginOutput>;

export const refreshInput = z.object({ refresh_token: z.string().min(1, "is required").max(4096) });
export const refreshOutput = z.object({
  access_token: z.string(),
  refresh_token: z.string(),
  token_type: z.literal("Bearer"),
  expires_in: z.number().int(),
});

export const sessionView = z.object({
  id: z.string(),
  ip_address: z.string(),
  user_agent: z.string(),
  created_at: z.string(),
  last_accessed_at: z.string(),
  current: z.boolean(),
});
export const sessionsOutput = z.object({ sessions: z.array(sessionView) });
export const sessionIdInput = z.object({ id: z.string().min(1).max(100) });

export const profileUser = z.object({
  id: z.string(),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  avatar_url: z.string().nullable(),
  locale: z.string(),
  timezone: z.string(),
  email_verified: z.boolean(),
  mfa_enabled: z.boolean(),
  created_at: z.string(),
});
export const profileOutput = z.object({ user: profileUser, organization: organizationSchema, role: z.string() });

function isIanaZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: value });
    return value === "UTC" || value.includes("/") || Intl.supportedValuesOf("timeZone").includes(value);
  } catch {
    return false;
  }
}

function isBcp47(value: string): boolean {
  try {
    return Intl.getCanonicalLocales(value).length === 1;
  } catch {
    return false;
  }
}

export const updateProfileInput = z.object({
  first_name: nameSchema.optional(),
  last_name: nameSchema.optional(),
  locale: z.string().max(35).refine(isBcp47, "must be a BCP 47 language tag such as en or pt-BR").optional(),
  timezone: z.string().max(64).refine(isIanaZone, "must be an IANA time zone such as Europe/Paris").optional(),
  avatar_url: z
    .url({ protocol: /^https$/, error: "must be an https URL" })
    .max(2048)
    .nullable()
    .optional(),
});
export const updateProfileOutput = z.object({ user: profileUser });

export const changePasswordInput = z.object({ old_password: currentPasswordSchema, new_password: newPasswordSchema });
export const okOutput = z.object({ ok: z.literal(true), message: z.string() });
export const acceptedOutput = z.object({ accepted: z.literal(true), message: z.string() });

export const passwordResetInput = z.object({ email: emailSchema });
export const passwordResetConfirmInput = z.object({ token: tokenSchema, new_password: newPasswordSchema });
export const verifyEmailInput = z.object({ token: tokenSchema });
export const deleteAccountInput = z.object({ password: currentPasswordSchema });

/** The password again: a session alone (stolen, or a browser left open) cannot enrol its own authenticator. */
export const mfaSetupInput = z.object({ password: currentPasswordSchema });
export const mfaSetupOutput = z.object({ secret: z.string(), otpauth_url: z.string(), qr_code: z.string() });
export const mfaCodeInput = z.object({ code: z.string().trim().min(6, "must be a 6-digit code or a backup code").max(12) });
export const mfaDisableInput = z.object({ password: currentPasswordSchema, code: z.string().trim().min(6).max(12) });
export const backupCodesOutput = z.object({ backup_codes: z.array(z.string()).length(8) });
