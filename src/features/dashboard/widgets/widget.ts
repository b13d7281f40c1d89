import type { ComponentType } from "react";
import type { DashboardWidgetView } from "@/shared/dashboard";
import type { WidgetState } from "../widget-state";

/** What every widget component gets from its host (widget-host.tsx). */
export interface WidgetProps {
  widget: DashboardWidgetView;
  /** The node's properties with `msg.ui_update`'s on top. */
  props: Record<string, unknown>;
  state: WidgetState;
  /** The viewer may use it: an interactive view, an enabled widget and group. */
  interactive: boolean;
  /** Sends `dashboard.input` (the widget node sends `{...msg, _client}` into its flow). */
  send: (event: string, msg: Record<string, unknown>) => void;
  /** Sends a file (ui-file-input); `onProgress` gets the part the server holds (0–1). */
  upload: (file: File, onProgress?: (fraction: number) => void) => Promise<void>;
  /** Shows a value the viewer chose before the flow answers (input widgets). */
  setLocal: (payload: unknown) => void;
  /** The element id of the widget's main control, for its <label>. */
  inputId: string;
  /** A ui-template whose content goes to the app bar (`<Teleport to="#app-bar-actions">`) is placed there. */
  placement?: "app-bar";
}

export type WidgetComponent = ComponentType<WidgetProps>;

export function str(props: Record<string, unknown>, key: string, dflt = ""): string {
  const v = props[key];
  return typeof v === "string" ? v : typeof v === "number" ? String(v) : dflt;
}

export function num(props: Record<string, unknown>, key: string, dflt: number): number {
  const v = props[key];
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
  return Number.isFinite(n) ? n : dflt;
}

export function bool(props: Record<string, unknown>, key: string, dflt: boolean): boolean {
  const v = props[key];
  if (typeof v === "boolean") return v;
  if (v === "true") return true;
  if (v === "false") return false;
  return dflt;
}

/** Dropdown / radio options: Dashboard 2.0's `[{ label, value, type }]`, or `msg.options` (strings or `{ label: value }`). */
export interface Choice {
  label: string;
  value: unknown;
}

export function choices(raw: unknown): Choice[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((o): Choice[] => {
    if (typeof o === "string" || typeof o === "number" || typeof o === "boolean") return [{ label: String(o), value: o }];
    if (!o || typeof o !== "object") return [];
    const r = o as Record<string, unknown>;
    if ("value" in r) return [{ label: typeof r.label === "string" && r.label !== "" ? r.label : String(r.value), value: r.value }];
    const [k, v] = Object.entries(r)[0] ?? [];
    return k === undefined ? [] : [{ label: k, value: v }];
  });
}

export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === "object" || typeof b === "object") return JSON.stringify(a) === JSON.stringify(b);
  return String(a) === String(b);
}
