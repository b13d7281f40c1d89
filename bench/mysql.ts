/**
 * 4f. MySQL inserts (node-red-node-mysql): inject → function (generate N) → function (an INSERT of
 * the message's number, bound to ?) → mysql → change → counter, on the machine's MariaDB (each
 * INSERT its own transaction). Node-RED 5.0 with node-red-node-mysql 3.0 (a pool of up to 50
 * connections) and ours (up to 10 per database) in the same invocation, each on a fresh table; it
 * needs Node >= 22.9 for Node-RED (bench/node-red-5) and a MariaDB or MySQL (BENCH_MYSQL_URL).
 */
import { runOnBackend } from "./lib/child";
import { fmt } from "./lib/stats";
import type { BenchContext, BenchOutcome, Row } from "./lib/types";
import { ensureNodeRed, REFERENCE_DIR, referenceRunsOn, runNodeRed } from "./node-red";
import type { NodeRedResult } from "./node-red-child";
import type { MysqlBenchResult } from "./mysql-child";
import { mysqlBenchTarget, prepareMysqlBench } from "./lib/mysql-bench";

const N = Number(process.env.BENCH_MYSQL_N ?? 10_000);
const TIME_LIMIT_MS = 120_000;
const isResult = (m: unknown): m is MysqlBenchResult => (m as { type?: string })?.type === "result";

export async function benchMysql(ctx: BenchContext): Promise<BenchOutcome> {
  const B = "4f MySQL inserts";
  const rows: Row[] = [];
  const notes: string[] = [];
  const target = mysqlBenchTarget();
  const availability = referenceRunsOn() ? await ensureNodeRed(ctx.log, REFERENCE_DIR) : ({ ok: false, reason: "node-red-node-mysql is measured in Node-RED 5.0, which needs Node >= 22.9 (run the bench with Node 24)" } as const);
  let theirs: NodeRedResult | undefined;
  let theirRows = 0;
  if (availability.ok) {
    const db = await prepareMysqlBench(target);
    ctx.log(`mysql: Node-RED ${availability.version}, N = ${N}`);
    theirs = await runNodeRed("mysql-insert", N, TIME_LIMIT_MS).catch((err: unknown) => {
      notes.push(`Node-RED mysql-insert failed: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    });
    theirRows = await db.rows();
    await db.drop();
  } else notes.push(`Node-RED unavailable: ${availability.reason}`);
  const db = await prepareMysqlBench(target);
  ctx.log(`mysql: ours, N = ${N}`);
  const r = await runOnBackend("mysql-child.ts", [String(N), String(TIME_LIMIT_MS)], undefined, isResult, TIME_LIMIT_MS + 60_000);
  const ourRows = await db.rows();
  await db.drop();
  const ratio = theirs?.complete && r.complete ? ` = ${(r.msgPerSec / theirs.msgPerSec).toFixed(2)}× Node-RED` : "";
  ctx.log(`mysql: ${r.complete ? fmt.int(r.msgPerSec) : "n/a"} msg/s${ratio}, peak RSS ${fmt.mb(r.peakRss)}, ${fmt.s(r.cpuMs)} CPU; ${ourRows} rows (Node-RED ${theirs?.complete ? fmt.int(theirs.msgPerSec) : "n/a"} msg/s, peak RSS ${theirs ? fmt.mb(theirs.peakRss) : "n/a"}, ${theirs ? fmt.s(theirs.cpuMs) : "n/a"} CPU, ${theirRows} rows)`);
  rows.push({
    benchmark: B,
    measure: `inject → function (generate) → function (INSERT … VALUES (?)) → mysql → change → counter, MariaDB on this machine, N = ${fmt.int(N)}`,
    result: r.complete ? `${fmt.int(r.msgPerSec)} msg/s${ratio}` : `did not finish (${fmt.int(r.arrived)} arrivals)`,
    nodeRed: theirs?.complete ? `${fmt.int(theirs.msgPerSec)} msg/s (measured, same run; peak RSS ${fmt.mb(theirs.peakRss)}; ${fmt.int(theirRows)} rows)` : "n/a",
    notes: `${fmt.s(r.ms)}, ${fmt.s(r.cpuMs)} CPU; ${fmt.int(ourRows)} rows; peak RSS ${fmt.mb(r.peakRss)} (idle ${fmt.mb(r.idleRss)})`,
  });
  return { rows, notes };
}
