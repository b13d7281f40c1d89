/**
 * Benchmarks 4f and 4g in a fresh process, ours: inject → function (generate N) → function (the
 * statement or its parameters) → mysql or postgresql → change → counter, on the machine's database
 * (the parent made the database and table: bench/db-inserts.ts). Usage: db-insert-child.ts
 * <mysql|postgresql> <N> <time limit ms>; the result goes to the parent over IPC.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import type { FlowSpec } from "@/server/runtime/engine";
import { createOutboundRules } from "@/server/runtime/outbound";
import { SandboxPool } from "@/server/runtime/sandbox/sandbox-pool";
import { benchApp, benchEngine, countingNode, finishChild, GENERATOR } from "./lib/chain";
import { startRssSampler } from "./lib/rss";
import { DB_INSERT_KINDS, type DbInsertKind } from "./lib/db-insert-kinds";

export interface DbInsertBenchResult {
  type: "result";
  n: number;
  arrived: number;
  complete: boolean;
  ms: number;
  msgPerSec: number;
  cpuMs: number;
  idleRss: number;
  peakRss: number;
}

async function main() {
  const [kindArg, nArg, limitArg] = process.argv.slice(2);
  const n = Number(nArg);
  const limitMs = Number(limitArg ?? 60_000);
  if (!Object.hasOwn(DB_INSERT_KINDS, kindArg ?? "") || !Number.isInteger(n) || n <= 0) throw new Error("usage: db-insert-child.ts <mysql|postgresql> <N> [time limit ms]");
  const kind = DB_INSERT_KINDS[kindArg as DbInsertKind];
  const { app, owner, flowId } = await benchApp(`${kindArg} bench`);
  const target = kind.target();
  const configNode = kind.configNode(target);

  const counting = countingNode(n);
  const pool = new SandboxPool();
  const plain = (v: string) => `plain:${v}`;
  // The database is on this machine: the outbound rules allow private addresses, as OUTBOUND_ALLOW_PRIVATE does.
  const { engine, errors, node, configOf } = benchEngine(counting.factory, { sandboxes: pool, outbound: createOutboundRules({ allowPrivate: true }), openCredential: (sealed: string) => sealed.slice("plain:".length) });
  const spec: FlowSpec = {
    flowId,
    organizationId: owner.organizationId,
    organizationSlug: "bench",
    revision: 1,
    configNodes: {
      db: {
        id: "db",
        type: configNode.type,
        name: "bench",
        revision: 1,
        config: configOf(configNode.type, configNode.config),
        sealed_credentials: { user: plain(target.user), ...(target.password ? { password: plain(target.password) } : {}) },
      },
    },
    nodes: [
      node("inj", "inject", { payload_type: "json", payload: "{}" }),
      node("gen", "function", { code: GENERATOR }),
      node("pre", "function", { code: kind.code }),
      node("sql", kind.node.type, kind.node.config),
      node("chg", "change", { rules: [{ t: "set", p: "payload", to: "seq", to_type: "msg" }] }),
      { id: "cnt", type: "counter", name: "", config: {} },
    ],
    connections: [
      { source: "inj", target: "gen", source_port: 0 },
      { source: "gen", target: "pre", source_port: 0 },
      { source: "pre", target: "sql", source_port: 0 },
      { source: "sql", target: "chg", source_port: 0 },
      { source: "chg", target: "cnt", source_port: 0 },
    ],
  };
  if ((await engine.deploy(spec)) !== "running") throw new Error(`the bench flow did not start: ${errors.join("; ")}`);
  // As Node-RED's side: half a second for the database's connection test.
  await new Promise((r) => setTimeout(r, 500));
  await nextTurn();

  const rss = startRssSampler();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const timeout = new Promise<void>((resolve) => setTimeout(resolve, limitMs).unref());
  engine.inject(flowId, "inj", { payload: { n } });
  await Promise.race([counting.finished, timeout]);
  const cpu = process.cpuUsage(cpu0);
  const { idleRss, peakRss } = rss.stop();
  const arrived = counting.arrived();
  const complete = arrived >= n;
  const ms = (complete ? counting.lastArrival() : performance.now()) - t0;
  if (errors.length > 0) throw new Error(`node errors: ${JSON.stringify(errors.slice(0, 3))}`);
  const result: DbInsertBenchResult = { type: "result", n, arrived, complete, ms, msgPerSec: complete ? n / (ms / 1000) : Number.NaN, cpuMs: (cpu.user + cpu.system) / 1000, idleRss, peakRss };
  await finishChild(result, async () => {
    await engine.close();
    await pool.close();
    await app.close();
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
