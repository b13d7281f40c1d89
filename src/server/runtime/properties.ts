import type { Message } from "./types";

/** Splits "payload.a[0].b" into ["payload", "a", 0, "b"]. */
export function parsePath(path: string): Array<string | number> {
  const parts: Array<string | number> = [];
  for (const match of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    if (match[1] !== undefined) parts.push(match[1]);
    else parts.push(Number(match[2]));
  }
  return parts;
}

const FORBIDDEN = new Set(["__proto__", "constructor", "prototype"]);

export function getProperty(msg: Message, path: string): unknown {
  if (path === "msg") return msg;
  let value: unknown = msg;
  for (const part of parsePath(path)) {
    if (value === null || typeof value !== "object") return undefined;
    if (typeof part === "string" && FORBIDDEN.has(part)) return undefined;
    value = (value as Record<string | number, unknown>)[part];
  }
  return value;
}

/** Sets a property, creating objects on the way; refuses prototype keys. */
export function setProperty(msg: Message, path: string, value: unknown): void {
  const parts = parsePath(path);
  let target: Record<string | number, unknown> = msg;
  parts.forEach((part, i) => {
    if (typeof part === "string" && FORBIDDEN.has(part)) throw new Error(`cannot set ${path}`);
    if (i === parts.length - 1) {
      target[part] = value;
      return;
    }
    if (target[part] === null || typeof target[part] !== "object") target[part] = typeof parts[i + 1] === "number" ? [] : {};
    target = target[part] as Record<string | number, unknown>;
  });
}

export function deleteProperty(msg: Message, path: string): void {
  const parts = parsePath(path);
  let target: unknown = msg;
  for (const part of parts.slice(0, -1)) {
    if (target === null || typeof target !== "object") return;
    target = (target as Record<string | number, unknown>)[part];
  }
  if (target !== null && typeof target === "object") delete (target as Record<string | number, unknown>)[parts[parts.length - 1]!];
}

/** A typed literal from a node's config ("str", "num", "bool", "json", "msg", "date"). */
export function typedValue(value: string, type: string, msg: Message): unknown {
  switch (type) {
    case "num":
      return Number(value);
    case "bool":
      return value === "true";
    case "json":
      return JSON.parse(value || "null");
    case "msg":
      return structuredClone(getProperty(msg, value));
    case "date":
      return Date.now();
    default:
      return value;
  }
}
