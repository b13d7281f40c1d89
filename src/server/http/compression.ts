import { promisify } from "node:util";
import zlib from "node:zlib";
import Negotiator from "negotiator";
import { isKeptBody } from "../api/frozen-output";

/**
 * Compression of the API's large JSON answers (the REST API and tRPC on the custom server; Next
 * compresses its pages and its own routes itself). A browser, fetch and curl --compressed send
 * Accept-Encoding; over a real network a 200 KB node catalog is a quarter of that in Brotli.
 *
 * - Only JSON bodies over 16 KiB: below, compression's fixed cost (~40 µs a
 *   body for zlib's state alone) outweighs the bytes it saves, and a small answer fits a few
 *   packets anyway. Raw bytes (a stored file's download) are never touched: they are often
 *   compressed already, and their Content-Type is the client's business.
 * - A body kept beside a cached, deep-frozen answer (the node catalog, a large flow: see
 *   api/frozen-output.ts) is compressed once per encoding, off the event loop, and kept beside it
 *   for as long as the answer is: Brotli first (smaller), gzip for clients without it.
 * - Other bodies are compressed per answer on zlib's thread pool: gzip first, which gives Brotli's
 *   size at this quality for half its CPU on JSON (docs/BENCHMARKS.md).
 * - Only answers to GET (direct-mount.ts, compressible): the answers that carry a credential (a
 *   login's tokens, a new API key, an MFA secret) all answer POSTs, so no secret shares a
 *   compressed body with text a client chose (BREACH).
 */
export type ContentCoding = "br" | "gzip";

/** Bodies at most this long (bytes) go as they are. */
export const COMPRESS_MIN_BYTES = 16 * 1024;

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

const CACHED_PREFERENCE = ["br", "gzip", "identity"];
const DYNAMIC_PREFERENCE = ["gzip", "br", "identity"];

/**
 * The coding to answer with for this Accept-Encoding (RFC 9110 §12.5.3, q-values included), by the
 * server's preference among those the client rates equally; null: identity.
 */
export function chooseCoding(acceptEncoding: string | undefined, cached: boolean): ContentCoding | null {
  if (!acceptEncoding) return null;
  const preference = cached ? CACHED_PREFERENCE : DYNAMIC_PREFERENCE;
  const chosen = new Negotiator({ headers: { "accept-encoding": acceptEncoding } }).encoding(preference, { preferred: preference });
  return chosen === "br" || chosen === "gzip" ? chosen : null;
}

function compress(body: Buffer, coding: ContentCoding, cached: boolean): Promise<Buffer> {
  if (coding === "gzip") return gzip(body, { level: 6 });
  // Quality 6 for a body compressed once (11 took 25 times as long for 10 % fewer bytes), 4 per answer.
  return brotli(body, {
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: cached ? 6 : 4, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength, [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT },
  });
}

/** A kept body's compressed forms, by coding: the bytes once made, the promise while making them. */
const compressedKept = new WeakMap<Buffer, Partial<Record<ContentCoding, Buffer | Promise<Buffer>>>>();

/**
 * The body in `coding`: for a kept body, the bytes made once (or the promise all its waiting
 * answers share); else compressed now. A failure yields null (the answer then goes as it is).
 */
export function compressedBody(body: Buffer, coding: ContentCoding): Buffer | Promise<Buffer | null> {
  if (!isKeptBody(body)) return compress(body, coding, false).catch(() => null);
  let forms = compressedKept.get(body);
  if (!forms) compressedKept.set(body, (forms = {}));
  const known = forms[coding];
  if (Buffer.isBuffer(known)) return known;
  if (known) return known.catch(() => null);
  const making = compress(body, coding, true).then(
    (bytes) => {
      forms[coding] = bytes;
      return bytes;
    },
    (error: unknown) => {
      delete forms[coding];
      throw error;
    },
  );
  forms[coding] = making;
  return making.catch(() => null);
}
