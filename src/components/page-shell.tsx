import type { ReactNode } from "react";
import { SiteHeader } from "./site-header";

/** A signed-out page with one task: the site header, then a narrow column under an h1. */
export function NarrowPage({ title, intro, children }: { title: string; intro?: ReactNode; children: ReactNode }) {
  return (
    <>
      <SiteHeader />
      <main className="narrow">
        <h1>{title}</h1>
        {intro ? <p className="lead">{intro}</p> : null}
        {children}
      </main>
    </>
  );
}
