import Link from "next/link";
import type { ReactNode } from "react";
import { SiteNav } from "./site-nav";

/**
 * Every page's header. `collapsible` (the signed-in header, whose links and organization switcher
 * do not fit a phone's width) folds the navigation behind a Menu button on narrow screens.
 */
export function SiteHeader({ children, collapsible = false }: { children?: ReactNode; collapsible?: boolean }) {
  return (
    <header className={collapsible ? "site collapsible" : "site"}>
      <Link href="/" className="brand">
        Flowplane
      </Link>
      <SiteNav collapsible={collapsible}>
        <Link href="/docs">API docs</Link>
        {children}
      </SiteNav>
    </header>
  );
}
