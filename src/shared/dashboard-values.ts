import { DASHBOARD_LIMITS } from "./dashboard";

/**
 * A Dashboard 2.0 option's value as its typed input gives it (`str`, `num`, `bool`, `json`), the
 * way Dashboard's node evaluates it at start (RED.util.evaluateNodeProperty): the same on the
 * server, which checks and sends it, and in the browser, which shows which option is chosen.
 */
export function typedOptionValue(value: unknown, valueType: unknown): unknown {
  if (typeof value !== "string") return value;
  switch (valueType) {
    case "num":
      return Number(value);
    case "bool":
      return value === "true";
    case "json":
      try {
        return JSON.parse(value) as unknown;
      } catch {
        return value;
      }
    default:
      return value;
  }
}

/** Dashboard 2.0's findOptionByValue: an object by its JSON, anything else as it is. */
export function sameOptionValue(a: unknown, b: unknown): boolean {
  return typeof a === "object" || typeof b === "object" ? JSON.stringify(a) === JSON.stringify(b) : a === b;
}

/** The types an LED colour's value may have (ui-led's typed inputs). */
export const LED_VALUE_TYPES = ["str", "num", "bool", "json", "bin"] as const;

/** A message's `colorForValue` (Dashboard 1's LED): a list of `{ value, color }`, or an object of value → colour. */
export type LedColorTable = Array<{ value: unknown; color: string }> | Record<string, string>;

const LED_TABLE_LIMIT = 100;

/**
 * A `msg.colorForValue` as ui-led keeps it, or undefined when it is none: at most 100 entries,
 * each colour a string of at most 64 characters.
 */
export function ledColorTable(raw: unknown): LedColorTable | undefined {
  if (Array.isArray(raw)) {
    if (raw.length > LED_TABLE_LIMIT) return undefined;
    const out: Array<{ value: unknown; color: string }> = [];
    for (const e of raw) {
      if (!e || typeof e !== "object" || Array.isArray(e)) return undefined;
      const { value, color } = e as { value?: unknown; color?: unknown };
      if (typeof color !== "string" || color.length > 64) return undefined;
      out.push({ value: value ?? null, color });
    }
    return out;
  }
  if (raw && typeof raw === "object") {
    const entries = Object.entries(raw as Record<string, unknown>);
    if (entries.length > LED_TABLE_LIMIT || entries.some(([k, c]) => k.length > 1000 || typeof c !== "string" || c.length > 64)) return undefined;
    return Object.fromEntries(entries) as Record<string, string>;
  }
  return undefined;
}

/** A Buffer as a message carries it to a page (its JSON): `{ type: "Buffer", data: [...] }`. */
function bufferValue(value: unknown): unknown {
  let bytes = value;
  if (typeof value === "string") {
    try {
      bytes = JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  }
  return Array.isArray(bytes) && bytes.every((b) => typeof b === "number") ? { type: "Buffer", data: bytes } : value;
}

/** Node-RED's RED.util.compareObjects: strict for scalars, by content (any key order) for arrays and objects. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => sameValue(x, bb[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * The colour an LED shows for a payload: the first of its states (or of a message's table) whose
 * typed value equals the payload; `null` when none does (the LED is then grey).
 */
export function ledColor(states: unknown, payload: unknown, table?: LedColorTable): string | null {
  if (table !== undefined) {
    if (Array.isArray(table)) return table.find((e) => sameValue(e.value, payload))?.color ?? null;
    // As Dashboard 1's `colorForValue[payload]`: the payload as a property name (true → "true", 1 → "1").
    if (payload !== null && typeof payload === "object") return null;
    const key = String(payload);
    return Object.prototype.hasOwnProperty.call(table, key) ? table[key]! : null;
  }
  if (!Array.isArray(states)) return null;
  for (const s of states as Array<{ color?: unknown; value?: unknown; valueType?: unknown }>) {
    if (!s || typeof s !== "object" || typeof s.color !== "string") continue;
    const value = s.valueType === "bin" ? bufferValue(s.value) : typedOptionValue(s.value, s.valueType);
    if (sameValue(value, payload)) return s.color;
  }
  return null;
}

/**
 * A ui-table's rows after a message, as Dashboard 2.0's table: the message's rows (its payload, an
 * array or one row) are added to `current`, or replace them when the payload is an empty array, the
 * message says `action: "replace"`, or the node does and the message does not say "append"; the
 * newest DASHBOARD_LIMITS.tableMaxRows are kept. The table's state on the server, a viewer's own
 * rows on their tab and the rows the page shows all follow it.
 */
export function tableRowsAfter(current: readonly unknown[], payload: unknown, action: { msg?: unknown; node?: unknown } = {}): { rows: unknown[]; replaced: boolean } {
  const incoming = Array.isArray(payload) ? payload : [payload];
  const replaced = incoming.length === 0 || action.msg === "replace" || (action.node === "replace" && action.msg !== "append");
  const rows = replaced ? incoming : [...current, ...incoming];
  const max = DASHBOARD_LIMITS.tableMaxRows;
  return { rows: rows.length > max ? rows.slice(rows.length - max) : rows, replaced };
}
