import { describe, expect, it } from "vitest";
import { generateSync } from "otplib";
import { createTotpSecret, totpCode, totpQrDataUrl, totpStep, totpUri, verifyTotp } from "./totp";

const RFC_SECRET = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"; // ASCII "12345678901234567890"
const secret = createTotpSecret();
// A fixed instant in the middle of a step.
const now = Date.UTC(2025, 0, 15, 12, 0, 15);
const step = totpStep(now);
const at = (deltaSteps: number) => now + deltaSteps * 30_000;

describe("createTotpSecret", () => {
  it("is 160 bits of base32 and random", () => {
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(createTotpSecret()).not.toBe(secret);
  });
});

describe("totpCode", () => {
  it("matches the RFC 6238 appendix B SHA-1 vector at T=59 s", () => {
    expect(totpCode(RFC_SECRET, 59_000)).toBe("287082");
    expect(generateSync({ secret: RFC_SECRET, epoch: 59, digits: 8 })).toBe("94287082");
    expect(totpCode(RFC_SECRET, 1_111_111_109_000)).toBe("081804"); // 07081804
  });
  it("is 6 digits and the same throughout a step", () => {
    expect(totpCode(secret, now)).toMatch(/^\d{6}$/);
    expect(totpCode(secret, step * 30_000)).toBe(totpCode(secret, now));
    expect(totpCode(secret, (step + 1) * 30_000 - 1)).toBe(totpCode(secret, now));
    expect(totpCode(RFC_SECRET, 59_000)).not.toBe(totpCode(RFC_SECRET, 60_000));
  });
});

describe("verifyTotp", () => {
  it("accepts the current code and returns the current step", () => {
    expect(verifyTotp(secret, totpCode(secret, now), { lastStep: null, atMs: now })).toEqual({ ok: true, step });
  });

  it("accepts the previous and the next step, reporting the matched step", () => {
    expect(verifyTotp(secret, totpCode(secret, at(-1)), { lastStep: null, atMs: now })).toEqual({ ok: true, step: step - 1 });
    expect(verifyTotp(secret, totpCode(secret, at(1)), { lastStep: null, atMs: now })).toEqual({ ok: true, step: step + 1 });
  });

  it("rejects a code from two steps ago or two steps ahead", () => {
    const old = totpCode(secret, at(-2));
    const ahead = totpCode(secret, at(2));
    // Guard against the 1-in-a-million collision with a code inside the window.
    const inWindow = [-1, 0, 1].map((d) => totpCode(secret, at(d)));
    if (!inWindow.includes(old)) expect(verifyTotp(secret, old, { lastStep: null, atMs: now })).toEqual({ ok: false });
    if (!inWindow.includes(ahead)) expect(verifyTotp(secret, ahead, { lastStep: null, atMs: now })).toEqual({ ok: false });
  });

  it("rejects a replay of the same step and of an earlier step", () => {
    const first = verifyTotp(secret, totpCode(secret, now), { lastStep: null, atMs: now });
    expect(first.ok).toBe(true);
    const lastStep = first.ok ? first.step : -1;
    expect(verifyTotp(secret, totpCode(secret, now), { lastStep, atMs: now })).toEqual({ ok: false });
    expect(verifyTotp(secret, totpCode(secret, now), { lastStep, atMs: at(1) })).toEqual({ ok: false });
    expect(verifyTotp(secret, totpCode(secret, at(-1)), { lastStep, atMs: now })).toEqual({ ok: false });
  });

  it("accepts a later step after an earlier one", () => {
    expect(verifyTotp(secret, totpCode(secret, at(1)), { lastStep: step, atMs: at(1) })).toEqual({ ok: true, step: step + 1 });
    expect(verifyTotp(secret, totpCode(secret, at(1)), { lastStep: step, atMs: now })).toEqual({ ok: true, step: step + 1 });
  });

  it("accepts surrounding whitespace and one inner space", () => {
    const code = totpCode(secret, now);
    expect(verifyTotp(secret, ` ${code}\n`, { lastStep: null, atMs: now }).ok).toBe(true);
    expect(verifyTotp(secret, `${code.slice(0, 3)} ${code.slice(3)}`, { lastStep: null, atMs: now }).ok).toBe(true);
  });

  it("rejects garbage and wrong lengths", () => {
    const code = totpCode(secret, now);
    for (const bad of ["", "abcdef", "12345", "1234567", `${code}0`, code.slice(0, 5), `${code.slice(0, 2)} ${code.slice(2)}`, `${code.slice(0, 3)}  ${code.slice(3)}`, `${code.slice(0, 3)}-${code.slice(3)}`, "１２３４５６"]) {
      expect(verifyTotp(secret, bad, { lastStep: null, atMs: now })).toEqual({ ok: false });
    }
  });

  it("rejects a code for another secret", () => {
    const other = createTotpSecret();
    const code = totpCode(other, now);
    const inWindow = [-1, 0, 1].map((d) => totpCode(secret, at(d)));
    if (!inWindow.includes(code)) expect(verifyTotp(secret, code, { lastStep: null, atMs: now })).toEqual({ ok: false });
  });
});

describe("totpUri / totpQrDataUrl", () => {
  it("builds an otpauth URI with the issuer, account and secret", () => {
    const uri = totpUri({ secret, accountName: "ada@example.com", issuer: "Flowplane" });
    expect(uri.startsWith("otpauth://totp/Flowplane:ada%40example.com?")).toBe(true);
    const params = new URL(uri).searchParams;
    expect(params.get("secret")).toBe(secret);
    expect(params.get("issuer")).toBe("Flowplane");
    expect(params.get("algorithm") ?? "SHA1").toBe("SHA1");
    expect(params.get("digits") ?? "6").toBe("6");
    expect(params.get("period") ?? "30").toBe("30");
  });

  it("renders a PNG data URL", async () => {
    const url = await totpQrDataUrl(totpUri({ secret, accountName: "ada@example.com", issuer: "Flowplane" }));
    expect(url.startsWith("data:image/png;base64,")).toBe(true);
    const png = Buffer.from(url.slice("data:image/png;base64,".length), "base64");
    expect(png.subarray(1, 4).toString("ascii")).toBe("PNG");
  });
});
