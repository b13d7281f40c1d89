"use client";

import { useEffect } from "react";

/** Leaving with unsaved changes asks first: closing the tab, and links inside the app. */
export function useLeaveGuard(dirty: boolean) {
  useEffect(() => {
    if (!dirty) return;
    const beforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = "";
    };
    const onClick = (e: MouseEvent) => {
      const a = (e.target as Element | null)?.closest?.("a[href]");
      if (!a || a.getAttribute("target") === "_blank" || a.hasAttribute("download")) return;
      // A link within this page ("Skip to canvas") leaves nothing.
      const to = new URL(a.getAttribute("href")!, window.location.href);
      if (to.hash !== "" && to.origin === window.location.origin && to.pathname === window.location.pathname && to.search === window.location.search) return;
      // Deliberately window.confirm: the answer must be known before this click handler returns
      // (src/features/editor/README.md, "The flow editor").
      if (!window.confirm("This flow has unsaved changes. Leave without saving?")) {
        e.preventDefault();
        e.stopPropagation();
      }
    };
    window.addEventListener("beforeunload", beforeUnload);
    document.addEventListener("click", onClick, true);
    return () => {
      window.removeEventListener("beforeunload", beforeUnload);
      document.removeEventListener("click", onClick, true);
    };
  }, [dirty]);
}
