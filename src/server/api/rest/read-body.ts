export type LimitedRead = { ok: true; text: string } | { ok: false };
/** A body kept as its bytes (PUT /files/{path}: any content, SPEC §23). */
export type LimitedBytes = { ok: true; bytes: Buffer } | { ok: false };

/**
 * The body-size rules of every transport: a declared Content-Length that is not a plain number, or
 * is over the limit, is refused before a byte is read (`refusedUnread`); a chunked (or lying) body
 * is counted as it streams in and refused as soon as it passes the limit, so an oversized body never
 * sits in memory. This reader applies them to chunks (a fetch body: tRPC, the webhooks, Next's REST
 * route file); the custom server's REST mount applies them to Node's request by its events
 * (`readNodeBody`, http/direct-mount.ts). Refusing stops the iteration, which cancels a fetch body;
 * what the refusal answers (413) is the caller's.
 */
export async function readLimited(chunks: AsyncIterable<Uint8Array> | null, declared: string | null, limit: number): Promise<LimitedRead> {
  const read = await readLimitedBytes(chunks, declared, limit);
  return read.ok ? { ok: true, text: read.bytes.toString("utf8") } : read;
}

/** readLimited, keeping the bytes as they came. */
export async function readLimitedBytes(chunks: AsyncIterable<Uint8Array> | null, declared: string | null, limit: number): Promise<LimitedBytes> {
  if (refusedUnread(declared, limit)) return { ok: false };
  if (!chunks) return { ok: true, bytes: Buffer.alloc(0) };
  const kept: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of chunks) {
    total += chunk.byteLength;
    if (total > limit) return { ok: false };
    kept.push(chunk);
  }
  return { ok: true, bytes: Buffer.concat(kept) };
}

/** A declared Content-Length that is not a plain number, or is over the limit: refused before reading. */
export function refusedUnread(declared: string | null, limit: number): boolean {
  return declared !== null && (!/^\d+$/.test(declared) || Number(declared) > limit);
}

/** A fetch body as chunks; leaving the loop early cancels the upload. */
async function* streamChunks(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        return;
      }
      yield value;
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
  }
}

/** readLimited over a fetch Request (tRPC, webhooks). A body refused before reading is cancelled. */
export async function readBodyWithLimit(req: Request, limit: number): Promise<LimitedRead> {
  const read = await readBodyBytesWithLimit(req, limit);
  return read.ok ? { ok: true, text: read.bytes.toString("utf8") } : read;
}

/** readBodyWithLimit keeping the bytes (a webhook's multipart/form-data upload). */
export async function readBodyBytesWithLimit(req: Request, limit: number): Promise<LimitedBytes> {
  const read = await readLimitedBytes(req.body && streamChunks(req.body), req.headers.get("content-length"), limit);
  if (!read.ok && req.body && !req.body.locked) await req.body.cancel().catch(() => undefined);
  return read;
}
