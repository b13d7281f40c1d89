import type { Metadata } from "next";
import Link from "next/link";
import { PublicHeader } from "@/components/public-header";
import { serverCaller } from "@/trpc/server";

export const metadata: Metadata = { title: "Not found" };

async function isSignedIn(): Promise<boolean> {
  try {
    // The cookie alone decides (no database call), as on the home page.
    return (await serverCaller()).signedIn;
  } catch {
    // A 404 page never breaks: without the session it shows the signed-out header.
    return false;
  }
}

/**
 * Every unknown URL, and every page that calls notFound() (a flow, subflow or dashboard that does
 * not exist or belongs to another organization): the app's header and a way back, with status 404.
 */
export default async function NotFound() {
  const signedIn = await isSignedIn();
  return (
    <>
      <PublicHeader signedIn={signedIn} flowsLink />
      <main className="narrow">
        <h1>Page not found</h1>
        <p className="lead">The page or flow you asked for does not exist, or you do not have access to it.</p>
        <div className="actions">
          <Link href="/flows" className="button">
            Go to your flows
          </Link>
          <Link href="/" className="button secondary">
            Go home
          </Link>
        </div>
      </main>
    </>
  );
}
