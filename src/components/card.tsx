import type { ReactNode } from "react";

/** A card of a page: a region named by its heading (`headingId` is the heading's id). */
export function Card({ headingId, title, children }: { headingId: string; title: ReactNode; children: ReactNode }) {
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      {children}
    </section>
  );
}
