/**
 * The API's large JSON answers compressed as the client asks (http/compression.ts), through the
 * custom server's request listener on a real port, read with node:http (which, unlike fetch,
 * hands over the bytes as they came): the node catalog (a kept body, compressed once) and a flow's
 * export (compressed per answer), over REST and tRPC.
 */
import http from "node:http";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import { restClient } from "@/test/app";
import { listenWithRequestListener, type ListeningServer } from "@/test/listening-server";
import { appRouter } from "@/server/api/root";
import { createTrpcCore } from "@/server/api/trpc-node";

const testApp = setUpTestApp();
let server: ListeningServer | undefined;
let token = "";
let flowId = "";

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  bytes: Buffer;
}

function get(path: string, headers: Record<string, string> = {}, method = "GET", body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = body === undefined ? {} : { "content-type": "application/json" };
    const req = http.request(`${server!.base}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...sent, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

function decoded(answer: Answer): unknown {
  const coding = answer.headers["content-encoding"];
  const bytes = coding === "br" ? zlib.brotliDecompressSync(answer.bytes) : coding === "gzip" ? zlib.gunzipSync(answer.bytes) : answer.bytes;
  return JSON.parse(bytes.toString("utf8"));
}

/** A flow whose answers (itself, its Node-RED export) are well over 16 KiB. */
const largeFlow = (name: string, prefix: string) => {
  const nodes = Array.from({ length: 120 }, (_, i) => ({ id: `${prefix}${i}`, type: "change", name: `step ${i}`, config: { rules: [{ t: "set", p: "payload", to: `value number ${i}` }] } }));
  return { name, nodes, connections: nodes.slice(1).map((n, i) => ({ source: `${prefix}${i}`, target: n.id })) };
};

beforeAll(async () => {
  const app = testApp.app;
  const rest = restClient(app);
  const user = await signUp(rest);
  token = user.accessToken;
  const created = await rest("POST", "/flows", { token, body: largeFlow("large", "n") });
  expect(created.status, created.text).toBe(201);
  flowId = created.body.flow.id;
  // tRPC as src/server.ts mounts it: the common requests through the core.
  server = await listenWithRequestListener(app, { trpcCore: createTrpcCore(appRouter, async () => app) });
});

afterAll(() => server?.close());

describe("compression of large API answers", () => {
  it("sends the node catalog in Brotli to a client that takes it, the same JSON as uncompressed, a quarter of its size", async () => {
    const plain = await get("/api/v1/nodes");
    expect(plain.status).toBe(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    // The representation varies with Accept-Encoding even when this answer is not compressed.
    expect(plain.headers.vary).toBe("Accept-Encoding");
    expect(plain.bytes.byteLength).toBeGreaterThan(16 * 1024);

    // Twice: the first answer compresses it, the second has it kept.
    for (let i = 0; i < 2; i++) {
      const br = await get("/api/v1/nodes", { "accept-encoding": "gzip, deflate, br, zstd" });
      expect(br.status).toBe(200);
      expect(br.headers["content-encoding"]).toBe("br");
      expect(br.headers.vary).toBe("Accept-Encoding");
      expect(Number(br.headers["content-length"])).toBe(br.bytes.byteLength);
      expect(br.bytes.byteLength).toBeLessThan(plain.bytes.byteLength / 3);
      expect(decoded(br)).toEqual(JSON.parse(plain.bytes.toString("utf8")));
    }
  });

  it("follows the client's q-values: gzip when Brotli is refused or absent, nothing for identity or a coding it does not know", async () => {
    const expected = decoded(await get("/api/v1/nodes"));
    for (const [accept, coding] of [
      ["gzip", "gzip"],
      ["br;q=0, gzip", "gzip"],
      ["gzip;q=1, br;q=0.5", "gzip"],
      ["*", "br"],
      ["identity", undefined],
      ["br;q=0, gzip;q=0", undefined],
      ["deflate", undefined],
      ["compress, x-custom", undefined],
    ] as const) {
      const answer = await get("/api/v1/nodes", { "accept-encoding": accept });
      expect(answer.status, accept).toBe(200);
      expect(answer.headers["content-encoding"], accept).toBe(coding);
      expect(decoded(answer), accept).toEqual(expected);
    }
  });

  it("compresses an answer made per request (a flow's export) with gzip first", async () => {
    const plain = await get(`/api/v1/flows/${flowId}/export`);
    expect(plain.status).toBe(200);
    expect(plain.bytes.byteLength).toBeGreaterThan(16 * 1024);
    const gz = await get(`/api/v1/flows/${flowId}/export`, { "accept-encoding": "br, gzip" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gz.bytes.byteLength).toBeLessThan(plain.bytes.byteLength / 3);
    expect(decoded(gz)).toEqual(JSON.parse(plain.bytes.toString("utf8")));
    const br = await get(`/api/v1/flows/${flowId}/export`, { "accept-encoding": "br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(decoded(br)).toEqual(JSON.parse(plain.bytes.toString("utf8")));
  });

  it("leaves small answers, errors and HEAD as they are", async () => {
    const small = await get(`/api/v1/flows`, { "accept-encoding": "gzip, br" });
    expect(small.status).toBe(200);
    expect(small.headers["content-encoding"]).toBeUndefined();
    expect(small.headers.vary).toBeUndefined();
    expect(decoded(small)).toMatchObject({ flows: [expect.objectContaining({ id: flowId })] });
    const missing = await get(`/api/v1/flows/flw_doesnotexist/export`, { "accept-encoding": "gzip, br" });
    expect(missing.status).toBe(404);
    expect(missing.headers["content-encoding"]).toBeUndefined();
    expect(decoded(missing)).toMatchObject({ error: { code: "NOT_FOUND" } });
    // HEAD: the head a GET would have (its Vary), uncompressed (no body to encode).
    const head = await get("/api/v1/nodes", { "accept-encoding": "gzip, br" }, "HEAD");
    expect(head.headers["content-encoding"]).toBeUndefined();
    expect(head.bytes.byteLength).toBe(0);
  });

  it("never compresses the answer to a POST, however large (the answers that carry credentials are POSTs')", async () => {
    const created = await get("/api/v1/flows", { "accept-encoding": "gzip, br" }, "POST", largeFlow("posted", "p"));
    expect(created.status, created.bytes.toString("utf8").slice(0, 300)).toBe(201);
    expect(created.bytes.byteLength).toBeGreaterThan(16 * 1024);
    expect(created.headers["content-encoding"]).toBeUndefined();
    expect(created.headers.vary).toBeUndefined();
    expect(decoded(created)).toMatchObject({ flow: { name: "posted" } });
    // The same flow read back by GET is compressed.
    const read = await get(`/api/v1/flows/${(decoded(created) as { flow: { id: string } }).flow.id}`, { "accept-encoding": "gzip, br" });
    expect(read.headers["content-encoding"]).toBe("br");
  });

  it("sends tRPC's answer of the catalog compressed too", async () => {
    const path = `/api/trpc/nodes.list?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: {} }))}`;
    const plain = await get(path);
    expect(plain.status, plain.bytes.toString("utf8").slice(0, 300)).toBe(200);
    const br = await get(path, { "accept-encoding": "br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(decoded(br)).toEqual(JSON.parse(plain.bytes.toString("utf8")));
  });
});
