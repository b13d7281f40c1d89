import type { ReactNode } from "react";
import { PublicHeader } from "./public-header";
import { SiteHeader } from "./site-header";

/**
 * A page with one task: the site header, then a narrow column under an h1. Signed-out pages (log
 * in, register) leave `signedIn` out; a page reached either way (a link from an email) passes it,
 * and its header then shows the account's links, or the way in.
 */
export function NarrowPage({ title, intro, signedIn, children }: { title: string; intro?: ReactNode; signedIn?: boolean; children: ReactNode }) {
  return (
    <>
      {signedIn === undefined ? <SiteHeader /> : <PublicHeader signedIn={signedIn} flowsLink />}
      <main className="narrow">
        <h1>{title}</h1>
        {intro ? <p className="lead">{intro}</p> : null}
        {children}
      </main>
    </>
  );
}
