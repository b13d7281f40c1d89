import Link from "next/link";
import { SiteHeader } from "@/components/site-header";
import { SignOutButton } from "@/features/accounts/sign-out-button";

/** The header of pages anyone may reach (home, not found): the account's links, or the way in. */
export function PublicHeader({ signedIn, flowsLink = false }: { signedIn: boolean; flowsLink?: boolean }) {
  return (
    <SiteHeader>
      {signedIn ? (
        <>
          {flowsLink && <Link href="/flows">Flows</Link>}
          <Link href="/account/security">Account</Link>
          <SignOutButton />
        </>
      ) : (
        <>
          <Link href="/login">Log in</Link>
          <Link href="/register" className="button">
            Create an account
          </Link>
        </>
      )}
    </SiteHeader>
  );
}
