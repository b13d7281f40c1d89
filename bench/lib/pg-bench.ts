/**
 * Benchmark 4g's flow, shared by both sides (bench/node-red-child.ts, bench/db-insert-child.ts): each
 * message an INSERT of its number through a postgresql node (`$1` from msg.params), into a table of
 * a database made for the run on the machine's PostgreSQL (BENCH_PG_URL, default
 * postgresql://postgres@127.0.0.1:5432/postgres).
 */
export const PG_INSERT_CODE = `msg.params = [msg.seq]; return msg;`;
export const PG_INSERT_QUERY = "INSERT INTO readings (v) VALUES ($1)";

export interface PgBenchTarget {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

export function pgBenchTarget(): PgBenchTarget {
  const url = new URL(process.env.BENCH_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres");
  return { host: url.hostname, port: Number(url.port || 5432), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password), database: process.env.BENCH_PG_DATABASE ?? "fpbench" };
}

/** Makes the run's database afresh with an empty table; returns a function counting its rows, and one dropping it. */
export async function preparePgBench(target: PgBenchTarget) {
  const pg = (await import("pg")).default;
  const admin = new pg.Client({ host: target.host, port: target.port, user: target.user, password: target.password, database: "postgres" });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${target.database}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${target.database}"`);
  const db = new pg.Client({ host: target.host, port: target.port, user: target.user, password: target.password, database: target.database });
  await db.connect();
  await db.query("CREATE TABLE readings (id SERIAL PRIMARY KEY, v INT)");
  return {
    rows: async () => Number((await db.query("SELECT count(*) AS n FROM readings")).rows[0].n),
    drop: async () => {
      await db.end();
      await admin.query(`DROP DATABASE IF EXISTS "${target.database}" WITH (FORCE)`);
      await admin.end();
    },
  };
}
