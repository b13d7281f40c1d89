import { describe, expect, it } from "vitest";
import { variableKeyring } from "./variable-keys";

const OLD = "the-old-encryption-key-of-at-least-32-chars";
const NEW = "the-new-encryption-key-of-at-least-32-chars";

describe("the variables' keyring", () => {
  it("seals with AES-256-GCM under the current key's id, and opens what it sealed", () => {
    const ring = variableKeyring(NEW);
    const sealed = ring.seal("s3cret");
    expect(sealed.keyId).toBe(ring.currentId);
    expect(sealed.valueEncrypted).toMatch(/^v1\./);
    expect(sealed.valueEncrypted).not.toContain("s3cret");
    expect(ring.seal("s3cret").valueEncrypted).not.toBe(sealed.valueEncrypted);
    expect(ring.open(sealed.valueEncrypted, sealed.keyId)).toBe("s3cret");
  });

  it("after a rotation, opens values sealed under a previous key and seals new ones under the new key", () => {
    const before = variableKeyring(OLD);
    const sealed = before.seal("kept across rotation");
    const after = variableKeyring(NEW, [OLD]);
    expect(after.currentId).not.toBe(before.currentId);
    expect(after.open(sealed.valueEncrypted, sealed.keyId)).toBe("kept across rotation");
    expect(after.seal("x").keyId).toBe(after.currentId);
    // Without the previous key, the value cannot be read, and says why.
    expect(() => variableKeyring(NEW).open(sealed.valueEncrypted, sealed.keyId)).toThrow(/ENCRYPTION_KEY_PREVIOUS/);
  });

  it("refuses a tampered value", () => {
    const ring = variableKeyring(NEW);
    const sealed = ring.seal("value");
    const parts = sealed.valueEncrypted.split(".");
    parts[3] = Buffer.from("forged").toString("base64url");
    expect(() => ring.open(parts.join("."), sealed.keyId)).toThrow(/authentication failed/);
  });
});
