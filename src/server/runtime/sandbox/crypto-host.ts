/**
 * The host's half of the function sandbox's `crypto` (crypto-source.ts), the module a function
 * node's *Setup → Modules* (`libs`) loads as Node-RED's loads Node's: digests, HMACs and random
 * values are computed here by Node's own `crypto`, so every answer, and every error a bad argument
 * gets, is Node's.
 *
 * A call and its answer are text. The call is JSON (arguments the sandbox could not check itself
 * travel as they are, with what JSON lacks tagged as intl-host.ts's `revive` reads it: undefined,
 * NaN, the infinities, -0), so Node's own validation words the error. The answer is `=` and the
 * JSON of the result, or `!` and `[name, message, code | null, plain, extra]`: an error to throw (`plain`:
 * its text has no `[code]`, as an error from OpenSSL's side reads; `extra`: its other properties,
 * as an OpenSSL error's `library`, `reason` and `opensslErrorStack`).
 *
 * Calls:
 * - `["new", "hash" | "hmac", algorithm, options | key]`: creates the object only to have Node check
 *   the algorithm, options and key now, when the code creates it (`null`);
 * - `["digest", "hash" | "hmac", algorithm, options | key, chunks, encoding]`: the digest of the
 *   chunks (`["s", text, encoding]` or `["b", base64]`, updated in order) → `{s: text}` for an
 *   encoding Node answers text for, else `{b: base64}` (a Buffer);
 * - `["hash", algorithm, data, outputEncoding]` (`crypto.hash`, Node 21.7+);
 * - `["random", size]` → `{b}`; `["randomInt", ...args]` → a number; `["uuid", options]` → text;
 *   `["hashes"]` → `getHashes()`, `["ciphers"]` → `getCiphers()`;
 * - `["cipher", decipher, algorithm, key, iv, options]` → the number of a cipher kept here
 *   (CipherTable); then `["cu", id, data, outputEncoding]` (update), `["cf", id, outputEncoding]`
 *   (final), `["cp", id, autoPadding]`, `["ca", id, aad, options]`, `["cg", id]` (getAuthTag),
 *   `["ct", id, tag]` (setAuthTag): Node's own cipher answers each, state and errors included.
 * A host call cannot be interrupted, so this side bounds every call, whatever the sandbox's own code
 * did (the code may have replaced the built-ins it uses): its length (cryptoMaxChars), the updates a
 * digest replays, random bytes and an extendable-output hash's length. Past a bound the answer is
 * a RangeError the code can catch.
 */
import crypto from "node:crypto";

/**
 * The longest call, the data of one digest as JSON, for a run's time limit: about 8,000 characters
 * per millisecond of it (parsing and hashing take a small part of that on a busy 2-core machine),
 * at least 1,000,000 and at most 16,000,000 (about 12 MB of bytes as base64). The worker is
 * terminated when a call outlives the run's hard deadline (its time limit plus at least 100 ms).
 */
export function cryptoMaxChars(timeoutMs: number): number {
  return Math.max(1_000_000, Math.min(16_000_000, Math.round(timeoutMs * 8000)));
}
/** The most random bytes one call makes (randomBytes, randomFill, getRandomValues): the engine's memory is 32 MiB. */
export const CRYPTO_MAX_RANDOM_BYTES = 1_048_576;
/** The longest digest an extendable-output hash (shake128, shake256) makes: Node's allows 4 GB. */
export const CRYPTO_MAX_OUTPUT_BYTES = 1_048_576;
/** The most updates one digest replays: each is a call into Node's crypto. */
export const CRYPTO_MAX_UPDATES = 100_000;
/**
 * The most ciphers one sandbox keeps (createCipheriv / createDecipheriv). They live outside the
 * engine's memory limit (a few KB each, OpenSSL's state): past it the least recently used finished
 * one goes, else the least recently used.
 */
export const CRYPTO_MAX_CIPHERS = 32;

type Cipher = crypto.Cipher | crypto.Decipher;

/**
 * How much slower than a block per block a cipher's mode works: a CFB1 mode runs the block cipher
 * once per bit, CFB8 once per byte (3DES-CFB1 is about 1 µs a byte). One update takes at most the
 * call's bound divided by this, so that no mode makes a host call outlive the run's hard deadline.
 */
function slowness(algorithm: string): number {
  const name = algorithm.toLowerCase();
  if (name.endsWith("cfb1")) return 64;
  if (name.endsWith("cfb8")) return 16;
  return 1;
}

interface CipherEntry {
  cipher: Cipher;
  done: boolean;
  /** Characters one update may carry (the call's bound over the mode's slowness). */
  slowness: number;
}

/**
 * A sandbox's ciphers: they live here, on the host, between the code's calls (an update's output
 * depends on what came before it), each under the number the sandbox holds, in the order of their
 * last use. One table per engine, emptied when the engine goes.
 */
export class CipherTable {
  private readonly open = new Map<number, CipherEntry>();
  private next = 1;

  add(cipher: Cipher, algorithm: string): number {
    if (this.open.size >= CRYPTO_MAX_CIPHERS) this.evict();
    const id = this.next++;
    this.open.set(id, { cipher, done: false, slowness: slowness(algorithm) });
    return id;
  }

  get(id: unknown): CipherEntry {
    const entry = typeof id === "number" ? this.open.get(id) : undefined;
    if (!entry) throw new Error(`This cipher was closed by the function sandbox, which keeps at most ${CRYPTO_MAX_CIPHERS} at once`);
    // The most recently used last.
    this.open.delete(id as number);
    this.open.set(id as number, entry);
    return entry;
  }

  get size(): number {
    return this.open.size;
  }

  clear(): void {
    this.open.clear();
  }

  private evict(): void {
    for (const [id, entry] of this.open) {
      if (entry.done) {
        this.open.delete(id);
        return;
      }
    }
    const oldest = this.open.keys().next();
    if (!oldest.done) this.open.delete(oldest.value);
  }
}

const fmt = (n: number) => n.toLocaleString("en-US");

/** JSON's values and what it lacks, tagged by the sandbox: undefined, NaN, the infinities and -0 (never a BigInt here). */
function revive(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const keys = Object.keys(value);
    const tagged = value as Record<string, unknown>;
    if (keys.length === 1 && keys[0] === "\u0000undefined") return undefined;
    if (keys.length === 1 && keys[0] === "\u0000num") {
      const text = tagged["\u0000num"];
      return text === "-0" ? -0 : text === "NaN" ? NaN : text === "Infinity" ? Infinity : text === "-Infinity" ? -Infinity : undefined;
    }
  }
  return value;
}

/** An extendable-output hash's outputLength is bounded here (Node's allows 4 GB, made in one call that cannot be interrupted). */
function checkOutputLength(options: unknown): void {
  const length = options !== null && typeof options === "object" ? (options as { outputLength?: unknown }).outputLength : undefined;
  if (typeof length === "number" && length > CRYPTO_MAX_OUTPUT_BYTES) {
    throw new RangeError(`The function sandbox's crypto makes a digest of at most ${fmt(CRYPTO_MAX_OUTPUT_BYTES)} bytes. Received an outputLength of ${fmt(length)}`);
  }
}

/** Data or a key as the sandbox sends it: a string (and its encoding), bytes as base64, or anything else as the code gave it. */
type Chunk = ["s", string, unknown] | ["b", string] | ["x", unknown];

function bytesOf(value: unknown): unknown {
  const chunk = value as Chunk;
  if (chunk[0] === "b") return Buffer.from(chunk[1], "base64");
  // An unknown encoding is Node's ERR_UNKNOWN_ENCODING, from Buffer.from as from Node's crypto.
  if (chunk[0] === "s") return typeof chunk[2] === "string" && chunk[2] !== "utf8" ? Buffer.from(chunk[1], chunk[2] as BufferEncoding) : chunk[1];
  // Anything else as the code gave it: Node refuses it in its own words. A string here was an
  // object whose JSON is a string (a String object, a Date): Node refuses the object.
  return typeof chunk[1] === "string" ? {} : chunk[1];
}

function create(kind: unknown, algorithm: unknown, second: unknown): crypto.Hash | crypto.Hmac {
  if (kind === "hmac") return crypto.createHmac(algorithm as string, bytesOf(second) as crypto.BinaryLike);
  // A hash's options: { outputLength } or nothing.
  checkOutputLength(second);
  return crypto.createHash(algorithm as string, (second ?? undefined) as crypto.HashOptions | undefined);
}

function update(target: crypto.Hash | crypto.Hmac, chunks: unknown): void {
  if (!Array.isArray(chunks)) return;
  if (chunks.length > CRYPTO_MAX_UPDATES) throw new RangeError(`The function sandbox's crypto replays at most ${fmt(CRYPTO_MAX_UPDATES)} updates in one digest. Received ${fmt(chunks.length)}`);
  for (const chunk of chunks as Chunk[]) {
    if (chunk[0] === "b") target.update(Buffer.from(chunk[1], "base64"));
    else if (chunk[0] === "s") target.update(chunk[1], chunk[2] as crypto.Encoding);
  }
}

function result(value: unknown): unknown {
  if (typeof value === "string") return { s: value };
  if (Buffer.isBuffer(value)) return { b: value.toString("base64") };
  return value;
}

/** An AEAD cipher's tag length is a few bytes (Node's own check, for lengths it would otherwise take to OpenSSL); Node checks the rest. */
function checkAuthTagLength(options: unknown): void {
  const length = options !== null && typeof options === "object" ? (options as { authTagLength?: unknown }).authTagLength : undefined;
  if (typeof length === "number" && length > 1024) throw Object.assign(new TypeError(`Invalid authentication tag length: ${length}`), { code: "ERR_CRYPTO_INVALID_AUTH_TAG" });
}

function answer(call: unknown[], ciphers: CipherTable, maxChars: number): unknown {
  const [op, a, b, c, d, e] = call;
  switch (op) {
    // A hash without options, and a digest without an encoding, come as null.
    case "new":
      create(a, b, c ?? undefined);
      return null;
    case "digest": {
      const target = create(a, b, c ?? undefined);
      update(target, d);
      return result((target as crypto.Hash).digest((e ?? undefined) as crypto.BinaryToTextEncoding));
    }
    case "hash":
      checkOutputLength(c);
      return result(crypto.hash(a as string, bytesOf(b) as crypto.BinaryLike, c as crypto.BinaryToTextEncoding));
    case "random": {
      if (typeof a === "number" && a > CRYPTO_MAX_RANDOM_BYTES) {
        throw new RangeError(`The function sandbox's crypto makes at most ${fmt(CRYPTO_MAX_RANDOM_BYTES)} random bytes in one call. Received ${fmt(a)}`);
      }
      return result(crypto.randomBytes(a as number));
    }
    case "cipher": {
      const [, decipher, algorithm, key, iv, options] = call;
      const make = decipher === true ? crypto.createDecipheriv : crypto.createCipheriv;
      checkAuthTagLength(options);
      const cipher = (make as (...args: unknown[]) => Cipher)(algorithm, bytesOf(key), bytesOf(iv), options ?? undefined);
      return ciphers.add(cipher, String(algorithm));
    }
    case "cu": {
      const { cipher, slowness: factor } = ciphers.get(a);
      const data = b as Chunk;
      const size = typeof data[1] === "string" ? data[1].length : 0;
      if (size > maxChars / factor) {
        throw new RangeError(`The function sandbox's crypto takes at most ${fmt(Math.floor(maxChars / factor))} characters in one update of a cipher in this mode. Received ${fmt(size)}`);
      }
      const out = (c ?? undefined) as crypto.Encoding | undefined;
      if (data[0] === "s") return result(cipher.update(data[1], data[2] as crypto.Encoding, out as crypto.Encoding));
      return result((cipher.update as (...args: unknown[]) => unknown)(bytesOf(data), undefined, out));
    }
    case "cf": {
      const entry = ciphers.get(a);
      try {
        return result(entry.cipher.final((b ?? undefined) as crypto.Encoding));
      } finally {
        entry.done = true;
      }
    }
    case "cp":
      ciphers.get(a).cipher.setAutoPadding(b as boolean);
      return null;
    case "ca":
      (ciphers.get(a).cipher as crypto.CipherGCM).setAAD(bytesOf(b) as Buffer, (c ?? undefined) as { plaintextLength: number });
      return null;
    case "cg":
      return result((ciphers.get(a).cipher as crypto.CipherGCM).getAuthTag());
    case "ct": {
      const tag = b as Chunk;
      (ciphers.get(a).cipher as unknown as { setAuthTag(t: unknown, e?: unknown): void }).setAuthTag(tag[0] === "s" ? tag[1] : bytesOf(tag), tag[0] === "s" ? tag[2] : undefined);
      return null;
    }
    case "ciphers":
      return crypto.getCiphers();
    case "randomInt":
      return (crypto.randomInt as (...args: unknown[]) => number)(...call.slice(1));
    case "uuid":
      return crypto.randomUUID(a as crypto.RandomUUIDOptions | undefined);
    case "hashes":
      return crypto.getHashes();
    default:
      throw new Error(`crypto: unknown call ${String(op)}`);
  }
}

export function cryptoCall(json: string, maxChars: number, ciphers: CipherTable): string {
  if (json.length > maxChars) return "!" + JSON.stringify(["RangeError", `The data is too long for the function sandbox's crypto (over ${fmt(maxChars)} characters in one call)`, null, true]);
  try {
    const call = JSON.parse(json, revive) as unknown;
    if (!Array.isArray(call)) throw new Error("crypto: a call is an array");
    const value = answer(call, ciphers, maxChars);
    return "=" + (value === undefined ? "null" : JSON.stringify(value));
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    const own = (e as { code?: unknown }).code;
    const code = typeof own === "string" ? own : null;
    // Node's errors made in JavaScript read "TypeError [ERR_X]: …"; those from OpenSSL "Error: error:…".
    const plain = code === null || !String(e).startsWith(`${e.name} [${code}]`);
    // OpenSSL's errors also carry library, reason and opensslErrorStack.
    const extra: Record<string, string | string[]> = {};
    for (const key of Object.keys(e)) {
      const value = (e as unknown as Record<string, unknown>)[key];
      if (key !== "code" && (typeof value === "string" || (Array.isArray(value) && value.every((v) => typeof v === "string")))) extra[key] = value as string | string[];
    }
    return "!" + JSON.stringify([e.name, e.message, code, plain, extra]);
  }
}
