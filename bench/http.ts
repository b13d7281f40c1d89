/**
 * 2. The request hot path, side by side: the BUILT production server (src/server.ts with Next, as
 * `npm start` runs it) in a child process, and Node-RED with its admin API (no adminAuth) in
 * another (5.0, the reference, when the bench runs on Node >= 22.9; else 4.1; both on the bench's Node), loaded in turn by autocannon with the same connections and duration. Ours is always
 * authenticated (bearer access token, API key or the browser's next-auth cookie); Node-RED's admin
 * API is not.
 */
import os from "node:os";
import path from "node:path";
import { forkBench, nextMessage, stopChild } from "./lib/child";
import { load, problems, type LoadOptions, type LoadResult } from "./lib/load";
import { startServerChild, type ServerChild } from "./lib/server-child";
import { fmt } from "./lib/stats";
import { processCpuMs } from "./lib/cpu";
import { comparedNodeRedDir, ensureNodeRed } from "./node-red";
import type { NodeRedHttpReady } from "./node-red-http-child";
import { WEBHOOK_FUNCTION } from "./lib/webhooks";
import type { BenchContext, BenchOutcome, Row } from "./lib/types";

const B = "2 Request hot path";
const FLOWS = 20;
const SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 5);
/**
 * Rounds of each pair: each round measures both sides back to back (alternating which goes
 * first), and the row reports the medians and the median of the rounds' ratios. On a machine with
 * noisy neighbours one measurement of each side could differ by a third between runs.
 */
const ROUNDS = Math.max(1, Number(process.env.BENCH_HTTP_ROUNDS ?? 3));
const WARMUP_SECONDS = 1;
const CONNECTIONS = 10;
/** Ports of this bench (BENCH_PORT_BASE, default 3600): ours, Node-RED's. */
const PORT_BASE = Number(process.env.BENCH_PORT_BASE ?? 3600);

export const SERVER_ENV = {
  BCRYPT_COST: "12",
  RATE_LIMIT_LOGIN_PER_IP: "1000000",
  RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT: "1000000",
  RATE_LIMIT_API_PER_CREDENTIAL: "100000000",
  RATE_LIMIT_WEBHOOK_PER_IP: "100000000",
  RATE_LIMIT_WEBHOOK_PER_ORG: "100000000",
};

interface Setup {
  token: string;
  apiKey: string;
  cookie: string;
  flowIds: string[];
  injectNodeId: string;
  /** The organization's slug: its webhooks are /hooks/{slug}/wh-change and /hooks/{slug}/wh-function. */
  slug: string;
}

async function api<T>(base: string, method: string, path: string, opts: { token?: string; body?: unknown; expect?: number } = {}): Promise<T> {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${base}/api/v1${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  if (res.status !== (opts.expect ?? 200)) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

function cookiesOf(res: Response): string[] {
  return res.headers.getSetCookie().map((c) => c.split(";")[0]!);
}

/** A browser sign-in through next-auth's credentials provider: the session cookie the UI sends. */
async function browserLogin(base: string, email: string, password: string): Promise<string> {
  const csrf = await fetch(`${base}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const jar = cookiesOf(csrf);
  const res = await fetch(`${base}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.join("; "), origin: base },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }).toString(),
  });
  const session = cookiesOf(res).find((c) => c.startsWith("next-auth.session-token="));
  if (!session) throw new Error(`browser sign-in failed: ${res.status} ${(await res.text()).slice(0, 200)}`);
  return session;
}

export async function setUp(base: string): Promise<Setup> {
  const tag = Date.now().toString(36);
  const email = `bench-${tag}@example.com`;
  const password = "correct horse battery staple";
  await api(base, "POST", "/auth/register", {
    body: { email, password, first_name: "Ada", last_name: "Lovelace", organization_name: `Bench ${tag}`, accept_terms: true },
    expect: 201,
  });
  const login = await api<{ access_token: string }>(base, "POST", "/auth/login", { body: { email, password } });
  const token = login.access_token;
  const flowIds: string[] = [];
  for (let i = 0; i < FLOWS; i++) {
    const created = await api<{ flow: { id: string } }>(base, "POST", "/flows", {
      token,
      expect: 201,
      body: {
        name: `Flow ${i + 1}`,
        nodes: [
          { id: `hp${i}-inject`, type: "inject", config: { payload_type: "string", payload: "hello" } },
          { id: `hp${i}-debug`, type: "debug", config: {} },
        ],
        connections: [{ source: `hp${i}-inject`, target: `hp${i}-debug` }],
      },
    });
    flowIds.push(created.flow.id);
  }
  await api(base, "POST", `/flows/${flowIds[0]}/deploy`, { token });
  // The webhooks, as node-red-http-child.ts's: http-in → change | function → http-response.
  for (const [name, middle] of [
    ["change", { type: "change", config: { rules: [{ t: "set", p: "payload", to: "done" }] } }],
    ["function", { type: "function", config: { code: WEBHOOK_FUNCTION } }],
  ] as const) {
    const created = await api<{ flow: { id: string } }>(base, "POST", "/flows", {
      token,
      expect: 201,
      body: {
        name: `Webhook ${name}`,
        nodes: [
          { id: `wh-${name}-in`, type: "http-in", config: { method: "post", path: `/wh-${name}` } },
          { id: `wh-${name}-mid`, ...middle },
          { id: `wh-${name}-out`, type: "http-response", config: {} },
        ],
        connections: [
          { source: `wh-${name}-in`, target: `wh-${name}-mid` },
          { source: `wh-${name}-mid`, target: `wh-${name}-out` },
        ],
      },
    });
    await api(base, "POST", `/flows/${created.flow.id}/deploy`, { token });
  }
  const slug = (await api<{ organizations: Array<{ slug: string }> }>(base, "GET", "/organizations", { token })).organizations[0]!.slug;
  const key = await api<{ secret: string }>(base, "POST", "/api-keys", { token, body: { name: "bench" }, expect: 201 });
  const cookie = await browserLogin(base, email, password);
  return { token, apiKey: key.secret, cookie, flowIds, injectNodeId: "hp0-inject", slug };
}

const trpcUrl = (base: string, procedure: string, input: unknown) =>
  `${base}/api/trpc/${procedure}?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: input }))}`;

interface Pair {
  measure: string;
  ours: LoadOptions;
  nodeRed?: { label: string; options: LoadOptions };
  /** What the row's notes say besides the latencies. */
  notes?: string;
}

const loadavg1 = () => os.loadavg()[0]!;

export async function benchHttp(ctx: BenchContext): Promise<BenchOutcome> {
  const notes: string[] = [];
  const rows: Row[] = [];
  const nodeRedDir = comparedNodeRedDir();
  const available = await ensureNodeRed(ctx.log, nodeRedDir);
  let server: ServerChild | undefined;
  let nodeRed: ReturnType<typeof forkBench> | undefined;
  try {
    server = await startServerChild({ port: PORT_BASE, env: SERVER_ENV, cpuProfDir: process.env.BENCH_CPU_PROF_DIR, log: ctx.log });
    const base = server.url;
    const setup = await setUp(base);
    let ready: NodeRedHttpReady | undefined;
    const nrBase = `http://127.0.0.1:${PORT_BASE + 1}`;
    if (available.ok) {
      nodeRed = forkBench("node-red-http-child.ts", [String(PORT_BASE + 1), String(FLOWS), nodeRedDir]);
      ready = await nextMessage(nodeRed, (m): m is NodeRedHttpReady => (m as { type?: string })?.type === "ready");
    } else {
      notes.push(`Benchmark 2: Node-RED could not be installed (${available.reason}); its column is empty.`);
    }
    const bearer = { authorization: `Bearer ${setup.token}` };
    const browser = { cookie: setup.cookie, origin: base };
    const nrJson = { accept: "application/json" };
    const pairs: Pair[] = [
      {
        measure: `GET /api/v1/flows, ${FLOWS} flows, Authorization: Bearer <jwt>`,
        ours: { url: `${base}/api/v1/flows`, headers: bearer, duration: SECONDS },
        nodeRed: { label: `GET /flows, ${FLOWS} tabs`, options: { url: `${nrBase}/flows`, headers: nrJson, duration: SECONDS } },
      },
      {
        measure: `GET /api/v1/flows, ${FLOWS} flows, X-API-Key: service_…`,
        ours: { url: `${base}/api/v1/flows`, headers: { "x-api-key": setup.apiKey }, duration: SECONDS },
        nodeRed: { label: `GET /flows, ${FLOWS} tabs`, options: { url: `${nrBase}/flows`, headers: nrJson, duration: SECONDS } },
      },
      {
        measure: "POST /api/v1/nodes/{id}/inject (inject → debug deployed), bearer",
        ours: { url: `${base}/api/v1/nodes/${setup.injectNodeId}/inject`, method: "POST", headers: bearer, body: { payload: "x" }, duration: SECONDS },
        nodeRed: { label: "POST /inject/{id}", options: { url: `${nrBase}/inject/${ready?.injectId ?? "tab0-inject"}`, method: "POST", headers: nrJson, body: {}, duration: SECONDS } },
        notes: "each of ours also publishes an inject and a debug event to the store",
      },
      {
        measure: "POST /hooks/{slug}/wh-change (http-in → change → http-response)",
        ours: { url: `${base}/hooks/${setup.slug}/wh-change`, method: "POST", body: { n: 1 }, duration: SECONDS },
        nodeRed: { label: "POST /wh-change (the same flow)", options: { url: `${nrBase}/wh-change`, method: "POST", body: { n: 1 }, duration: SECONDS } },
      },
      {
        measure: "POST /hooks/{slug}/wh-function (http-in → function → http-response)",
        ours: { url: `${base}/hooks/${setup.slug}/wh-function`, method: "POST", body: { n: 1 }, duration: SECONDS },
        nodeRed: { label: "POST /wh-function (the same flow)", options: { url: `${nrBase}/wh-function`, method: "POST", body: { n: 1 }, duration: SECONDS } },
        notes: "ours runs the code in the QuickJS sandbox on a worker thread; Node-RED in a vm context on its event loop",
      },
      {
        measure: "GET /api/v1/health (no credential, no database)",
        ours: { url: `${base}/api/v1/health`, duration: SECONDS },
        notes: "goal: at least 5,000 req/s",
      },
      {
        measure: "tRPC flows.get (editor, next-auth cookie)",
        ours: { url: trpcUrl(base, "flows.get", { id: setup.flowIds[0] }), headers: browser, duration: SECONDS },
        nodeRed: { label: "GET /flow/{id}", options: { url: `${nrBase}/flow/${ready?.tabIds[0] ?? "tab0"}`, headers: nrJson, duration: SECONDS } },
      },
      {
        measure: "tRPC nodes.list (node catalog, next-auth cookie)",
        ours: { url: trpcUrl(base, "nodes.list", undefined), headers: browser, duration: SECONDS },
        nodeRed: { label: "GET /nodes (JSON)", options: { url: `${nrBase}/nodes`, headers: nrJson, duration: SECONDS } },
      },
      {
        measure: `tRPC flows.list (${FLOWS} flows, next-auth cookie)`,
        ours: { url: trpcUrl(base, "flows.list", {}), headers: browser, duration: SECONDS },
        nodeRed: { label: `GET /flows, ${FLOWS} tabs`, options: { url: `${nrBase}/flows`, headers: nrJson, duration: SECONDS } },
      },
    ];

    // Every request of both sides once before any measurement, so the first row is not the one
    // that pays for the JIT and the caches warming up (it used to come out lowest on both sides).
    for (const pair of pairs) {
      await load({ ...pair.ours, duration: WARMUP_SECONDS, connections: CONNECTIONS });
      if (pair.nodeRed && ready) await load({ ...pair.nodeRed.options, duration: WARMUP_SECONDS, connections: CONNECTIONS });
    }
    const loads: number[] = [];
    const median = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      const mid = sorted.length >> 1;
      return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
    };
    /** One measurement, with the CPU time its server spent per answer (µs; NaN without /proc). */
    const measuredWithCpu = async (options: LoadOptions, pid: number | undefined) => {
      await load({ ...options, duration: WARMUP_SECONDS, connections: CONNECTIONS });
      const before = pid === undefined ? undefined : processCpuMs(pid);
      const r = await load({ ...options, duration: SECONDS, connections: CONNECTIONS });
      const after = pid === undefined ? undefined : processCpuMs(pid);
      const cpuUs = before === undefined || after === undefined ? NaN : ((after - before) * 1000) / Math.max(1, r.rps * r.seconds);
      return { r, cpuUs };
    };
    for (const [i, pair] of pairs.entries()) {
      ctx.log(`${pair.measure}`);
      const ours: Array<{ r: LoadResult; cpuUs: number }> = [];
      const nrs: Array<{ r: LoadResult; cpuUs: number }> = [];
      for (let round = 0; round < ROUNDS; round++) {
        // Alternate who goes first, so drift in the machine's load does not always favour one side.
        const nrFirst = (i + round) % 2 === 1;
        if (nrFirst && pair.nodeRed && ready) nrs.push(await measuredWithCpu(pair.nodeRed.options, nodeRed?.pid));
        loads.push(loadavg1());
        ours.push(await measuredWithCpu(pair.ours, server.pid));
        if (!nrFirst && pair.nodeRed && ready) nrs.push(await measuredWithCpu(pair.nodeRed.options, nodeRed?.pid));
      }
      const problem = ours.map((o) => problems(pair.measure, o.r)).find(Boolean);
      if (problem) notes.push(`Benchmark 2: ${problem}`);
      const nrProblem = nrs.map((n) => problems(`Node-RED ${pair.nodeRed!.label}`, n.r)).find(Boolean);
      if (nrProblem) notes.push(`Benchmark 2: ${nrProblem}`);
      const oursRps = median(ours.map((o) => o.r.rps));
      const nrRps = nrs.length > 0 ? median(nrs.map((n) => n.r.rps)) : undefined;
      const ratios = nrs.length === ours.length ? ours.map((o, k) => o.r.rps / Math.max(1e-9, nrs[k]!.r.rps)) : [];
      const ratio = ratios.length > 0 ? median(ratios) : undefined;
      const cpu = (list: Array<{ cpuUs: number }>) => median(list.map((x) => x.cpuUs));
      const rounds = ROUNDS > 1 ? ` (median of ${ROUNDS})` : "";
      rows.push({
        benchmark: B,
        measure: pair.measure,
        result: `${fmt.int(oursRps)} req/s${rounds}, p50 ${fmt.ms(median(ours.map((o) => o.r.p50)))}, p99 ${fmt.ms(median(ours.map((o) => o.r.p99)))}`,
        nodeRed: nrRps !== undefined ? `${pair.nodeRed!.label}: ${fmt.int(nrRps)} req/s${rounds}, p50 ${fmt.ms(median(nrs.map((n) => n.r.p50)))}, p99 ${fmt.ms(median(nrs.map((n) => n.r.p99)))}` : undefined,
        notes: [
          ratio !== undefined ? `**${ratio.toFixed(2)}× Node-RED**${ratios.length > 1 ? ` (rounds ${ratios.map((x) => x.toFixed(2)).join(", ")})` : ""}` : undefined,
          Number.isFinite(cpu(ours)) ? `CPU a request: ${fmt.int(cpu(ours))} µs${nrs.length > 0 && Number.isFinite(cpu(nrs)) ? ` (Node-RED ${fmt.int(cpu(nrs))} µs)` : ""}` : undefined,
          `${fmt.kb(ours[0]!.r.bytesPerResponse)} per response${nrs.length > 0 ? ` (Node-RED ${fmt.kb(nrs[0]!.r.bytesPerResponse)})` : ""}`,
          pair.notes,
        ]
          .filter(Boolean)
          .join("; "),
      });
    }
    notes.push(
      "Benchmark 2: the server ran with RATE_LIMIT_API_PER_CREDENTIAL=100000000 (the default 1200/min per credential would answer 429 within the first second) and the login and webhook limits raised likewise; every limiter is still consulted on every request.",
    );
    notes.push(
      `Benchmark 2: our production server (the built Next app behind src/server.ts, NODE_ENV=production, LOG_LEVEL info with its log lines going to /dev/null) on ${server.backend.db === "embedded" ? "embedded PGlite + the in-process store" : "PostgreSQL + Redis"} in one child process; Node-RED ${ready?.version ?? "(not run)"} (${path.relative(process.cwd(), nodeRedDir) || nodeRedDir}, on the bench's Node ${process.versions.node}) in another with httpAdminRoot "/" and no adminAuth, ${FLOWS} tabs of inject → debug (the size of our flows) and one of the two webhooks (public on both sides). autocannon, ${CONNECTIONS} connections, every request of both sides warmed up for ${WARMUP_SECONDS} s first, then ${ROUNDS} round${ROUNDS === 1 ? "" : "s"} of ${WARMUP_SECONDS} s warm-up and ${SECONDS} s per measurement, the two sides in turn (alternating which goes first); the row gives the medians, the ratio is the median of the rounds' ratios, and CPU a request is the server process's user + system time over the measurement (from /proc) divided by the answers. The 1-minute load average at the measurements ranged ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}.`,
    );
  } finally {
    if (nodeRed) {
      nodeRed.kill("SIGTERM");
      await stopChild(nodeRed);
    }
    await server?.stop();
  }
  return { rows, notes };
}
