"use client";

import { SiteHeader } from "@/components/site-header";
import { UNAVAILABLE_DIGEST } from "@/shared/page-errors";

/**
 * What a page shows when its server components failed: never a stack. An outage of the database
 * or the store (the custom server answers it 503 with Retry-After) asks to try again in a moment;
 * anything else is our failure.
 */
export default function PageError({ error }: { error: Error & { digest?: string } }) {
  const unavailable = error.digest === UNAVAILABLE_DIGEST;
  return (
    <>
      <SiteHeader />
      <main className="narrow">
        <h1>{unavailable ? "Service unavailable" : "Something went wrong"}</h1>
        <p className="lead" role="alert">
          {unavailable ? "The service is unavailable right now. Try again in a moment." : "Something went wrong on our side. Please try again."}
        </p>
        {/* A full reload: the server components must run again, not only this boundary. */}
        <button type="button" className="button" onClick={() => window.location.reload()}>
          Try again
        </button>
      </main>
    </>
  );
}
