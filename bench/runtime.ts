import path from "node:path";
import { forkBench, nextMessage, stopChild } from "./lib/child";
import { fmt } from "./lib/stats";
import type { BenchContext, BenchOutcome, Row } from "./lib/types";
import { comparedNodeRedDir, ensureNodeRed, runNodeRed } from "./node-red";
import type { NodeRedResult, NodeRedScenario } from "./node-red-child";
import type { RuntimeResult, Scenario } from "./runtime-child";
import { LINK_CALLS } from "./lib/link-calls";
import { benchInjectFlood } from "./flood";

const TIME_LIMIT_MS = 30_000;
/** Node-RED's switch chain takes 13–25 s for 200,000 on this machine; give it room before giving up. */
const NODE_RED_LIMIT_MS = 90_000;
/** N for a second try when N = 200,000 takes longer than the limit. */
const FALLBACK_N = 50_000;
const N = 200_000;
const isResult = (m: unknown): m is RuntimeResult => (m as { type?: string })?.type === "result";

async function runScenario(scenario: Scenario, n: number): Promise<RuntimeResult> {
  const child = forkBench("runtime-child.ts", [scenario, String(n), String(TIME_LIMIT_MS)]);
  try {
    return await nextMessage(child, isResult, TIME_LIMIT_MS + 30_000);
  } finally {
    await stopChild(child);
  }
}

const ratio = (ours: number, theirs: number) => (Number.isFinite(ours) && Number.isFinite(theirs) && theirs > 0 ? `${(ours / theirs).toFixed(1)}×` : "n/a");

/**
 * 4. Runtime throughput of the ANCHORS.md chain, each scenario in a fresh child process: ours
 * first, then Node-RED 4.1.x (bench/node-red) running the same flow, in the same invocation.
 */
export async function benchRuntime(ctx: BenchContext): Promise<BenchOutcome> {
  const B = "4 Runtime throughput";
  const notes: string[] = [];
  const scenarios: Array<{ scenario: Scenario; measure: string; nodeRed?: string; rssNodeRed?: string }> = [
    { scenario: "switch", measure: "inject → function (generate) → change → switch → counter", nodeRed: "13–16k msg/s", rssNodeRed: "354–361 MB (idle 130 MB)" },
    { scenario: "function-counter", measure: "with the switch, counter = our function node (QuickJS), as in ANCHORS.md", nodeRed: "13–16k msg/s" },
    { scenario: "no-switch", measure: "same chain without the switch", nodeRed: "56–81k msg/s" },
    { scenario: "link-call", measure: `inject → function (generate) → change → ${LINK_CALLS} link-calls in turn (each: link-in → change → link-out "return") → counter` },
  ];
  const ours = new Map<Scenario, RuntimeResult>();
  const oursRows = new Map<Scenario, Row[]>();
  for (const s of scenarios) {
    ctx.log(`runtime: ${s.scenario}, N = ${N}`);
    let r = await runScenario(s.scenario, N);
    if (!r.complete && N > FALLBACK_N) {
      notes.push(`Runtime scenario ${s.scenario}: N = ${fmt.int(N)} did not finish within ${TIME_LIMIT_MS / 1000} s (${fmt.int(r.arrived)} arrivals); measured again with N = ${fmt.int(FALLBACK_N)}.`);
      ctx.log(`runtime: ${s.scenario} again with N = ${FALLBACK_N}`);
      r = await runScenario(s.scenario, FALLBACK_N);
    }
    ours.set(s.scenario, r);
    const label = `${s.measure}, N = ${fmt.int(r.n)}`;
    const rows: Row[] = [];
    if (r.complete) {
      rows.push({ benchmark: B, measure: label, result: `${fmt.int(r.msgPerSec)} msg/s`, nodeRed: s.nodeRed, notes: `${fmt.s(r.ms)} from the inject to the last arrival, ${fmt.s(r.cpuMs)} CPU (${fmt.int(r.n / (r.cpuMs / 1000))} msg per CPU-second); at most ${fmt.int(r.maxWaiting)} messages waited in the flow` });
    } else {
      rows.push({ benchmark: B, measure: label, result: "did not finish", nodeRed: s.nodeRed, notes: `${fmt.int(r.arrived)} arrivals after ${fmt.s(r.ms)}` });
    }
    rows.push({ benchmark: B, measure: `${label}: peak RSS`, result: fmt.mb(r.peakRss), nodeRed: s.rssNodeRed, notes: `idle ${fmt.mb(r.idleRss)} (fresh process, flow loaded); sampled every 50 ms` });
    oursRows.set(s.scenario, rows);
  }

  // Node-RED, same flow, same machine, right after ours.
  const theirs = new Map<NodeRedScenario, NodeRedResult>();
  let unavailable: string | undefined;
  const availability = await ensureNodeRed(ctx.log);
  if (!availability.ok) unavailable = availability.reason;
  else {
    for (const scenario of ["switch", "no-switch", "link-call"] as const) {
      ctx.log(`runtime: Node-RED ${availability.version}, ${scenario}, N = ${N}`);
      try {
        theirs.set(scenario, await runNodeRed(scenario, N, NODE_RED_LIMIT_MS));
      } catch (err) {
        unavailable = `Node-RED ${availability.version} (${scenario}) failed: ${err instanceof Error ? err.message : String(err)}`;
        break;
      }
    }
  }

  const nodeRedRows = (scenario: NodeRedScenario, measure: string, compareWith: Array<[string, Scenario]>, anchor?: { rate: string; rss?: string }): Row[] => {
    const r = theirs.get(scenario);
    if (!r) return [];
    const label = `Node-RED ${r.version} (measured side by side): ${measure}, N = ${fmt.int(r.n)}`;
    const vs = compareWith
      .map(([what, s]) => {
        const o = ours.get(s);
        return o ? `ours (${what}) ${fmt.int(o.msgPerSec)} msg/s = ${ratio(o.msgPerSec, r.msgPerSec)} Node-RED` : undefined;
      })
      .filter(Boolean)
      .join("; ");
    const rssVs = compareWith
      .map(([what, s]) => {
        const o = ours.get(s);
        return o ? `ours (${what}) ${fmt.mb(o.peakRss)} = ${ratio(o.peakRss, r.peakRss)} Node-RED's` : undefined;
      })
      .filter(Boolean)
      .join("; ");
    return [
      r.complete
        ? { benchmark: B, measure: label, result: `${fmt.int(r.msgPerSec)} msg/s`, nodeRed: anchor ? `${anchor.rate} (5.0.7)` : undefined, notes: `${vs}. Node-RED: ${fmt.s(r.ms)} from t0 to t1, ${fmt.s(r.cpuMs)} CPU` }
        : { benchmark: B, measure: label, result: "did not finish", nodeRed: anchor ? `${anchor.rate} (5.0.7)` : undefined, notes: `${fmt.int(r.arrived)} counted after ${fmt.s(r.ms)} (limit ${NODE_RED_LIMIT_MS / 1000} s)` },
      { benchmark: B, measure: `${label}: peak RSS`, result: fmt.mb(r.peakRss), nodeRed: anchor?.rss ? `${anchor.rss} (5.0.7)` : undefined, notes: `idle ${fmt.mb(r.idleRss)} (fresh process, flow loaded); ${rssVs}` },
    ];
  };

  const rows: Row[] = [...oursRows.get("switch")!, ...oursRows.get("function-counter")!];
  const fc = ours.get("function-counter");
  const nrSwitch = theirs.get("switch");
  if (fc?.complete && nrSwitch?.complete) {
    const speed = fc.msgPerSec / nrSwitch.msgPerSec;
    const memory = fc.peakRss / nrSwitch.peakRss;
    rows.push({
      benchmark: B,
      measure: "target (issue 26): the sandboxed-function chain at least 3× Node-RED, peak RSS at most Node-RED's",
      result: speed >= 3 && memory <= 1 ? "met" : "NOT met",
      notes: `${speed.toFixed(1)}× Node-RED's rate, ${memory.toFixed(2)}× its peak RSS (${fmt.mb(fc.peakRss)} against ${fmt.mb(nrSwitch.peakRss)})`,
    });
  }
  if (unavailable) rows.push({ benchmark: B, measure: `Node-RED not available: ${unavailable}`, result: "not measured", notes: "ANCHORS.md figures (Node-RED 5.0.7) in the Node-RED column only" });
  rows.push(
    ...nodeRedRows("switch", "inject → function (generate) → change → switch → function (count) → function (record)", [
      ["function-node counter", "function-counter"],
      ["native counter", "switch"],
    ], { rate: "13–16k msg/s", rss: "354–361 MB (idle 130 MB)" }),
    ...oursRows.get("no-switch")!,
    ...nodeRedRows("no-switch", "same chain without the switch", [["native counter", "no-switch"]], { rate: "56–81k msg/s" }),
    ...oursRows.get("link-call")!,
    ...nodeRedRows("link-call", `the link-call chain (${LINK_CALLS} link-calls in turn)`, [["native counter", "link-call"]]),
  );
  const lc = ours.get("link-call");
  const nrLinks = theirs.get("link-call");
  if (lc?.complete && nrLinks?.complete) {
    const speed = lc.msgPerSec / nrLinks.msgPerSec;
    rows.push({
      benchmark: B,
      measure: "target (issue 21): the link-call chain at least as fast as Node-RED in the same run",
      result: speed >= 1 ? "met" : "NOT met",
      notes: `${speed.toFixed(1)}× Node-RED's rate (${fmt.int(lc.msgPerSec)} against ${fmt.int(nrLinks.msgPerSec)} msg/s)`,
    });
  }

  rows.push(...(await benchSequence(ctx, B, availability.ok ? availability.version : undefined)));

  const flood = await benchInjectFlood(ctx, B);
  rows.push(...flood.rows);
  notes.push(...flood.notes);

  notes.push(
    "Benchmark 4 runs ANCHORS.md's generator as Node-RED users write it, in both engines: one inject carries N, and a function node sends N messages in batches of 1,000 (a synchronous node.send loop, then setTimeout 0). Our function node runs in QuickJS, whose timers wait while the flow holds more than its high-water mark (FLOW_HIGH_WATER_MARK, 10,000) waiting messages: the flow paces the generator, so memory stays bounded and the 50,000-message security limit never drops a message (the run fails if any node reports an error). The counter is the harness's `sink` node (native code) except in the function-counter row, where it is our function node as in ANCHORS.md and a sink records the completion message. Messages: {payload: i, seq: i, parity: i & 1}; change sets payload from msg.seq; switch: parity == 0 → output 1, else output 2.",
    `Benchmark 4, link-call chain: the same generator and change, then ${LINK_CALLS} link-call nodes in turn, each calling a link-in of its own whose flow (a change setting msg.hopK, a link-out in "return" mode) answers it; the answer goes on to the next call, the last to the counter (ours: the native sink; Node-RED: its function-node counter and recorder). Both run the chain in one flow (tab), which is what Node-RED's side can embed; across flows ours takes the same path (the engine's link index), across instances the cluster bus.`,
    `Benchmark 4, Node-RED side by side: ${theirs.size > 0 ? `Node-RED ${[...theirs.values()][0]!.version}` : "Node-RED 4.1.x"} (5.0 on Node ≥ 22.9, else 4.1; this runs on ${process.version}) from ${path.relative(process.cwd(), comparedNodeRedDir())} (its own package.json, installed on first use with \`npm install --prefix\`; not a project dependency), embedded with RED.init in a fresh child process right after ours (httpAdminRoot and httpNodeRoot off, no editor, userDir in a temp directory, logging at warn). The flow is ANCHORS.md's exactly: the inject carries N and a run id; a function node records t0 and sends N messages in batches of 1,000 (synchronous node.send loop, then setTimeout 0); change; switch on parity, both outputs to a function-node counter that emits at the Nth; a function node records t1. t0/t1 go through an object in functionGlobalContext. msg/s = N / (t1 − t0); peak RSS = max of process.memoryUsage.rss() sampled every 50 ms. The comparable row of ours is the function-counter one (both counters are function nodes; ours is sandboxed in QuickJS, Node-RED's is Node's vm); the no-switch Node-RED row keeps a function-node counter while ours uses the native sink.`,
  );
  return { rows, notes };
}

/**
 * Issue 21's sequence chain, both engines in the same run: inject → split of a 1,000-element array
 * → change → join (automatic), looping until N element messages went through.
 */
async function benchSequence(ctx: BenchContext, B: string, nodeRedVersion: string | undefined): Promise<Row[]> {
  const measure = "inject → split (1,000-element array) → change → join, one array in flight";
  ctx.log(`runtime: sequence, N = ${N}`);
  const ours = await runScenario("sequence", N);
  const rows: Row[] = [
    ours.complete
      ? { benchmark: B, measure: `${measure}, N = ${fmt.int(ours.n)} element messages`, result: `${fmt.int(ours.msgPerSec)} msg/s`, notes: `${fmt.s(ours.ms)}, ${fmt.s(ours.cpuMs)} CPU; peak RSS ${fmt.mb(ours.peakRss)}` }
      : { benchmark: B, measure: `${measure}, N = ${fmt.int(ours.n)}`, result: "did not finish", notes: `${fmt.int(ours.arrived)} arrivals after ${fmt.s(ours.ms)}` },
  ];
  if (!nodeRedVersion) return rows;
  ctx.log(`runtime: Node-RED ${nodeRedVersion}, sequence, N = ${N}`);
  try {
    const theirs = await runNodeRed("sequence", N, NODE_RED_LIMIT_MS);
    rows.push(
      theirs.complete
        ? { benchmark: B, measure: `Node-RED ${theirs.version} (measured side by side): ${measure}, N = ${fmt.int(theirs.n)}`, result: `${fmt.int(theirs.msgPerSec)} msg/s`, notes: `ours ${ratio(ours.msgPerSec, theirs.msgPerSec)} Node-RED; Node-RED ${fmt.s(theirs.ms)}, ${fmt.s(theirs.cpuMs)} CPU, peak RSS ${fmt.mb(theirs.peakRss)}` }
        : { benchmark: B, measure: `Node-RED ${theirs.version}: ${measure}`, result: "did not finish", notes: `${fmt.int(theirs.arrived)} counted after ${fmt.s(theirs.ms)}` },
      {
        benchmark: B,
        measure: "target (issue 21): the sequence chain at least as fast as Node-RED",
        result: ours.complete && theirs.complete && ours.msgPerSec >= theirs.msgPerSec ? "met" : "NOT met",
        notes: `${ratio(ours.msgPerSec, theirs.msgPerSec)} Node-RED's rate`,
      },
    );
  } catch (err) {
    rows.push({ benchmark: B, measure: `Node-RED ${nodeRedVersion} (sequence) failed`, result: "not measured", notes: err instanceof Error ? err.message : String(err) });
  }
  return rows;
}
