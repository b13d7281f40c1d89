import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto";

const VERSION = "v1";
const ALGORITHM = "aes-256-gcm";
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A 32-byte key for one purpose, derived from a server secret with HKDF-SHA256 (info = purpose). */
export function deriveKey(secret: string, purpose: string): Buffer {
  if (!secret) throw new Error("deriveKey: secret must not be empty");
  return Buffer.from(hkdfSync("sha256", secret, Buffer.alloc(0), purpose, KEY_BYTES));
}

function assertKey(key: Buffer): void {
  if (key.length !== KEY_BYTES) throw new Error(`encryption key must be ${KEY_BYTES} bytes`);
}

/** AES-256-GCM with a random 12-byte IV: `v1.<iv>.<tag>.<ciphertext>`, each part base64url. */
export function encryptSecret(plaintext: string, key: Buffer): string {
  assertKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, iv.toString("base64url"), tag.toString("base64url"), ciphertext.toString("base64url")].join(".");
}

const B64URL = /^[A-Za-z0-9_-]*$/;

/** Reverses encryptSecret; throws on a wrong format, a wrong key or any tampering. */
export function decryptSecret(payload: string, key: Buffer): string {
  assertKey(key);
  const parts = payload.split(".");
  if (parts.length !== 4 || parts[0] !== VERSION) throw new Error("encrypted secret: unsupported format");
  const [, ivText, tagText, dataText] = parts as [string, string, string, string];
  if (![ivText, tagText, dataText].every((p) => B64URL.test(p))) throw new Error("encrypted secret: invalid encoding");
  const iv = Buffer.from(ivText, "base64url");
  const tag = Buffer.from(tagText, "base64url");
  const data = Buffer.from(dataText, "base64url");
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error("encrypted secret: invalid format");
  const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(data), decipher.final()]).toString("utf8");
  } catch (err) {
    throw new Error("encrypted secret: authentication failed (wrong key or tampered data)", { cause: err });
  }
}

/** HMAC-SHA256 of `value`, hex. */
export function hmac(value: string, key: Buffer): string {
  return createHmac("sha256", key).update(value, "utf8").digest("hex");
}
