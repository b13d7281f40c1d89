import { describe, expect, it } from "vitest";
import { dictionary } from "@zxcvbn-ts/language-common";
import { checkPassword, isCommonPassword, passwordMessages, passwordSchema } from "./password-policy";

const bytes = (s: string) => Buffer.byteLength(s, "utf8");
const chars = (s: string) => [...s].length;
const strong = "Tq7#vLr9-xWm";

describe("checkPassword: length and bytes", () => {
  it("refuses 7 characters and accepts 8", () => {
    expect(checkPassword("Tq7#vLr")).toEqual({ ok: false, message: passwordMessages.tooShort });
    expect(checkPassword("Tq7#vLr9")).toEqual({ ok: true });
  });

  it("counts code points, not UTF-16 units", () => {
    // 4 emoji are 8 UTF-16 units but only 4 characters.
    const four = "😀😀😀😀";
    expect(four.length).toBe(8);
    expect(checkPassword(four)).toEqual({ ok: false, message: passwordMessages.tooShort });
  });

  it("accepts 72 ASCII characters and refuses 73", () => {
    const base = "Tq7#vLr9".repeat(9);
    expect(base).toHaveLength(72);
    expect(checkPassword(base)).toEqual({ ok: true });
    expect(checkPassword(`${base}x`)).toEqual({ ok: false, message: passwordMessages.tooLong });
  });

  it("refuses a 25-character password of 73 bytes with the byte message", () => {
    const pw = "€".repeat(24) + "a";
    expect(chars(pw)).toBe(25);
    expect(bytes(pw)).toBe(73);
    const result = checkPassword(pw);
    expect(result).toEqual({ ok: false, message: passwordMessages.tooManyBytes });
    expect(passwordMessages.tooManyBytes).toMatch(/72 bytes in UTF-8/);
  });

  it("accepts exactly 72 bytes", () => {
    const pw = "€".repeat(24);
    expect(bytes(pw)).toBe(72);
    expect(checkPassword(pw)).toEqual({ ok: true });
  });
});

describe("checkPassword: common passwords", () => {
  it("refuses passwords from the leaked list, case-insensitively", () => {
    const list = dictionary["passwords-common"];
    expect(list).toContain("password1");
    expect(list).toContain("password123");
    expect(list).not.toContain("Password123");
    for (const pw of ["password1", "password123", "Password123", "PASSWORD1", "iloveyou", "12345678"]) {
      expect(checkPassword(pw)).toEqual({ ok: false, message: passwordMessages.tooCommon });
    }
    expect(isCommonPassword("Password123")).toBe(true);
    expect(isCommonPassword(strong)).toBe(false);
    expect(checkPassword(strong)).toEqual({ ok: true });
  });
});

describe("checkPassword: personal data", () => {
  const context = { email: "Ada.Lovelace@Example.com", firstName: "Augusta", lastName: "Lovelace" };
  it("refuses the email and its local part, case-insensitively", () => {
    expect(checkPassword("ada.lovelace@example.com", context)).toEqual({ ok: false, message: passwordMessages.isEmail });
    expect(checkPassword("ADA.LOVELACE", context)).toEqual({ ok: false, message: passwordMessages.isEmail });
  });
  it("refuses the full name", () => {
    expect(checkPassword("AugustaLovelace", context)).toEqual({ ok: false, message: passwordMessages.isName });
    expect(checkPassword("augusta lovelace", context)).toEqual({ ok: false, message: passwordMessages.isName });
  });
  it("accepts a password that merely contains them", () => {
    expect(checkPassword("ada.lovelace-Tq7#", context)).toEqual({ ok: true });
    expect(checkPassword(strong, context)).toEqual({ ok: true });
    expect(checkPassword(strong, {})).toEqual({ ok: true });
  });
});

describe("passwordSchema", () => {
  it("applies the length and byte rules only", () => {
    expect(passwordSchema.safeParse(strong).success).toBe(true);
    // Common passwords pass the schema; checkPassword refuses them with the context.
    expect(passwordSchema.safeParse("password1").success).toBe(true);

    const short = passwordSchema.safeParse("short");
    expect(short.success).toBe(false);
    expect(short.error?.issues[0]?.message).toBe(passwordMessages.tooShort);

    const long = passwordSchema.safeParse("a".repeat(73));
    expect(long.error?.issues[0]?.message).toBe(passwordMessages.tooLong);

    const heavy = passwordSchema.safeParse("€".repeat(24) + "a");
    expect(heavy.error?.issues).toHaveLength(1);
    expect(heavy.error?.issues[0]?.message).toBe(passwordMessages.tooManyBytes);

    expect(passwordSchema.safeParse(12345678).success).toBe(false);
  });
});
