import { describe, expect, it } from "vitest";
import { decryptSecret, deriveKey, encryptSecret, hmac } from "./crypto";

const key = deriveKey("a-long-server-secret-for-tests-only-0123456789", "mfa-secret");

function swapChar(text: string, index: number): string {
  const c = text[index] === "A" ? "B" : "A";
  return text.slice(0, index) + c + text.slice(index + 1);
}

describe("deriveKey", () => {
  it("is deterministic, 32 bytes, and depends on the purpose and the secret", () => {
    expect(key).toHaveLength(32);
    expect(deriveKey("a-long-server-secret-for-tests-only-0123456789", "mfa-secret").equals(key)).toBe(true);
    expect(deriveKey("a-long-server-secret-for-tests-only-0123456789", "backup-codes").equals(key)).toBe(false);
    expect(deriveKey("another-secret", "mfa-secret").equals(key)).toBe(false);
  });
});

describe("encryptSecret / decryptSecret", () => {
  it("round-trips, including non-ASCII text", () => {
    for (const text of ["JBSWY3DPEHPK3PXP", "", "héllo 😀"]) {
      const payload = encryptSecret(text, key);
      expect(payload).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]*$/);
      expect(decryptSecret(payload, key)).toBe(text);
    }
  });

  it("produces a different payload each time (random IV)", () => {
    const a = encryptSecret("same text", key);
    const b = encryptSecret("same text", key);
    expect(a).not.toBe(b);
    expect(a.split(".")[1]).not.toBe(b.split(".")[1]);
  });

  it("throws when the ciphertext is tampered with", () => {
    const [v, iv, tag, data] = encryptSecret("JBSWY3DPEHPK3PXP", key).split(".") as [string, string, string, string];
    expect(() => decryptSecret([v, iv, tag, swapChar(data, 0)].join("."), key)).toThrow(/authentication failed/);
  });

  it("throws when the tag or the IV is tampered with", () => {
    const [v, iv, tag, data] = encryptSecret("JBSWY3DPEHPK3PXP", key).split(".") as [string, string, string, string];
    expect(() => decryptSecret([v, iv, swapChar(tag, 3), data].join("."), key)).toThrow();
    expect(() => decryptSecret([v, swapChar(iv, 3), tag, data].join("."), key)).toThrow();
  });

  it("throws with the wrong key", () => {
    const payload = encryptSecret("JBSWY3DPEHPK3PXP", key);
    expect(() => decryptSecret(payload, deriveKey("other", "mfa-secret"))).toThrow(/authentication failed/);
  });

  it("throws on a wrong format", () => {
    const payload = encryptSecret("x", key);
    expect(() => decryptSecret(payload.replace(/^v1/, "v2"), key)).toThrow(/format/);
    expect(() => decryptSecret("not-a-payload", key)).toThrow();
    expect(() => decryptSecret(payload.split(".").slice(0, 3).join("."), key)).toThrow();
    expect(() => decryptSecret("v1.!!!.@@@.###", key)).toThrow();
    expect(() => decryptSecret(payload, Buffer.alloc(16))).toThrow(/32 bytes/);
  });
});

describe("hmac", () => {
  it("matches the RFC 4231 test case 2 and depends on the key", () => {
    expect(hmac("what do ya want for nothing?", Buffer.from("Jefe"))).toBe(
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    );
    expect(hmac("value", key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hmac("value", key)).not.toBe(hmac("value", deriveKey("other", "x")));
  });
});
