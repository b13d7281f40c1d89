/**
 * 4b. The function node's sandbox alone (`npm run bench -- sandbox`): calls per second for a few
 * typical bodies, run back to back on one sandbox (each call is a round trip to a worker thread),
 * then with 16 calls in flight, and what creating and closing a sandbox costs. It runs only when
 * named and writes nothing: it is for working on src/server/runtime/sandbox/, next to benchmark 4
 * (the whole runtime, which includes the sandboxed function node).
 */
import { SandboxPool, type FunctionSandboxOptions } from "@/server/runtime/sandbox/function-sandbox";
import { fmt } from "./lib/stats";
import type { BenchContext, BenchOutcome, Row } from "./lib/types";

const B = "4b Function sandbox";
const N = 50_000;
const WARM_UP = 2_000;
const IN_FLIGHT = 16;
const CREATIONS = 20;

const cases: Array<{ name: string; code: string; outputs?: number }> = [
  { name: "double payload", code: "msg.payload = msg.payload * 2; return msg;" },
  {
    name: "context + flow + status",
    code: "const n = (context.get('n') || 0) + 1; context.set('n', n); flow.set('last', n); node.status({ fill: 'green', shape: 'dot', text: String(n) }); return msg;",
  },
  { name: "route on parity (2 outputs)", code: "return msg.payload & 1 ? [null, msg] : [msg, null];", outputs: 2 },
  { name: "async body (await)", code: "msg.payload = await Promise.resolve(msg.payload + 1); return msg;" },
];

const options = (code: string, outputs = 1): FunctionSandboxOptions => ({
  code,
  outputs,
  timeoutMs: 1000,
  flowContext: new Map(),
  nodeInfo: { id: "bench", name: "bench", flowId: "flow" },
});

const message = (prefix: string, i: number) => ({ _msgid: `${prefix}${i}`, payload: i, topic: "bench" });

export async function benchSandbox(ctx: BenchContext): Promise<BenchOutcome> {
  const pool = new SandboxPool();
  const rows: Row[] = [];
  try {
    for (const { name, code, outputs } of cases) {
      ctx.log(`sandbox: ${name}`);
      const sandbox = await pool.create(options(code, outputs));
      for (let i = 0; i < WARM_UP; i++) await sandbox.run(message("w", i));
      const started = performance.now();
      for (let i = 0; i < N; i++) await sandbox.run(message("m", i));
      const ms = performance.now() - started;
      rows.push({ benchmark: B, measure: `${name}, one call at a time, N = ${fmt.int(N)}`, result: `${fmt.int(N / (ms / 1000))} calls/s`, notes: `${fmt.s(ms)}` });
      sandbox.close();
    }

    // Several messages in flight for one node (the engine delivers one at a time today; this is the
    // ceiling if it pipelined): the round trip to the worker overlaps with the next call.
    ctx.log(`sandbox: ${IN_FLIGHT} in flight`);
    const sandbox = await pool.create(options(cases[0]!.code));
    const started = performance.now();
    const inFlight: Array<Promise<unknown>> = [];
    for (let i = 0; i < N; i++) {
      inFlight.push(sandbox.run(message("p", i)));
      if (inFlight.length === IN_FLIGHT) await Promise.all(inFlight.splice(0));
    }
    await Promise.all(inFlight);
    const ms = performance.now() - started;
    rows.push({ benchmark: B, measure: `double payload, ${IN_FLIGHT} calls in flight, N = ${fmt.int(N)}`, result: `${fmt.int(N / (ms / 1000))} calls/s`, notes: `${fmt.s(ms)}` });
    sandbox.close();

    ctx.log("sandbox: create + close");
    const created = performance.now();
    for (let i = 0; i < CREATIONS; i++) (await pool.create(options("return msg;"))).close();
    rows.push({
      benchmark: B,
      measure: `create + close a sandbox, ${CREATIONS} one after another`,
      result: fmt.ms((performance.now() - created) / CREATIONS),
      notes: `bench process RSS afterwards ${fmt.mb(process.memoryUsage().rss)}`,
    });
  } finally {
    await pool.close();
  }
  return { rows, notes: [] };
}
