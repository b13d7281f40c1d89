import { randomBytes } from "node:crypto";
import { mfaPolicy } from "../../shared/policy";
import { hmac } from "./crypto";

/** Upper-case letters and digits without the look-alikes 0/O, 1/I/L: 31 symbols. */
export const BACKUP_CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";
const GROUP = 4;
// Bytes at or above this bound are rejected so every symbol is equally likely (no modulo bias).
const UNBIASED_BOUND = 256 - (256 % BACKUP_CODE_ALPHABET.length);

function randomSymbols(count: number): string {
  let out = "";
  while (out.length < count) {
    for (const byte of randomBytes(count * 2)) {
      if (byte >= UNBIASED_BOUND) continue;
      out += BACKUP_CODE_ALPHABET[byte % BACKUP_CODE_ALPHABET.length];
      if (out.length === count) break;
    }
  }
  return out;
}

/** `count` distinct codes shaped `XXXX-XXXX` (about 39.6 bits each). */
export function generateBackupCodes(count: number = mfaPolicy.backupCodeCount): string[] {
  const codes = new Set<string>();
  while (codes.size < count) {
    const symbols = randomSymbols(GROUP * 2);
    codes.add(`${symbols.slice(0, GROUP)}-${symbols.slice(GROUP)}`);
  }
  return [...codes];
}

const ESCAPED_ALPHABET = `[${BACKUP_CODE_ALPHABET}]`;
const INPUT_SHAPE = new RegExp(`^(${ESCAPED_ALPHABET}{${GROUP}})[-\\s]?(${ESCAPED_ALPHABET}{${GROUP}})$`);

/**
 * The canonical `XXXX-XXXX` form of what a user typed (trimmed, case-insensitive, dash optional),
 * or null when it cannot be a backup code.
 */
export function normalizeBackupCode(input: string): string | null {
  const match = INPUT_SHAPE.exec(input.trim().toUpperCase());
  return match ? `${match[1]}-${match[2]}` : null;
}

/** HMAC-SHA256 (hex) of the canonical code with a server-side pepper; throws on a malformed code. */
export function hashBackupCode(code: string, pepper: Buffer): string {
  const canonical = normalizeBackupCode(code);
  if (canonical === null) throw new Error("hashBackupCode: malformed backup code");
  return hmac(canonical, pepper);
}
