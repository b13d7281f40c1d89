import type { Metadata } from "next";
import { SignedInHeader } from "@/features/accounts/signed-in-header";
import { requireSettings } from "@/features/settings/current-settings";
import { can } from "@/features/organizations/roles";
import { DevicesList } from "@/features/devices/devices-list";
import { MqttSessionsCard } from "@/features/devices/mqtt-sessions";
import { serverCaller } from "@/trpc/server";

export const metadata: Metadata = { title: "Devices" };

export default async function DevicesPage() {
  const { profile, role, prefs } = await requireSettings("/devices");
  const { caller } = await serverCaller();
  // The sessions live in the broker's store: if it cannot answer, the devices still show (the card says why).
  const [{ devices }, sessions] = await Promise.all([caller.devices.list(), caller.devices.mqttSessions().catch(() => null)]);
  return (
    <>
      <SignedInHeader email={profile.user.email} />
      <main className="flows devices">
        <h1>Devices</h1>
        <p className="lead">{profile.organization.name}</p>
        <DevicesList initialDevices={devices} canWrite={can(role, "devices:write")} canMakeKeys={can(role, "api_keys:manage_all")} prefs={prefs} />
        <MqttSessionsCard initial={sessions} canWrite={can(role, "devices:write")} prefs={prefs} />
      </main>
    </>
  );
}
