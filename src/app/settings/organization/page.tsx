import type { Metadata } from "next";
import { OrganizationSettings } from "@/features/organizations/organization-settings";
import { requireSettings } from "@/features/settings/current-settings";
import { SettingsShell } from "@/features/settings/settings-shell";
import { serverCaller } from "@/trpc/server";

export const metadata: Metadata = { title: "Organization settings" };

export default async function OrganizationSettingsPage() {
  const { profile, role, organizationId, prefs } = await requireSettings("/settings/organization");
  const { caller } = await serverCaller();
  const [{ organization }, { organizations }] = await Promise.all([caller.organizations.get({ id: organizationId }), caller.organizations.list()]);
  return (
    <SettingsShell profile={profile} active="organization" title="Organization">
      <OrganizationSettings organization={organization} organizations={organizations} role={role} prefs={prefs} />
    </SettingsShell>
  );
}
