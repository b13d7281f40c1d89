"use client";

import { usePathname } from "next/navigation";
import { useState, type ReactNode } from "react";
import { useDisclosure } from "./use-disclosure";

/**
 * The header's main navigation. On a wide screen its links sit in the header's row (wrapping onto
 * a second line when they do not fit); on a narrow one (a phone, CSS `header.site.collapsible`)
 * they fold behind a "Menu" disclosure button, so no page is wider than the screen. The menu
 * closes on navigation and on Escape (focus goes back to the button).
 */
export function SiteNav({ children, collapsible }: { children: ReactNode; collapsible: boolean }) {
  const pathname = usePathname();
  // Open on the page it was opened on: following one of its links folds it.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === pathname;
  const { toggleProps, panelId, onKeyDown } = useDisclosure(open, (value) => setOpenOn(value ? pathname : null));

  if (!collapsible) return <nav aria-label="Main">{children}</nav>;
  return (
    <>
      <button {...toggleProps} className="secondary site-menu-toggle">
        Menu
      </button>
      <nav id={panelId} aria-label="Main" data-open={open} onKeyDown={onKeyDown}>
        {children}
      </nav>
    </>
  );
}
