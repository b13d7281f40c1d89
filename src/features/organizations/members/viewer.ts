import type { DisplayPrefs } from "@/features/settings/format";
import type { Role } from "@/shared/permissions";

/** Who is looking at the members page, and in which organization. */
export interface Viewer {
  userId: string;
  role: Role;
  organizationId: string;
  organizationName: string;
  prefs: DisplayPrefs;
}
