import Link from "next/link";
import type { ReactNode } from "react";

export function SiteHeader({ children }: { children?: ReactNode }) {
  return (
    <header className="site">
      <Link href="/" className="brand">
        Flowplane
      </Link>
      <nav aria-label="Main">
        <Link href="/docs">API docs</Link>
        {children}
      </nav>
    </header>
  );
}
