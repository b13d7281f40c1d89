import { randomBytes, createHash, timingSafeEqual } from "node:crypto";

/** Prefixed opaque ids: 16 random bytes (128 bits), base64url. */
export type IdPrefix = "usr" | "org" | "ses" | "key" | "flw" | "dep" | "inv" | "aud" | "bkc" | "rft" | "emt" | "msg" | "req" | "var" | "exe" | "dsh" | "dev";

// Random bytes are drawn 4 KiB at a time and each byte is used once, as node:crypto's randomUUID
// does: one randomBytes call per id cost ~4 % of a request's time (docs/BENCHMARKS.md). Every copy
// of this module (Next bundles its own) has its own pool, which changes nothing.
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

/** `count` (at most 64) random bytes from the pool, each used once. Not for secrets: those are drawn on their own. */
function pooledBytes(count: number): Buffer {
  if (poolOffset + count > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + count);
  poolOffset += count;
  return bytes;
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${pooledBytes(16).toString("base64url")}`;
}

/** A secret token of `bytes` random bytes, base64url (mail tokens, refresh tokens, API keys). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

/** `bytes` (at most 64) random bytes from the pool, base64url: handles that need no secrecy, only uniqueness and no guessing across tenants. */
export function randomKey(bytes: number): string {
  return bytes <= 64 ? pooledBytes(bytes).toString("base64url") : randomBytes(bytes).toString("base64url");
}

/** `bytes` random bytes as lowercase hex (2 characters a byte): message and node ids, slug and instance suffixes. */
export function randomHex(bytes: number): string {
  return bytes <= 64 ? pooledBytes(bytes).toString("hex") : randomBytes(bytes).toString("hex");
}

export function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
