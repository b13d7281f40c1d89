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

/**
 * Font Awesome 4's names (Node-RED's icon picker, `font-awesome/fa-car`) that Material Design Icons
 * spells otherwise; the others MDI spells the same (`fa-car` is `car`).
 */
const FONT_AWESOME: Record<string, string> = {
  "fa-balance-scale": "scale-balance",
  "fa-envelope": "email",
  "fa-envelope-o": "email-outline",
  "fa-clock-o": "clock-outline",
  "fa-bell-o": "bell-outline",
  "fa-globe": "earth",
  "fa-exchange": "swap-horizontal",
  "fa-random": "shuffle",
  "fa-bolt": "flash",
  "fa-tint": "water",
  "fa-sun-o": "weather-sunny",
  "fa-moon-o": "weather-night",
  "fa-power-off": "power",
  "fa-code": "code-tags",
  "fa-file-o": "file-outline",
  "fa-file-text-o": "file-document-outline",
  "fa-file-text": "file-document",
  "fa-folder-o": "folder-outline",
  "fa-user": "account",
  "fa-users": "account-multiple",
  "fa-unlock": "lock-open",
  "fa-times": "close",
  "fa-search": "magnify",
  "fa-tags": "tag-multiple",
  "fa-terminal": "console",
  "fa-microchip": "chip",
  "fa-share-alt": "share-variant",
  "fa-external-link": "open-in-new",
  "fa-hourglass-o": "timer-sand-empty",
  "fa-hourglass": "timer-sand",
  "fa-video-camera": "video",
  "fa-mobile": "cellphone",
  "fa-comments": "comment-multiple",
  "fa-list": "format-list-bulleted",
  "fa-list-ul": "format-list-bulleted",
  "fa-industry": "factory",
  "fa-building": "office-building",
  "fa-battery-full": "battery",
  "fa-thermometer-half": "thermometer",
  "fa-calculator": "calculator",
  "fa-sliders": "tune",
  "fa-tasks": "format-list-checks",
  "fa-area-chart": "chart-areaspline",
  "fa-line-chart": "chart-line",
  "fa-bar-chart": "chart-bar",
  "fa-pie-chart": "chart-pie",
  "fa-gear": "cog",
  "fa-gears": "cogs",
  "fa-dashboard": "view-dashboard",
  "fa-tachometer": "speedometer",
  "fa-lightbulb-o": "lightbulb-outline",
  "fa-check-square-o": "checkbox-marked-outline",
  "fa-square-o": "checkbox-blank-outline",
  "fa-circle-o": "circle-outline",
  "fa-eye-slash": "eye-off",
  "fa-trash-o": "delete-outline",
  "fa-trash": "delete",
  "fa-pencil": "pencil",
  "fa-floppy-o": "content-save",
  "fa-save": "content-save",
  "fa-paper-plane": "send",
  "fa-send": "send",
  "fa-cloud-upload": "cloud-upload",
  "fa-cloud-download": "cloud-download",
  "fa-sign-in": "login",
  "fa-sign-out": "logout",
  "fa-info-circle": "information",
  "fa-info": "information-variant",
  "fa-exclamation-triangle": "alert",
  "fa-warning": "alert",
  "fa-question-circle": "help-circle",
  "fa-repeat": "repeat",
  "fa-refresh": "refresh",
  "fa-level-down": "arrow-down-right",
  "fa-code-fork": "source-fork",
  "fa-plug": "power-plug",
  "fa-usb": "usb",
  "fa-cube": "cube-outline",
  "fa-cubes": "cube-outline",
};

/**
 * Node-RED's Font Awesome icon reference (`font-awesome/fa-car`) as an MDI class; null for any
 * other reference (a module's file, `node-red/light.svg`).
 */
export function fontAwesomeClass(ref: string): string | null {
  const match = /^font-awesome\/(fa-[a-z0-9-]{1,80})$/.exec(ref.trim().toLowerCase());
  if (!match) return null;
  const name = match[1]!;
  return iconClass(FONT_AWESOME[name] ?? name);
}
