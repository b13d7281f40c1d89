/**
 * GET /metrics (issue 27, SPEC §18) through the custom server's request listener on a real port:
 * the Prometheus text parsed line by line (strictly: a line that is not a comment, HELP, TYPE or a
 * well-formed sample fails the test), the running-flows gauge against the flows actually running,
 * requests labelled by route template (never a raw id), and who may scrape.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import { restClient } from "@/test/app";
import { connect, startHub } from "@/test/ws";
import { listenWithRequestListener, type ListeningServer } from "@/test/listening-server";

const TOKEN = "metrics-token-0123456789abcdef";
const testApp = setUpTestApp();

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const LABEL = `[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"`;
const SAMPLE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL})(?:,${LABEL})*)?,?\\})? (\\S+)(?: -?\\d+)?$`);
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);

/** Prometheus's text format 0.0.4, strictly: every line must be one of its kinds. */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  expect(text.endsWith("\n"), "the exposition ends with a newline").toBe(true);
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.slice(0, -1).split("\n")) {
    if (line === "") continue;
    if (line.startsWith("#")) {
      const meta = new RegExp(`^# (HELP|TYPE) (${NAME}) (.*)$`).exec(line);
      if (meta) {
        if (meta[1] === "TYPE") {
          expect(TYPES.has(meta[3]!), line).toBe(true);
          expect(types.has(meta[2]!), `one TYPE line for ${meta[2]}`).toBe(false);
          types.set(meta[2]!, meta[3]!);
        }
      }
      continue;
    }
    const m = SAMPLE.exec(line);
    expect(m, `a well-formed sample line: ${line}`).not.toBeNull();
    const labels: Record<string, string> = {};
    for (const pair of (m![2] ?? "").matchAll(new RegExp(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\\\\n]|\\\\[\\\\"n])*)"`, "g"))) {
      labels[pair[1]!] = pair[2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    }
    const raw = m![3]!;
    // Prometheus reads values with Go's ParseFloat, which takes NaN in any case (prom-client writes
    // "Nan" for the event-loop lag before its first sample).
    const nan = /^nan$/i.test(raw);
    const value = raw === "+Inf" ? Infinity : raw === "-Inf" ? -Infinity : nan ? NaN : Number(raw);
    expect(nan || !Number.isNaN(value), `a number: ${line}`).toBe(true);
    samples.push({ name: m![1]!, labels, value });
  }
  return { samples, types };
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length === 0) return undefined;
  return found.reduce((sum, s) => sum + s.value, 0);
}

type Server = ListeningServer;

const listen = (options: { metricsToken?: string; trustProxyHops: number }) => listenWithRequestListener(testApp.app, options);

let open: Server;
let guarded: Server;

beforeAll(async () => {
  open = await listen({ trustProxyHops: 1 });
  guarded = await listen({ trustProxyHops: 0, metricsToken: TOKEN });
});

afterAll(async () => {
  await open?.close();
  await guarded?.close();
});

async function scrape(server: Server = open, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.base}/metrics`, { headers });
  const text = await res.text();
  return { res, text };
}

async function metrics() {
  const { res, text } = await scrape();
  expect(res.status, text).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(text);
}

async function api(method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${open.base}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, text };
}

let seq = 0;
async function deploy(token: string): Promise<{ flowId: string; injectId: string }> {
  const n = ++seq;
  const injectId = `metrics-inject-${n}`;
  const created = await api("POST", "/flows", token, {
    name: `metrics ${n}`,
    nodes: [
      { id: injectId, type: "inject", config: {} },
      { id: `metrics-json-${n}`, type: "json", config: {} },
      { id: `metrics-debug-${n}`, type: "debug", config: {} },
    ],
    connections: [
      { source: injectId, target: `metrics-json-${n}` },
      { source: `metrics-json-${n}`, target: `metrics-debug-${n}` },
    ],
  });
  expect(created.status, created.text).toBe(201);
  const flowId = created.body.flow.id as string;
  const deployed = await api("POST", `/flows/${flowId}/deploy`, token);
  expect(deployed.body.deployment?.state, deployed.text).toBe("running");
  return { flowId, injectId };
}

describe("GET /metrics", () => {
  it("reports the flows running here: up on deploy, down on stop and delete", async () => {
    const owner = await signUp(restClient(testApp.app));
    const running = async () => value((await metrics()).samples, "flowplane_flows_running");
    const before = await running();
    expect(before).toBe(0);

    const first = await deploy(owner.accessToken);
    const second = await deploy(owner.accessToken);
    const { samples, types } = await metrics();
    expect(value(samples, "flowplane_flows_running")).toBe(2);
    expect(types.get("flowplane_flows_running")).toBe("gauge");
    expect(value(samples, "flowplane_flows_to_run")).toBe(2);

    // Messages: one inject passes the json node and reaches the debug node.
    const delivered = value(samples, "flowplane_flow_messages_delivered_total") ?? 0;
    const injected = await api("POST", `/nodes/${first.injectId}/inject`, owner.accessToken, { payload: 1 });
    expect(injected.status, injected.text).toBe(200);
    await expect.poll(async () => value((await metrics()).samples, "flowplane_flow_messages_delivered_total")).toBeGreaterThanOrEqual(delivered + 2);
    // A string that is not JSON: the json node fails, once.
    const errors = value((await metrics()).samples, "flowplane_flow_node_errors_total") ?? 0;
    expect((await api("POST", `/nodes/${first.injectId}/inject`, owner.accessToken, { payload: "{not json" })).status).toBe(200);
    await expect.poll(async () => value((await metrics()).samples, "flowplane_flow_node_errors_total")).toBe(errors + 1);

    // Stopped (disabled) and deleted: the gauge follows the runtime.
    const flow = await api("GET", `/flows/${first.flowId}`, owner.accessToken);
    const disabled = await api("PUT", `/flows/${first.flowId}`, owner.accessToken, { enabled: false, revision: flow.body.flow.revision });
    expect(disabled.status, disabled.text).toBe(200);
    expect(await running()).toBe(1);
    expect((await api("DELETE", `/flows/${second.flowId}`, owner.accessToken)).status).toBe(204);
    expect(await running()).toBe(0);
    expect(value((await metrics()).samples, "flowplane_flows_to_run")).toBe(0);
  });

  it("counts requests by route template, never by raw path or id", async () => {
    const owner = await signUp(restClient(testApp.app));
    const labels = { route: "/api/v1/flows/{id}", method: "GET", status: "404" };
    const before = value((await metrics()).samples, "flowplane_http_requests_total", labels) ?? 0;
    const missing = "flw_doesnotexist0000";
    expect((await api("GET", `/flows/${missing}`, owner.accessToken)).status).toBe(404);
    expect((await api("GET", `/flows/${missing}`, owner.accessToken)).status).toBe(404);
    const { samples, types } = await metrics();
    expect(value(samples, "flowplane_http_requests_total", labels)).toBe(before + 2);
    expect(types.get("flowplane_http_requests_total")).toBe("counter");
    expect(types.get("flowplane_http_request_duration_seconds")).toBe("histogram");
    const series = { route: "/api/v1/flows/{id}", method: "GET" };
    const count = value(samples, "flowplane_http_request_duration_seconds_count", series)!;
    expect(count).toBeGreaterThanOrEqual(2);
    // Cumulative buckets, +Inf equal to the count, a positive sum.
    const buckets = samples.filter((x) => x.name === "flowplane_http_request_duration_seconds_bucket" && x.labels.route === series.route && x.labels.method === "GET");
    expect(buckets.at(-1)!.labels.le).toBe("+Inf");
    expect(buckets.at(-1)!.value).toBe(count);
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]!.value).toBeGreaterThanOrEqual(buckets[i - 1]!.value);
    expect(value(samples, "flowplane_http_request_duration_seconds_sum", series)).toBeGreaterThan(0);
    // Unknown REST paths, pages and the scrape itself each have one label.
    await fetch(`${open.base}/api/v1/no/such/${missing}`);
    await fetch(`${open.base}/some/page/${missing}`);
    await fetch(`${open.base}/api/auth/session/${missing}`);
    const after = (await metrics()).samples;
    expect(value(after, "flowplane_http_requests_total", { route: "/api/v1/{unmatched}", status: "404" })).toBeGreaterThanOrEqual(1);
    expect(value(after, "flowplane_http_requests_total", { route: "page" })).toBeGreaterThanOrEqual(1);
    expect(value(after, "flowplane_http_requests_total", { route: "next_api" })).toBeGreaterThanOrEqual(1);
    expect(value(after, "flowplane_http_requests_total", { route: "metrics", status: "200" })).toBeGreaterThanOrEqual(1);
    const routes = new Set(after.filter((s) => s.name.startsWith("flowplane_http_")).map((s) => s.labels.route));
    for (const route of routes) expect(route).not.toContain(missing);
    for (const route of routes) expect(route).not.toContain(owner.organizationId);
  });

  it("exposes the WebSocket, store and database counts and the event-loop lag", async () => {
    const { samples, types } = await metrics();
    expect(value(samples, "flowplane_websocket_clients")).toBe(0);
    expect(types.get("flowplane_store_round_trips_total")).toBe("counter");
    // In process nothing travels; on Redis every request above made some.
    const storeTrips = value(samples, "flowplane_store_round_trips_total", { store: testApp.app.store.kind });
    if (testApp.app.store.kind === "redis") expect(storeTrips).toBeGreaterThan(0);
    else expect(storeTrips).toBe(0);
    const statements = value(samples, "flowplane_database_round_trips_total", { database: testApp.app.db.kind })!;
    expect(statements).toBeGreaterThan(0);
    // Prisma's queries are counted at the driver adapter, in transactions too.
    await testApp.app.db.prisma.flow.count();
    await testApp.app.db.prisma.$transaction([testApp.app.db.prisma.flow.count(), testApp.app.db.prisma.user.count()]);
    const later = value((await metrics()).samples, "flowplane_database_round_trips_total", { database: testApp.app.db.kind })!;
    expect(later - statements).toBeGreaterThanOrEqual(4);
    expect(value(samples, "nodejs_eventloop_lag_seconds")).toBeDefined();
    expect(value(samples, "flowplane_flow_node_errors_total")).toBeDefined();
  });

  it("counts the WebSocket clients connected now", async () => {
    const owner = await signUp(restClient(testApp.app));
    const hub = await startHub(testApp.app);
    try {
      const clients = async () => value((await metrics()).samples, "flowplane_websocket_clients");
      const socket = connect(hub.url, { authorization: `Bearer ${owner.accessToken}` });
      await expect.poll(clients).toBe(1);
      socket.ws.close();
      await socket.closed;
      await expect.poll(clients).toBe(0);
    } finally {
      await hub.close();
    }
  });

  it("without METRICS_TOKEN answers loopback clients only (as TRUST_PROXY_HOPS resolves them); others get 404", async () => {
    // One trusted hop: the client is the X-Forwarded-For entry left of the (loopback) peer.
    const remote = await scrape(open, { "x-forwarded-for": "203.0.113.9" });
    expect(remote.res.status).toBe(404);
    expect(JSON.parse(remote.text)).toEqual({ error: { code: "NOT_FOUND", message: "not found" } });
    const local = await scrape(open, { "x-forwarded-for": "127.0.0.1" });
    expect(local.res.status).toBe(200);
    const posted = await fetch(`${open.base}/metrics`, { method: "POST" });
    expect(posted.status).toBe(405);
    expect(posted.headers.get("allow")).toBe("GET, HEAD");
  });

  it("with METRICS_TOKEN wants the bearer token, from loopback too", async () => {
    const none = await scrape(guarded);
    expect(none.res.status).toBe(401);
    expect(none.res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(JSON.parse(none.text).error.code).toBe("UNAUTHENTICATED");
    expect((await scrape(guarded, { authorization: `Bearer ${TOKEN}x` })).res.status).toBe(401);
    expect((await scrape(guarded, { authorization: `Bearer ${TOKEN.slice(0, -1)}` })).res.status).toBe(401);
    expect((await scrape(guarded, { authorization: `Basic ${TOKEN}` })).res.status).toBe(401);
    const ok = await scrape(guarded, { authorization: `Bearer ${TOKEN}` });
    expect(ok.res.status, ok.text).toBe(200);
    expect(parseExposition(ok.text).samples.length).toBeGreaterThan(0);
  });
});
