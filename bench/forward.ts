import path from "node:path";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { signUp } from "@/test/accounts";
import { TestCluster, sleep, until, type ClusterNode } from "@/test/cluster";
import { load, problems, type LoadOptions, type LoadResult } from "./lib/load";
import { writeReport } from "./lib/report";
import { fmt } from "./lib/stats";
import { processCpuMs } from "./lib/cpu";
import type { BenchContext, BenchOutcome, Row } from "./lib/types";

const B = "7b Forwarded calls";
const REPORT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../docs/BENCHMARKS.md");
/** Ports while holding the heavy lock: two instances. */
const BASE_PORT = Number(process.env.BENCH_FORWARD_PORT ?? 3740);
const SECONDS = Number(process.env.BENCH_FORWARD_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_FORWARD_ROUNDS ?? 3);
const CONNECTIONS = 10;
const VIA_REDIS = process.env.BENCH_FORWARD_VIA === "redis";
/** Seconds of warm-up of each path before the rounds (the forwarded one runs code in two processes). */
const WARMUP_SECONDS = Number(process.env.BENCH_FORWARD_WARMUP ?? 1);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * 7b. A call made on the instance that does not run the flow (forwarded to the one that does)
 * against the same call made on that one, for an inject (inject → debug, as benchmark 2) and a
 * webhook (http-in → change → http-response). Two instances as processes (src/test/cluster-node.ts:
 * src/server.ts's request listener, no Next) on one PostgreSQL schema and Redis prefix; direct and
 * forwarded measured in turn, `ROUNDS` times each, the medians and their ratio reported. Writes its
 * own section of docs/BENCHMARKS.md. BENCH_CPU_PROF_DIR: both instances write a V8 CPU profile there.
 */
export async function benchForward(ctx: BenchContext): Promise<BenchOutcome> {
  if (!process.env.DATABASE_URL || !process.env.REDIS_URL) {
    const reason = "needs DATABASE_URL and REDIS_URL: the embedded defaults are one instance";
    ctx.log(`forward: ${reason}`);
    return { rows: [{ benchmark: B, measure: "forwarded calls", result: "not measured here", notes: reason }], notes: [] };
  }
  const profDir = process.env.BENCH_CPU_PROF_DIR;
  const cluster = new TestCluster({
    basePort: BASE_PORT,
    // LOG_LEVEL info as in production (the benchmark-2 server's too): one access line per request.
    // BENCH_FORWARD_VIA=redis: forwarded calls over the Redis channels only (CLUSTER_URL=none), to compare with the instances' direct connection.
    env: { LOG_LEVEL: "info", RATE_LIMIT_API_PER_CREDENTIAL: "100000000", RATE_LIMIT_WEBHOOK_PER_IP: "100000000", RATE_LIMIT_WEBHOOK_PER_ORG: "100000000", ...(VIA_REDIS ? { CLUSTER_URL: "none" } : {}) },
    ...(profDir ? { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${profDir}`] } : {}),
  });
  const startedAt = new Date();
  const loadAtStart = os.loadavg().map((l) => l.toFixed(2)).join(" / ");
  try {
    await Promise.all([cluster.start("a", 0), cluster.start("b", 1)]);
    const first = cluster.node("a");
    const user = await signUp(first.request);
    const token = user.accessToken;
    const slug = (await first.request("GET", "/organizations", { token })).body.organizations[0].slug as string;
    const tag = Date.now().toString(36);
    const inject = `fw-inject-${tag}`;
    const injectFlow = await first.request("POST", "/flows", {
      token,
      body: {
        name: "forward inject",
        nodes: [
          { id: inject, type: "inject", config: { payload_type: "string", payload: "hello" } },
          { id: `${inject}-debug`, type: "debug", config: {} },
        ],
        connections: [{ source: inject, target: `${inject}-debug` }],
      },
    });
    const hook = `fw-hook-${tag}`;
    const hookFlow = await first.request("POST", "/flows", {
      token,
      body: {
        name: "forward webhook",
        nodes: [
          { id: `${hook}-in`, type: "http-in", config: { method: "post", path: "/fw" } },
          { id: `${hook}-change`, type: "change", config: { rules: [{ t: "set", p: "payload", to: "done" }] } },
          { id: `${hook}-out`, type: "http-response", config: {} },
        ],
        connections: [
          { source: `${hook}-in`, target: `${hook}-change` },
          { source: `${hook}-change`, target: `${hook}-out` },
        ],
      },
    });
    const flowIds = [injectFlow.body.flow.id as string, hookFlow.body.flow.id as string];
    for (const id of flowIds) {
      const deployed = await first.request("POST", `/flows/${id}/deploy`, { token });
      if (deployed.status !== 200) throw new Error(`deploy: ${deployed.status} ${deployed.text}`);
    }
    const ownerOf = (flowId: string): Promise<ClusterNode> =>
      until("placed", async () => {
        const runtime = (await first.request("GET", `/flows/${flowId}`, { token })).body.flow?.runtime;
        return runtime ? cluster.byInstance(runtime.instance_id) : undefined;
      }, 20_000, 50);
    // Placement settles (fair share may move one flow) before anything is measured.
    await sleep(3_000);

    const cases: Array<{ measure: string; flowId: string; options: (node: ClusterNode) => LoadOptions }> = [
      {
        measure: "POST /api/v1/nodes/{id}/inject (inject → debug), bearer",
        flowId: flowIds[0]!,
        options: (node) => ({ url: `${node.url}/api/v1/nodes/${inject}/inject`, method: "POST", headers: { authorization: `Bearer ${token}` }, body: { payload: "x" }, duration: SECONDS }),
      },
      {
        measure: "POST /hooks/{slug}/fw (http-in → change → http-response)",
        flowId: flowIds[1]!,
        options: (node) => ({ url: `${node.url}/hooks/${slug}/fw`, method: "POST", body: { n: 1 }, duration: SECONDS }),
      },
    ];
    const rows: Row[] = [];
    const notes: string[] = [];
    const loads: number[] = [];
    for (const c of cases) {
      const owner = await ownerOf(c.flowId);
      const other = cluster.live().find((n) => n.name !== owner.name)!;
      ctx.log(`forward: ${c.measure}: owner ${owner.name}, forwarded through ${other.name}`);
      // Warm both paths (JIT, caches) before measuring.
      await load({ ...c.options(owner), duration: WARMUP_SECONDS, connections: CONNECTIONS });
      await load({ ...c.options(other), duration: WARMUP_SECONDS, connections: CONNECTIONS });
      const direct: LoadResult[] = [];
      const forwarded: LoadResult[] = [];
      // CPU time of both instances per 2xx answer (µs): comparable between runs on a busy machine.
      const cpu = { direct: [] as number[], forwarded: [] as number[] };
      const cpuNow = () => [owner, other].reduce((sum, n) => sum + (processCpuMs(n.process!.pid!) ?? NaN), 0);
      for (let round = 0; round < ROUNDS; round++) {
        loads.push(os.loadavg()[0]!);
        // Alternate which goes first, so drift in the machine's load favours neither.
        const order = round % 2 === 0 ? (["direct", "forwarded"] as const) : (["forwarded", "direct"] as const);
        for (const which of order) {
          const cpuBefore = cpuNow();
          const r = await load({ ...c.options(which === "direct" ? owner : other), connections: CONNECTIONS });
          const cpuUs = ((cpuNow() - cpuBefore) * 1000) / Math.max(1, r.rps * r.seconds);
          (which === "direct" ? direct : forwarded).push(r);
          cpu[which].push(cpuUs);
          ctx.log(`forward: ${which} round ${round + 1}: ${fmt.int(r.rps)} req/s, p50 ${fmt.ms(r.p50)}, p99 ${fmt.ms(r.p99)}, ${fmt.int(cpuUs)} µs CPU per request (both instances), load ${os.loadavg()[0]!.toFixed(2)}`);
          const p = problems(`${c.measure} ${which}`, r);
          if (p) notes.push(`Benchmark 7b: ${p}`);
        }
      }
      const d = median(direct.map((r) => r.rps));
      const f = median(forwarded.map((r) => r.rps));
      const ratios = direct.map((r, i) => forwarded[i]!.rps / r.rps);
      rows.push({
        benchmark: B,
        measure: `${c.measure}: on the instance running the flow`,
        result: `${fmt.int(d)} req/s (median of ${ROUNDS})`,
        notes: `rounds ${direct.map((r) => fmt.int(r.rps)).join(", ")}; p50 ${fmt.ms(median(direct.map((r) => r.p50)))}, p99 ${fmt.ms(median(direct.map((r) => r.p99)))}; CPU of both instances per request: median ${fmt.int(median(cpu.direct))} µs`,
      });
      rows.push({
        benchmark: B,
        measure: `${c.measure}: on the other instance (forwarded${VIA_REDIS ? " over Redis pub/sub" : ""})`,
        result: `${fmt.int(f)} req/s (median of ${ROUNDS}) = **${(f / d).toFixed(2)}× direct**`,
        notes: `rounds ${forwarded.map((r) => fmt.int(r.rps)).join(", ")} (per-round ratios ${ratios.map((r) => r.toFixed(2)).join(", ")}); p50 ${fmt.ms(median(forwarded.map((r) => r.p50)))}, p99 ${fmt.ms(median(forwarded.map((r) => r.p99)))}; CPU of both instances per request: median ${fmt.int(median(cpu.forwarded))} µs = ${(median(cpu.forwarded) / median(cpu.direct)).toFixed(2)}× direct's; goal: at least 0.8× direct`,
      });
    }
    notes.push(
      `Benchmark 7b: two instances as processes (src/test/cluster-node.ts: src/server.ts's request listener without Next, LOG_LEVEL info) on one PostgreSQL schema and one Redis prefix; autocannon, ${CONNECTIONS} connections, ${SECONDS} s per measurement after ${WARMUP_SECONDS} s of warm-up of each path, direct and forwarded in turn (alternating which goes first), ${ROUNDS} rounds; the bench process, both instances, PostgreSQL and Redis share the 2 cores. The 1-minute load average at the rounds ranged ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}.`,
    );
    const cpus = os.cpus();
    writeReport(REPORT, {
      key: "cluster-forward",
      title: "Several instances (PostgreSQL + Redis): forwarded calls against direct ones",
      machine: [
        `Machine: ${cpus[0]?.model ?? "unknown CPU"}, ${cpus.length} cores; Node ${process.version}; run started ${startedAt.toISOString()} (\`npm run bench -- forward\`)`,
        `Load average (1 / 5 / 15 min) at start: ${loadAtStart}; at end: ${os.loadavg().map((l) => l.toFixed(2)).join(" / ")}`,
      ],
      rows,
      notes,
    });
    ctx.log("forward: wrote its section of docs/BENCHMARKS.md");
    return { rows, notes };
  } catch (err) {
    ctx.log(cluster.logs());
    throw err;
  } finally {
    // SIGTERM first, so a --cpu-prof profile is written on the way out.
    if (profDir) {
      for (const node of cluster.live()) cluster.signal(node.name, "SIGTERM");
      await Promise.all(cluster.live().map((n) => n.exited));
    }
    await cluster.dispose();
  }
}
