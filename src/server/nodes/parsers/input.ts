/**
 * What the parser nodes (csv, html, json, xml, yaml) share: reading a property that may hold text
 * or bytes, and the bound on how much text one message may hand to a parser in a shared runtime.
 */

/**
 * Text longer than this (in UTF-16 code units, about as many bytes for ASCII) is refused with a node
 * error instead of parsed: a parser's output is several times its input, and one flow's message
 * must not take the memory every other tenant's flows run in.
 */
export const MAX_PARSER_INPUT_CHARS = 8 * 1024 * 1024;

/** A Buffer, or the Uint8Array a Buffer becomes once a message has been cloned. */
export function isBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array;
}

/** Bytes as UTF-8 text (what Node-RED's `buffer.toString()` gives). */
export function bytesToText(value: Uint8Array): string {
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("utf8");
}

/** The error for text over the bound, or null. */
export function oversizeProblem(text: string): Error | null {
  if (text.length <= MAX_PARSER_INPUT_CHARS) return null;
  return new Error(`input of ${text.length} characters is over the limit of ${MAX_PARSER_INPUT_CHARS} characters a parser node accepts`);
}

/**
 * An error as Node-RED reports one a node hands to `done(err)`: its toString(), so "Error: …" or
 * "TypeError: …" (what catch nodes see in msg.error.message), where a string is reported as is.
 */
export function asNodeRedError(err: unknown): unknown {
  // The engine writes msg.error.message as Node-RED does (the error's toString(), "Error: …",
  // "UnquotedQuoteError: …"): the error itself goes on, as Node-RED's node.error(err, msg).
  return err instanceof Error ? err : String(err);
}

/**
 * A copy of `msg` for one of several messages made from it, without the top-level property `key`
 * that the caller replaces next: a CSV of 10,000 rows must not be copied 10,000 times.
 */
export function cloneWithout<T extends Record<string, unknown>>(msg: T, key: string): T {
  const { [key]: _dropped, ...rest } = msg;
  return structuredClone(rest) as T;
}
