/**
 * Dashboard 2.0's `{{…}}` substitution in labels, formats and markdown: `{{msg.payload}}`,
 * `{{msg.topic}}`, `{{payload}}`, `{{value}}` (the payload). Values are inserted as text; an
 * object is shown as JSON. Nothing is evaluated: an expression that is not a property path stays
 * empty.
 */
export function substitute(template: string, msg: Record<string, unknown> | null | undefined): string {
  return template.replace(/\{\{\s*([\w$.[\]]+)\s*\}\}/g, (_, expr: string) => show(lookup(expr, msg ?? {})));
}

export function lookup(expr: string, msg: Record<string, unknown>): unknown {
  const parts = expr.replace(/\[(\d+)\]/g, ".$1").split(".").filter(Boolean);
  if (parts[0] === "value") return msg.payload;
  let cur: unknown = parts[0] === "msg" ? msg : msg;
  for (const part of parts[0] === "msg" ? parts.slice(1) : parts) {
    if (cur === null || typeof cur !== "object") return undefined;
    if (part === "__proto__" || part === "constructor" || part === "prototype") return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** A value as a widget shows it: strings as they are, objects as JSON, nothing for undefined/null. */
export function show(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** A `msg` property path such as "payload.temp" read from an object (ui-chart's x/y properties, ui-table's keys). */
export function readPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split(".").filter(Boolean)) {
    if (cur === null || typeof cur !== "object") return undefined;
    if (part === "__proto__" || part === "constructor" || part === "prototype") return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}
