import "server-only";
import { requireProfile, type CurrentProfile } from "@/features/accounts/current-user";
import { asRole } from "@/features/organizations/roles";
import type { Role } from "@/shared/permissions";
import type { DisplayPrefs } from "./format";

export interface SettingsContext {
  profile: CurrentProfile;
  /** The role as the server sees it on this request (a demotion shows at once). */
  role: Role;
  organizationId: string;
  prefs: DisplayPrefs;
}

/** For settings pages: who is signed in, in which organization, with which role; or off to log in. */
export async function requireSettings(path: string): Promise<SettingsContext> {
  const profile = await requireProfile(path);
  return {
    profile,
    role: asRole(profile.role),
    organizationId: profile.organization.id,
    prefs: { locale: profile.user.locale, timeZone: profile.user.timezone },
  };
}
