import type { CSSProperties } from "react";

/**
 * An icon by its Material Design Icons name, as Dashboard 2.0 takes it (`home`, `mdi-home`), drawn
 * with the same font Dashboard 2.0 bundles (@mdi/font). Dashboard 1's names are made to fit where
 * they can: Font Awesome's `fa-home` becomes `home`, Angular Material's `arrow_back` `arrow-back`,
 * and names MDI spells otherwise (`dashboard`, `settings`) its own (`view-dashboard`, `cog`). A
 * name MDI does not have shows nothing (never its text).
 */
export function iconClass(name: string): string | null {
  const raw = name.trim().toLowerCase();
  const n = ANGULAR_MATERIAL[raw] ?? raw.replace(/^(mdi|fa)-/, "").replace(/_/g, "-");
  return /^[a-z0-9][a-z0-9-]{0,80}$/.test(n) ? `mdi mdi-${n}` : null;
}

/** Dashboard 1's (Angular Material) icon names that MDI spells otherwise; `dashboard` is its tabs' default. */
const ANGULAR_MATERIAL: Record<string, string> = {
  dashboard: "view-dashboard",
  settings: "cog",
  info: "information",
  warning: "alert",
  error: "alert-circle",
  list: "format-list-bulleted",
  add: "plus",
  search: "magnify",
  build: "wrench",
  place: "map-marker",
  event: "calendar",
  schedule: "clock-outline",
  people: "account-multiple",
  person: "account",
  open_in_browser: "open-in-new",
  show_chart: "chart-line",
  timeline: "chart-timeline-variant",
  wb_sunny: "weather-sunny",
  ac_unit: "snowflake",
  power_settings_new: "power",
  "fa-dashboard": "view-dashboard",
  "fa-cog": "cog",
  "fa-gear": "cog",
  "fa-area-chart": "chart-areaspline",
  "fa-line-chart": "chart-line",
  "fa-bar-chart": "chart-bar",
  "fa-tachometer": "speedometer",
  "fa-thermometer": "thermometer",
  "fa-lightbulb-o": "lightbulb-outline",
};

export function Icon({ name, style }: { name: string; style?: CSSProperties }) {
  const cls = iconClass(name);
  return cls ? <span className={`db-icon ${cls}`} aria-hidden="true" style={style} /> : null;
}
