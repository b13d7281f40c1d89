import { describe, expect, it } from "vitest";
import jwt from "jsonwebtoken";
import { AppError } from "../errors";
import { jwtKeys, signAccessToken, verifyAccessToken } from "./jwt";
import { tokenPolicy } from "../../shared/policy";

const keys = () => jwtKeys("a-test-secret-that-is-at-least-32-bytes-long");
const subject = { userId: "usr_1", email: "a@example.com", organizationId: "org_1", role: "owner", sessionId: "ses_1" };
const code = (fn: () => Promise<unknown>) =>
  fn().then(
    () => "accepted",
    (err: unknown) => (AppError.is(err) ? err.code : String(err)),
  );

describe("access tokens", () => {
  it("verifies a token once and answers later uses from memory, still checking expiry on each", async () => {
    const k = keys();
    const now = Date.now();
    const { token } = await signAccessToken(k, subject, now);
    const first = await verifyAccessToken(k, token, now);
    expect(first).toMatchObject({ user_id: "usr_1", sid: "ses_1", token_type: "access" });
    expect(k.verified.size).toBe(1);
    expect(await verifyAccessToken(k, token, now + 1000)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    // Past `exp` the remembered token is refused like any expired one, and forgotten.
    expect(await code(() => verifyAccessToken(k, token, now + tokenPolicy.accessTokenTtlSec * 1000 + 1000))).toBe("TOKEN_EXPIRED");
    expect(k.verified.size).toBe(0);
  });

  it("never remembers a token that failed, and a remembered one does not vouch for a changed one", async () => {
    const k = keys();
    const { token } = await signAccessToken(k, subject);
    await verifyAccessToken(k, token);
    const [header, payload, signature] = token.split(".");
    const forged = Buffer.from(payload!, "base64url").toString().replace('"role":"owner"', '"role":"admin"');
    const tampered = `${header}.${Buffer.from(forged).toString("base64url")}.${signature}`;
    expect(await code(() => verifyAccessToken(k, tampered))).toBe("TOKEN_INVALID");
    expect(await code(() => verifyAccessToken(k, tampered))).toBe("TOKEN_INVALID");
    // Signed with another key: refused, though it carries the same claims.
    const other = jwt.sign({ ...jwt.decode(token) as object }, "another-secret-that-is-at-least-32-bytes", { algorithm: "HS256", header: { alg: "HS256", typ: "at+jwt" } });
    expect(await code(() => verifyAccessToken(k, other))).toBe("TOKEN_INVALID");
    expect([...k.verified.keys()]).toEqual([token]);
    // Another key's cache is its own.
    expect(await code(() => verifyAccessToken(keys(), tampered))).toBe("TOKEN_INVALID");
  });
});
