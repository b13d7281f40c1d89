/**
 * 4c. Durable context (issue 23): the chain inject → function (generate N) → function (flow.set, or
 * flow.increment, on every message) → change → counter, ours on the durable context (each message
 * held until the context writes before it are stored, writes stored in batches) on the embedded
 * database and, with DATABASE_URL, on PostgreSQL; then Node-RED 4.1 with its default in-memory
 * context, in the same invocation. The target: at least half Node-RED's rate.
 */
import { runOnBackend } from "./lib/child";
import { fmt } from "./lib/stats";
import type { BenchContext, BenchOutcome, Row } from "./lib/types";
import { ensureNodeRed, runNodeRed } from "./node-red";
import type { NodeRedResult } from "./node-red-child";
import type { ContextResult, ContextScenario } from "./context-child";

const N = Number(process.env.BENCH_CONTEXT_N ?? 50_000);
const TIME_LIMIT_MS = 60_000;
const isResult = (m: unknown): m is ContextResult => (m as { type?: string })?.type === "result";

function runOurs(scenario: ContextScenario, databaseUrl: string | undefined): Promise<ContextResult> {
  return runOnBackend("context-child.ts", [scenario, String(N), String(TIME_LIMIT_MS)], databaseUrl, isResult, TIME_LIMIT_MS + 60_000);
}

export async function benchContext(ctx: BenchContext): Promise<BenchOutcome> {
  const B = "4c Durable context";
  const rows: Row[] = [];
  const notes: string[] = [];
  const backends: Array<[string, string | undefined]> = [["embedded PGlite", undefined]];
  if (process.env.DATABASE_URL) backends.push(["PostgreSQL", process.env.DATABASE_URL]);
  else notes.push("Durable context: DATABASE_URL was not set, so only the embedded database was measured.");
  const availability = await ensureNodeRed(ctx.log);
  for (const scenario of ["flow-set", "flow-increment"] as const) {
    let theirs: NodeRedResult | undefined;
    if (availability.ok) {
      ctx.log(`context: Node-RED ${availability.version}, ${scenario}, N = ${N}`);
      theirs = await runNodeRed(scenario, N, TIME_LIMIT_MS).catch((err: unknown) => {
        notes.push(`Node-RED ${scenario} failed: ${err instanceof Error ? err.message : String(err)}`);
        return undefined;
      });
    } else notes.push(`Node-RED unavailable: ${availability.reason}`);
    const theirsRate = theirs?.complete ? `${fmt.int(theirs.msgPerSec)} msg/s (measured, same run)` : "n/a";
    for (const [label, url] of backends) {
      ctx.log(`context: ours, ${scenario}, ${label}, N = ${N}`);
      const r = await runOurs(scenario, url);
      ctx.log(
        `context: ${scenario}, ${label}: ${r.complete ? fmt.int(r.msgPerSec) : "n/a"} msg/s, ${fmt.int(r.n / (r.cpuMs / 1000))} msg per CPU-second` +
          (theirs?.complete ? `; Node-RED ${fmt.int(theirs.msgPerSec)} msg/s, ${fmt.int(theirs.n / (theirs.cpuMs / 1000))} msg per CPU-second` : "") +
          `; ${r.flushes} flushes of ${r.flushes > 0 ? (r.n / r.flushes).toFixed(0) : "n/a"} messages; stored ${JSON.stringify(r.stored)}`,
      );
      const ratio = theirs?.complete && r.complete ? ` = ${((r.msgPerSec / theirs.msgPerSec) * 100).toFixed(0)}% of Node-RED's` : "";
      rows.push({
        benchmark: B,
        measure: `inject → function (generate) → function (${scenario === "flow-set" ? "flow.set" : "flow.increment"} per message) → change → counter, ${label}, N = ${fmt.int(r.n)}`,
        result: r.complete ? `${fmt.int(r.msgPerSec)} msg/s${ratio}` : `did not finish (${fmt.int(r.arrived)} arrivals)`,
        nodeRed: theirsRate,
        notes: `${fmt.s(r.ms)}, ${fmt.s(r.cpuMs)} CPU (${fmt.int(r.n / (r.cpuMs / 1000))} msg per CPU-second${theirs?.complete ? `; Node-RED ${fmt.int(theirs.n / (theirs.cpuMs / 1000))}` : ""}); ${fmt.int(r.flushes)} flushes (${fmt.int(r.rows)} rows, ${r.flushes > 0 ? (r.n / r.flushes).toFixed(0) : "n/a"} messages per transaction); stored at the end: ${JSON.stringify(r.stored)}`,
      });
    }
  }
  return { rows, notes };
}
