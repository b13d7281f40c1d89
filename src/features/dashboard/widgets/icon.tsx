import type { CSSProperties } from "react";

/**
 * An icon by its Material Design Icons name, as Dashboard 2.0 takes it (`home`, `mdi-home`), drawn
 * with the same font Dashboard 2.0 bundles (@mdi/font). Dashboard 1's names are made to fit where
 * they can: Font Awesome's `fa-home` and Angular Material's `open_in_browser` become `home` and
 * `open-in-browser`. A name MDI does not have shows nothing (never its text).
 */
export function iconClass(name: string): string | null {
  const n = name
    .trim()
    .toLowerCase()
    .replace(/^(mdi|fa)-/, "")
    .replace(/_/g, "-");
  return /^[a-z0-9][a-z0-9-]{0,80}$/.test(n) ? `mdi mdi-${n}` : null;
}

export function Icon({ name, style }: { name: string; style?: CSSProperties }) {
  const cls = iconClass(name);
  return cls ? <span className={`db-icon ${cls}`} aria-hidden="true" style={style} /> : null;
}
