import { beforeAll, describe, expect, it } from "vitest";
import { encode } from "next-auth/jwt";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import { nextAuthSecret } from "@/server/auth/browser-session";

/**
 * SPEC §4: the web UI's session cookie is a credential on REST too (the API docs' "try it" sends
 * it), with the origin rule that stops cross-site requests from riding on it.
 */
const testApp = setUpTestApp();
const request = testApp.request;
let user: Awaited<ReturnType<typeof signUp>>;
let cookie: string;
let origin: string;

beforeAll(async () => {
  user = await signUp(request);
  const token = await encode({ token: { sub: user.userId, sid: user.sessionId }, secret: nextAuthSecret(testApp.app) });
  cookie = `next-auth.session-token=${token}`;
  origin = new URL(testApp.app.config.publicUrl).origin;
});

const newFlow = { name: "from the docs page" };

describe("REST with the browser session cookie", () => {
  it("reads with the cookie alone", async () => {
    const res = await request("GET", "/flows", { headers: { cookie } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.flows).toEqual([]);
  });

  it("writes only when Origin is our own", async () => {
    const noOrigin = await request("POST", "/flows", { headers: { cookie }, body: newFlow });
    expect(noOrigin.status).toBe(401);
    const foreign = await request("POST", "/flows", { headers: { cookie, origin: "https://evil.example" }, body: newFlow });
    expect(foreign.status).toBe(401);
    expect((await request("GET", "/flows", { headers: { cookie } })).body.flows).toEqual([]);
    const own = await request("POST", "/flows", { headers: { cookie, origin }, body: newFlow });
    expect(own.status, own.text).toBe(201);
  });

  it("a foreign origin on a read gets nothing either, and a tampered cookie is no credential", async () => {
    expect((await request("GET", "/flows", { headers: { cookie, origin: "https://evil.example" } })).status).toBe(401);
    expect((await request("GET", "/flows", { headers: { cookie: `${cookie}x` } })).status).toBe(401);
  });

  it("a logged-out session's cookie stops working", async () => {
    const other = await signUp(request);
    const token = await encode({ token: { sub: other.userId, sid: other.sessionId }, secret: nextAuthSecret(testApp.app) });
    const otherCookie = `next-auth.session-token=${token}`;
    expect((await request("GET", "/flows", { headers: { cookie: otherCookie } })).status).toBe(200);
    const out = await request("POST", "/auth/logout", { token: other.accessToken, body: {} });
    expect(out.status, out.text).toBeLessThan(300);
    expect((await request("GET", "/flows", { headers: { cookie: otherCookie } })).status).toBe(401);
  });
});
