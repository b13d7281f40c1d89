import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_IP_HEADER, resolveClientIp } from "../api/rest/client-ip";
import { directMountFor, serveDirect, type FetchHandler } from "./direct-mount";

describe("directMountFor", () => {
  it("takes the REST API, the webhooks and tRPC, and leaves Next the rest", () => {
    expect(directMountFor("/api/v1/flows?limit=5")).toBe("rest");
    expect(directMountFor("/api/v1/health")).toBe("rest");
    expect(directMountFor("/hooks/acme/orders/new")).toBe("hooks");
    expect(directMountFor("/api/trpc/flows.get,nodes.list?batch=1")).toBe("trpc");
    for (const url of ["/", "/login", "/api/v1/openapi.json", "/api/v1/flows/", "/api//v1/flows", "/api/auth/session", "/api/trpc/a/b", "/hooks/", "/api/v1"]) {
      expect(directMountFor(url), url).toBeUndefined();
    }
  });
});

describe("serveDirect", () => {
  let server: http.Server;
  let base: string;
  const seen: Array<{ ip: string | null; body: string; url: string }> = [];
  const echo: FetchHandler = async (req) => {
    if (new URL(req.url).pathname === "/bytes") return new Response(new Uint8Array([0, 255, 1, 128]), { headers: { "content-type": "application/octet-stream" } });
    const body = req.method === "GET" || req.method === "HEAD" ? "" : await req.text();
    seen.push({ ip: req.headers.get(CLIENT_IP_HEADER), body, url: req.url });
    const headers = new Headers({ "content-type": "application/json; charset=utf-8", "x-content-type-options": "nosniff" });
    headers.append("set-cookie", "a=1");
    headers.append("set-cookie", "b=2");
    return new Response(JSON.stringify({ ok: true, size: body.length }), { status: 201, headers });
  };

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.headers[CLIENT_IP_HEADER] = resolveClientIp(req, 0);
      void serveDirect(req, res, "http://app.test", echo);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("passes the socket's address, never the client's own client-IP header", async () => {
    const res = await fetch(`${base}/api/v1/x?q=1`, { headers: { [CLIENT_IP_HEADER]: "6.6.6.6" } });
    expect(res.status).toBe(201);
    expect(seen.at(-1)).toMatchObject({ ip: "127.0.0.1", url: "http://app.test/api/v1/x?q=1" });
  });

  it("streams the body to the handler and writes status, headers, cookies and the site headers back", async () => {
    const res = await fetch(`${base}/api/v1/x`, { method: "POST", body: "x".repeat(100_000), headers: { "content-type": "application/json" } });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ ok: true, size: 100_000 });
    expect(res.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("writes a binary body byte for byte", async () => {
    const res = await fetch(`${base}/bytes`);
    expect([...new Uint8Array(await res.arrayBuffer())]).toEqual([0, 255, 1, 128]);
    expect(res.headers.get("content-length")).toBe("4");
  });
});
