import { signIn } from "next-auth/react";
import { rateLimitMessage } from "./messages";

export type SignInResult = { ok: true } | { ok: false; code: string; message: string };

export interface SignInCredentials {
  email: string;
  password: string;
  mfaCode?: string;
  backupCode?: string;
}

/**
 * next-auth's credentials sign-in; the provider reports failures as codes in `error`
 * ("MFA_REQUIRED", "INVALID_CREDENTIALS", "MFA_INVALID", "RATE_LIMITED:<seconds>", ...).
 */
export async function signInWithPassword(credentials: SignInCredentials): Promise<SignInResult> {
  let error: string | null | undefined;
  try {
    const res = await signIn("credentials", {
      redirect: false,
      email: credentials.email,
      password: credentials.password,
      mfa_code: credentials.mfaCode ?? "",
      backup_code: credentials.backupCode ?? "",
    });
    if (res?.ok && !res.error) return { ok: true };
    error = res?.error ?? "INTERNAL";
  } catch {
    error = "NETWORK";
  }
  return { ok: false, code: error.split(":")[0]!, message: signInErrorMessage(error, credentials) };
}

function signInErrorMessage(error: string, credentials: SignInCredentials): string {
  const rateLimited = /^RATE_LIMITED(?::(\d+))?$/.exec(error);
  if (rateLimited) return rateLimitMessage(rateLimited[1] ? Number(rateLimited[1]) : null);
  switch (error) {
    case "MFA_REQUIRED":
      return "Enter the code from your authenticator app.";
    case "INVALID_CREDENTIALS":
    case "CredentialsSignin":
      return "Email or password is not correct.";
    case "MFA_INVALID":
      return "That code is not valid. Try again.";
    case "VALIDATION_FAILED":
      if (credentials.backupCode) return "Enter a backup code in the form XXXX-XXXX.";
      if (credentials.mfaCode) return "Enter the 6-digit code from your authenticator app.";
      return "Enter a valid email address and your password.";
    case "NOT_A_MEMBER":
    case "SESSION_REVOKED":
      return "You cannot log in to this organization any more.";
    case "UNAVAILABLE":
      return "The service is unavailable right now. Try again in a moment.";
    case "NETWORK":
      return "Could not reach the server. Check your connection and try again.";
    default:
      return "Something went wrong while logging in. Please try again.";
  }
}
