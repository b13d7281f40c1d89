"use client";

import { useId, useRef, type KeyboardEvent } from "react";

/**
 * A disclosure (a button that shows and hides a panel, WAI-ARIA's pattern) whose state the caller
 * keeps: the button's props (`aria-expanded`, `aria-controls`, toggling on click), the panel's id,
 * and a keydown handler for the element around both: Escape closes the panel and puts the focus
 * back on its button. An Escape a disclosure inside has handled already (defaultPrevented) is left
 * alone, so the innermost open one closes first.
 */
export function useDisclosure(open: boolean, setOpen: (open: boolean) => void) {
  const toggle = useRef<HTMLButtonElement>(null);
  const panelId = useId();
  const toggleProps = {
    ref: toggle,
    type: "button" as const,
    "aria-expanded": open,
    "aria-controls": panelId,
    onClick: () => setOpen(!open),
  };
  function onKeyDown(event: KeyboardEvent) {
    if (event.key === "Escape" && open && !event.defaultPrevented) {
      event.preventDefault();
      setOpen(false);
      toggle.current?.focus();
    }
  }
  return { toggleProps, panelId, onKeyDown };
}
