"use client";

import type { MouseEvent } from "react";
import "./editor.css";

/** The canvas region's id (canvas/flow-canvas.tsx): the skip link's target. */
export const CANVAS_ID = "flow-canvas";

/** Focus the canvas's first node, or the canvas itself when it has none. */
export function focusCanvas(root: Pick<Document, "getElementById"> = document): boolean {
  const canvas = root.getElementById(CANVAS_ID);
  if (!canvas) return false;
  const node = canvas.querySelector<HTMLElement>(".react-flow__node[tabindex='0']");
  (node ?? canvas).focus();
  return true;
}

/**
 * "Skip to canvas", the first thing on an editor page: hidden until focused, it jumps past the
 * header, the toolbar and the palette (some sixty Tab presses) to the first node, or to the canvas
 * when the flow is empty. Without JavaScript the link's target, the canvas, still takes focus.
 */
export function SkipToCanvas() {
  return (
    <a
      className="skip-link"
      href={`#${CANVAS_ID}`}
      onClick={(e: MouseEvent<HTMLAnchorElement>) => {
        if (focusCanvas()) e.preventDefault();
      }}
    >
      Skip to canvas
    </a>
  );
}
