/**
 * JSON text of a message, bounded by size and time: the one serializer every place uses that turns a
 * message into text on the main thread for someone else (execution capture, the debug preview, the
 * hand-over to the function sandbox).
 *
 * Why not JSON.stringify: a message is a graph, not a tree. A JSONata result that reuses one object
 * at every level (`{a: x, b: x}` nested 30 times) is a few hundred bytes in memory and 2^30 leaves as
 * JSON; JSON.stringify walks them all before anyone can cut the text, and holds the thread for
 * minutes (issue 40: 22 levels stalled /health 3.2 s). Here a shared reference counts as what it
 * expands to, and the walk stops at the bound:
 *
 * 1. `measure` walks the value as JSON.stringify would (toJSON, skipped properties, Buffers as their
 *    `{type, data}`), adding up an estimate of the text's length, and stops as soon as the estimate
 *    passes the bound (or the time budget is spent). Every step of the walk adds at least one
 *    character, so its work is at most proportional to the bound.
 * 2. Within the bound, the text is JSON.stringify's own (native speed, exactly the same text). A
 *    string's escapes can make the text longer than the estimate (at most 6 times a string's length),
 *    so the result is still cut at the bound.
 * 3. Past it, `prefix` writes the text's first `maxChars` characters itself, stopping there: the same
 *    characters JSON.stringify's text would begin with, and `truncated`.
 */

export interface BoundedJsonOptions {
  /** Characters of JSON text at most. */
  maxChars: number;
  /** Time the walk may take at most (default 100 ms): past it, what was written is cut there. */
  maxMs?: number;
  /**
   * Whether a text past the bound is written up to it (a preview); false: it is only known to be
   * too large (`text` undefined), which costs no more than the measuring (a hand-over refused).
   */
  cut?: boolean;
  /**
   * JSON.stringify's replacer for a value that holds a Buffer (the function sandbox writes Buffers
   * as its own stand-in); only the text within the bound is written with it.
   */
  bufferReplacer?: (this: unknown, key: string, value: unknown) => unknown;
}

export interface BoundedJson {
  /** JSON text (cut at maxChars when truncated); undefined where JSON.stringify gives undefined. */
  text: string | undefined;
  truncated: boolean;
}

const DEFAULT_MAX_MS = 100;
/** Walk steps between two clock reads. */
const CLOCK_EVERY = 1024;

/** Thrown inside a walk when the bound or the time budget is reached. */
class Bound extends Error {}
const BOUND = new Bound("bound");

/** JSON.stringify's view of a value found at `key`: toJSON applied, boxed primitives unwrapped. */
function jsonView(value: unknown, key: string | number): unknown {
  if (value !== null && typeof value === "object") {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") {
      // A Buffer's toJSON copies every byte into an array of numbers: measured from its length instead.
      if (Buffer.isBuffer(value)) return value;
      value = (toJSON as (k: string) => unknown).call(value, String(key));
    }
    if (value instanceof Number || value instanceof String || value instanceof Boolean) return value.valueOf();
  } else if (typeof value === "bigint") {
    const toJSON = (value as unknown as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") return (toJSON as (k: string) => unknown).call(value, String(key));
  }
  return value;
}

const skipped = (value: unknown) => value === undefined || typeof value === "function" || typeof value === "symbol";

class Walk {
  steps = 0;
  /** Set at the first clock read (CLOCK_EVERY steps in): a small value never reads the clock. */
  private deadline = 0;
  constructor(
    readonly max: number,
    private readonly maxMs: number,
  ) {}
  tick(): void {
    if (++this.steps % CLOCK_EVERY !== 0) return;
    const now = performance.now();
    if (this.deadline === 0) this.deadline = now + this.maxMs;
    else if (now > this.deadline) throw BOUND;
  }
}

/** Walks a value as JSON.stringify would, adding up an estimate of its text's length; BOUND past the bound. */
class Measure extends Walk {
  total = 0;
  /** Whether a Buffer was met. */
  buffers = false;
  /** Buffers are written as base64 stand-ins (a bufferReplacer). */
  base64Buffers = false;
  private readonly ancestors: object[] = [];

  private add(n: number): void {
    this.total += n;
    if (this.total > this.max) throw BOUND;
  }

  visit(raw: unknown, key: string | number): void {
    this.tick();
    const value = jsonView(raw, key);
    switch (typeof value) {
      case "string":
        return this.add(value.length + 2);
      case "number":
        return this.add(Number.isFinite(value) ? String(value).length : 4);
      case "boolean":
        return this.add(5);
      case "bigint":
        throw new TypeError("Do not know how to serialize a BigInt");
      case "object":
        break;
      default:
        return this.add(4);
    }
    if (value === null) return this.add(4);
    const object = value as object;
    if (Buffer.isBuffer(object)) {
      this.buffers = true;
      // As a stand-in its bytes are base64; as Buffer's JSON, up to 4 characters a byte.
      return this.add(30 + (this.base64Buffers ? 4 * Math.ceil(object.length / 3) : object.length * 4));
    }
    if (this.ancestors.includes(object)) throw new TypeError("Converting circular structure to JSON");
    this.ancestors.push(object);
    this.add(2);
    if (Array.isArray(object)) {
      for (let i = 0; i < object.length; i++) {
        this.add(1);
        this.visit(object[i], i);
      }
    } else {
      for (const k in object) {
        if (!Object.prototype.hasOwnProperty.call(object, k)) continue;
        this.tick();
        const item = (object as Record<string, unknown>)[k];
        if (skipped(item)) continue;
        this.add(k.length + 4);
        this.visit(item, k);
      }
    }
    this.ancestors.pop();
  }
}

/** Writes JSON.stringify's text of a value until `max` characters (then BOUND is thrown). */
class Writer extends Walk {
  text = "";
  private readonly ancestors: object[] = [];

  private write(piece: string): void {
    const room = this.max - this.text.length;
    if (piece.length > room) {
      this.text += piece.slice(0, room);
      throw BOUND;
    }
    this.text += piece;
  }

  private writeString(s: string): void {
    // Only what fits is escaped (a long string is cut before JSON.stringify sees it), without
    // splitting a surrogate pair, which would be escaped differently alone.
    const room = this.max - this.text.length;
    let cut = s.length > room ? s.slice(0, room + 1) : s;
    if (cut.length < s.length && /[\ud800-\udbff]$/.test(cut)) cut = s.slice(0, room + 2);
    const quoted = JSON.stringify(cut);
    this.write(cut.length < s.length ? quoted.slice(0, -1) : quoted);
  }

  /** `value`: as jsonView gives it. */
  visit(value: unknown, inArray: boolean): void {
    this.tick();
    switch (typeof value) {
      case "string":
        return this.writeString(value);
      case "number":
        return this.write(Number.isFinite(value) ? String(value) : "null");
      case "boolean":
        return this.write(value ? "true" : "false");
      case "bigint":
        throw new TypeError("Do not know how to serialize a BigInt");
      case "object":
        break;
      default:
        return this.write(inArray ? "null" : "");
    }
    if (value === null) return this.write("null");
    const object = value as object;
    if (Buffer.isBuffer(object)) {
      this.write('{"type":"Buffer","data":[');
      for (let i = 0; i < object.length; i++) {
        this.tick();
        this.write(i === 0 ? String(object[i]) : `,${object[i]}`);
      }
      return this.write("]}");
    }
    if (this.ancestors.includes(object)) throw new TypeError("Converting circular structure to JSON");
    this.ancestors.push(object);
    if (Array.isArray(object)) {
      this.write("[");
      for (let i = 0; i < object.length; i++) {
        if (i > 0) this.write(",");
        this.visit(jsonView(object[i], i), true);
      }
      this.write("]");
    } else {
      this.write("{");
      let first = true;
      for (const k of Object.keys(object)) {
        this.tick();
        const item = jsonView((object as Record<string, unknown>)[k], k);
        if (skipped(item)) continue;
        this.write(`${first ? "" : ","}${JSON.stringify(k)}:`);
        first = false;
        this.visit(item, false);
      }
      this.write("}");
    }
    this.ancestors.pop();
  }
}

/**
 * JSON.stringify(value), bounded: the whole text when it has at most `maxChars` characters, else
 * its first `maxChars` characters (none with `cut: false`) and `truncated`. Never walks more than the bound's worth of the
 * value, however often it repeats one object, and never longer than `maxMs` (then cut where it
 * was). Throws what JSON.stringify throws (a cycle, a BigInt).
 */
export function boundedJson(value: unknown, options: BoundedJsonOptions): BoundedJson {
  let fits = true;
  const measure = new Measure(options.maxChars, options.maxMs ?? DEFAULT_MAX_MS);
  measure.base64Buffers = options.bufferReplacer !== undefined;
  try {
    measure.visit(value, "");
  } catch (err) {
    if (err !== BOUND) throw err;
    fits = false;
  }
  if (fits) {
    const text = (measure.buffers && options.bufferReplacer ? JSON.stringify(value, options.bufferReplacer) : JSON.stringify(value)) as string | undefined;
    if (text === undefined || text.length <= options.maxChars) return { text, truncated: false };
    return { text: text.slice(0, options.maxChars), truncated: true };
  }
  if (options.cut === false) return { text: undefined, truncated: true };
  // The estimate is generous (null counts 5): a text it refused may still fit, and is then whole.
  const writer = new Writer(options.maxChars, options.maxMs ?? DEFAULT_MAX_MS);
  try {
    writer.visit(jsonView(value, ""), false);
  } catch (err) {
    if (err !== BOUND) throw err;
    return { text: writer.text, truncated: true };
  }
  return { text: writer.text, truncated: false };
}
