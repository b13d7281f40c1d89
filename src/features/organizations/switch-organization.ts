import { getProviders, signIn } from "next-auth/react";
import { rateLimitMessage } from "@/features/accounts/messages";
import { pathAfterSwitch } from "./switch-path";

/**
 * The next-auth credentials provider that moves the browser session to another organization of the
 * signed-in user: it reads the current session from the cookie, calls auth.switchOrganization and
 * stores the new session in the cookie.
 */
export const SWITCH_PROVIDER = "switch-organization";

export type SwitchResult = { ok: true } | { ok: false; message: string };

function switchErrorMessage(error: string): string {
  const rateLimited = /^RATE_LIMITED(?::(\d+))?$/.exec(error);
  if (rateLimited) return rateLimitMessage(rateLimited[1] ? Number(rateLimited[1]) : null);
  switch (error) {
    case "NOT_A_MEMBER":
    case "NOT_FOUND":
      return "You are not a member of that organization any more.";
    case "UNAUTHENTICATED":
    case "SESSION_REVOKED":
    case "TOKEN_INVALID":
      return "Your session has ended. Log in again to continue.";
    case "UNAVAILABLE":
      return "The service is unavailable right now. Try again in a moment.";
    case "NETWORK":
      return "Could not reach the server. Check your connection and try again.";
    default:
      return "Could not switch organization. Please try again.";
  }
}

/** Moves this browser's session to the organization; the caller then loads a page afresh. */
export async function switchOrganization(organizationId: string): Promise<SwitchResult> {
  try {
    // signIn() with an unknown provider navigates away to next-auth's sign-in page: check first.
    const providers = await getProviders();
    if (!providers?.[SWITCH_PROVIDER]) return { ok: false, message: "Switching organizations is not available right now. Log out and in again instead." };
    const res = await signIn(SWITCH_PROVIDER, { redirect: false, organization_id: organizationId });
    if (res?.ok && !res.error) return { ok: true };
    return { ok: false, message: switchErrorMessage(res?.error ?? "INTERNAL") };
  } catch {
    return { ok: false, message: switchErrorMessage("NETWORK") };
  }
}

/**
 * Switches, then loads the next page with a full navigation, so nothing cached for the previous
 * organization (queries, server-rendered pages) survives.
 */
export async function switchOrganizationAndGo(organizationId: string, path?: string): Promise<SwitchResult> {
  const result = await switchOrganization(organizationId);
  if (result.ok) window.location.assign(path ?? pathAfterSwitch(window.location.pathname));
  return result;
}
