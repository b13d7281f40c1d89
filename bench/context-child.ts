/**
 * Benchmark 4c in a fresh process: the runtime chain with a function node that writes flow context
 * on every message, on the durable context (issue 23): the engine holds each message until the
 * writes made before it are stored, the journal stores them in batches. Usage:
 * context-child.ts <flow-set|flow-increment> <N> <time limit ms>; the database is DATABASE_URL when
 * set, else embedded PGlite in memory. The result goes to the parent over IPC.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import { FlowEngine, type FlowSpec } from "@/server/runtime/engine";
import { createNodeRegistry } from "@/server/nodes/registry";
import { SandboxPool } from "@/server/runtime/sandbox/sandbox-pool";
import { benchApp, countingNode, finishChild, GENERATOR, timedChainRun } from "./lib/chain";

export type ContextScenario = "flow-set" | "flow-increment";

export interface ContextResult {
  type: "result";
  scenario: ContextScenario;
  backend: string;
  n: number;
  arrived: number;
  complete: boolean;
  ms: number;
  msgPerSec: number;
  cpuMs: number;
  flushes: number;
  rows: number;
  /** What the database holds at the end (the last value written, or the count). */
  stored: unknown;
}


export const CONTEXT_CODE: Record<ContextScenario, string> = {
  "flow-set": "flow.set('last', msg.payload); return msg;",
  "flow-increment": "msg.count = flow.increment('count'); return msg;",
};

async function main() {
  const [scenarioArg, nArg, limitArg] = process.argv.slice(2);
  const scenario = scenarioArg as ContextScenario;
  const n = Number(nArg);
  const limitMs = Number(limitArg ?? 60_000);
  if (!(scenario in CONTEXT_CODE) || !Number.isInteger(n) || n <= 0) throw new Error("usage: context-child.ts <flow-set|flow-increment> <N> [time limit ms]");

  const { app, owner, flowId } = await benchApp("context bench");

  const counting = countingNode(n);
  const registry = createNodeRegistry();
  const pool = new SandboxPool();
  const errors: string[] = [];
  const engine = new FlowEngine({
    types: registry.runtimeTypes({ counter: { behaviour: counting.factory, outputs: () => 0 } }),
    services: { sandboxes: pool },
    callbacks: { onFlowState: () => undefined, onNodeStatus: () => undefined, onDebug: () => undefined, onNodeError: (e) => errors.push(e.error) },
    // BENCH_CONTEXT_MEMORY=1: the same chain on the engine's in-memory context (no durability), to
    // see what the durability rule itself costs.
    ...(process.env.BENCH_CONTEXT_MEMORY ? {} : { contextStores: (spec: FlowSpec) => app.context.storesFor(spec), durability: app.context.journal }),
  });
  const node = (id: string, type: string, config: Record<string, unknown>) => ({ id, type, name: "", config: registry.get(type)!.configSchema.parse(config) as Record<string, unknown> });
  const spec: FlowSpec = {
    flowId,
    organizationId: owner.organizationId,
    organizationSlug: "bench",
    revision: 1,
    nodes: [
      node("inj", "inject", { payload_type: "json", payload: "{}" }),
      node("gen", "function", { code: GENERATOR }),
      node("ctx", "function", { code: CONTEXT_CODE[scenario] }),
      node("chg", "change", { rules: [{ t: "set", p: "payload", to: "seq", to_type: "msg" }] }),
      { id: "cnt", type: "counter", name: "", config: {} },
    ],
    connections: [
      { source: "inj", target: "gen", source_port: 0 },
      { source: "gen", target: "ctx", source_port: 0 },
      { source: "ctx", target: "chg", source_port: 0 },
      { source: "chg", target: "cnt", source_port: 0 },
    ],
  };
  if ((await engine.deploy(spec)) !== "running") throw new Error("the bench flow did not start");
  await nextTurn();

  const before = { ...app.context.journal.counters };
  const { idleRss: _idle, peakRss: _peak, ...run } = await timedChainRun(engine, flowId, counting, n, limitMs, errors);
  const row = await app.db.prisma.contextEntry.findUnique({ where: { organizationId_scope_key: { organizationId: owner.organizationId, scope: flowId, key: scenario === "flow-set" ? "last" : "count" } } });
  const result: ContextResult = {
    type: "result",
    scenario,
    backend: app.db.kind,
    ...run,
    flushes: app.context.journal.counters.flushes - before.flushes,
    rows: app.context.journal.counters.rows - before.rows,
    stored: row?.value ? JSON.parse(row.value) : null,
  };
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
