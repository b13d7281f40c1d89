"use client";

import { usePathname } from "next/navigation";
import { useId, useRef, useState, type KeyboardEvent, type ReactNode } from "react";

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
  const setOpen = (value: boolean) => setOpenOn(value ? pathname : null);
  const toggle = useRef<HTMLButtonElement>(null);
  const navId = useId();

  function onKeyDown(event: KeyboardEvent) {
    // The organization switcher inside handles its own Escape first (its menu closes, not this one).
    if (event.key === "Escape" && open && !event.defaultPrevented) {
      setOpen(false);
      toggle.current?.focus();
    }
  }

  if (!collapsible) return <nav aria-label="Main">{children}</nav>;
  return (
    <>
      <button
        ref={toggle}
        type="button"
        className="secondary site-menu-toggle"
        aria-expanded={open}
        aria-controls={navId}
        onClick={() => setOpen(!open)}
      >
        Menu
      </button>
      <nav id={navId} aria-label="Main" data-open={open} onKeyDown={onKeyDown}>
        {children}
      </nav>
    </>
  );
}
