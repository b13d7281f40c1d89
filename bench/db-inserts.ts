/**
 * 4f and 4g. A database node's inserts beside Node-RED: inject → function (generate N) → function
 * (the statement or its parameters) → mysql or postgresql → change → counter, on the machine's
 * MariaDB (BENCH_MYSQL_URL) or PostgreSQL (BENCH_PG_URL), each INSERT its own transaction. Node-RED
 * 5.0 with node-red-node-mysql 3.0 (a pool of up to 50) or node-red-contrib-postgresql 0.16 (10),
 * and ours (10 per database), in the same invocation, each on a fresh table; Node-RED needs Node >=
 * 22.9 (bench/node-red-5; the PostgreSQL package installed from its git, see
 * scripts/postgresql-record.ts).
 */
import { runOnBackend } from "./lib/child";
import { fmt } from "./lib/stats";
import type { BenchContext, BenchOutcome, Row } from "./lib/types";
import { ensureNodeRed, REFERENCE_DIR, referenceRunsOn, runNodeRed } from "./node-red";
import type { NodeRedResult } from "./node-red-child";
import type { DbInsertBenchResult } from "./db-insert-child";
import { DB_INSERT_KINDS, type DbInsertKind } from "./lib/db-insert-kinds";

const N = Number(process.env.BENCH_DB_N ?? 10_000);
const TIME_LIMIT_MS = 120_000;
const isResult = (m: unknown): m is DbInsertBenchResult => (m as { type?: string })?.type === "result";

export const benchMysql = (ctx: BenchContext) => benchDbInserts(ctx, "mysql");
export const benchPostgresql = (ctx: BenchContext) => benchDbInserts(ctx, "postgresql");

async function benchDbInserts(ctx: BenchContext, name: DbInsertKind): Promise<BenchOutcome> {
  const kind = DB_INSERT_KINDS[name];
  const B = kind.benchmark;
  const rows: Row[] = [];
  const notes: string[] = [];
  const target = kind.target();
  const availability = referenceRunsOn() ? await ensureNodeRed(ctx.log, REFERENCE_DIR) : ({ ok: false, reason: `${kind.contrib} is measured in Node-RED 5.0, which needs Node >= 22.9 (run the bench with Node 24)` } as const);
  let theirs: NodeRedResult | undefined;
  let theirRows = 0;
  if (availability.ok) {
    const db = await kind.prepare(target);
    ctx.log(`${name}: Node-RED ${availability.version}, N = ${N}`);
    theirs = await runNodeRed(kind.scenario, N, TIME_LIMIT_MS).catch((err: unknown) => {
      notes.push(`Node-RED ${kind.scenario} failed: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    });
    theirRows = await db.rows();
    await db.drop();
  } else notes.push(`Node-RED unavailable: ${availability.reason}`);
  const db = await kind.prepare(target);
  ctx.log(`${name}: ours, N = ${N}`);
  const r = await runOnBackend("db-insert-child.ts", [name, String(N), String(TIME_LIMIT_MS)], undefined, isResult, TIME_LIMIT_MS + 60_000);
  const ourRows = await db.rows();
  await db.drop();
  const ratio = theirs?.complete && r.complete ? ` = ${(r.msgPerSec / theirs.msgPerSec).toFixed(2)}× Node-RED` : "";
  ctx.log(`${name}: ${r.complete ? fmt.int(r.msgPerSec) : "n/a"} msg/s${ratio}, peak RSS ${fmt.mb(r.peakRss)}, ${fmt.s(r.cpuMs)} CPU; ${ourRows} rows (Node-RED ${theirs?.complete ? fmt.int(theirs.msgPerSec) : "n/a"} msg/s, peak RSS ${theirs ? fmt.mb(theirs.peakRss) : "n/a"}, ${theirs ? fmt.s(theirs.cpuMs) : "n/a"} CPU, ${theirRows} rows)`);
  rows.push({
    benchmark: B,
    measure: `${kind.measure}, N = ${fmt.int(N)}`,
    result: r.complete ? `${fmt.int(r.msgPerSec)} msg/s${ratio}` : `did not finish (${fmt.int(r.arrived)} arrivals)`,
    nodeRed: theirs?.complete ? `${fmt.int(theirs.msgPerSec)} msg/s (measured, same run; peak RSS ${fmt.mb(theirs.peakRss)}; ${fmt.int(theirRows)} rows)` : "n/a",
    notes: `${fmt.s(r.ms)}, ${fmt.s(r.cpuMs)} CPU; ${fmt.int(ourRows)} rows; peak RSS ${fmt.mb(r.peakRss)} (idle ${fmt.mb(r.idleRss)})`,
  });
  return { rows, notes };
}
