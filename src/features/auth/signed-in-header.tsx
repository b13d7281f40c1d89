import Link from "next/link";
import { SiteHeader } from "@/components/site-header";
import { SignOutButton } from "./sign-out-button";

/** The header of every signed-in page: who is signed in, the way to the account, and Log out. */
export function SignedInHeader({ email }: { email: string }) {
  return (
    <SiteHeader>
      <Link href="/account/security">Account</Link>
      <span className="signed-in-as" title="Signed in as">
        {email}
      </span>
      <SignOutButton />
    </SiteHeader>
  );
}
