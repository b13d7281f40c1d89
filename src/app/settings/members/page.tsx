import type { Metadata } from "next";
import { MembersSettings } from "@/features/organizations/members-settings";
import { can } from "@/features/organizations/roles";
import { requireSettings } from "@/features/settings/current-settings";
import { SettingsShell } from "@/features/settings/settings-shell";
import { serverCaller } from "@/trpc/server";

export const metadata: Metadata = { title: "Members" };

export default async function MembersPage() {
  const { profile, role, organizationId, prefs } = await requireSettings("/settings/members");
  const { caller } = await serverCaller();
  const [{ members }, invitations] = await Promise.all([
    caller.organizations.members({ id: organizationId }),
    can(role, "members:invite") ? caller.organizations.invitations({ id: organizationId }).then((r) => r.invitations) : Promise.resolve(null),
  ]);
  return (
    <SettingsShell profile={profile} active="members" title="Members">
      <MembersSettings
        viewer={{ userId: profile.user.id, role, organizationId, organizationName: profile.organization.name, prefs }}
        initialMembers={members}
        initialInvitations={invitations}
      />
    </SettingsShell>
  );
}
