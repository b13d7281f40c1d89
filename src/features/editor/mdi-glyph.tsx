"use client";

import "@mdi/font/css/materialdesignicons.min.css";
import { useLayoutEffect, useRef } from "react";

/**
 * One Material Design Icons glyph (a node's Font Awesome icon, appearance-icon.tsx). Loaded on its
 * own, so the editor fetches the font's stylesheet only when a node has such an icon. A class MDI
 * does not define draws nothing: `onMissing` then lets the caller draw the type's icon instead.
 */
export default function MdiGlyph({ className, onMissing }: { className: string; onMissing: () => void }) {
  const ref = useRef<HTMLSpanElement>(null);
  useLayoutEffect(() => {
    const content = ref.current ? getComputedStyle(ref.current, "::before").content : "none";
    if (!content || content === "none" || content === "normal") onMissing();
  }, [className, onMissing]);
  return <span ref={ref} className={`fp-node-glyph ${className}`} aria-hidden="true" />;
}
