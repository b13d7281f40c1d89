import { errorInfo } from "@/trpc/react";

/** "must be at least 8 characters" under the field "Password" reads "Password must be at least 8 characters." */
export function fieldMessage(label: string, message: string | undefined): string | undefined {
  if (!message) return undefined;
  return `${label} ${message.replace(/[.\s]+$/, "")}.`;
}

/** A server message ("an account with this email exists already") as a sentence. */
export function sentence(message: string): string {
  const trimmed = message.trim().replace(/[.\s]+$/, "");
  return trimmed ? `${trimmed[0]!.toUpperCase()}${trimmed.slice(1)}.` : "Something went wrong. Please try again.";
}

export function rateLimitMessage(seconds: number | null): string {
  return seconds ? `Too many attempts. Try again in ${seconds} seconds.` : "Too many attempts. Try again later.";
}

/**
 * The top-level message for a failed tRPC call, for the codes every form shares. Field errors are
 * shown beside their fields instead, so a validation failure that has them yields null.
 */
export function commonErrorMessage(error: unknown): string | null {
  const info = errorInfo(error);
  switch (info.code) {
    case "VALIDATION_FAILED":
      return Object.keys(info.fields).length > 0 ? null : sentence(info.message);
    case "RATE_LIMITED": {
      const seconds = /(\d+)\s*s\b/.exec(info.message)?.[1];
      return rateLimitMessage(seconds ? Number(seconds) : null);
    }
    case "UNAUTHENTICATED":
    case "SESSION_REVOKED":
      return "Your session has ended. Log in again to continue.";
    case "UNAVAILABLE":
      return "The service is unavailable right now. Try again in a moment.";
    case "INTERNAL":
      return "Something went wrong on our side. Please try again.";
    default:
      return sentence(info.message);
  }
}
