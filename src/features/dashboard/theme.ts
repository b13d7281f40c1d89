import type { CSSProperties } from "react";
import type { DashboardTheme } from "@/shared/dashboard";

/** Dashboard 2.0's default theme (ui-theme "Default Theme"). */
export const DEFAULT_THEME: DashboardTheme = {
  colors: { surface: "#ffffff", primary: "#0094CE", bgPage: "#eeeeee", groupBg: "#ffffff", groupOutline: "#cccccc" },
  sizes: { density: "default", pagePadding: "12px", groupGap: "12px", groupBorderRadius: "4px", widgetGap: "12px" },
};

/** A colour's readable text colour (black or white), by its relative luminance. */
export function contrastText(color: string): string {
  const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color.trim());
  if (!m) return "#1b1f24";
  const hex = m[1]!.length === 3 ? [...m[1]!].map((c) => c + c).join("") : m[1]!;
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const l = 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  return l > 0.4 ? "#1b1f24" : "#ffffff";
}

/** Only colour and length values reach the page's style (a theme, a widget's colour: organization data). */
export function safe(value: string | undefined, fallback: string): string {
  return value && /^[#\w\s().,%-]{1,64}$/.test(value) && !/url|expression/i.test(value) ? value : fallback;
}

/** The theme as the CSS variables dashboard.css reads (Dashboard 2.0's names where it has them). */
export function themeVariables(theme: DashboardTheme): CSSProperties {
  const c = theme.colors;
  const s = { ...DEFAULT_THEME.sizes, ...theme.sizes };
  const d = DEFAULT_THEME.colors;
  const surface = safe(c.surface, d.surface);
  const primary = safe(c.primary, d.primary);
  const bgPage = safe(c.bgPage, d.bgPage);
  const groupBg = safe(c.groupBg, d.groupBg);
  return {
    ["--db-surface" as string]: surface,
    ["--db-on-surface" as string]: contrastText(surface),
    ["--db-primary" as string]: primary,
    ["--db-on-primary" as string]: contrastText(primary),
    ["--db-bg-page" as string]: bgPage,
    ["--db-on-bg-page" as string]: contrastText(bgPage),
    ["--db-group-bg" as string]: groupBg,
    ["--db-on-group" as string]: contrastText(groupBg),
    ["--db-group-outline" as string]: safe(c.groupOutline, d.groupOutline),
    ["--page-padding" as string]: safe(s.pagePadding, "12px"),
    ["--group-gap" as string]: safe(s.groupGap, "12px"),
    ["--group-border-radius" as string]: safe(s.groupBorderRadius, "4px"),
    ["--widget-gap" as string]: safe(s.widgetGap, "12px"),
  };
}
