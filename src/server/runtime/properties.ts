import type { Message } from "./types";

/**
 * The one grammar of message property paths ("payload.a[0].b"), shared by every node that names a
 * property (change, switch, json, template, debug) and by the runtime that walks them. A segment
 * can never be `__proto__`, `constructor` or `prototype`: such a path is refused when the flow is
 * saved (the schemas use isPropertyPath) and again here at run time, for every operation, so a
 * flow cannot reach Object.prototype however its config got in.
 */
export const PROPERTY_PATH_PATTERN = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*|\[\d+\])*$/;
export const FORBIDDEN_PATH_SEGMENTS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

export class PropertyPathError extends Error {
  constructor(path: string) {
    super(`"${path.slice(0, 80)}" is not an allowed property path (segments may not be __proto__, constructor or prototype)`);
    this.name = "PropertyPathError";
  }
}

/** Splits "payload.a[0].b" into ["payload", "a", 0, "b"]; throws on a forbidden segment. */
export function parsePath(path: string): Array<string | number> {
  const parts: Array<string | number> = [];
  for (const match of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    if (match[1] !== undefined) {
      if (FORBIDDEN_PATH_SEGMENTS.has(match[1])) throw new PropertyPathError(path);
      parts.push(match[1]);
    } else parts.push(Number(match[2]));
  }
  return parts;
}

/** True for a path of the grammar that names no forbidden segment. */
export function isPropertyPath(path: string): boolean {
  if (!PROPERTY_PATH_PATTERN.test(path)) return false;
  try {
    parsePath(path);
    return true;
  } catch {
    return false;
  }
}

const own = (target: object, key: string | number) => Object.prototype.hasOwnProperty.call(target, key);

export function getProperty(msg: Message, path: string): unknown {
  if (path === "msg") return msg;
  let parts: Array<string | number>;
  try {
    parts = parsePath(path);
  } catch {
    return undefined;
  }
  let value: unknown = msg;
  for (const part of parts) {
    if (value === null || typeof value !== "object") return undefined;
    // Own properties only: inherited ones (toString, hasOwnProperty...) are not message data.
    if (!own(value, part)) return undefined;
    value = (value as Record<string | number, unknown>)[part];
  }
  return value;
}

/** Sets a property, creating objects on the way; refuses prototype keys. */
export function setProperty(msg: Message, path: string, value: unknown): void {
  const parts = parsePath(path);
  let target: Record<string | number, unknown> = msg;
  parts.forEach((part, i) => {
    if (i === parts.length - 1) {
      target[part] = value;
      return;
    }
    if (!own(target, part) || target[part] === null || typeof target[part] !== "object") target[part] = typeof parts[i + 1] === "number" ? [] : {};
    target = target[part] as Record<string | number, unknown>;
  });
}

/** Deletes a property; refuses prototype keys and never walks into inherited objects. */
export function deleteProperty(msg: Message, path: string): void {
  const parts = parsePath(path);
  let target: unknown = msg;
  for (const part of parts.slice(0, -1)) {
    if (target === null || typeof target !== "object" || !own(target, part)) return;
    target = (target as Record<string | number, unknown>)[part];
  }
  const last = parts[parts.length - 1];
  if (last !== undefined && target !== null && typeof target === "object" && own(target, last)) delete (target as Record<string | number, unknown>)[last];
}

/** JSON.parse that drops own `__proto__` keys (harmless to JSON.parse, not to a later merge). */
export function parseJsonSafe(text: string): unknown {
  if (!text.includes("__proto__")) return JSON.parse(text);
  return JSON.parse(text, (key, v: unknown) => (key === "__proto__" ? undefined : v));
}

/**
 * Node-RED's setMessageProperty (RED.util.setObjectProperty), for the nodes that follow it (change,
 * inject, template, through runtime/operands.ts): undefined deletes (an array element is spliced
 * out); missing parents are created, but never beneath a string, number or other non-object, and
 * then nothing is written and it returns false (change warns, as Node-RED).
 */
export function setMessageProperty(msg: Message, path: string, value: unknown): boolean {
  const parts = parsePath(path);
  const createMissing = value !== undefined;
  let target: Record<string | number, unknown> = msg;
  for (let i = 0; i < parts.length - 1; i++) {
    const part = parts[i]!;
    if (own(target, part) && target[part] !== undefined) {
      const next = target[part];
      if (next === null || (typeof next !== "object" && typeof next !== "function")) return false;
      target = next as Record<string | number, unknown>;
    } else if (createMissing) {
      target[part] = typeof parts[i + 1] === "number" ? [] : {};
      target = target[part] as Record<string | number, unknown>;
    } else return false;
  }
  const last = parts[parts.length - 1]!;
  if (value === undefined) {
    if (typeof last === "number" && Array.isArray(target)) {
      if (last < target.length) target.splice(last, 1);
    } else if (own(target, last)) delete target[last];
    return true;
  }
  target[last] = value;
  return true;
}
