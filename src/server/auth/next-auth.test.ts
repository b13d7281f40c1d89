import { describe, expect, it } from "vitest";
import { encode } from "next-auth/jwt";
import { browserSessionId, nextAuthSecret } from "./next-auth";
import type { AppServices } from "../app";

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
});
