/**
 * Quick throughput check of the function sandbox (not a test): `npx tsx src/server/runtime/sandbox/measure-throughput.ts`.
 * Prints calls/s for a few typical bodies, run back to back on one sandbox (each call is a round trip
 * to a sandbox worker thread), then with several calls in flight.
 */
import { SandboxPool, type FunctionSandboxOptions } from "./function-sandbox";

const pool = new SandboxPool();
const createFunctionSandbox = (options: FunctionSandboxOptions) => pool.create(options);

const cases: Array<{ name: string; code: string; outputs?: number }> = [
  { name: "double payload", code: "msg.payload = msg.payload * 2; return msg;" },
  { name: "context + flow + status", code: "const n = (context.get('n') || 0) + 1; context.set('n', n); flow.set('last', n); node.status({ fill: 'green', shape: 'dot', text: String(n) }); return msg;" },
  { name: "route on parity (2 outputs)", code: "return msg.payload & 1 ? [null, msg] : [msg, null];", outputs: 2 },
  { name: "async body (await)", code: "msg.payload = await Promise.resolve(msg.payload + 1); return msg;" },
];

const N = 50_000;
for (const { name, code, outputs } of cases) {
  const sandbox = await createFunctionSandbox({
    code,
    outputs: outputs ?? 1,
    timeoutMs: 1000,
    flowContext: new Map(),
    nodeInfo: { id: "bench", name: "bench", flowId: "flow" },
  });
  for (let i = 0; i < 2000; i++) await sandbox.run({ _msgid: `w${i}`, payload: i, topic: "bench" });
  const started = performance.now();
  for (let i = 0; i < N; i++) await sandbox.run({ _msgid: `m${i}`, payload: i, topic: "bench" });
  const seconds = (performance.now() - started) / 1000;
  console.log(`${name.padEnd(30)} ${Math.round(N / seconds).toLocaleString("en-US").padStart(8)} calls/s`);
  sandbox.close();
}

{
  // Several messages in flight for one node (the engine delivers one at a time today; this is the
  // ceiling if it pipelined): the round trip to the worker overlaps with the next call.
  const sandbox = await createFunctionSandbox({ code: cases[0]!.code, outputs: 1, timeoutMs: 1000, flowContext: new Map(), nodeInfo: { id: "b", name: "b", flowId: "f" } });
  const started = performance.now();
  const inflight: Array<Promise<unknown>> = [];
  for (let i = 0; i < N; i++) {
    inflight.push(sandbox.run({ _msgid: `p${i}`, payload: i, topic: "bench" }));
    if (inflight.length === 16) await Promise.all(inflight.splice(0));
  }
  await Promise.all(inflight);
  const seconds = (performance.now() - started) / 1000;
  console.log(`${"double payload, 16 in flight".padEnd(30)} ${Math.round(N / seconds).toLocaleString("en-US").padStart(8)} calls/s`);
  sandbox.close();
}

const created = performance.now();
for (let i = 0; i < 20; i++) (await createFunctionSandbox({ code: "return msg;", outputs: 1, timeoutMs: 1000, flowContext: new Map(), nodeInfo: { id: "c", name: "c", flowId: "f" } })).close();
console.log(`createFunctionSandbox + close: ${((performance.now() - created) / 20).toFixed(1)} ms each`);
console.log(`rss ${Math.round(process.memoryUsage().rss / 1e6)} MB`);
await pool.close();
