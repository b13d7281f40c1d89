import type { Metadata } from "next";
import { VariablesSettings } from "@/features/variables/variables-settings";
import { requireSettings } from "@/features/settings/current-settings";
import { SettingsShell } from "@/features/settings/settings-shell";
import { serverCaller } from "@/trpc/server";

export const metadata: Metadata = { title: "Variables" };

export default async function VariablesPage() {
  const { profile, role, prefs } = await requireSettings("/settings/variables");
  const { caller } = await serverCaller();
  const [{ variables }, { flows }] = await Promise.all([caller.variables.list(), caller.flows.list({})]);
  return (
    <SettingsShell profile={profile} active="variables" title="Variables">
      <VariablesSettings role={role} prefs={prefs} initialVariables={variables} flows={flows.map((f) => ({ id: f.id, name: f.name }))} />
    </SettingsShell>
  );
}
