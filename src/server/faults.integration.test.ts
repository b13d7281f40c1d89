/**
 * SPEC §17 door by door, in process: an app whose store, or whose database, has really gone
 * (closed under it) answers every request that needs it with 503 UNAVAILABLE and Retry-After,
 * never a 500: REST, tRPC, webhooks and the WebSocket; /health stays 200 and /ready says 503.
 * Outages of real servers, and coming back from them, are src/server/faults.cluster.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { AppServices } from "@/server/app-services";
import { createTestApp, restClient } from "@/test/app";
import { signUp } from "@/test/accounts";
import { connect, startHub } from "@/test/ws";
import { createTrpcHandler } from "@/server/api/trpc-handler";
import { createTrpcCore } from "@/server/api/trpc-node";
import { appRouter } from "@/server/api/root";
import { handleWebhook } from "@/server/api/rest/webhook-handler";
import { CLIENT_IP_HEADER } from "@/server/http/client-ip";
import { UNAVAILABLE_RETRY_AFTER_SEC } from "@/server/errors";
import { WS_CLOSE } from "@/shared/realtime";

interface Stage {
  app: AppServices;
  request: ReturnType<typeof restClient>;
  user: Awaited<ReturnType<typeof signUp>>;
  slug: string;
  hub: Awaited<ReturnType<typeof startHub>>;
}

/** An app with a running webhook flow and a logged-in user, before anything goes away. */
async function stage(): Promise<Stage> {
  const app = await createTestApp();
  const request = restClient(app);
  const user = await signUp(request);
  const created = await request("POST", "/flows", {
    token: user.accessToken,
    body: {
      name: "hook",
      nodes: [
        { id: "in1", type: "http-in", config: { method: "post", path: "/ping" } },
        { id: "out1", type: "http-response", config: { status_code: 201 } },
      ],
      connections: [{ source: "in1", target: "out1" }],
    },
  });
  expect(created.status).toBe(201);
  expect((await request("POST", `/flows/${created.body.flow.id}/deploy`, { token: user.accessToken })).status).toBe(200);
  const org = await request("GET", `/organizations/${user.organizationId}`, { token: user.accessToken });
  const slug = org.body.organization.slug as string;
  expect((await webhook({ app } as Stage, slug)).status).toBe(201);
  return { app, request, user, slug, hub: await startHub(app) };
}

function webhook(s: Pick<Stage, "app">, slug: string) {
  return handleWebhook(s.app, new Request(`http://app.test/hooks/${slug}/ping`, { method: "POST", headers: { "content-type": "application/json", [CLIENT_IP_HEADER]: "203.0.113.9" }, body: "{}" }), slug, ["ping"]);
}

function trpc(s: Stage, path: string) {
  return createTrpcHandler(async () => s.app)(new Request(`http://app.test/api/trpc/${path}`, { headers: { authorization: `Bearer ${s.user.accessToken}`, [CLIENT_IP_HEADER]: "203.0.113.9" } }));
}

/** A query as the custom server answers it (api/trpc-node.ts), as a Response. */
async function trpcQuery(s: Stage, path: string): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${s.user.accessToken}`, [CLIENT_IP_HEADER]: "203.0.113.9" };
  const result = await createTrpcCore(appRouter, async () => s.app)({ method: "GET", target: `/api/trpc/${path}`, header: (name) => headers[name] ?? null, readBody: null });
  if (!result) throw new Error(`the core left ${path} to the fetch adapter`);
  return new Response(result.body as string, { status: result.status, headers: Object.fromEntries(result.headers.map) });
}

/** The upgrade's HTTP status when refused, or the close code once the socket was accepted. */
function upgradeOutcome(url: string, headers: Record<string, string>): Promise<{ status?: number; retryAfter?: string; close?: number }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.on("unexpected-response", (_req, res) => {
      resolve({ status: res.statusCode, retryAfter: res.headers["retry-after"] as string | undefined });
      res.resume();
      ws.terminate();
    });
    ws.on("error", () => undefined);
    ws.on("close", (code) => resolve({ close: code }));
  });
}

const retryAfter = String(UNAVAILABLE_RETRY_AFTER_SEC);

async function expectUnavailable(res: { status: number; headers: Headers; json(): Promise<any> } | { status: number; headers: Headers; body: any }) {
  expect(res.status).toBe(503);
  expect(res.headers.get("retry-after")).toBe(retryAfter);
  const body = "json" in res ? await res.json() : res.body;
  expect(JSON.stringify(body)).toMatch(/UNAVAILABLE/);
}

describe("the store gone", () => {
  let s: Stage;
  beforeAll(async () => {
    s = await stage();
    await s.app.store.close();
  });
  afterAll(async () => {
    await s?.hub.close();
    await s?.app.close();
  });

  it("REST: an authenticated read and login answer 503 with Retry-After; /health 200, /ready 503", async () => {
    await expectUnavailable(await s.request("GET", "/flows", { token: s.user.accessToken }));
    await expectUnavailable(await s.request("POST", "/auth/login", { body: { email: s.user.email, password: s.user.password } }));
    await expectUnavailable(await s.request("POST", "/auth/refresh", { body: { refresh_token: s.user.refreshToken } }));
    expect((await s.request("GET", "/health")).status).toBe(200);
    await expectUnavailable(await s.request("GET", "/ready"));
  });

  it("tRPC answers 503 with Retry-After", async () => {
    await expectUnavailable(await trpc(s, "auth.profile"));
    await expectUnavailable(await trpcQuery(s, "auth.profile"));
  });

  it("a webhook of a running flow answers 503 with Retry-After", async () => {
    const res = await webhook(s, s.slug);
    await expectUnavailable(res);
    expect(res.headers.get("content-security-policy")).toMatch(/sandbox/);
  });

  it("a WebSocket upgrade is refused with HTTP 503 and Retry-After", async () => {
    expect(await upgradeOutcome(s.hub.url, { authorization: `Bearer ${s.user.accessToken}` })).toEqual({ status: 503, retryAfter });
  });
});

describe("the database gone", () => {
  let s: Stage;
  beforeAll(async () => {
    s = await stage();
    // Nothing cached may answer for the database: memberships are read again.
    await s.app.access.changed();
    await s.app.db.close();
  });
  afterAll(async () => {
    await s?.hub.close();
    await s?.app.close();
  });

  it("REST: login, a flow that must be read and token refresh answer 503 with Retry-After; /health 200, /ready 503", async () => {
    await expectUnavailable(await s.request("POST", "/auth/login", { body: { email: s.user.email, password: s.user.password } }));
    await expectUnavailable(await s.request("GET", "/flows/flw_notcachedanywhere0000", { token: s.user.accessToken }));
    await expectUnavailable(await s.request("POST", "/auth/refresh", { body: { refresh_token: s.user.refreshToken } }));
    expect((await s.request("GET", "/health")).status).toBe(200);
    await expectUnavailable(await s.request("GET", "/ready"));
  });

  it("tRPC answers 503 with Retry-After", async () => {
    await expectUnavailable(await trpc(s, "auth.profile"));
    await expectUnavailable(await trpcQuery(s, "auth.profile"));
  });

  it("a WebSocket whose credentials cannot be checked closes with 1013, on the upgrade or the auth frame", async () => {
    expect(await upgradeOutcome(s.hub.url, { authorization: `Bearer ${s.user.accessToken}` })).toEqual({ close: WS_CLOSE.tryAgainLater });
    const socket = connect(s.hub.url);
    socket.send({ type: "auth", token: s.user.accessToken });
    expect((await socket.closed).code).toBe(WS_CLOSE.tryAgainLater);
  });
});
