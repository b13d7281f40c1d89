import { randomBytes, createHash, timingSafeEqual } from "node:crypto";

/** Prefixed opaque ids: 16 random bytes (128 bits), base64url. */
export type IdPrefix = "usr" | "org" | "ses" | "key" | "flw" | "dep" | "inv" | "aud" | "bkc" | "rft" | "emt" | "msg" | "req";

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(16).toString("base64url")}`;
}

/** A secret token of `bytes` random bytes, base64url (mail tokens, refresh tokens, API keys). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

export function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
