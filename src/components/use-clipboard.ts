"use client";

import { useState } from "react";

export type CopyState = "idle" | "copied" | "failed";

/** Copies text to the clipboard and remembers how that went, for a status line. */
export function useClipboard(): { state: CopyState; copy: (text: string) => void; message: (what: string) => string } {
  const [state, setState] = useState<CopyState>("idle");
  return {
    state,
    copy(text) {
      // The Clipboard API exists only in secure contexts (https or localhost).
      if (!navigator.clipboard) return setState("failed");
      navigator.clipboard.writeText(text).then(
        () => setState("copied"),
        () => setState("failed"),
      );
    },
    message: (what) => (state === "copied" ? "Copied." : state === "failed" ? `Could not copy; select ${what} and copy it by hand.` : ""),
  };
}
