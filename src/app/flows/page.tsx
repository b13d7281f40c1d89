import type { Metadata } from "next";
import { SignedInHeader } from "@/features/accounts/signed-in-header";
import { requireProfile } from "@/features/accounts/current-user";
import { asRole, can } from "@/features/organizations/roles";
import { FlowsList } from "@/features/flows/flows-list";

export const metadata: Metadata = { title: "Flows" };

export default async function FlowsPage() {
  const profile = await requireProfile("/flows");
  return (
    <>
      <SignedInHeader email={profile.user.email} />
      <main className="flows">
        <h1>Flows</h1>
        <p className="lead">{profile.organization.name}</p>
        <FlowsList canWrite={can(asRole(profile.role), "flows:write")} />
      </main>
    </>
  );
}
