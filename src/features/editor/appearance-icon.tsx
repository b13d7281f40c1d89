"use client";

import dynamic from "next/dynamic";
import { useCallback, useState } from "react";
import { fontAwesomeClass } from "@/shared/mdi-icons";
import { NodeIcon } from "./node-icon";

// The MDI font and its stylesheet load only when a node shows a Font Awesome icon.
const MdiGlyph = dynamic(() => import("./mdi-glyph"), { ssr: false, loading: () => null });

/**
 * A node's icon on the canvas: `svg` (its type's, or the one of our types its appearance's Node-RED
 * icon file stands for: node-red-icons.ts), unless its appearance names a Font Awesome icon (Node-RED's
 * icon picker, `font-awesome/fa-car`): that one is drawn with Material Design Icons' glyph of the
 * name (nothing while the font loads), or with `svg` when MDI has no such glyph.
 */
export function AppearanceIcon({ icon, svg, fallback }: { icon: string | undefined; svg: string | undefined; fallback: string }) {
  const [missing, setMissing] = useState<string | null>(null);
  const onMissing = useCallback(() => setMissing(icon ?? null), [icon]);
  const glyph = icon ? fontAwesomeClass(icon) : null;
  if (!glyph || missing === icon) return <NodeIcon svg={svg} fallback={fallback} />;
  return <MdiGlyph className={glyph} onMissing={onMissing} />;
}
