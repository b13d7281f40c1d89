"use client";
import { useMemo } from "react";

/**
 * A node type's icon: the SVG its folder declares, sent with the catalog. Shown as an image (a
 * data: URL), never inserted as markup, so an icon can neither script nor style the page. A type
 * without one (an unknown node's kept type, a subflow instance) shows `fallback`.
 */
export function NodeIcon({ svg, fallback }: { svg: string | undefined; fallback: string }) {
  const src = useMemo(() => (svg ? `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}` : undefined), [svg]);
  if (!src) return <>{fallback}</>;
  return <img src={src} alt="" width={16} height={16} draggable={false} />;
}
