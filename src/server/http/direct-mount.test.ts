import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_IP_HEADER, resolveClientIp } from "./client-ip";
import { ResponseHeaderMap, type RestRequest, type RestResult } from "../api/rest/handler";
import net from "node:net";
import { directMountFor, readNodeBody, serveDirect, serveRest, type FetchHandler } from "./direct-mount";

describe("directMountFor", () => {
  it("takes the REST API, the webhooks, tRPC and /metrics, and leaves Next the rest", () => {
    expect(directMountFor("/api/v1/flows?limit=5")).toBe("rest");
    expect(directMountFor("/api/v1/health")).toBe("rest");
    expect(directMountFor("/hooks/acme/orders/new")).toBe("webhooks");
    expect(directMountFor("/api/trpc/flows.get,nodes.list?batch=1")).toBe("trpc");
    expect(directMountFor("/metrics")).toBe("metrics");
    expect(directMountFor("/metrics?name[]=up")).toBe("metrics");
    for (const url of ["/metrics/", "/metrics/x", "/metricsx"]) expect(directMountFor(url), url).toBeUndefined();
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

describe("serveRest", () => {
  let server: http.Server;
  let base: string;
  const seen: Array<{ ip: string | null; method: string; target: string; body: string | null; ua: string | null }> = [];
  const core = async (req: RestRequest): Promise<RestResult> => {
    const headers = new ResponseHeaderMap();
    headers.set("Content-Type", "application/json; charset=utf-8");
    if (req.target === "/api/v1/empty") return { status: 204, headers, body: null };
    let body: string | null = null;
    if (req.readBody) {
      // As the REST adapter does with its body limit: a refused read is answered at once.
      const read = await req.readBody(1000);
      if (!read.ok) return { status: 413, headers, body: JSON.stringify({ error: { code: "PAYLOAD_TOO_LARGE" } }) };
      body = read.text;
    }
    seen.push({ ip: req.header(CLIENT_IP_HEADER), method: req.method, target: req.target, body, ua: req.header("user-agent") });
    headers.set("ETag", '"3"');
    return { status: 200, headers, body: JSON.stringify({ ok: true }) };
  };

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.headers[CLIENT_IP_HEADER] = resolveClientIp(req, 0);
      void serveRest(req, res, core);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("hands the core the method, target, headers and the socket's address, and writes its answer with the site headers", async () => {
    const res = await fetch(`${base}/api/v1/flows?limit=5`, { headers: { [CLIENT_IP_HEADER]: "6.6.6.6", "User-Agent": "t/1" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(seen.at(-1)).toEqual({ ip: "127.0.0.1", method: "GET", target: "/api/v1/flows?limit=5", body: null, ua: "t/1" });
    expect(res.headers.get("etag")).toBe('"3"');
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("content-length")).toBe(String('{"ok":true}'.length));
  });

  it("streams a body to the core, and answers 204 and HEAD without one", async () => {
    const res = await fetch(`${base}/api/v1/x`, { method: "POST", body: "é".repeat(400), headers: { "content-type": "application/json" } });
    expect(res.status).toBe(200);
    expect(seen.at(-1)?.body).toBe("é".repeat(400));
    const empty = await fetch(`${base}/api/v1/empty`, { method: "DELETE" });
    expect(empty.status).toBe(204);
    expect(await empty.text()).toBe("");
    const head = await fetch(`${base}/api/v1/flows`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("answers an oversized streamed body with the core's 413 instead of resetting the connection, and closes it", async () => {
    const chunk = new TextEncoder().encode("x".repeat(500));
    let sent = 0;
    const upload = new ReadableStream<Uint8Array>({
      pull(controller) {
        // Far more than the limit, chunked (no Content-Length to refuse early).
        if (sent++ < 2000) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const res = await fetch(`${base}/api/v1/x`, { method: "POST", body: upload, headers: { "content-type": "application/json" }, duplex: "half" } as RequestInit);
    expect(res.status).toBe(413);
    expect(res.headers.get("connection")).toBe("close");
    expect(await res.json()).toEqual({ error: { code: "PAYLOAD_TOO_LARGE" } });
  });
});

describe("readNodeBody", () => {
  let server: http.Server;
  let port: number;
  const reads: Array<Promise<unknown>> = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const read = readNodeBody(req, 1000);
      reads.push(read.catch((error: unknown) => ({ rejected: String(error) })));
      void read.then(
        (r) => res.end(JSON.stringify(r)),
        () => res.destroy(),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = (body: BodyInit, headers: Record<string, string> = {}) =>
    fetch(`http://127.0.0.1:${port}/`, { method: "POST", body, headers, duplex: "half" } as RequestInit).then((r) => r.json());

  it("reads a body within the limit, whole characters across chunks", async () => {
    expect(await post("é".repeat(400))).toEqual({ ok: true, text: "é".repeat(400) });
    expect(await post("")).toEqual({ ok: true, text: "" });
  });

  it("refuses a declared length over the limit unread, and a streamed body once it passes it", async () => {
    expect(await post("x".repeat(1001))).toEqual({ ok: false });
    const chunk = new TextEncoder().encode("x".repeat(300));
    let sent = 0;
    const upload = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 5) controller.enqueue(chunk);
        else controller.close();
      },
    });
    expect(await post(upload)).toEqual({ ok: false });
  });

  it("settles at once for a request whose body was already consumed or that is already gone", async () => {
    const results: unknown[] = [];
    const late = http.createServer((req, res) => {
      void (async () => {
        if (req.url === "/consumed") {
          for await (const chunk of req) void chunk;
          results.push(await readNodeBody(req, 1000));
          res.end("ok");
          return;
        }
        await new Promise<void>((resolve) => req.once("close", () => resolve()));
        results.push(await readNodeBody(req, 1000).catch((error: unknown) => ({ rejected: String(error) })));
      })();
    });
    await new Promise<void>((resolve) => late.listen(0, "127.0.0.1", resolve));
    const latePort = (late.address() as AddressInfo).port;
    try {
      await fetch(`http://127.0.0.1:${latePort}/consumed`, { method: "POST", body: "abc" });
      expect(results[0]).toEqual({ ok: true, text: "" });
      const socket = net.connect(latePort, "127.0.0.1");
      await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
      socket.write("POST /gone HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123");
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.destroy();
      await expect.poll(() => results.length).toBe(2);
      expect(results[1]).toEqual({ rejected: expect.stringMatching(/ended before its body/) });
    } finally {
      await new Promise<void>((resolve) => late.close(() => resolve()));
    }
  });

  it("rejects, rather than waiting forever, when the client goes away mid-body", async () => {
    const before = reads.length;
    const socket = net.connect(port, "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    socket.write("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789");
    await expect.poll(() => reads.length).toBe(before + 1);
    socket.destroy();
    expect(await reads[before]).toEqual({ rejected: expect.stringMatching(/ended before its body|aborted/) });
  });
});
