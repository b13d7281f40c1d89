/**
 * Benchmarks 4f and 4g in a fresh process, ours: inject → function (generate N) → function (the
 * statement or its parameters) → mysql or postgresql → change → counter, on the machine's database
 * (the parent made the database and table: bench/db-inserts.ts). Usage: db-insert-child.ts
 * <mysql|postgresql> <N> <time limit ms>; the result goes to the parent over IPC.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import { FlowEngine, type FlowSpec } from "@/server/runtime/engine";
import { createNodeRegistry } from "@/server/nodes/registry";
import { createOutboundRules } from "@/server/runtime/outbound";
import { SandboxPool } from "@/server/runtime/sandbox/sandbox-pool";
import { benchApp, countingNode, finishChild, GENERATOR } from "./lib/chain";
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
  const registry = createNodeRegistry();
  const pool = new SandboxPool();
  const errors: string[] = [];
  const plain = (v: string) => `plain:${v}`;
  const engine = new FlowEngine({
    types: registry.runtimeTypes({ counter: { behaviour: counting.factory, outputs: () => 0 } }),
    // The database is on this machine: the outbound rules allow private addresses, as OUTBOUND_ALLOW_PRIVATE does.
    services: { sandboxes: pool, outbound: createOutboundRules({ allowPrivate: true }), openCredential: (sealed: string) => sealed.slice("plain:".length) },
    callbacks: { onFlowState: () => undefined, onNodeStatus: () => undefined, onDebug: () => undefined, onNodeError: (e) => errors.push(e.error) },
    configSchemaOf: (type) => {
      const definition = registry.get(type);
      return definition?.kind === "config" ? definition.configSchema : undefined;
    },
  });
  const node = (id: string, type: string, config: Record<string, unknown>) => ({ id, type, name: "", config: registry.get(type)!.configSchema.parse(config) as Record<string, unknown> });
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
        config: registry.get(configNode.type)!.configSchema.parse(configNode.config) as Record<string, unknown>,
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
