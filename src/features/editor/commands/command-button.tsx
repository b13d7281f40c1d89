"use client";
/**
 * A toolbar command that can be unavailable (Undo with nothing to undo). Unavailable, it is
 * `aria-disabled` rather than `disabled`: a disabled button loses the keyboard focus, so pressing
 * Undo until nothing is left would drop the focus onto the page (the WAI-ARIA toolbar pattern keeps
 * unavailable items focusable). A press on it does nothing.
 */
import type { ReactNode } from "react";

export function CommandButton({ onRun, unavailable, children, shortcut }: { onRun: () => void; unavailable: boolean; children: ReactNode; shortcut?: string }) {
  return (
    <button type="button" className="secondary" aria-disabled={unavailable || undefined} aria-keyshortcuts={shortcut} onClick={unavailable ? undefined : onRun}>
      {children}
    </button>
  );
}
