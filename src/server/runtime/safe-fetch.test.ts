import { afterEach, describe, expect, it } from "vitest";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createSafeFetch, isBlockedAddress } from "./safe-fetch";

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("SSRF address policy", () => {
  it("refuses IPv4-compatible, site-local and other v4-in-v6 forms, and allows global unicast", () => {
    for (const a of ["::127.0.0.1", "::7f00:1", "::a9fe:a9fe", "fec0::1", "feff::1", "::ffff:10.0.0.1", "64:ff9b::7f00:1", "64:ff9b:1::1", "2002:7f00:1::", "::", "::1", "fe80::1", "fd00::1", "100::1", "2001:db8::1"]) {
      expect(isBlockedAddress(a), a).toBe(true);
    }
    for (const a of ["2606:4700:4700::1111", "8.8.8.8", "::ffff:8.8.8.8"]) expect(isBlockedAddress(a), a).toBe(false);
  });

  it("refuses a literal IPv4-compatible URL before connecting", async () => {
    const fetcher = createSafeFetch({ allowPrivate: false });
    await expect(fetcher("http://[::127.0.0.1]:9/", { method: "GET", headers: {}, timeoutMs: 1000 })).rejects.toThrow(/private or reserved/);
  });
});

describe("redirects", () => {
  // Issue 40 row 7: a custom header carrying a secret (X-API-Key) went on to the other origin.
  // Every header but the CORS-safelisted ones and User-Agent is dropped there now (it was
  // Authorization, Cookie and Proxy-Authorization only, "keep other headers").
  it("drop every header but the safelisted ones when they leave the origin: Authorization, Cookie, X-API-Key, custom ones", async () => {
    const seen: http.IncomingHttpHeaders[] = [];
    const other = await serve((req, res) => {
      seen.push(req.headers);
      res.end("ok");
    });
    const first = await serve((_req, res) => {
      res.writeHead(302, { location: `${other}/landing` }).end();
    });
    const fetcher = createSafeFetch({ allowPrivate: true });
    const headers = { authorization: "Bearer secret", Cookie: "sid=secret", "X-API-Key": "secret", "x-trace": "1", Accept: "application/json", "user-agent": "flow", "content-language": "en" };
    const res = await fetcher(`${first}/start`, { method: "GET", headers, timeoutMs: 2000 });
    expect(res.status).toBe(200);
    for (const gone of ["authorization", "cookie", "x-api-key", "x-trace"]) expect(seen[0]![gone], gone).toBeUndefined();
    expect(seen[0]).toMatchObject({ accept: "application/json", "user-agent": "flow", "content-language": "en" });
  });

  it("keep them on the same origin", async () => {
    const seen: http.IncomingHttpHeaders[] = [];
    const url = await serve((req, res) => {
      if (req.url === "/start") res.writeHead(302, { location: "/landing" }).end();
      else {
        seen.push(req.headers);
        res.end("ok");
      }
    });
    await createSafeFetch({ allowPrivate: true })(`${url}/start`, { method: "GET", headers: { authorization: "Bearer secret", "x-api-key": "secret" }, timeoutMs: 2000 });
    expect(seen[0]!.authorization).toBe("Bearer secret");
    expect(seen[0]!["x-api-key"]).toBe("secret");
  });
});

describe("timeouts", () => {
  it("are a total deadline: a server dripping a byte every 50 ms is cut off", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      const timer = setInterval(() => res.write("x"), 50);
      res.on("close", () => clearInterval(timer));
    });
    const started = Date.now();
    await expect(createSafeFetch({ allowPrivate: true })(url, { method: "GET", headers: {}, timeoutMs: 400 })).rejects.toThrow(/within 400 ms/);
    expect(Date.now() - started).toBeLessThan(1500);
  });
});
