import type { Metadata } from "next";
import { ApiKeysSettings } from "@/features/organizations/api-keys-settings";
import { can } from "@/features/organizations/roles";
import { requireSettings } from "@/features/settings/current-settings";
import { SettingsShell } from "@/features/settings/settings-shell";
import { serverCaller } from "@/trpc/server";

export const metadata: Metadata = { title: "API keys" };

export default async function ApiKeysPage() {
  const { profile, role, prefs } = await requireSettings("/settings/api-keys");
  if (!can(role, "api_keys:manage_own")) {
    return (
      <SettingsShell profile={profile} active="api-keys" title="API keys">
        <section className="card">
          <p>
            API keys are for members, admins and owners. As a viewer of {profile.organization.name} you can read
            everything in the browser; ask an admin for the member role if you need a key.
          </p>
        </section>
      </SettingsShell>
    );
  }
  const { caller } = await serverCaller();
  const { api_keys } = await caller.apiKeys.list();
  return (
    <SettingsShell profile={profile} active="api-keys" title="API keys">
      <ApiKeysSettings role={role} prefs={prefs} initialKeys={api_keys} />
    </SettingsShell>
  );
}
