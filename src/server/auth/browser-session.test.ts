import { describe, expect, it, vi } from "vitest";
import { encode } from "next-auth/jwt";
import { browserSessionId, nextAuthSecret } from "./browser-session";
import type { AppServices } from "../app-services";

const app = { config: { publicUrl: "http://app.test", secrets: { jwtSecret: "j".repeat(40) } } } as unknown as AppServices;

describe("browserSessionId", () => {
  it("reads our session id from the next-auth cookie of our own origin", async () => {
    const token = await encode({ token: { sub: "usr_1", sid: "ses_abc" }, secret: nextAuthSecret(app) });
    const cookie = `other=1; next-auth.session-token=${token}; x=y`;
    expect(await browserSessionId(app, { cookie })).toBe("ses_abc");
    expect(await browserSessionId(app, { cookie, origin: "http://app.test" })).toBe("ses_abc");
    expect(await browserSessionId(app, { cookie, origin: "https://evil.example" })).toBeUndefined();
  });

  it("ignores missing, foreign and tampered cookies", async () => {
    const foreign = await encode({ token: { sid: "ses_abc" }, secret: "another secret entirely, 40 characters" });
    expect(await browserSessionId(app, { cookie: "" })).toBeUndefined();
    expect(await browserSessionId(app, { cookie: `next-auth.session-token=${foreign}` })).toBeUndefined();
    expect(await browserSessionId(app, { cookie: "next-auth.session-token=garbage" })).toBeUndefined();
  });

  it("remembers a decrypted cookie only until the cookie's own expiry, and the origin check still applies", async () => {
    const fresh = { ...app, config: { ...app.config } } as AppServices;
    const token = await encode({ token: { sub: "usr_1", sid: "ses_short" }, secret: nextAuthSecret(fresh), maxAge: 1 });
    const cookie = `next-auth.session-token=${token}`;
    expect(await browserSessionId(fresh, { cookie })).toBe("ses_short");
    // Remembered: answered again, but the Origin check runs before the memo.
    expect(await browserSessionId(fresh, { cookie })).toBe("ses_short");
    expect(await browserSessionId(fresh, { cookie, origin: "https://evil.example" })).toBeUndefined();
    // 30 s on (past next-auth's 15 s clock tolerance): expired for the memo and for next-auth alike.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 30_000 });
    try {
      expect(await browserSessionId(fresh, { cookie })).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });
});
