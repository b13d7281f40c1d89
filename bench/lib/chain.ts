import { createTestApp, restClient } from "@/test/app";
import { signUp } from "@/test/accounts";
import type { NodeFactory, RuntimeServices } from "@/server/runtime/types";
import { FlowEngine, type FlowSpec } from "@/server/runtime/engine";
import { startRssSampler } from "./rss";
import { createNodeRegistry } from "@/server/nodes/registry";

/**
 * The benchmark chain's parts ours share (bench/runtime-child.ts, context-child.ts,
 * sqlite-child.ts, db-insert-child.ts). The generator is Node-RED's (bench/node-red-child.ts): one inject carries N;
 * the function sends N messages in batches of 1,000 (a synchronous node.send loop, then setTimeout
 * 0). Its timers wait while the flow is over its high-water mark, so the flow paces it instead of
 * queueing all N.
 */
export const GENERATOR = `
const n = msg.payload.n;
let i = 0;
function batch() {
  const end = Math.min(i + 1000, n);
  for (; i < end; i++) node.send({ payload: i, seq: i, parity: i & 1 });
  if (i < n) setTimeout(batch, 0);
}
batch();
return null;`;

/** The chain's end: a node type counting arrivals, `finished` once `n` arrived (at `lastArrival`, performance.now()). */
export function countingNode(n: number): { factory: NodeFactory; finished: Promise<void>; arrived: () => number; lastArrival: () => number } {
  let arrived = 0;
  let lastArrival = 0;
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const factory: NodeFactory = () => ({
    input(_msg, _send, done) {
      if (++arrived === n) {
        lastArrival = performance.now();
        finish();
      }
      done();
    },
  });
  return { factory, finished, arrived: () => arrived, lastArrival: () => lastArrival };
}

/** An app on the child's backend, a signed-up owner, and a flow row the engine's run belongs to (the engine runs it, not the app's runtime). */
export async function benchApp(flowName: string) {
  const app = await createTestApp({ RATE_LIMIT_REGISTER_PER_IP: "1000", BCRYPT_COST: "4" });
  const request = restClient(app);
  const owner = await signUp(request);
  const created = await request("POST", "/flows", { token: owner.accessToken, body: { name: flowName } });
  if (created.status !== 201) throw new Error(`flow: ${created.status} ${created.text}`);
  return { app, owner, flowId: created.body.flow.id as string };
}

/**
 * Sends the result, closes (which drops the run's schema on a shared PostgreSQL; a timed-out run
 * may not close in time, so at most 10 s) and ends the process.
 */
export async function finishChild(result: unknown, close: () => Promise<void>): Promise<never> {
  process.send?.(result);
  await Promise.race([close(), new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
  process.exit(0);
}

/**
 * The engine a bench child runs its chain on: the registry's node types and the counter, the given
 * services, node errors collected, configuration nodes parsed by their types' schemas; `node`
 * builds a node of the chain from a type's configuration.
 */
export function benchEngine(counter: NodeFactory, services: RuntimeServices) {
  const registry = createNodeRegistry();
  const errors: string[] = [];
  const engine = new FlowEngine({
    types: registry.runtimeTypes({ counter: { behaviour: counter, outputs: () => 0 } }),
    services,
    callbacks: { onFlowState: () => undefined, onNodeStatus: () => undefined, onDebug: () => undefined, onNodeError: (e) => errors.push(e.error) },
    configSchemaOf: (type) => {
      const definition = registry.get(type);
      return definition?.kind === "config" ? definition.configSchema : undefined;
    },
  });
  const node = (id: string, type: string, config: Record<string, unknown>) => ({ id, type, name: "", config: registry.get(type)!.configSchema.parse(config) as Record<string, unknown> });
  /** A configuration node's configuration as its type parses it. */
  const configOf = (type: string, config: Record<string, unknown>) => registry.get(type)!.configSchema.parse(config) as Record<string, unknown>;
  return { engine, errors, node, configOf };
}

/** The database chains' graph (4e sqlite, 4f mysql, 4g postgresql): inject → generator → `pre` (the statement or its parameters) → the database node `sql` → change (payload = seq) → counter. */
export function insertChain(node: ReturnType<typeof benchEngine>["node"], preCode: string, sql: { type: string; config: Record<string, unknown> }): Pick<FlowSpec, "nodes" | "connections"> {
  const ids = ["inj", "gen", "pre", "sql", "chg", "cnt"];
  return {
    nodes: [
      node("inj", "inject", { payload_type: "json", payload: "{}" }),
      node("gen", "function", { code: GENERATOR }),
      node("pre", "function", { code: preCode }),
      node("sql", sql.type, sql.config),
      node("chg", "change", { rules: [{ t: "set", p: "payload", to: "seq", to_type: "msg" }] }),
      { id: "cnt", type: "counter", name: "", config: {} },
    ],
    connections: ids.slice(1).map((target, i) => ({ source: ids[i]!, target, source_port: 0 })),
  };
}

/**
 * One timed run of a deployed chain: injects `{ n }` into `inj` and waits for the counter's n
 * arrivals (or the time limit); the time runs to the last arrival, CPU is the whole process's.
 * Node errors of the run fail it.
 */
export async function timedChainRun(engine: FlowEngine, flowId: string, counting: ReturnType<typeof countingNode>, n: number, limitMs: number, errors: string[]) {
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
  return { n, arrived, complete, ms, msgPerSec: complete ? n / (ms / 1000) : Number.NaN, cpuMs: (cpu.user + cpu.system) / 1000, idleRss, peakRss };
}
