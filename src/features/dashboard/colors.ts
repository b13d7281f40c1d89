import { safe } from "./theme";

/**
 * Vuetify's colour names as Dashboard 2.0's widgets take them (`color: "success"`,
 * `"green-darken-2"`), as CSS colours: the theme's names follow the page's theme (primary) or
 * Vuetify 3's light theme; the Material Design palette's names and their `-lighten-N` /
 * `-darken-N` / `-accent-N` shades are mixed from the base colour (close to, not exactly,
 * Material's tables). Anything else goes through the theme's check (`safe`): a CSS colour is
 * returned as it is, anything that could carry a url() into a style gives the fallback.
 */

const THEME: Record<string, string> = {
  primary: "var(--db-primary)",
  secondary: "#48a9a6",
  success: "#4caf50",
  error: "#b00020",
  warning: "#fb8c00",
  info: "#2196f3",
  surface: "var(--db-surface)",
  background: "var(--db-bg-page)",
};

const MATERIAL: Record<string, string> = {
  red: "#f44336",
  pink: "#e91e63",
  purple: "#9c27b0",
  "deep-purple": "#673ab7",
  indigo: "#3f51b5",
  blue: "#2196f3",
  "light-blue": "#03a9f4",
  cyan: "#00bcd4",
  teal: "#009688",
  green: "#4caf50",
  "light-green": "#8bc34a",
  lime: "#cddc39",
  yellow: "#ffeb3b",
  amber: "#ffc107",
  orange: "#ff9800",
  "deep-orange": "#ff5722",
  brown: "#795548",
  "blue-grey": "#607d8b",
  grey: "#9e9e9e",
  black: "#000000",
  white: "#ffffff",
};

export function vuetifyColor(name: string | undefined, fallback = "var(--db-primary)"): string {
  const v = (name ?? "").trim();
  if (!v) return fallback;
  const lower = v.toLowerCase();
  if (THEME[lower]) return THEME[lower];
  const m = /^([a-z-]+?)(?:-(lighten|darken|accent)-([1-5]))?$/.exec(lower);
  if (m && MATERIAL[m[1]!]) {
    const base = MATERIAL[m[1]!]!;
    const n = Number(m[3] ?? 0);
    if (m[2] === "lighten") return `color-mix(in srgb, ${base} ${100 - n * 15}%, white)`;
    if (m[2] === "darken") return `color-mix(in srgb, ${base} ${100 - n * 15}%, black)`;
    if (m[2] === "accent") return `color-mix(in srgb, ${base} ${100 - n * 8}%, ${n > 2 ? "black" : "white"})`;
    return base;
  }
  return safe(v, fallback);
}
