"use client";
/** A toolbar command that can be unavailable (Undo with nothing to undo): see UnavailableButton. */
import type { ReactNode } from "react";
import { UnavailableButton } from "@/components/buttons";

export function CommandButton({ onRun, unavailable, children, shortcut }: { onRun: () => void; unavailable: boolean; children: ReactNode; shortcut?: string }) {
  return (
    <UnavailableButton className="secondary" unavailable={unavailable} aria-keyshortcuts={shortcut} onClick={onRun}>
      {children}
    </UnavailableButton>
  );
}
