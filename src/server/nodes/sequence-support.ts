import type { Message } from "../runtime/types";

/**
 * What the sequence nodes (split, join, batch, sort) share: Node-RED's deep message copy, which
 * keeps Buffers Buffers (structuredClone would hand back Uint8Arrays), and the bound on the
 * messages one node may hold while it waits for the rest of a sequence.
 */

/**
 * Messages one join, batch or sort node holds at most. Node-RED's `nodeMessageBufferMaxLength`
 * defaults to 0 (no bound); a runtime shared by organizations cannot let one node grow without
 * limit, so ours matches the flow's own last-resort bound on queued deliveries (50,000).
 */
export const MAX_HELD_MESSAGES = 50_000;

/**
 * Topics (streams) one trigger or filter node keeps state for at most. Node-RED keeps one entry per
 * topic ever seen; a shared runtime bounds it, so a flow fed unique topics cannot grow without limit.
 */
export const MAX_TOPICS = 10_000;

/** Deep copy of JSON-like message data (plain objects, arrays, Buffers, Dates); others by structuredClone. */
export function cloneValue<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Buffer.isBuffer(value)) return Buffer.from(value) as T;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneValue(value[i]);
    return out as T;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      if (key === "__proto__") continue;
      out[key] = cloneValue((value as Record<string, unknown>)[key]);
    }
    return out as T;
  }
  if (value instanceof Date) return new Date(value.getTime()) as T;
  return structuredClone(value);
}

export function cloneMessage(msg: Message): Message {
  return cloneValue(msg);
}

export const own = (target: object, key: string) => Object.prototype.hasOwnProperty.call(target, key);

/** Node-RED's `msg.parts` (SPEC §12), as split writes it and join, batch and sort read it. */
export interface Parts {
  id: string;
  index: number;
  count?: number;
  type?: "string" | "array" | "object" | "buffer";
  ch?: string | number[];
  key?: string;
  len?: number;
  property?: string;
  /** The parts of an enclosing sequence, restored when this one is joined. */
  parts?: Parts;
  [key: string]: unknown;
}

export function partsOf(msg: Message): Parts | undefined {
  const parts = msg.parts;
  return parts !== null && typeof parts === "object" && !Array.isArray(parts) ? (parts as Parts) : undefined;
}

/** Node-RED's escapes in a join or split string (\n, \r, \t, \e, \f, \0 as typed in the editor). */
export function unescapeSeparator(text: string): string {
  return text
    .replace(/\\n/g, "\n")
    .replace(/\\r/g, "\r")
    .replace(/\\t/g, "\t")
    .replace(/\\e/g, "e")
    .replace(/\\f/g, "\f")
    .replace(/\\0/g, "\0");
}

/** "[1,2,3]" (Node-RED's `bin` typed value) → bytes; throws on anything else. */
export function parseByteArray(text: string): number[] {
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value) || !value.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) throw new Error("not an array of bytes");
  return value as number[];
}

export function isByteArray(text: string): boolean {
  try {
    parseByteArray(text);
    return true;
  } catch {
    return false;
  }
}
