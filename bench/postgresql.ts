/**
 * 4g. PostgreSQL inserts (node-red-contrib-postgresql): inject → function (generate N) → function
 * (msg.params = [the message's number]) → postgresql (INSERT … VALUES ($1)) → change → counter, on
 * the machine's PostgreSQL (each INSERT its own transaction). Node-RED 5.0 with the package (a pool
 * of 10) and ours (10) in the same invocation, each on a fresh table; it needs Node >= 22.9 for
 * Node-RED (bench/node-red-5, the package installed from its git) and a PostgreSQL (BENCH_PG_URL).
 */
import { runOnBackend } from "./lib/child";
import { fmt } from "./lib/stats";
import type { BenchContext, BenchOutcome, Row } from "./lib/types";
import { ensureNodeRed, REFERENCE_DIR, referenceRunsOn, runNodeRed } from "./node-red";
import type { NodeRedResult } from "./node-red-child";
import type { PgBenchResult } from "./pg-child";
import { pgBenchTarget, preparePgBench } from "./lib/pg-bench";

const N = Number(process.env.BENCH_PG_N ?? 10_000);
const TIME_LIMIT_MS = 120_000;
const isResult = (m: unknown): m is PgBenchResult => (m as { type?: string })?.type === "result";

export async function benchPostgresql(ctx: BenchContext): Promise<BenchOutcome> {
  const B = "4g PostgreSQL inserts";
  const rows: Row[] = [];
  const notes: string[] = [];
  const target = pgBenchTarget();
  const availability = referenceRunsOn() ? await ensureNodeRed(ctx.log, REFERENCE_DIR) : ({ ok: false, reason: "node-red-contrib-postgresql is measured in Node-RED 5.0, which needs Node >= 22.9 (run the bench with Node 24)" } as const);
  let theirs: NodeRedResult | undefined;
  let theirRows = 0;
  if (availability.ok) {
    const db = await preparePgBench(target);
    ctx.log(`postgresql: Node-RED ${availability.version}, N = ${N}`);
    theirs = await runNodeRed("pg-insert", N, TIME_LIMIT_MS).catch((err: unknown) => {
      notes.push(`Node-RED pg-insert failed: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    });
    theirRows = await db.rows();
    await db.drop();
  } else notes.push(`Node-RED unavailable: ${availability.reason}`);
  const db = await preparePgBench(target);
  ctx.log(`postgresql: ours, N = ${N}`);
  const r = await runOnBackend("pg-child.ts", [String(N), String(TIME_LIMIT_MS)], undefined, isResult, TIME_LIMIT_MS + 60_000);
  const ourRows = await db.rows();
  await db.drop();
  const ratio = theirs?.complete && r.complete ? ` = ${(r.msgPerSec / theirs.msgPerSec).toFixed(2)}× Node-RED` : "";
  ctx.log(`postgresql: ${r.complete ? fmt.int(r.msgPerSec) : "n/a"} msg/s${ratio}, peak RSS ${fmt.mb(r.peakRss)}, ${fmt.s(r.cpuMs)} CPU; ${ourRows} rows (Node-RED ${theirs?.complete ? fmt.int(theirs.msgPerSec) : "n/a"} msg/s, peak RSS ${theirs ? fmt.mb(theirs.peakRss) : "n/a"}, ${theirs ? fmt.s(theirs.cpuMs) : "n/a"} CPU, ${theirRows} rows)`);
  rows.push({
    benchmark: B,
    measure: `inject → function (generate) → function (msg.params) → postgresql (INSERT … VALUES ($1)) → change → counter, PostgreSQL on this machine, N = ${fmt.int(N)}`,
    result: r.complete ? `${fmt.int(r.msgPerSec)} msg/s${ratio}` : `did not finish (${fmt.int(r.arrived)} arrivals)`,
    nodeRed: theirs?.complete ? `${fmt.int(theirs.msgPerSec)} msg/s (measured, same run; peak RSS ${fmt.mb(theirs.peakRss)}; ${fmt.int(theirRows)} rows)` : "n/a",
    notes: `${fmt.s(r.ms)}, ${fmt.s(r.cpuMs)} CPU; ${fmt.int(ourRows)} rows; peak RSS ${fmt.mb(r.peakRss)} (idle ${fmt.mb(r.idleRss)})`,
  });
  return { rows, notes };
}
