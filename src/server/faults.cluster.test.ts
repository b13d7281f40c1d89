/**
 * SPEC §17 with the dependency really gone: two app instances on a Redis and a PostgreSQL of this
 * test's own (never the shared ones), which it stops and starts again on the same port, and
 * freezes (SIGSTOP: a hung server). While one is down, every door of both instances answers
 * within 5 s, never 500: what needs the missing
 * server answers 503 UNAVAILABLE with Retry-After (REST, tRPC, webhooks; the WebSocket refuses the
 * upgrade with 503 or closes 1013), /health 200, /ready 503. Once it is back, both instances work
 * again within 15 s without a restart: login, an authenticated read, token refresh, tRPC, a
 * webhook and an inject of a running flow (its lease placed again), a WebSocket `ready`, and an
 * event crossing from one instance to a socket on the other.
 *
 * Runs in the `cluster` project (npm run test:cluster); the app instances use ports 3800-3849, the
 * Redis 6390-6399, the PostgreSQL 25432-25439.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import WebSocket from "ws";
import { signUp } from "@/test/accounts";
import { TestCluster, until, type ClusterNode } from "@/test/cluster";
import { freePort, ThrowawayPostgres, ThrowawayRedis } from "@/test/throwaway-servers";
import { connect } from "@/test/ws";

const DOOR_DEADLINE_MS = 5_000;
const RECOVERY_DEADLINE_MS = 15_000;
const RETRY_AFTER = "2";

let redis: ThrowawayRedis | undefined;
let postgres: ThrowawayPostgres | undefined;
let cluster: TestCluster | undefined;
let nodes: ClusterNode[] = [];
let account: { email: string; password: string };
/** Each instance's own session (a refresh token presented on both at once would end it: TOKEN_REUSED). */
const sessions = new Map<string, { token: string; refreshToken: string }>();
let slug: string;
let flowId: string;
const INJECT_ID = "fault-inject";

/** What the test reports at the end: each door's answers and times, and each recovery. */
const measured: string[] = [];

interface Outcome {
  door: string;
  node: string;
  ms: number;
  status?: number;
  retryAfter?: string | null;
  code?: string;
  /** WebSocket: the close code, or "ready". */
  ws?: number | "ready";
  body?: any;
}

async function http(node: ClusterNode, door: string, method: string, urlPath: string, options: { token?: string; body?: unknown } = {}): Promise<Outcome> {
  const started = performance.now();
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(`${node.url}${urlPath}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body), signal: AbortSignal.timeout(DOOR_DEADLINE_MS + 3_000) });
  } catch (err) {
    throw new Error(`${door} on ${node.name}: no answer within ${DOOR_DEADLINE_MS + 3_000} ms (${String(err)})`);
  }
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  // REST's envelope, or tRPC's (whose data carries our code).
  const code: string | undefined = body?.error?.code === undefined ? undefined : typeof body.error.code === "string" ? body.error.code : body.error.data?.appCode;
  return { door, node: node.name, ms: Math.round(performance.now() - started), status: res.status, retryAfter: res.headers.get("retry-after"), code, body };
}

/** A WebSocket with a bearer token on the upgrade: its `ready`, its close code, or the refused upgrade's status. */
function socket(node: ClusterNode, token: string): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${node.url.replace("http", "ws")}/ws`, { headers: { authorization: `Bearer ${token}` } });
    const done = (o: Partial<Outcome>) => {
      clearTimeout(timer);
      ws.removeAllListeners();
      ws.on("error", () => undefined);
      ws.terminate();
      resolve({ door: "websocket", node: node.name, ms: Math.round(performance.now() - started), ...o });
    };
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`websocket on ${node.name}: neither ready nor closed within ${DOOR_DEADLINE_MS + 3_000} ms`));
    }, DOOR_DEADLINE_MS + 3_000);
    ws.on("unexpected-response", (_req, res) => {
      res.resume();
      done({ status: res.statusCode, retryAfter: (res.headers["retry-after"] as string | undefined) ?? null });
    });
    ws.on("message", (data) => {
      if ((JSON.parse(data.toString()) as { type?: string }).type === "ready") done({ ws: "ready" });
    });
    ws.on("close", (code) => done({ ws: code }));
    ws.on("error", () => undefined);
  });
}

/** Every door of one instance, at once. */
function doors(node: ClusterNode): Array<Promise<Outcome>> {
  const { email, password } = account;
  const { token, refreshToken } = sessions.get(node.name)!;
  return [
    http(node, "health", "GET", "/api/v1/health"),
    http(node, "ready", "GET", "/api/v1/ready"),
    http(node, "flows list", "GET", "/api/v1/flows", { token }),
    http(node, "flow get", "GET", `/api/v1/flows/${flowId}`, { token }),
    http(node, "missing flow", "GET", "/api/v1/flows/flw_neverreadbyanyone00000", { token }),
    http(node, "subflows list", "GET", "/api/v1/subflows", { token }),
    http(node, "executions list", "GET", `/api/v1/flows/${flowId}/executions?status=error&limit=5`, { token }),
    http(node, "login", "POST", "/api/v1/auth/login", { body: { email, password } }),
    http(node, "refresh", "POST", "/api/v1/auth/refresh", { body: { refresh_token: refreshToken } }),
    http(node, "trpc profile", "GET", "/api/trpc/auth.profile", { token }),
    http(node, "webhook", "POST", `/hooks/${slug}/ping`, { body: { n: 1 } }),
    http(node, "inject", "POST", `/api/v1/nodes/${INJECT_ID}/inject`, { token, body: { payload: "during an outage" } }),
    socket(node, token),
  ];
}

function describeOutcome(o: Outcome): string {
  const what = o.ws !== undefined ? `ws ${o.ws}` : `${o.status}${o.code ? ` ${o.code}` : ""}${o.retryAfter ? ` retry-after ${o.retryAfter}` : ""}`;
  return `${o.node} ${o.door}: ${what} in ${o.ms} ms`;
}

/**
 * One round of every door on every instance while `server` is down. `mustFail` names the doors
 * that cannot be served without it (strictly 503 + Retry-After); the others may also succeed from
 * what is cached or held in memory (a running flow, a membership read a moment ago), never 500.
 */
async function outageRound(label: string, mustFail: Set<string>): Promise<void> {
  const outcomes = await Promise.all(nodes.flatMap(doors));
  measured.push(`${label}: ${outcomes.map(describeOutcome).join("; ")}`);
  for (const o of outcomes) {
    const at = `${label}: ${describeOutcome(o)}`;
    expect(o.ms, at).toBeLessThan(DOOR_DEADLINE_MS);
    if (o.door === "health") {
      expect(o.status, at).toBe(200);
      continue;
    }
    if (o.door === "websocket") {
      // Refused on the upgrade (503, Retry-After) or closed "try again later"; ready only where nothing needed the server.
      if (o.status !== undefined) expect([o.status, o.retryAfter], at).toEqual([503, RETRY_AFTER]);
      else if (mustFail.has("websocket")) expect(o.ws, at).toBe(1013);
      else expect([1013, "ready"], at).toContain(o.ws);
      continue;
    }
    if (mustFail.has(o.door) || o.status === 503) {
      expect([o.status, o.code, o.retryAfter], at).toEqual([503, "UNAVAILABLE", RETRY_AFTER]);
    } else {
      // Served as with every server up (the missing flow's 404, a refresh token both instances
      // raced for), never a 5xx.
      expect(o.status, at).toBeLessThan(500);
    }
  }
}

/** Until every door works again on every instance; returns how long that took from `since`. */
async function recovered(label: string, since: number): Promise<number> {
  await Promise.all(
    nodes.map((node) =>
      until(
        `${label}: ${node.name} works again`,
        async () => {
          const login = await http(node, "login", "POST", "/api/v1/auth/login", { body: { email: account.email, password: account.password } });
          if (login.status !== 200) return undefined;
          const tokens = login.body as { access_token: string; refresh_token: string };
          const checks = await Promise.all([
            http(node, "flow get", "GET", `/api/v1/flows/${flowId}`, { token: tokens.access_token }),
            http(node, "refresh", "POST", "/api/v1/auth/refresh", { body: { refresh_token: tokens.refresh_token } }),
            http(node, "trpc profile", "GET", "/api/trpc/auth.profile", { token: tokens.access_token }),
            http(node, "webhook", "POST", `/hooks/${slug}/ping`, { body: { n: 2 } }),
            http(node, "inject", "POST", `/api/v1/nodes/${INJECT_ID}/inject`, { token: tokens.access_token, body: { payload: "after" } }),
            socket(node, tokens.access_token),
            http(node, "ready", "GET", "/api/v1/ready"),
          ]);
          const expected: Record<string, number | "ready"> = { "flow get": 200, refresh: 200, "trpc profile": 200, webhook: 201, inject: 200, websocket: "ready", ready: 200 };
          if (!checks.every((c) => (c.ws ?? c.status) === expected[c.door])) return undefined;
          const refreshed = checks.find((c) => c.door === "refresh")!.body as { access_token: string; refresh_token: string };
          sessions.set(node.name, { token: refreshed.access_token, refreshToken: refreshed.refresh_token });
          return true;
        },
        RECOVERY_DEADLINE_MS + 5_000,
        200,
      ),
    ),
  );
  const ms = Date.now() - since;
  measured.push(`${label}: every door on both instances works again ${ms} ms after the server came back`);
  // Events cross instances again: an inject through one instance reaches a socket on the other.
  const [a, b] = nodes as [ClusterNode, ClusterNode];
  const listener = connect(`${b.url.replace("http", "ws")}/ws`, { authorization: `Bearer ${sessions.get(b.name)!.token}` });
  try {
    await listener.next((f) => f.type === "ready");
    listener.send({ type: "subscribe", topics: ["inject"] });
    await listener.next((f) => f.type === "subscribed");
    expect((await a.request("POST", `/nodes/${INJECT_ID}/inject`, { token: sessions.get(a.name)!.token, body: { payload: label } })).status).toBe(200);
    const event = await listener.next((f) => f.type === "event" && f.topic === "inject", 5_000);
    expect(event.data.node_id).toBe(INJECT_ID);
  } finally {
    listener.ws.terminate();
  }
  return ms;
}

beforeAll(async () => {
  [redis, postgres] = await Promise.all([ThrowawayRedis.start([6390, 6399]), ThrowawayPostgres.start([25432, 25439])]);
  cluster = new TestCluster({ basePort: await freePort(3800, 3848), databaseUrl: postgres.url, redisUrl: redis.url });
  const c = cluster;
  nodes = await Promise.all([c.start("a", 0), c.start("b", 1)]);
  const [a] = nodes as [ClusterNode];
  const user = await signUp(a.request);
  account = { email: user.email, password: user.password };
  const token = user.accessToken;
  const org = await a.request("GET", `/organizations/${user.organizationId}`, { token });
  slug = org.body.organization.slug;
  const created = await a.request("POST", "/flows", {
    token,
    body: {
      name: "faults",
      nodes: [
        { id: "fault-in", type: "http-in", config: { method: "post", path: "/ping" } },
        { id: "fault-out", type: "http-response", config: { status_code: 201 } },
        { id: INJECT_ID, type: "inject", config: { payload_type: "string", payload: "x" } },
        { id: "fault-debug", type: "debug", config: {} },
      ],
      connections: [
        { source: "fault-in", target: "fault-out" },
        { source: INJECT_ID, target: "fault-debug" },
      ],
    },
  });
  expect(created.status, created.text).toBe(201);
  flowId = created.body.flow.id;
  expect((await a.request("POST", `/flows/${flowId}/deploy`, { token })).status).toBe(200);
  // Placed and serving through both instances before anything goes away.
  await recovered("start", Date.now());
});

afterAll(async () => {
  if (measured.length > 0) console.log(`faults.cluster.test.ts measurements:\n  ${measured.join("\n  ")}`);
  await cluster?.dispose({ servers: "throwaway" }).catch((err: unknown) => console.error("cluster dispose failed", err));
  await Promise.all([redis?.destroy(), postgres?.destroy()]);
});

describe("SPEC §17: Redis stopped and started again", () => {
  it("answers 503 with Retry-After within 5 s on every door while it is down, and works again within 15 s of its return", async () => {
    await redis!.stop();
    // Everything needs the store: sessions, rate limits, access generations, leases, routes.
    const all = new Set(["ready", "flows list", "flow get", "missing flow", "subflows list", "executions list", "login", "refresh", "trpc profile", "webhook", "inject", "websocket"]);
    await outageRound("redis down, at once", all);
    // Past the lease TTL (4 s): the holder has stopped its flow, which nobody may take over.
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    await outageRound("redis down, leases expired", all);
    const since = Date.now();
    await redis!.start();
    expect(await recovered("redis back", since)).toBeLessThan(RECOVERY_DEADLINE_MS);
  });
});

describe("SPEC §17: Redis frozen and resumed", () => {
  it("answers 503 with Retry-After within 5 s on every door while Redis does not answer, and works again once it resumes", async () => {
    if (!redis!.running) {
      await redis!.start();
      await recovered("redis up again before the freeze", Date.now());
    }
    redis!.freeze();
    try {
      // Commands time out after 2 s and the client drops a connection that owes replies.
      await outageRound("redis frozen", new Set(["ready", "flows list", "flow get", "missing flow", "subflows list", "executions list", "login", "refresh", "trpc profile", "webhook", "inject", "websocket"]));
    } finally {
      redis!.thaw();
    }
    expect(await recovered("redis resumed", Date.now())).toBeLessThan(RECOVERY_DEADLINE_MS);
  });
});

describe("SPEC §17: PostgreSQL fast shutdown and started again", () => {
  it("answers 503 with Retry-After within 5 s where the database is needed, never 500, and works again within 15 s of its return", async () => {
    // Each outage on its own: Redis is up (the test before may have failed while it was down).
    if (!redis!.running) {
      await redis!.start();
      await recovered("redis up again before the database test", Date.now());
    }
    // Shutting down with sessions still open (a smart shutdown waits for them): the pool's open
    // connections still answer, new ones are refused with 57P03 "the database system is shutting
    // down", the error first seen as 500 on login and GET /flows/{id}.
    const session = new pg.Client({ connectionString: postgres!.url });
    session.on("error", () => undefined);
    await session.connect();
    await postgres!.stop("smart", { wait: false });
    await outageRound("postgres shutting down, sessions open", new Set());
    // More reads at once than the pools hold connections: the new connections meet 57P03.
    const burst = await Promise.all(nodes.flatMap((node) => Array.from({ length: 15 }, (_, i) => http(node, "burst", "GET", `/api/v1/flows/flw_burst${node.name}${i}aaaaaaaaaa`, { token: sessions.get(node.name)!.token }))));
    const counts = new Map<string, number>();
    for (const o of burst) {
      const key = `${o.status}${o.retryAfter ? ` retry-after ${o.retryAfter}` : ""}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      expect(o.ms, describeOutcome(o)).toBeLessThan(DOOR_DEADLINE_MS);
      if (o.status === 503) expect([o.code, o.retryAfter], describeOutcome(o)).toEqual(["UNAVAILABLE", RETRY_AFTER]);
      else expect(o.status, describeOutcome(o)).toBe(404);
    }
    measured.push(`postgres shutting down, 30 reads at once: ${[...counts].map(([k, n]) => `${n}× ${k}`).join(", ")}, slowest ${Math.max(...burst.map((o) => o.ms))} ms`);
    await session.end().catch(() => undefined);
    await postgres!.stop("fast");
    // What cannot be answered without the database; the rest (a running flow's webhook, reads
    // cached a moment ago) may still succeed.
    const needsDatabase = new Set(["ready", "missing flow", "login", "refresh"]);
    await outageRound("postgres down, at once", needsDatabase);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await outageRound("postgres down, 2 s later", needsDatabase);
    const since = Date.now();
    await postgres!.start();
    expect(await recovered("postgres back", since)).toBeLessThan(RECOVERY_DEADLINE_MS);
  });

  it("answers within 5 s, never hangs, while PostgreSQL is frozen (SIGSTOP: connections open, nothing answers), and works again once it resumes", async () => {
    postgres!.freeze();
    try {
      // Open connections wait for the pool's query timeout (3 s), new ones for its connect timeout (3 s).
      await outageRound("postgres frozen", new Set(["ready", "missing flow", "login", "refresh"]));
    } finally {
      postgres!.thaw();
    }
    expect(await recovered("postgres resumed", Date.now())).toBeLessThan(RECOVERY_DEADLINE_MS);
  });
});
