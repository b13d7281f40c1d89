import { describe, expect, it } from "vitest";
import { BACKUP_CODE_ALPHABET, generateBackupCodes, hashBackupCode, normalizeBackupCode } from "./backup-codes";

const FORMAT = /^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{4}-[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{4}$/;

describe("generateBackupCodes", () => {
  it("returns 8 distinct codes in the XXXX-XXXX format by default", () => {
    const codes = generateBackupCodes();
    expect(codes).toHaveLength(8);
    for (const code of codes) expect(code).toMatch(FORMAT);
    expect(new Set(codes).size).toBe(8);
  });

  it("honours the count and never uses ambiguous characters", () => {
    const codes = generateBackupCodes(200);
    expect(codes).toHaveLength(200);
    expect(new Set(codes).size).toBe(200);
    const all = codes.join("");
    expect(all).not.toMatch(/[01OIL]/);
    expect(BACKUP_CODE_ALPHABET).toHaveLength(31);
  });

  it("uses the whole alphabet roughly evenly", () => {
    const counts = new Map<string, number>();
    for (const ch of generateBackupCodes(2000).join("").replaceAll("-", "")) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(31);
    // 16000 symbols / 31 = ~516 each; a biased or broken generator lands far outside this band.
    for (const n of counts.values()) expect(n).toBeGreaterThan(380);
    for (const n of counts.values()) expect(n).toBeLessThan(660);
  });
});

describe("normalizeBackupCode", () => {
  it("canonicalises case, whitespace and the dash", () => {
    expect(normalizeBackupCode("abcd-efgh")).toBe("ABCD-EFGH");
    expect(normalizeBackupCode("abcdefgh")).toBe("ABCD-EFGH");
    expect(normalizeBackupCode(" AbCd-EfGh ")).toBe("ABCD-EFGH");
    expect(normalizeBackupCode("ABCD EFGH")).toBe("ABCD-EFGH");
  });

  it("returns null for malformed input", () => {
    for (const bad of ["", "ABCD-EFG", "ABCD-EFGHJ", "ABC-DEFGH", "ABCD--EFGH", "ABCD-EFG0", "OBCD-EFGH", "ABCD-EFGI", "ABCD_EFGH", "ABCD-EF H"]) {
      expect(normalizeBackupCode(bad)).toBeNull();
    }
  });
});

describe("hashBackupCode", () => {
  const pepper = Buffer.from("pepper-one-0123456789abcdef0123456789");
  it("is stable across spellings of the same code", () => {
    const h = hashBackupCode("ABCD-EFGH", pepper);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(hashBackupCode("abcdefgh", pepper)).toBe(h);
    expect(hashBackupCode(" abcd-efgh ", pepper)).toBe(h);
  });

  it("depends on the pepper and the code", () => {
    const h = hashBackupCode("ABCD-EFGH", pepper);
    expect(hashBackupCode("ABCD-EFGH", Buffer.from("pepper-two"))).not.toBe(h);
    expect(hashBackupCode("ABCD-EFGJ", pepper)).not.toBe(h);
  });

  it("throws on a malformed code", () => {
    expect(() => hashBackupCode("nope", pepper)).toThrow();
  });
});
