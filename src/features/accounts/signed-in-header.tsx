import Link from "next/link";
import { SiteHeader } from "@/components/site-header";
import { OrganizationSwitcher } from "@/features/organizations/organization-switcher";
import type { MyOrganization } from "@/features/organizations/types";
import { serverCaller } from "@/trpc/server";
import { SignOutButton } from "./sign-out-button";

async function myOrganizations(): Promise<MyOrganization[]> {
  try {
    const { caller } = await serverCaller();
    return (await caller.organizations.list()).organizations;
  } catch {
    // The header never breaks a page: without the list there is just no switcher.
    return [];
  }
}

/**
 * The header of every signed-in page: the organization switcher, settings, the account, who is
 * signed in, and Log out.
 */
export async function SignedInHeader({ email }: { email: string }) {
  const organizations = await myOrganizations();
  return (
    <SiteHeader collapsible>
      <Link href="/flows">Flows</Link>
      <Link href="/files">Files</Link>
      <Link href="/devices">Devices</Link>
      <Link href="/settings/organization">Settings</Link>
      <Link href="/account/security">Account</Link>
      {organizations.length > 0 ? <OrganizationSwitcher initialOrganizations={organizations} /> : null}
      <span className="signed-in-as" title={`Signed in as ${email}`}>
        {email}
      </span>
      <SignOutButton />
    </SiteHeader>
  );
}
