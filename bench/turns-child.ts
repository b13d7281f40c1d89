/**
 * Benchmark 4d in a fresh process: a closed loop of `C` messages in flight through change → function
 * → change → sink (shape "chain"), or with the first change also wired straight to the sink (shape
 * "branch", where a branch of each message waits for the function's turn). Each arrival of a whole
 * message sends the next, as requests in flight would. Side "ours": our engine through loadTestFlow
 * (the function in its QuickJS sandbox); side "node-red": Node-RED embedded (bench/node-red-5).
 * Usage: turns-child.ts <ours|node-red> <chain|branch> <context|plain> <C>; the result goes to the
 * parent over IPC.
 */
export interface TurnsResult {
  type: "turns";
  perSec: number;
}

const WARM_UP_MS = 2000;
const MEASURE_MS = 5000;

const code = (context: boolean) =>
  context ? 'flow.set("n", (flow.get("n") || 0) + 1); msg.payload = flow.get("n"); return msg;' : "msg.payload = (msg.payload || 0) + 1; return msg;";

/** Runs the loop: `fire` sends one message in; `arrived` is to be called per arrival at the sink. */
async function loop(inFlight: number, perMessage: number, fire: () => void): Promise<{ arrived: () => void; perSec: Promise<number> }> {
  let arrivals = 0;
  let done = 0;
  const arrived = () => {
    if (++arrivals % perMessage !== 0) return;
    done++;
    fire();
  };
  const perSec = (async () => {
    for (let i = 0; i < inFlight; i++) fire();
    await new Promise((resolve) => setTimeout(resolve, WARM_UP_MS));
    done = 0;
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, MEASURE_MS));
    return done / ((performance.now() - started) / 1000);
  })();
  return { arrived, perSec };
}

async function ours(shape: string, context: boolean, inFlight: number): Promise<number> {
  const { loadTestFlow } = await import("@/test/runtime-harness");
  const nodes = [
    { id: "inj", type: "inject", config: { payload_type: "json", payload: "0" } },
    { id: "pre", type: "change", config: { rules: [{ t: "set", p: "topic", to: "x" }] } },
    { id: "fn", type: "function", config: { code: code(context) } },
    { id: "post", type: "change", config: { rules: [{ t: "set", p: "topic", to: "y" }] } },
    { id: "cnt", type: "sink", config: {} },
  ];
  const connections = [
    { source: "inj", target: "pre" },
    { source: "pre", target: "fn" },
    { source: "fn", target: "post" },
    { source: "post", target: "cnt" },
    ...(shape === "branch" ? [{ source: "pre", target: "cnt" }] : []),
  ];
  const flow = await loadTestFlow(nodes as never, connections);
  const run = await loop(inFlight, shape === "branch" ? 2 : 1, () => flow.engine.inject("flw_test", "inj", {}));
  flow.received.push = () => (run.arrived(), 0);
  flow.arrivals.push = () => 0;
  return run.perSec;
}

async function nodeRed(shape: string, context: boolean, inFlight: number): Promise<number> {
  const { startNodeRed } = await import("../scripts/lib/node-red-embedded");
  const { RED } = await startNodeRed(() => undefined);
  const z = "bench-turns";
  await RED.nodes.setFlows(
    [
      { id: z, type: "tab", label: "turns" },
      { id: "pre", z, type: "change", name: "", rules: [{ t: "set", p: "topic", pt: "msg", to: "x", tot: "str" }], wires: [shape === "branch" ? ["fn", "cnt"] : ["fn"]] },
      { id: "fn", z, type: "function", func: code(context), outputs: 1, noerr: 0, initialize: "", finalize: "", libs: [], wires: [["post"]] },
      { id: "post", z, type: "change", name: "", rules: [{ t: "set", p: "topic", pt: "msg", to: "y", tot: "str" }], wires: [["cnt"]] },
      { id: "cnt", z, type: "diff-collector", wires: [] },
    ],
    undefined,
    "full",
  );
  let pre = RED.nodes.getNode("pre");
  while (!pre) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    pre = RED.nodes.getNode("pre");
  }
  let id = 0;
  const entry = pre;
  const run = await loop(inFlight, shape === "branch" ? 2 : 1, () => entry.receive({ _msgid: `m${id++}`, payload: 0 }));
  // The diff-collector node reports each arrival here (scripts/lib/node-red-embedded.ts).
  (globalThis as Record<string, unknown>).__flowplaneDiffCollect = () => run.arrived();
  return run.perSec;
}

async function main() {
  const [side, shape, contextArg, inFlightArg] = process.argv.slice(2);
  const inFlight = Number(inFlightArg);
  if ((side !== "ours" && side !== "node-red") || (shape !== "chain" && shape !== "branch") || !Number.isInteger(inFlight) || inFlight < 1) {
    throw new Error("usage: turns-child.ts <ours|node-red> <chain|branch> <context|plain> <C>");
  }
  const context = contextArg === "context";
  const perSec = side === "ours" ? await ours(shape, context, inFlight) : await nodeRed(shape, context, inFlight);
  const result: TurnsResult = { type: "turns", perSec };
  process.send?.(result);
  process.exit(0);
}

void main();
