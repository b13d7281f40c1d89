/**
 * /api/trpc through the custom server's request listener on a real port, served twice: with the
 * core for queries (api/trpc-node.ts, as src/server.ts runs it) and with tRPC's fetch adapter alone
 * (as before it). Every request gets the same status, the same headers and the very same bytes from
 * both; the ones the core must leave to the adapter reach the adapter. Also: the node catalog
 * follows the organization's subflows as they are created, renamed and deleted (it is kept with the
 * organization's flow reads).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import { sessionCookie } from "@/test/dashboard";
import { appRouter } from "@/server/api/root";
import { createRestCore } from "@/server/api/rest/handler";
import { serveWebhookTarget } from "@/server/api/rest/webhook-handler";
import { createTrpcHandler } from "@/server/api/trpc-handler";
import { createTrpcCore } from "@/server/api/trpc-node";
import { createRequestListener } from "@/server/http/request-listener";

const testApp = setUpTestApp();

interface Server {
  base: string;
  /** Requests the fetch adapter served. */
  adapterCalls: number;
  close(): Promise<void>;
}

async function listen(withCore: boolean): Promise<Server> {
  const app = testApp.app;
  const adapter = createTrpcHandler(async () => app);
  const server: Server = { base: "", adapterCalls: 0, close: async () => {} };
  const listener = createRequestListener({
    app,
    trustProxyHops: 0,
    hsts: false,
    rest: createRestCore({ router: appRouter, getAppServices: async () => app }),
    webhooks: (req) => serveWebhookTarget(app, req),
    trpc: (req) => {
      server.adapterCalls++;
      return adapter(req);
    },
    ...(withCore ? { trpcCore: createTrpcCore(appRouter, async () => app) } : {}),
    next: async (_req, res) => {
      res.statusCode = 404;
      res.end("next");
    },
  });
  const http1 = http.createServer(listener);
  await new Promise<void>((resolve) => http1.listen(0, "127.0.0.1", resolve));
  server.base = `http://127.0.0.1:${(http1.address() as AddressInfo).port}`;
  server.close = () => new Promise<void>((resolve) => http1.close(() => resolve()));
  return server;
}

let core: Server;
let adapter: Server;
let user: Awaited<ReturnType<typeof signUp>>;
let other: Awaited<ReturnType<typeof signUp>>;
let browser: Record<string, string>;
let flowId: string;
let apiKey: string;

beforeAll(async () => {
  core = await listen(true);
  adapter = await listen(false);
  user = await signUp(testApp.request);
  other = await signUp(testApp.request);
  browser = await sessionCookie(testApp.app, user);
  const created = await testApp.request("POST", "/flows", {
    token: user.accessToken,
    body: { name: "Parity", nodes: [{ id: "tp-inject", type: "inject", config: {} }, { id: "tp-debug", type: "debug", config: {} }], connections: [{ source: "tp-inject", target: "tp-debug" }] },
  });
  expect(created.status, created.text).toBe(201);
  flowId = created.body.flow.id;
  const key = await testApp.request("POST", "/api-keys", { token: user.accessToken, body: { name: "parity" } });
  expect(key.status, key.text).toBe(201);
  apiKey = key.body.secret;
});

afterAll(async () => {
  await core?.close();
  await adapter?.close();
});

const query = (procedure: string, input?: unknown, batch = true) =>
  `/api/trpc/${procedure}?${batch ? "batch=1&" : ""}${input === undefined ? "" : `input=${encodeURIComponent(JSON.stringify(batch ? { 0: input } : input))}`}`;

/** The headers both paths must agree on (date and connection aside). */
const COMPARED = ["content-type", "content-length", "cache-control", "vary", "retry-after", "x-content-type-options", "x-frame-options", "referrer-policy"];

interface Answer {
  status: number;
  headers: Record<string, string | null>;
  text: string;
}

async function send(server: Server, path: string, init: RequestInit = {}): Promise<Answer> {
  // Uncompressed, so the bytes and their length can be compared (fetch would ask for gzip and
  // decode it); compression has a case of its own below.
  const res = await fetch(server.base + path, { ...init, headers: { "accept-encoding": "identity", ...(init.headers as Record<string, string> | undefined) } });
  const text = await res.text();
  return { status: res.status, headers: Object.fromEntries(COMPARED.map((name) => [name, res.headers.get(name)])), text };
}

/** The same request to both servers: the same answer, and whether the adapter served it on the core's. */
async function both(path: string, init: RequestInit = {}): Promise<{ answer: Answer; byAdapter: boolean }> {
  const before = core.adapterCalls;
  const fromCore = await send(core, path, init);
  const byAdapter = core.adapterCalls > before;
  const fromAdapter = await send(adapter, path, init);
  expect(fromCore, `${init.method ?? "GET"} ${path}`).toEqual(fromAdapter);
  return { answer: fromCore, byAdapter };
}

const bearer = () => ({ authorization: `Bearer ${user.accessToken}` });

describe("queries served by the core answer as tRPC's fetch adapter does", () => {
  const cases: Array<[string, () => { path: string; headers?: Record<string, string> }, number]> = [
    ["a batched query, bearer", () => ({ path: query("flows.list", {}), headers: bearer() }), 200],
    ["a batched query with an id", () => ({ path: query("flows.get", { id: flowId }), headers: bearer() }), 200],
    ["an unbatched query", () => ({ path: query("flows.get", { id: flowId }, false), headers: bearer() }), 200],
    ["a query without input", () => ({ path: "/api/trpc/flows.list", headers: bearer() }), 200],
    ["a batch of two queries", () => ({ path: `/api/trpc/flows.list,flows.get?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: {}, 1: { id: flowId } }))}`, headers: bearer() }), 200],
    ["the node catalog (150 KB) by the session cookie", () => ({ path: query("nodes.list"), headers: browser }), 200],
    ["an API key", () => ({ path: query("flows.list", {}), headers: { "x-api-key": apiKey } }), 200],
    ["no credential", () => ({ path: query("flows.list", {}) }), 401],
    ["a revoked-looking bearer", () => ({ path: query("flows.list", {}), headers: { authorization: "Bearer nope" } }), 401],
    ["the cookie from another origin", () => ({ path: query("flows.list", {}), headers: { ...browser, origin: "https://evil.example" } }), 401],
    ["another organization's flow", () => ({ path: query("flows.get", { id: flowId }), headers: { authorization: `Bearer ${other.accessToken}` } }), 404],
    ["an input that fails validation", () => ({ path: query("flows.get", { id: 5 }), headers: bearer() }), 400],
    ["an input with NUL", () => ({ path: query("flows.get", { id: "flw_\u0000" }), headers: bearer() }), 400],
    ["a batch with one missing flow", () => ({ path: `/api/trpc/flows.get,flows.get?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: { id: flowId }, 1: { id: "flw_missing000000" } }))}`, headers: bearer() }), 207],
  ];
  it.each(cases)("%s", async (_name, make, status) => {
    const { path, headers } = make();
    const { answer, byAdapter } = await both(path, { headers });
    expect(answer.status, answer.text).toBe(status);
    expect(byAdapter, "served by the core").toBe(false);
    expect(answer.headers["content-type"]).toBe("application/json");
    expect(answer.headers["cache-control"]).toBe("no-store");
  });

  it("compresses the node catalog on both paths for a client that asks, to the same JSON", async () => {
    // The core keeps the catalog's bytes (in a batch of one too) and so prefers Brotli; the
    // adapter's are made per answer.
    const asked = { ...browser, "accept-encoding": "gzip, br" };
    const fromCore = await fetch(core.base + query("nodes.list"), { headers: asked });
    const fromAdapter = await fetch(adapter.base + query("nodes.list"), { headers: asked });
    expect([fromCore.status, fromAdapter.status]).toEqual([200, 200]);
    expect(fromCore.headers.get("content-encoding")).toBe("br");
    expect(fromAdapter.headers.get("content-encoding")).toBe("gzip");
    for (const res of [fromCore, fromAdapter]) expect(res.headers.get("vary")).toBe("trpc-accept, accept, Accept-Encoding");
    expect(await fromCore.text()).toBe(await fromAdapter.text());
  });
});

describe("requests the core leaves to tRPC's fetch adapter", () => {
  const cases: Array<[string, () => { path: string; init: RequestInit }, number]> = [
    ["a mutation by POST", () => ({ path: "/api/trpc/flows.create?batch=1", init: { method: "POST", headers: { ...bearer(), "content-type": "application/json" }, body: JSON.stringify({ 0: { name: "" } }) } }), 400],
    ["a mutation by GET", () => ({ path: query("flows.create", { name: "x" }), init: { headers: bearer() } }), 405],
    ["an unknown procedure", () => ({ path: query("flows.nope", {}), init: { headers: bearer() } }), 404],
    ["a prototype property as procedure", () => ({ path: query("constructor", {}), init: { headers: bearer() } }), 404],
    ["input that is not JSON", () => ({ path: "/api/trpc/flows.list?batch=1&input=%7Bnope", init: { headers: bearer() } }), 400],
    ["a mutation whose body is not JSON", () => ({ path: "/api/trpc/flows.create?batch=1", init: { method: "POST", headers: { ...bearer(), "content-type": "application/json" }, body: "{nope" } }), 400],
    ["a mutation with an empty body", () => ({ path: "/api/trpc/flows.create?batch=1", init: { method: "POST", headers: { ...bearer(), "content-type": "application/json" }, body: "" } }), 400],
    ["a batch input that is not an object", () => ({ path: `/api/trpc/flows.list?batch=1&input=${encodeURIComponent("[1]")}`, init: { headers: bearer() } }), 400],
    ["input nested too deep", () => ({ path: query("flows.get", { id: JSON.parse("[".repeat(200) + "]".repeat(200)) }), init: { headers: bearer() } }), 400],
    ["a path that is not valid percent-encoding", () => ({ path: "/api/trpc/flows.%E0%A4%A?batch=1", init: { headers: bearer() } }), 400],
    ["a streamed (jsonl) batch", () => ({ path: query("flows.list", {}), init: { headers: { ...bearer(), "trpc-accept": "application/jsonl" } } }), 200],
  ];
  it.each(cases)("%s", async (_name, make, status) => {
    const { path, init } = make();
    const { answer, byAdapter } = await both(path, init);
    expect(answer.status, answer.text).toBe(status);
    expect(byAdapter, "served by the adapter").toBe(true);
  });
});

describe("the node catalog follows the organization's subflows", () => {
  const names = async () => {
    const { answer, byAdapter } = await both(query("nodes.list"), { headers: browser });
    expect(answer.status, answer.text).toBe(200);
    expect(byAdapter).toBe(false);
    const [{ result }] = JSON.parse(answer.text) as [{ result: { data: { nodes: Array<{ type: string; name: string }> } } }];
    return result.data.nodes.filter((n) => n.type.startsWith("subflow:")).map((n) => n.name);
  };

  it("shows a subflow once created, its new name once renamed, nothing once deleted", async () => {
    expect(await names()).toEqual([]);
    const created = await testApp.request("POST", "/subflows", { token: user.accessToken, body: { name: "Tagger" } });
    expect(created.status, created.text).toBe(201);
    const id = created.body.subflow.id as string;
    expect(await names()).toEqual(["Tagger"]);
    expect(await names()).toEqual(["Tagger"]);
    const renamed = await testApp.request("PUT", `/subflows/${id}`, { token: user.accessToken, body: { name: "Labeller", revision: 1 } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(await names()).toEqual(["Labeller"]);
    const deleted = await testApp.request("DELETE", `/subflows/${id}`, { token: user.accessToken });
    expect(deleted.status, deleted.text).toBe(204);
    expect(await names()).toEqual([]);
  });
});
