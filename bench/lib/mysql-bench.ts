/**
 * Benchmark 4f's flow, shared by both sides (bench/node-red-child.ts, bench/db-insert-child.ts): each
 * message an INSERT of its number through a mysql node, into a table of a database made for the run
 * on the machine's MariaDB (BENCH_MYSQL_URL, default mysql://root@127.0.0.1:3306).
 */
export const MYSQL_INSERT_CODE = `msg.topic = "INSERT INTO readings (v) VALUES (?)"; msg.payload = [msg.seq]; return msg;`;

export interface MysqlBenchTarget {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

export function mysqlBenchTarget(): MysqlBenchTarget {
  const url = new URL(process.env.BENCH_MYSQL_URL ?? "mysql://root@127.0.0.1:3306");
  return {
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: process.env.BENCH_MYSQL_DATABASE ?? "fpbench",
  };
}

/** Makes the run's database afresh with an empty table; returns a function counting its rows, and one dropping it. */
export async function prepareMysqlBench(target: MysqlBenchTarget) {
  const mysql = (await import("mysql2/promise")).default;
  const c = await mysql.createConnection({ host: target.host, port: target.port, user: target.user, password: target.password });
  await c.query(`DROP DATABASE IF EXISTS \`${target.database}\``);
  await c.query(`CREATE DATABASE \`${target.database}\``);
  await c.query(`CREATE TABLE \`${target.database}\`.readings (id INT PRIMARY KEY AUTO_INCREMENT, v INT)`);
  return {
    rows: async () => Number(((await c.query(`SELECT COUNT(*) AS n FROM \`${target.database}\`.readings`)) as unknown as [Array<{ n: number }>])[0][0]!.n),
    drop: async () => {
      await c.query(`DROP DATABASE IF EXISTS \`${target.database}\``);
      await c.end();
    },
  };
}
