import type { Metadata } from "next";
import Link from "next/link";
import { Alert } from "@/components/alert";
import { AccountSecurity } from "@/features/accounts/security/account-security";
import { requireProfile } from "@/features/accounts/current-user";
import { firstParam, type SearchParams } from "@/features/accounts/search-params";
import { SettingsShell } from "@/features/settings/settings-shell";

export const metadata: Metadata = { title: "Account security" };

/** IANA zones as this server knows them; passed down so the server and browser render one list. */
function timeZones(): string[] {
  return ["UTC", ...Intl.supportedValuesOf("timeZone").filter((z) => z !== "UTC")];
}

export default async function AccountSecurityPage({ searchParams }: { searchParams: SearchParams }) {
  const profile = await requireProfile("/account/security");
  const welcome = firstParam(await searchParams, "welcome") === "1";
  return (
    <SettingsShell profile={profile} active="account" title="Account security">
      {welcome && !profile.user.email_verified ? (
        <Alert kind="ok">
          Welcome to Flowplane! We sent a verification link to <strong>{profile.user.email}</strong>. Check your mail and
          open the link to confirm your address. Then <Link href="/flows">open your flows</Link> to build your first one,
          or import a Node-RED flows.json.
        </Alert>
      ) : null}
      <AccountSecurity initialProfile={profile} timeZones={timeZones()} />
    </SettingsShell>
  );
}
