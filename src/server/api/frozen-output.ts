import type { z } from "zod";
import { deepFreeze, isDeepFrozen } from "../../shared/deep-freeze";

/** What a procedure's `.output()` gets: a parse function that carries its schema (for OpenAPI). */
export type FrozenOutputParser<T extends z.ZodType> = ((value: unknown) => Promise<z.output<T>>) & {
  schema: T;
  /** The same check, synchronous (the REST adapter's validator, api/invoke-procedure.ts). */
  parseSync(value: unknown): z.output<T>;
};

/**
 * The output check of procedures that often answer with the very same deep-frozen value (a cached
 * read, services/flows/flow-reads.ts, or the node catalog): such a value cannot change, so its
 * checked and stripped form is kept beside it and every later answer with it skips the check.
 * Values not frozen by deepFreeze (Object.freeze alone does not count) are checked every time, as
 * `.output(schema)` does. The checked form is deep-frozen too, so the REST adapter writes its JSON
 * once (`jsonOf`).
 */
export function frozenOutput<T extends z.ZodType>(schema: T): FrozenOutputParser<T> {
  // Per parser, and weak: an entry lives as long as the value it was checked from (a cache entry).
  const checked = new WeakMap<object, z.output<T>>();
  const parse = async (value: unknown): Promise<z.output<T>> => {
    if (!isDeepFrozen(value)) return schema.parseAsync(value);
    const known = checked.get(value);
    if (known !== undefined) return known;
    const output = deepFreeze(await schema.parseAsync(value));
    checked.set(value, output);
    return output;
  };
  const parseSync = (value: unknown): z.output<T> => {
    if (!isDeepFrozen(value)) return schema.parse(value);
    const known = checked.get(value);
    if (known !== undefined) return known;
    const output = deepFreeze(schema.parse(value));
    checked.set(value, output);
    return output;
  };
  return Object.assign(parse, { schema, parseSync });
}

/** The zod schema behind a procedure's `.output()`: the schema itself, or a frozenOutput's. */
export function outputSchemaOf(output: unknown): z.ZodType | undefined {
  if (typeof output === "function" && "schema" in output) return (output as { schema: z.ZodType }).schema;
  return output as z.ZodType | undefined;
}

const serialized = new WeakMap<object, string>();

/** JSON text of a value; a deep-frozen value's is made once and kept beside it. */
export function jsonOf(value: unknown): string {
  if (!isDeepFrozen(value)) return JSON.stringify(value);
  let text = serialized.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    serialized.set(value, text);
  }
  return text;
}

/** Answers whose JSON is longer than this are kept and written as UTF-8 bytes (jsonBodyOf). */
export const LARGE_JSON_CHARS = 16 * 1024;

/** Text around a value's JSON in an answer (tRPC's `{"result":{"data":…}}`). */
export interface JsonWrap {
  before: string;
  after: string;
}

const NO_WRAP: JsonWrap = { before: "", after: "" };
const encoded = new WeakMap<JsonWrap, WeakMap<object, Buffer>>();
/** The bodies jsonBodyOf keeps beside their values: the same bytes answer many requests. */
const keptBodies = new WeakSet<Buffer>();

/**
 * A body jsonBodyOf keeps and hands out again (what is derived from it, such as its compressed
 * forms in http/compression.ts, is worth keeping too). Its bytes never change.
 */
export function isKeptBody(body: Buffer): boolean {
  return keptBodies.has(body);
}

/**
 * A response body: the value's JSON (wrapped, when asked) as text, which Node writes with the head
 * in one chunk; or, for a large deep-frozen value (the node catalog: 150 KB), its UTF-8 bytes,
 * encoded once and kept beside the value instead of its text. Measuring and encoding such a text
 * again on every answer was a third of the request's CPU (docs/BENCHMARKS.md).
 */
export function jsonBodyOf(value: unknown, wrap: JsonWrap = NO_WRAP): string | Buffer {
  if (!isDeepFrozen(value)) return wrap.before + JSON.stringify(value) + wrap.after;
  let kept = encoded.get(wrap);
  if (!kept) encoded.set(wrap, (kept = new WeakMap()));
  const bytes = kept.get(value);
  if (bytes !== undefined) return bytes;
  const text = jsonOf(value);
  if (text.length <= LARGE_JSON_CHARS) return wrap.before + text + wrap.after;
  const made = Buffer.from(wrap.before + text + wrap.after, "utf8");
  kept.set(value, made);
  keptBodies.add(made);
  serialized.delete(value);
  return made;
}
