import type { Message } from "./types";

/**
 * The one grammar of message property paths, shared by every node that names a property (change,
 * switch, json, template, debug...), by the context keys of flow/global operands, and by the runtime
 * that walks them. It is Node-RED's (RED.util.normalisePropertyExpression): `payload.a.b`,
 * `payload.a[0]`, `payload["a b"]`, `payload['x'].y`, `payload.0` (a number), and nested message
 * references `payload[msg.key]` / `payload[msg.a[msg.b]]`, whose value (read from the message at
 * run time) is the key; an undefined reference is an error. A segment can never be `__proto__`,
 * `constructor` or `prototype` (written, quoted or as a nested reference's value): such a path is
 * refused when the flow is saved (the schemas use isPropertyPath) and again here at run time, for
 * every operation, so a flow cannot reach Object.prototype however its config got in.
 */
export const FORBIDDEN_PATH_SEGMENTS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

export class PropertyPathError extends Error {
  constructor(path: string, why = "segments may not be __proto__, constructor or prototype") {
    super(`"${path.slice(0, 80)}" is not an allowed property path (${why})`);
    this.name = "PropertyPathError";
  }
}

type Part = string | number;

/** Node-RED's INVALID_EXPR errors, with its wording. */
function invalid(path: string, why: string): PropertyPathError {
  return new PropertyPathError(path, why);
}

/**
 * Node-RED's normalisePropertyExpression(str, msg): the parts of a property expression. A nested
 * `[msg...]` reference is read from `msg` when given; without one it is only checked (its parts
 * stand in, as Node-RED's editor validation does).
 */
function parseExpression(str: string, msg: Record<string, unknown> | undefined): Part[] {
  const length = str.length;
  if (length === 0) throw invalid(str, "Invalid property expression: zero-length");
  const parts: Part[] = [];
  let start = 0;
  let inString = false;
  let inBox = false;
  let quoteChar = "";
  const numberOrText = (v: string): Part => (/^\d+$/.test(v) ? parseInt(v, 10) : v);
  for (let i = 0; i < length; i++) {
    const c = str[i]!;
    if (!inString) {
      if (c === "'" || c === '"') {
        if (i !== start) throw invalid(str, `Invalid property expression: unexpected ${c} at position ${i}`);
        inString = true;
        quoteChar = c;
        start = i + 1;
      } else if (c === ".") {
        if (i === 0) throw invalid(str, "Invalid property expression: unexpected . at position 0");
        if (start !== i) parts.push(numberOrText(str.substring(start, i)));
        if (i === length - 1) throw invalid(str, "Invalid property expression: unterminated expression");
        if (!/[a-z0-9$_]/i.test(str[i + 1]!)) throw invalid(str, `Invalid property expression: unexpected ${str[i + 1]} at position ${i + 1}`);
        start = i + 1;
      } else if (c === "[") {
        if (i === 0) throw invalid(str, `Invalid property expression: unexpected ${c} at position ${i}`);
        if (start !== i) parts.push(str.substring(start, i));
        if (i === length - 1) throw invalid(str, "Invalid property expression: unterminated expression");
        if (/^msg[.[]/.test(str.substring(i + 1))) {
          // A nested reference: scan to its closing bracket.
          let depth = 1;
          let inLocalString = false;
          let localQuote = "";
          let j = i + 1;
          for (; j < length; j++) {
            const d = str[j]!;
            if (d === '"' || d === "'") {
              if (inLocalString) {
                if (d === localQuote) inLocalString = false;
              } else {
                inLocalString = true;
                localQuote = d;
              }
            }
            if (d === "[") depth++;
            else if (d === "]") depth--;
            if (depth === 0) break;
          }
          if (depth > 0) throw invalid(str, `Invalid property expression: unmatched '[' at position ${i}`);
          const inner = str.substring(i + 1, j);
          let value: unknown;
          try {
            // As Node-RED's getMessageProperty: a leading "msg." is the message itself.
            const innerParts = parseExpression(inner.startsWith("msg.") ? inner.slice(4) : inner, msg);
            if (msg) {
              value = walk(msg, innerParts);
              if (value === undefined) throw invalid(str, `Invalid expression: undefined reference at position ${i + 1} : ${inner}`);
            } else value = innerParts.join(".") || "msg";
          } catch {
            throw invalid(str, `Invalid expression started at position ${i + 1}`);
          }
          parts.push(typeof value === "number" ? value : String(value));
          inBox = false;
          i = j;
          start = j + 1;
          continue;
        } else if (!/["'\d]/.test(str[i + 1]!)) {
          throw invalid(str, `Invalid property expression: unexpected ${str[i + 1]} at position ${i + 1}`);
        }
        start = i + 1;
        inBox = true;
      } else if (c === "]") {
        if (!inBox) throw invalid(str, `Invalid property expression: unexpected ${c} at position ${i}`);
        if (start !== i) {
          const v = str.substring(start, i);
          if (!/^\d+$/.test(v)) throw invalid(str, `Invalid property expression: unexpected array expression at position ${start}`);
          parts.push(parseInt(v, 10));
        }
        start = i + 1;
        inBox = false;
      } else if (c === " ") {
        throw invalid(str, `Invalid property expression: unexpected ' ' at position ${i}`);
      }
    } else if (c === quoteChar) {
      if (i - start === 0) throw invalid(str, `Invalid property expression: zero-length string at position ${start}`);
      parts.push(str.substring(start, i));
      if (inBox && str[i + 1] !== "]") throw invalid(str, `Invalid property expression: unexpected array expression at position ${start}`);
      if (!inBox && i + 1 !== length && !/[[.]/.test(str[i + 1]!)) throw invalid(str, `Invalid property expression: unexpected ${str[i + 1]} expression at position ${i + 1}`);
      start = i + 1;
      inString = false;
    }
  }
  if (inBox || inString) throw invalid(str, "Invalid property expression: unterminated expression");
  if (start < length) parts.push(str.substring(start));
  for (const part of parts) if (typeof part === "string" && FORBIDDEN_PATH_SEGMENTS.has(part)) throw new PropertyPathError(str);
  return parts;
}

/** Own properties only: inherited ones (toString, hasOwnProperty...) are not message data. */
function walk(root: unknown, parts: readonly Part[]): unknown {
  let value = root;
  for (const part of parts) {
    if (value === null || typeof value !== "object" || !own(value, part)) return undefined;
    value = (value as Record<Part, unknown>)[part];
  }
  return value;
}

/** Parsed paths without nested references (the same for every message), kept once parsed. */
const staticPaths = new Map<string, readonly Part[]>();
const STATIC_PATHS_KEPT = 10_000;

/**
 * Splits "payload.a[0]['b c']" into ["payload", "a", 0, "b c"] (Node-RED's grammar, see above);
 * `[msg.x]` references are read from `msg`. Throws PropertyPathError on an invalid path or a
 * forbidden segment. The result must not be changed.
 */
export function parsePath(path: string, msg?: Record<string, unknown>): readonly Part[] {
  const known = staticPaths.get(path);
  if (known) return known;
  const parts = parseExpression(path, msg);
  if (!path.includes("[msg")) {
    if (staticPaths.size >= STATIC_PATHS_KEPT) staticPaths.clear();
    staticPaths.set(path, parts);
  }
  return parts;
}

/** True for a path of the grammar that names no forbidden segment (nested references are checked, not read). */
export function isPropertyPath(path: string): boolean {
  try {
    parseExpression(path, undefined);
    return true;
  } catch {
    return false;
  }
}

/** Node-RED's normalisePropertyExpression(path, msg, true): the path with its nested references read, in bracket form. */
export function resolvedPath(path: string, msg: Record<string, unknown>): string {
  const [head, ...rest] = parsePath(path, msg);
  return rest.reduce<string>((text, p) => `${text}[${typeof p === "number" ? p : p.includes('"') ? `'${p}'` : `"${p}"`}]`, String(head));
}

const own = (target: object, key: string | number) => Object.prototype.hasOwnProperty.call(target, key);

export function getProperty(msg: Message, path: string): unknown {
  if (path === "msg") return msg;
  let parts: readonly Part[];
  try {
    parts = parsePath(path, msg);
  } catch {
    return undefined;
  }
  return walk(msg, parts);
}

/** Sets a property, creating objects on the way; refuses prototype keys. */
export function setProperty(msg: Message, path: string, value: unknown): void {
  const parts = parsePath(path, msg);
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
  const parts = parsePath(path, msg);
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
 * then nothing is written and it returns false (change warns, as Node-RED). `createMissing` is
 * Node-RED's argument of that name: by default parents are created only for a value, and the
 * inject node asks for them always (a prop `payload.x` whose value is undefined leaves
 * `payload` an empty object there).
 */
export function setMessageProperty(msg: Message, path: string, value: unknown, createMissing = value !== undefined): boolean {
  const parts = parsePath(path, msg);
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
