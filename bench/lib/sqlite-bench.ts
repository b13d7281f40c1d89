/**
 * Benchmark 4e's flow, shared by both sides (bench/node-red-child.ts, bench/sqlite-child.ts): each
 * message an INSERT of its number through a sqlite node in "Via msg.topic" mode.
 */
export const SQLITE_INSERT_CODE = `msg.topic = "INSERT INTO readings (v) VALUES ($v)"; msg.payload = [msg.seq]; return msg;`;

/** The table, and what it holds before the run: BENCH_SQLITE_PRELOAD_KB rows of a 1 KiB blob (0: empty). */
export function sqliteSetup(preloadKb = Number(process.env.BENCH_SQLITE_PRELOAD_KB ?? 0)): string {
  return `CREATE TABLE readings (v INTEGER, blob BLOB); INSERT INTO readings (blob) SELECT randomblob(1024) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c LIMIT ${preloadKb})`;
}
