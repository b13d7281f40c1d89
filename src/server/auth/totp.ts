import { timingSafeEqual } from "node:crypto";
import { generateSecret, generateSync, generateURI } from "otplib";

import { mfaPolicy } from "../../shared/policy";

/** RFC 6238 parameters: SHA-1, 30-second steps, 6 digits, one step of tolerance either way. */
const ALGORITHM = "sha1" as const;
const DIGITS = mfaPolicy.digits;
const PERIOD_SEC = mfaPolicy.periodSec;
const WINDOW = mfaPolicy.window;
export const TOTP_ISSUER = "Flowplane";

/** A new random TOTP secret: 20 bytes (160 bits), base32 (32 characters). */
export function createTotpSecret(): string {
  return generateSecret({ length: 20 });
}

/** The otpauth:// URI an authenticator app scans. */
export function totpUri(options: { secret: string; accountName: string; issuer: string }): string {
  return generateURI({
    issuer: options.issuer,
    label: options.accountName,
    secret: options.secret,
    algorithm: ALGORITHM,
    digits: DIGITS,
    period: PERIOD_SEC,
  });
}

/** The URI as a PNG QR code, `data:image/png;base64,...`. */
export async function totpQrDataUrl(uri: string): Promise<string> {
  // Loaded by the first MFA enrolment, not at start-up.
  const { default: QRCode } = await import("qrcode");
  return QRCode.toDataURL(uri, { type: "image/png", errorCorrectionLevel: "M", margin: 2, width: 240 });
}

/** The RFC 6238 time step of an instant. */
export function totpStep(atMs: number): number {
  return Math.floor(atMs / 1000 / PERIOD_SEC);
}

function codeForStep(secret: string, step: number): string {
  return generateSync({ secret, algorithm: ALGORITHM, digits: DIGITS, period: PERIOD_SEC, epoch: step * PERIOD_SEC });
}

/** The code valid at `atMs` (tests and e2e). */
export function totpCode(secret: string, atMs = Date.now()): string {
  return codeForStep(secret, totpStep(atMs));
}

const CODE_SHAPE = /^(\d{3}) ?(\d{3})$/;

/**
 * Checks a code against the steps current-1 .. current+1. On success returns the matched step, which
 * the caller stores as `lastStep`: a code whose step is <= lastStep is refused, so each code is
 * accepted once and only later steps after it.
 */
export function verifyTotp(
  secret: string,
  code: string,
  options: { lastStep: number | null; atMs?: number },
): { ok: true; step: number } | { ok: false } {
  const match = CODE_SHAPE.exec(code.trim());
  if (!match) return { ok: false };
  const given = Buffer.from(`${match[1]}${match[2]}`);
  const current = totpStep(options.atMs ?? Date.now());
  let matched: number | null = null;
  // Every candidate is computed and compared, so the timing does not reveal which step matched.
  for (let delta = -WINDOW; delta <= WINDOW; delta++) {
    const step = current + delta;
    if (step < 0) continue;
    const expected = Buffer.from(codeForStep(secret, step));
    const equal = expected.length === given.length && timingSafeEqual(expected, given);
    if (equal && (options.lastStep === null || step > options.lastStep)) matched = step;
  }
  return matched === null ? { ok: false } : { ok: true, step: matched };
}
