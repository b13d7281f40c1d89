/**
 * Benchmark 4 in a fresh process (so peak RSS is this run's alone): the ANCHORS.md chain in the
 * real engine through loadTestFlow. Usage: runtime-child.ts <scenario> <N> <time limit ms>; the
 * result goes to the parent over IPC.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import { loadTestFlow, type HarnessNode } from "@/test/runtime-harness";
import type { NodeFactory } from "@/server/runtime/types";
import { GENERATOR } from "./lib/chain";
import { startRssSampler } from "./lib/rss";
import { LINK_CALLS } from "./lib/link-calls";
import { createTestApp } from "@/test/app";
import { ExecutionTracker } from "@/server/runtime/executions/tracker";
import { DEFAULT_EXECUTION_SETTINGS, ExecutionWriter } from "@/server/flow-runtime/execution-writer";
import { VariableSet } from "@/server/runtime/variables";
import { createLogger } from "@/server/logger";

export type Scenario = "switch" | "no-switch" | "function-counter" | "function-counter-each" | "sequence" | "link-call";
const SCENARIOS: Scenario[] = ["switch", "no-switch", "function-counter", "function-counter-each", "sequence", "link-call"];


export interface RuntimeResult {
  type: "result";
  scenario: Scenario;
  n: number;
  /** Counter arrivals seen (N when complete). */
  arrived: number;
  complete: boolean;
  ms: number;
  msgPerSec: number;
  /** CPU time (user + system) of this process during the run: less sensitive to a busy machine than wall time. */
  cpuMs: number;
  idleRss: number;
  peakRss: number;
  /** Most messages seen waiting in the flow at once (sampled every 10 ms): the backpressure at work. */
  maxWaiting: number;
  /** With recording on: executions stored, and successes sampling left out. */
  executions?: { stored: number; unrecorded: number; errors: number };
}

/**
 * Recording on (benchmark "executions"): the engine gets the real tracker and writer, storing into
 * a database of its own (DATABASE_URL's server in a schema of its own, or embedded PGlite) under a
 * real organization and flow row, with the default sampling (EXECUTIONS_SAMPLE_*).
 */
async function recording(on: boolean) {
  const app = await createTestApp();
  const { prisma } = app.db;
  await prisma.$executeRawUnsafe(`INSERT INTO organizations (id, name, slug, updated_at) VALUES ('org_test', 'bench', 'acme-bench', now())`);
  await prisma.$executeRawUnsafe(`INSERT INTO flows (id, organization_id, name, created_by_id, updated_at) VALUES ('flw_test', 'org_test', 'bench', 'usr_bench', now())`);
  const writer = new ExecutionWriter({
    prisma,
    logger: createLogger({ level: "silent" }),
    instanceId: "bench",
    settings: DEFAULT_EXECUTION_SETTINGS,
    redactor: () => VariableSet.empty,
  });
  const tracker = new ExecutionTracker({ sink: writer, sampleAllPerSec: DEFAULT_EXECUTION_SETTINGS.sampleAllPerSec, sampleOneIn: DEFAULT_EXECUTION_SETTINGS.sampleOneIn });
  return {
    tracker: on ? tracker : undefined,
    async finish() {
      tracker.close();
      await writer.close();
      const stored = await prisma.execution.count();
      const errors = await prisma.execution.count({ where: { status: "error" } });
      const counter = await prisma.executionCounter.findUnique({ where: { flowId: "flw_test" } });
      await app.close();
      return { stored, errors, unrecorded: Number(counter?.unrecorded ?? 0) };
    },
  };
}


/**
 * The function-counter-each scenario's generator: the same N messages in batches of 1,000 from a
 * timer, but each one a new message with an id of its own, as a webhook or a device starts them
 * (ctx.send outside an input), so the engine begins an execution per message. A sandboxed
 * generator cannot do this: the function node gives every message it sends its input's _msgid
 * (Node-RED's sendResults), which continues the input's execution. Like the sandbox's timers, it
 * waits while the flow is over its high-water mark (ctx.whenReady).
 */
const eachGenerator: NodeFactory = (ctx) => {
  let timer: NodeJS.Timeout | undefined;
  let cancel: (() => void) | undefined;
  return {
    input(msg, _send, done) {
      const n = (msg.payload as { n: number }).n;
      let i = 0;
      const batch = () => {
        const end = Math.min(i + 1000, n);
        for (; i < end; i++) ctx.send({ _msgid: ctx.newMessageId(), payload: i, seq: i, parity: i & 1 });
        if (i < n) timer = setTimeout(() => (cancel = ctx.whenReady(batch)), 0);
      };
      timer = setTimeout(batch, 0);
      done();
    },
    close() {
      clearTimeout(timer);
      cancel?.();
    },
  };
};

/** The sequence scenario's array: SEQUENCE_LENGTH numbers, split into as many messages. */
export const SEQUENCE_LENGTH = 1000;

/**
 * inject → split → change → join → loop: the loop counts joined arrays and sends the next array
 * to the split until n / SEQUENCE_LENGTH arrays went round (one array in flight at a time, as in
 * Node-RED's side, where a function node loops). The sink sees one message at the end.
 */
function sequenceFlow(n: number) {
  const rounds = Math.max(1, Math.round(n / SEQUENCE_LENGTH));
  const template = Array.from({ length: SEQUENCE_LENGTH }, (_, i) => i);
  const loop: NodeFactory = (ctx) => {
    let count = 0;
    return {
      input(msg, _send, done) {
        count++;
        const joined = msg.payload as unknown[];
        if (joined.length !== SEQUENCE_LENGTH) done(new Error(`joined ${joined.length} elements`));
        else if (count < rounds) ctx.send([{ _msgid: ctx.newMessageId(), payload: template.slice() }, null]);
        else ctx.send([null, { _msgid: ctx.newMessageId(), payload: count }]);
        done();
      },
    };
  };
  const nodes: HarnessNode[] = [
    { id: "inj", type: "inject", config: { payload_type: "json", payload: JSON.stringify(template) } },
    { id: "split", type: "split" },
    { id: "chg", type: "change", config: { rules: [{ t: "set", p: "value", to: "payload", to_type: "msg" }] } },
    { id: "join", type: "join" },
    { id: "loop", type: "sequence-loop" },
    { id: "cnt", type: "sink" },
  ];
  const connections = [
    { source: "inj", target: "split" },
    { source: "split", target: "chg" },
    { source: "chg", target: "join" },
    { source: "join", target: "loop" },
    { source: "loop", target: "split", source_port: 0 },
    { source: "loop", target: "cnt", source_port: 1 },
  ];
  return { nodes, connections, expected: 1, extraTypes: { "sequence-loop": loop }, n: rounds * SEQUENCE_LENGTH };
}

function flowFor(scenario: Scenario, n: number): { nodes: HarnessNode[]; connections: Array<{ source: string; target: string; source_port?: number }>; expected: number; extraTypes?: Record<string, NodeFactory>; n?: number } {
  if (scenario === "sequence") return sequenceFlow(n);
  const each = scenario === "function-counter-each";
  const nodes: HarnessNode[] = [
    { id: "inj", type: "inject", config: { payload_type: "json", payload: "{}" } },
    each ? { id: "gen", type: "each-generator" } : { id: "gen", type: "function", config: { code: GENERATOR } },
    { id: "chg", type: "change", config: { rules: [{ t: "set", p: "payload", to: "seq", to_type: "msg" }] } },
    { id: "cnt", type: "sink" },
  ];
  const connections: Array<{ source: string; target: string; source_port?: number }> = [
    { source: "inj", target: "gen" },
    { source: "gen", target: "chg" },
  ];
  if (scenario === "no-switch") {
    connections.push({ source: "chg", target: "cnt" });
    return { nodes, connections, expected: n };
  }
  if (scenario === "link-call") {
    let previous = "chg";
    for (let k = 1; k <= LINK_CALLS; k++) {
      nodes.push(
        { id: `call${k}`, type: "link-call", config: { links: [`li${k}`] } },
        { id: `li${k}`, type: "link-in" },
        { id: `set${k}`, type: "change", config: { rules: [{ t: "set", p: `hop${k}`, to: "done" }] } },
        { id: `lo${k}`, type: "link-out", config: { mode: "return" } },
      );
      connections.push({ source: previous, target: `call${k}` }, { source: `li${k}`, target: `set${k}` }, { source: `set${k}`, target: `lo${k}` });
      previous = `call${k}`;
    }
    connections.push({ source: previous, target: "cnt" });
    return { nodes, connections, expected: n };
  }
  nodes.push({ id: "sw", type: "switch", config: { property: "parity", rules: [{ t: "eq", v: "0", v_type: "num" }, { t: "else" }], check_all: false } });
  connections.push({ source: "chg", target: "sw" });
  if (scenario === "switch") {
    connections.push({ source: "sw", target: "cnt", source_port: 0 }, { source: "sw", target: "cnt", source_port: 1 });
    return { nodes, connections, expected: n };
  }
  // As ANCHORS.md: a function node counts and emits one completion message at the Nth; the sink records t1.
  const counter = `const c = (context.get("c") || 0) + 1; context.set("c", c); return c === ${n} ? { payload: c } : null;`;
  nodes.push({ id: "count", type: "function", config: { code: counter } });
  connections.push({ source: "sw", target: "count", source_port: 0 }, { source: "sw", target: "count", source_port: 1 }, { source: "count", target: "cnt" });
  return { nodes, connections, expected: 1, ...(each ? { extraTypes: { "each-generator": eachGenerator } } : {}) };
}

async function main() {
  const [scenarioArg, nArg, limitArg, recordArg] = process.argv.slice(2);
  const scenario = scenarioArg as Scenario;
  const n = Number(nArg);
  const limitMs = Number(limitArg ?? 30_000);
  if (!SCENARIOS.includes(scenario) || !Number.isInteger(n) || n <= 0) {
    throw new Error(`usage: runtime-child.ts <${SCENARIOS.join("|")}> <N> [time limit ms] [record|no-record]`);
  }
  const { nodes, connections, expected, extraTypes } = flowFor(scenario, n);
  // "record": executions recorded; "no-record": the same database and app beside the flow, nothing recorded.
  const record = recordArg === "record" || recordArg === "no-record" ? await recording(recordArg === "record") : undefined;
  const flow = await loadTestFlow(nodes, connections, {}, extraTypes, record?.tracker ? { executions: record.tracker } : {});

  // The harness's sink keeps every message; count instead, so that retained messages do not
  // inflate the peak RSS (Node-RED's counter keeps nothing either).
  let arrived = 0;
  let lastArrival = 0;
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  flow.received.push = () => {
    arrived++;
    if (arrived === expected) {
      lastArrival = performance.now();
      finish();
    }
    return arrived;
  };
  flow.arrivals.push = () => arrived;

  await nextTurn();
  const rss = startRssSampler();

  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const timeout = new Promise<void>((resolve) => setTimeout(resolve, limitMs).unref());
  let maxWaiting = 0;
  const sampler = setInterval(() => {
    maxWaiting = Math.max(maxWaiting, flow.engine.load("flw_test"));
  }, 10);
  flow.engine.inject("flw_test", "inj", scenario === "sequence" ? {} : { payload: { n } });
  await Promise.race([finished, timeout]);
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  const { idleRss, peakRss } = rss.stop();
  const complete = arrived >= expected;
  const ms = (complete ? lastArrival : performance.now()) - t0;
  if (flow.errors.length > 0) throw new Error(`node errors: ${JSON.stringify(flow.errors.slice(0, 3))}`);
  const result: RuntimeResult = {
    type: "result",
    scenario,
    n,
    arrived,
    complete,
    ms,
    msgPerSec: complete ? n / (ms / 1000) : Number.NaN,
    cpuMs: (cpu.user + cpu.system) / 1000,
    idleRss,
    peakRss,
    maxWaiting,
  };
  if (record) {
    // What recording kept, once the engine is idle (its last executions ended) and the writer flushed.
    await flow.engine.stop("flw_test");
    result.executions = await record.finish();
  }
  process.send?.(result);
  // Not closing the engine: a timed-out run may still hold a backlog; the process just ends.
  process.exit(0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
