/**
 * Reads a request body as UTF-8, counting bytes as they stream in: a declared Content-Length over
 * the limit is refused before reading, and a chunked (or lying) body is cancelled as soon as it
 * passes the limit, so an oversized body never sits in memory.
 */
export async function readBodyWithLimit(req: Request, limit: number): Promise<{ ok: true; text: string } | { ok: false }> {
  const declared = req.headers.get("content-length");
  if (declared !== null && (!/^\d+$/.test(declared) || Number(declared) > limit)) {
    await req.body?.cancel().catch(() => undefined);
    return { ok: false };
  }
  if (!req.body) return { ok: true, text: "" };
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      return { ok: false };
    }
    chunks.push(value);
  }
  return { ok: true, text: Buffer.concat(chunks).toString("utf8") };
}
