import path from "node:path";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { signUp } from "@/test/accounts";
import { Sink, TestCluster, sleep, until, type ClusterNode } from "@/test/cluster";
import { DEFAULT_CLUSTER_TIMINGS } from "@/server/flow-runtime/clustered";
import { load, problems } from "./lib/load";
import { writeReport } from "./lib/report";
import { fmt, summarize } from "./lib/stats";
import type { BenchContext, BenchOutcome, Row } from "./lib/types";

const B = "7 Several instances";
const REPORT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../docs/BENCHMARKS.md");
const BASE_PORT = 3720;
const SINK_PORT = 3795;
const KILLS = 10;
const LOAD_SECONDS = 5;

/**
 * 7. Three app processes on one PostgreSQL and Redis (src/test/cluster.ts, the cluster tests'
 * harness): how long a flow is gone when its instance is killed (kill -9) or stopped (SIGTERM),
 * measured as the time from the signal until an inject made through a surviving instance is
 * accepted again, 10 times each; and inject throughput when every request lands on an instance
 * that does not run the flow (forwarded to its owner over Redis) against requests on the owner.
 * Writes its own section of docs/BENCHMARKS.md.
 */
export async function benchFailover(ctx: BenchContext): Promise<BenchOutcome> {
  if (!process.env.DATABASE_URL || !process.env.REDIS_URL) {
    const reason = "needs DATABASE_URL and REDIS_URL: the embedded defaults are one instance";
    ctx.log(`failover: ${reason}`);
    return { rows: [{ benchmark: B, measure: "failover and forwarded injects", result: "not measured here", notes: reason }], notes: [] };
  }
  const cluster = new TestCluster({ basePort: BASE_PORT, env: { LOG_LEVEL: "warn" } });
  const sink = new Sink();
  await sink.start(SINK_PORT);
  const startedAt = new Date();
  const loadAtStart = os.loadavg().map((l) => l.toFixed(2)).join(" / ");
  try {
    const names = ["a", "b", "c"];
    await Promise.all(names.map((n, i) => cluster.start(n, i)));
    const first = cluster.node("a");
    const user = await signUp(first.request);
    const token = user.accessToken;
    const inject = `fo-inject-${Date.now().toString(36)}`;
    const flow = await first.request("POST", "/flows", {
      token,
      body: {
        name: "failover bench",
        nodes: [
          { id: inject, type: "inject", config: { payload_type: "string", payload: "x" } },
          { id: `${inject}-post`, type: "http-request", config: { method: "POST", url: `http://127.0.0.1:${SINK_PORT}/failover`, timeout_ms: 5_000 } },
        ],
        connections: [{ source: inject, target: `${inject}-post` }],
      },
    });
    const flowId = flow.body.flow.id as string;
    await first.request("POST", `/flows/${flowId}/deploy`, { token });
    // A few more flows so placement has something to share.
    for (let i = 0; i < 5; i++) {
      const extra = await first.request("POST", "/flows", { token, body: { name: `spare ${i}`, nodes: [{ type: "inject", config: {} }] } });
      await first.request("POST", `/flows/${extra.body.flow.id}/deploy`, { token });
    }

    const ownerOf = async (): Promise<ClusterNode> =>
      until("placed", async () => {
        const via = cluster.live()[0]!;
        const runtime = (await via.request("GET", `/flows/${flowId}`, { token })).body.flow?.runtime;
        return runtime ? cluster.byInstance(runtime.instance_id) : undefined;
      }, 20_000, 50);

    const outage = async (signal: "SIGKILL" | "SIGTERM", round: number) => {
      const owner = await ownerOf();
      const survivor = cluster.live().find((n) => n.name !== owner.name)!;
      const index = names.indexOf(owner.name);
      const started = performance.now();
      cluster.signal(owner.name, signal);
      let n = 0;
      await until(
        `inject after ${signal}`,
        async () => ((await survivor.request("POST", `/nodes/${inject}/inject`, { token, body: { payload: `${signal}-${round}-${n++}` } })).status === 200 ? true : undefined),
        20_000,
        20,
      );
      const ms = performance.now() - started;
      await owner.exited;
      await cluster.start(owner.name, index);
      // Let placement settle (fair share) before the next round.
      await sleep(1_500);
      return ms;
    };

    const kills: number[] = [];
    for (let i = 0; i < KILLS; i++) {
      kills.push(await outage("SIGKILL", i));
      ctx.log(`failover: kill -9 #${i + 1}: ${fmt.ms(kills[i]!)}`);
    }
    const terms: number[] = [];
    for (let i = 0; i < KILLS; i++) {
      terms.push(await outage("SIGTERM", i));
      ctx.log(`failover: SIGTERM #${i + 1}: ${fmt.ms(terms[i]!)}`);
    }

    const owner = await ownerOf();
    const other = cluster.live().find((n) => n.name !== owner.name)!;
    const injectLoad = (node: ClusterNode, payload: string) =>
      load({ url: `${node.url}/api/v1/nodes/${inject}/inject`, method: "POST", headers: { authorization: `Bearer ${token}` }, body: { payload }, duration: LOAD_SECONDS });
    ctx.log(`failover: injects on the owner (${owner.name}) for ${LOAD_SECONDS} s`);
    const onOwner = await injectLoad(owner, "via-owner");
    await sleep(2_000);
    ctx.log(`failover: injects on a non-owner (${other.name}) for ${LOAD_SECONDS} s`);
    const viaOther = await injectLoad(other, "via-other");
    await sleep(2_000);
    const delivered = sink.bodies("failover").filter((b) => b === "via-other").length;
    const accepted = Math.round(viaOther.rps * viaOther.seconds);

    const k = summarize(kills);
    const t = summarize(terms);
    const rows: Row[] = [
      { benchmark: B, measure: `kill -9 of the flow's instance → flow runs again elsewhere (${KILLS} kills, 3 instances)`, result: `median ${fmt.ms(k.p50)}, max ${fmt.ms(k.max)}`, notes: `signal → first inject through a survivor accepted; lease TTL ${fmt.s(DEFAULT_CLUSTER_TIMINGS.leaseTtlMs)} renewed every ${fmt.ms(DEFAULT_CLUSTER_TIMINGS.renewMs)}, a dead holder's flows taken at the lease's expiry; SPEC §11: within 10 s; issue 39: under 3 s` },
      { benchmark: B, measure: `SIGTERM of the flow's instance → hand-over (${KILLS} stops)`, result: `median ${fmt.ms(t.p50)}, max ${fmt.ms(t.max)}`, notes: "leases released on shutdown, the others take them on the 'released' message; SPEC §11: under 2 s" },
      { benchmark: B, measure: "POST /nodes/{id}/inject on the owner (10 connections)", result: `${fmt.int(onOwner.rps)} req/s, p99 ${fmt.ms(onOwner.p99)}`, notes: `p50 ${fmt.ms(onOwner.p50)}; inject → http-request to a local sink` },
      {
        benchmark: B,
        measure: "POST /nodes/{id}/inject on a non-owner (forwarded, 10 connections)",
        result: `${fmt.int(viaOther.rps)} req/s, p99 ${fmt.ms(viaOther.p99)}`,
        notes: `p50 ${fmt.ms(viaOther.p50)}; ${fmt.int(delivered)} messages reached the sink, autocannon counted ${fmt.int(accepted)} 2xx in its window (answers to requests still in flight when it stops are not counted; exactly-once is what the cluster tests check)`,
      },
    ];
    const notes = [
      "Three instances as processes (src/test/cluster-node.ts: createAppServices with the REST and webhook handlers, no Next) on loopback, one PostgreSQL database schema and one Redis key prefix of their own; the bench process, the three instances, PostgreSQL and Redis share the 2 cores.",
      "After each kill or stop the instance is started again (a new instance id) and placement is given 1.5 s to settle before the next round, so every round starts from three instances.",
    ];
    for (const p of [problems("inject on owner", onOwner), problems("inject on non-owner", viaOther)]) if (p) notes.push(p);
    const cpus = os.cpus();
    writeReport(REPORT, {
      key: "cluster",
      title: "Several instances (PostgreSQL + Redis): failover and forwarded injects",
      machine: [
        `Machine: ${cpus[0]?.model ?? "unknown CPU"}, ${cpus.length} cores; Node ${process.version}; run started ${startedAt.toISOString()} (\`npm run bench -- failover\`)`,
        `Load average (1 / 5 / 15 min) at start: ${loadAtStart}; at end: ${os.loadavg().map((l) => l.toFixed(2)).join(" / ")}`,
      ],
      rows,
      notes,
    });
    ctx.log("failover: wrote its section of docs/BENCHMARKS.md");
    return { rows, notes };
  } catch (err) {
    ctx.log(cluster.logs());
    throw err;
  } finally {
    await sink.close();
    await cluster.dispose();
  }
}
