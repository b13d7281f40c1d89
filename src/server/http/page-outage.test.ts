import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markPageUnavailable, servePage } from "./page-outage";

// A stand-in for Next's handler: it awaits (as rendering does), may meet an outage, then answers
// the way Next does, by statusCode and an implicit head, or by writeHead.
type Behaviour = { status: number; outage: boolean; explicitHead: boolean };
let behaviour: Behaviour;
let server: http.Server;
let url: string;

beforeAll(async () => {
  server = http.createServer((_req, res) => {
    void servePage(res, 2, async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      await Promise.resolve().then(() => {
        if (behaviour.outage) markPageUnavailable();
      });
      if (behaviour.explicitHead) res.writeHead(behaviour.status, { "content-type": "text/html" });
      else res.statusCode = behaviour.status;
      res.end("<h1>page</h1>");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/flows`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("servePage", () => {
  it.each([false, true])("turns a page's 500 into 503 with Retry-After when it met an outage (explicit head: %s)", async (explicitHead) => {
    behaviour = { status: 500, outage: true, explicitHead };
    const res = await fetch(url);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("2");
    expect(await res.text()).toBe("<h1>page</h1>");
  });

  it("also next-auth's 401 for a sign-in that could not be checked", async () => {
    behaviour = { status: 401, outage: true, explicitHead: false };
    const res = await fetch(url);
    expect([res.status, res.headers.get("retry-after")]).toEqual([503, "2"]);
  });

  it("leaves an error that was no outage, a success and a redirect as they were", async () => {
    behaviour = { status: 500, outage: false, explicitHead: false };
    expect((await fetch(url)).status).toBe(500);
    behaviour = { status: 401, outage: false, explicitHead: false };
    expect((await fetch(url)).status).toBe(401);
    behaviour = { status: 200, outage: true, explicitHead: true };
    const ok = await fetch(url);
    expect([ok.status, ok.headers.get("retry-after")]).toEqual([200, null]);
    behaviour = { status: 307, outage: true, explicitHead: false };
    expect((await fetch(url, { redirect: "manual" })).status).toBe(307);
  });

  it("marks only the request it runs in", () => {
    expect(() => markPageUnavailable()).not.toThrow();
  });
});
