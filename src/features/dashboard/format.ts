/**
 * Dashboard 2.0's `{{…}}` substitution in labels, formats and markdown: `{{msg.payload}}`,
 * `{{msg.topic}}`, `{{payload}}`, `{{value}}` (the payload), with `||` fallbacks to another path or
 * a literal (`{{ msg.payload || 'none' }}`). Values are inserted as text; an object is shown as
 * JSON. Nothing else is evaluated: any other expression stays as written.
 */
export function substitute(template: string, msg: Record<string, unknown> | null | undefined): string {
  return template.replace(/\{\{\s*([^{}]+?)\s*\}\}/g, (whole, expr: string) => {
    const value = evaluate(expr, msg ?? {});
    return value === NOT_AN_EXPRESSION ? whole : show(value);
  });
}

const NOT_AN_EXPRESSION = Symbol("not an expression");

/**
 * What a `{{ }}` may hold here: a property path (`msg.payload.temp`, `value`), a quoted string or a
 * number, and fallbacks between them with `||` (`{{ msg.payload || 'none' }}`, as Dashboard 2.0's
 * help writes it). Anything else (calls, operators) is not evaluated: it stays as written.
 */
function evaluate(expr: string, msg: Record<string, unknown>): unknown {
  const operands = expr.split("||").map((o) => o.trim());
  let value: unknown;
  for (const operand of operands) {
    if (/^[\w$]+(?:\.[\w$]+|\[\d+\])*$/.test(operand) && !/^\d/.test(operand)) value = lookup(operand, msg);
    else if (/^'[^'\\]*'$|^"[^"\\]*"$/.test(operand)) value = operand.slice(1, -1);
    else if (/^-?\d+(?:\.\d+)?$/.test(operand)) value = Number(operand);
    else return NOT_AN_EXPRESSION;
    if (value) return value;
  }
  return value;
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
