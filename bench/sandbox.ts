/**
 * 4b. The function node's sandbox alone (`npm run bench -- sandbox`): calls per second for a few
 * typical bodies, run back to back on one sandbox (each call is a round trip to a worker thread),
 * then with 16 calls in flight, locale work (sorting with localeCompare, dates in a time zone)
 * against the same bodies in V8 as Node-RED runs them, and what creating and closing a sandbox
 * costs. It runs only when
 * named and writes nothing: it is for working on src/server/runtime/sandbox/, next to benchmark 4
 * (the whole runtime, which includes the sandboxed function node).
 */
import vm from "node:vm";
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

/** 1,000 ASCII names in a fixed shuffled order. */
const NAMES = Array.from({ length: 1_000 }, (_, i) => `${["Anna", "bob", "Carl", "dora", "Émile"][i % 5]} ${(i * 7919) % 1000}`);
const LOCALE_N = 50;
const LOCALE_WARM_UP = 5;
const localeCases = [
  { name: "sort 1,000 names with localeCompare (4 in 5 ASCII)", code: "msg.payload = msg.payload.slice().sort((a, b) => a.localeCompare(b)); return msg;" },
  { name: "sort 1,000 names with localeCompare(b, 'de')", code: "msg.payload = msg.payload.slice().sort((a, b) => a.localeCompare(b, 'de')); return msg;" },
  { name: "sort 1,000 names with an Intl.Collator's compare", code: "msg.payload = msg.payload.slice().sort(new Intl.Collator('de', { numeric: true }).compare); return msg;" },
  {
    name: "100 dates with toLocaleString('en-GB', {timeZone})",
    code: "const out = []; for (let i = 0; i < 100; i++) out.push(new Date(1.7e12 + i * 3.6e6).toLocaleString('en-GB', { timeZone: 'Europe/London' })); msg.payload = out; return msg;",
  },
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

    // Locale work (intl-host.ts): the same bodies in our sandbox and in V8 as Node-RED runs them
    // (vm.Script in a context of their own), per call.
    for (const { name, code } of localeCases) {
      ctx.log(`sandbox: ${name}`);
      const localeSandbox = await pool.create({ ...options(code), timeoutMs: 10_000 });
      const names = { _msgid: "l", payload: NAMES };
      for (let i = 0; i < LOCALE_WARM_UP; i++) await localeSandbox.run(names);
      const ours = performance.now();
      for (let i = 0; i < LOCALE_N; i++) await localeSandbox.run(names);
      const oursMs = (performance.now() - ours) / LOCALE_N;
      localeSandbox.close();
      const script = new vm.Script(`(async function (msg) {\n${code}\n})`);
      const inV8 = script.runInContext(vm.createContext({ Intl, Date })) as (msg: unknown) => Promise<unknown>;
      for (let i = 0; i < LOCALE_WARM_UP; i++) await inV8({ payload: NAMES.slice() });
      const v8 = performance.now();
      for (let i = 0; i < LOCALE_N; i++) await inV8({ payload: NAMES.slice() });
      const v8Ms = (performance.now() - v8) / LOCALE_N;
      rows.push({ benchmark: B, measure: `${name}, per call`, result: fmt.ms(oursMs), nodeRed: `in V8 as Node-RED runs it: ${fmt.ms(v8Ms)}`, notes: `${(oursMs / v8Ms).toFixed(1)}× V8's time` });
    }

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
