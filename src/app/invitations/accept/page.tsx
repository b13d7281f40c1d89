import type { Metadata } from "next";
import { requireProfile } from "@/features/accounts/current-user";
import { firstParam, type SearchParams } from "@/features/accounts/search-params";
import { SignedInHeader } from "@/features/accounts/signed-in-header";
import { InvitationAccept } from "@/features/organizations/invitation-accept";

export const metadata: Metadata = { title: "Accept invitation" };

export default async function AcceptInvitationPage({ searchParams }: { searchParams: SearchParams }) {
  const token = firstParam(await searchParams, "token");
  const path = token ? `/invitations/accept?token=${encodeURIComponent(token)}` : "/invitations/accept";
  // Signed out: log in (or register) first, then come back here with the token.
  const profile = await requireProfile(path);
  return (
    <>
      <SignedInHeader email={profile.user.email} />
      <main className="narrow invitation">
        <h1>Join an organization</h1>
        <InvitationAccept token={token} email={profile.user.email} callbackPath={path} />
      </main>
    </>
  );
}
