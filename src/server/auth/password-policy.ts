import { z } from "zod";
import { lazyRequire } from "../lazy-require";

/** The leaked-password dictionary (a few MB once loaded), loaded by the first password checked. */
const language = lazyRequire<typeof import("@zxcvbn-ts/language-common")>("@zxcvbn-ts/language-common");
import { passwordPolicy } from "../../shared/policy";

/** User-facing messages; each reads after the word "Password" (or a field path) as a predicate. */
export const passwordMessages = {
  tooShort: `must be at least ${passwordPolicy.minLength} characters`,
  tooLong: `must be at most ${passwordPolicy.maxLength} characters`,
  tooManyBytes: `must be at most ${passwordPolicy.maxBytes} bytes in UTF-8 (accented letters and emoji count as several)`,
  tooCommon: "is too common: it appears in lists of leaked passwords",
  isEmail: "must not be your email address",
  isName: "must not be your name",
} as const;

export type PasswordCheck = { ok: true } | { ok: false; message: string };

/** The length and byte rules, shared by checkPassword and passwordSchema. */
function checkShape(password: string): string | null {
  const chars = [...password].length;
  if (chars < passwordPolicy.minLength) return passwordMessages.tooShort;
  if (chars > passwordPolicy.maxLength) return passwordMessages.tooLong;
  // bcrypt reads only the first 72 bytes; anything longer would be silently truncated.
  if (Buffer.byteLength(password, "utf8") > passwordPolicy.maxBytes) return passwordMessages.tooManyBytes;
  return null;
}

let common: Set<string> | null = null;

function commonPasswords(): Set<string> {
  common ??= new Set(language().dictionary["passwords-common"].map((p) => p.toLowerCase()));
  return common;
}

export function isCommonPassword(password: string): boolean {
  return commonPasswords().has(password.toLowerCase());
}

export function checkPassword(
  password: string,
  context?: { email?: string; firstName?: string; lastName?: string },
): PasswordCheck {
  const shape = checkShape(password);
  if (shape) return { ok: false, message: shape };

  const lower = password.trim().toLowerCase();
  const email = context?.email?.trim().toLowerCase();
  if (email) {
    const local = email.split("@")[0];
    if (lower === email || (local && lower === local)) return { ok: false, message: passwordMessages.isEmail };
  }
  const first = context?.firstName?.trim().toLowerCase() ?? "";
  const last = context?.lastName?.trim().toLowerCase() ?? "";
  const names = [first, last, `${first}${last}`, `${first} ${last}`, `${last}${first}`, `${last} ${first}`];
  if (names.some((n) => n.trim().length > 0 && n === lower)) return { ok: false, message: passwordMessages.isName };

  if (passwordPolicy.rejectsCommonPasswords && isCommonPassword(password)) {
    return { ok: false, message: passwordMessages.tooCommon };
  }
  return { ok: true };
}

/**
 * The length and byte rules as a zod schema for request bodies. The common-password and
 * email/name rules need the account context, so services also call checkPassword.
 */
export const passwordSchema = z.string().superRefine((value, ctx) => {
  const message = checkShape(value);
  if (message) ctx.addIssue({ code: "custom", message });
});
