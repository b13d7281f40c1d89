/**
 * 4e. SQLite inserts (node-red-node-sqlite): inject → function (generate N) → function (an INSERT
 * of the message's number) → sqlite → change → counter. Ours: the database is one of the
 * organization's files, run in the SQLite worker and written back after each batch of statements
 * (runtime/sqlite/sqlite-host.ts), on the embedded database and, with DATABASE_URL, on PostgreSQL.
 * Node-RED 5.0 with node-red-node-sqlite 1.1.1 (node-sqlite3, a file on the local disk), in the same
 * invocation; it needs Node >= 22.9 (bench/node-red-5). Twice: on an empty table, and on one
 * preloaded with BENCH_SQLITE_PRELOAD_KB (default here 4096) of blobs, where every write-back of
 * ours carries the whole database.
 */
import { runOnBackend } from "./lib/child";
import { fmt } from "./lib/stats";
import type { BenchContext, BenchOutcome, Row } from "./lib/types";
import { ensureNodeRed, REFERENCE_DIR, referenceRunsOn, runNodeRed } from "./node-red";
import type { NodeRedResult } from "./node-red-child";
import type { SqliteBenchResult } from "./sqlite-child";

const N = Number(process.env.BENCH_SQLITE_N ?? 10_000);
const TIME_LIMIT_MS = 120_000;
const PRELOADS = [0, Number(process.env.BENCH_SQLITE_PRELOAD_KB ?? 4096)];
const isResult = (m: unknown): m is SqliteBenchResult => (m as { type?: string })?.type === "result";

function runOurs(databaseUrl: string | undefined, preloadKb: number): Promise<SqliteBenchResult> {
  return runOnBackend("sqlite-child.ts", [String(N), String(TIME_LIMIT_MS)], databaseUrl, isResult, TIME_LIMIT_MS + 60_000, { BENCH_SQLITE_PRELOAD_KB: String(preloadKb) });
}

export async function benchSqlite(ctx: BenchContext): Promise<BenchOutcome> {
  const B = "4e SQLite inserts";
  const rows: Row[] = [];
  const notes: string[] = [];
  const backends: Array<[string, string | undefined]> = [["embedded PGlite", undefined]];
  if (process.env.DATABASE_URL) backends.push(["PostgreSQL", process.env.DATABASE_URL]);
  else notes.push("SQLite: DATABASE_URL was not set, so only the embedded database was measured.");
  const availability = referenceRunsOn() ? await ensureNodeRed(ctx.log, REFERENCE_DIR) : ({ ok: false, reason: "node-red-node-sqlite is measured in Node-RED 5.0, which needs Node >= 22.9 (run the bench with Node 24)" } as const);
  for (const preloadKb of PRELOADS) {
    process.env.BENCH_SQLITE_PRELOAD_KB = String(preloadKb);
    let theirs: NodeRedResult | undefined;
    if (availability.ok) {
      ctx.log(`sqlite: Node-RED ${availability.version}, preload ${preloadKb} KiB, N = ${N}`);
      theirs = await runNodeRed("sqlite-insert", N, TIME_LIMIT_MS).catch((err: unknown) => {
        notes.push(`Node-RED sqlite-insert failed: ${err instanceof Error ? err.message : String(err)}`);
        return undefined;
      });
    } else notes.push(`Node-RED unavailable: ${availability.reason}`);
    const theirsRate = theirs?.complete ? `${fmt.int(theirs.msgPerSec)} msg/s (measured, same run; peak RSS ${fmt.mb(theirs.peakRss)})` : "n/a";
    for (const [label, url] of backends) {
      ctx.log(`sqlite: ours, ${label}, preload ${preloadKb} KiB, N = ${N}`);
      const r = await runOurs(url, preloadKb);
      const ratio = theirs?.complete && r.complete ? ` = ${((r.msgPerSec / theirs.msgPerSec) * 100).toFixed(0)}% of Node-RED's` : "";
      ctx.log(`sqlite: ${label}, preload ${preloadKb} KiB: ${r.complete ? fmt.int(r.msgPerSec) : "n/a"} msg/s${ratio}; ${r.writeBacks} write-backs, ${fmt.mb(r.bytesWritten)} written; ${r.rows} rows`);
      rows.push({
        benchmark: B,
        measure: `inject → function (generate) → function (INSERT) → sqlite → change → counter, ${preloadKb > 0 ? `table preloaded with ${fmt.int(preloadKb)} KiB` : "empty table"}, ${label}, N = ${fmt.int(r.n)}`,
        result: r.complete ? `${fmt.int(r.msgPerSec)} msg/s${ratio}` : `did not finish (${fmt.int(r.arrived)} arrivals)`,
        nodeRed: theirsRate,
        notes: `${fmt.s(r.ms)}, ${fmt.s(r.cpuMs)} CPU; ${fmt.int(r.writeBacks)} write-backs (${r.writeBacks > 0 ? (r.n / r.writeBacks).toFixed(0) : "n/a"} inserts each), ${fmt.mb(r.bytesWritten)} written in all; the database ${fmt.mb(r.fileBytes)} with ${fmt.int(r.rows)} rows at the end; peak RSS ${fmt.mb(r.peakRss)}`,
      });
    }
  }
  return { rows, notes };
}
