import type { Metadata } from "next";
import { FilesPage } from "@/features/files/files-page";
import { requireSettings } from "@/features/settings/current-settings";
import { SettingsShell } from "@/features/settings/settings-shell";
import { serverCaller } from "@/trpc/server";

export const metadata: Metadata = { title: "Files" };

export default async function FilesRoute() {
  const { profile, role, prefs } = await requireSettings("/files");
  const { caller } = await serverCaller();
  const listing = await caller.files.list();
  return (
    <SettingsShell profile={profile} active="files" title="Files">
      <FilesPage role={role} prefs={prefs} initial={listing} />
    </SettingsShell>
  );
}
