/**
 * Authenticating a WebSocket costs the credential a point of its rate limit, like a request (issue
 * 28: `auth` frames used to bypass it, so a stolen or guessed credential could be tried without
 * bound over sockets). Past the limit the socket closes with 1013 (try again later).
 */
import { describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import { connect, setUpTestHub } from "@/test/ws";
import { WS_CLOSE } from "@/shared/realtime";

const testApp = setUpTestApp({ RATE_LIMIT_API_PER_CREDENTIAL: "3" });
const request = testApp.request;
const hub = setUpTestHub(testApp);

describe("WebSocket authentication and the per-credential rate limit", () => {
  it("auth frames and authenticated upgrades count like requests: past the limit the socket closes with 1013 RATE_LIMITED", async () => {
    const owner = await signUp(request);
    const key = await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "limited" } });
    expect(key.status, key.text).toBe(201);
    const byFrame = () => {
      const socket = connect(hub.url);
      socket.send({ type: "auth", token: key.body.secret });
      return socket;
    };
    const first = byFrame();
    await first.next((f) => f.type === "ready");
    const second = connect(hub.url, { "x-api-key": key.body.secret });
    await second.next((f) => f.type === "ready");
    const third = byFrame();
    await third.next((f) => f.type === "ready");
    const fourth = byFrame();
    expect(await fourth.closed).toEqual({ code: WS_CLOSE.tryAgainLater, reason: "RATE_LIMITED" });
    // The same key over REST is refused too: one budget per credential, whatever the door.
    expect((await request("GET", "/flows", { headers: { "x-api-key": key.body.secret } })).status).toBe(429);
    for (const s of [first, second, third]) s.ws.close();
  });
});
