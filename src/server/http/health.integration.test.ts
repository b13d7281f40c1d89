/**
 * GET /api/v1/health through the custom server's request listener, which answers it without the
 * REST adapter (http/health.ts): the same body, headers, request id and metrics as the adapter's
 * answer for the same procedure, a HEAD without a body, and what is not health still reaching the
 * adapter.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { appRouter } from "@/server/api/root";
import { createRestCore } from "@/server/api/rest/handler";
import { serveWebhookTarget } from "@/server/api/rest/webhook-handler";
import { createTrpcHandler } from "@/server/api/trpc-handler";
import { createRequestListener } from "./request-listener";

const testApp = setUpTestApp();
let server: http.Server;
let base: string;
let restCalls = 0;

beforeAll(async () => {
  const app = testApp.app;
  const core = createRestCore({ router: appRouter, getAppServices: async () => app });
  server = http.createServer(
    createRequestListener({
      app,
      trustProxyHops: 0,
      hsts: true,
      rest: (req) => {
        restCalls++;
        return core(req);
      },
      webhooks: (req) => serveWebhookTarget(app, req),
      trpc: createTrpcHandler(async () => app),
      next: async (_req, res) => {
        res.statusCode = 404;
        res.end("next");
      },
      metricsToken: undefined,
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** The headers an operator or a client can see, without the ones that differ per request or per connection. */
function stableHeaders(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!["date", "x-request-id", "content-length", "connection", "keep-alive"].includes(name)) out[name] = value;
  });
  return out;
}

describe("GET /api/v1/health on the custom server", () => {
  it("answers as the REST adapter does, without calling it", async () => {
    const before = restCalls;
    const fast = await fetch(`${base}/api/v1/health`);
    expect(restCalls).toBe(before);
    expect(fast.status).toBe(200);
    const body = await fast.json();
    // The adapter's answer for the same procedure (Next's route file mounts it).
    const viaAdapter = await createRestCore({ router: appRouter, getAppServices: async () => testApp.app })({
      method: "GET",
      target: "/api/v1/health",
      header: () => null,
      readBody: null,
    });
    expect(body).toEqual(JSON.parse(String(viaAdapter.body)));
    expect(body).toMatchObject({ status: "ok", instance_id: testApp.app.flowRuntime.instanceId });
    const expected = Object.fromEntries([...viaAdapter.headers.map].filter(([name]) => name !== "x-request-id"));
    expect(stableHeaders(fast)).toEqual({
      ...expected,
      "referrer-policy": "strict-origin-when-cross-origin",
      "x-frame-options": "DENY",
      "strict-transport-security": "max-age=63072000; includeSubDomains",
    });
    expect(fast.headers.get("x-request-id")).toMatch(/^req_[\w-]{22}$/);
    expect(Number(fast.headers.get("content-length"))).toBe(Buffer.byteLength(JSON.stringify(body)));
  });

  it("keeps a well-formed X-Request-Id and replaces one that is not, as the adapter does", async () => {
    const kept = await fetch(`${base}/api/v1/health`, { headers: { "x-request-id": "lb-probe.42" } });
    expect(kept.headers.get("x-request-id")).toBe("lb-probe.42");
    const replaced = await fetch(`${base}/api/v1/health`, { headers: { "x-request-id": "bad id\u00e9" } });
    expect(replaced.headers.get("x-request-id")).toMatch(/^req_/);
  });

  it("answers HEAD and a query string too; other methods and paths still go to the adapter", async () => {
    const head = await fetch(`${base}/api/v1/health`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    expect((await fetch(`${base}/api/v1/health?probe=1`)).status).toBe(200);
    const before = restCalls;
    const post = await fetch(`${base}/api/v1/health`, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET");
    expect((await fetch(`${base}/api/v1/healthz`)).status).toBe(404);
    expect(restCalls).toBe(before + 2);
  });

  it("is counted in GET /metrics under its route", async () => {
    const count = async () => {
      const text = await (await fetch(`${base}/metrics`)).text();
      const line = text.split("\n").find((l) => l.startsWith("flowplane_http_requests_total{") && l.includes('route="/api/v1/health"') && l.includes('method="GET"') && l.includes('status="200"'));
      return line ? Number(line.split(" ").at(-1)) : 0;
    };
    const before = await count();
    for (let i = 0; i < 3; i++) await fetch(`${base}/api/v1/health`);
    expect(await count()).toBe(before + 3);
  });
});
