import mysql from "mysql2/promise";
import { asJson, CASES_DATABASE, type MysqlCase } from "@/server/nodes/mysql/mysql-cases";

/**
 * The MySQL or MariaDB server the mysql node's tests use: the machine's (127.0.0.1:3306, root
 * without a password, as .ci/run starts it), or MYSQL_TEST_URL (mysql://user:password@host:port).
 * Each test makes a database of its own and drops it.
 */
export interface MysqlTestServer {
  host: string;
  port: number;
  user: string;
  password: string;
  /** The server's version (read by the first query). */
  version: string;
  query(sql: string, database?: string): Promise<unknown>;
  dropDatabase(name: string): Promise<void>;
  close(): Promise<void>;
}

export function mysqlTestServer(): MysqlTestServer {
  const url = new URL(process.env.MYSQL_TEST_URL ?? "mysql://root@127.0.0.1:3306");
  const settings = { host: url.hostname, port: Number(url.port || 3306), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
  let connection: Promise<mysql.Connection> | undefined;
  const open = () => (connection ??= mysql.createConnection({ ...settings, multipleStatements: false }));
  const server: MysqlTestServer = {
    ...settings,
    version: "",
    async query(sql, database) {
      const c = await open();
      if (!server.version) server.version = String(((await c.query("SELECT VERSION() AS v")) as unknown as [Array<{ v: string }>])[0][0]!.v);
      if (database) await c.query(`USE \`${database}\``);
      const [rows] = await c.query(sql);
      return rows;
    },
    async dropDatabase(name) {
      await server.query(`DROP DATABASE IF EXISTS \`${name}\``);
    },
    async close() {
      if (connection) await (await connection).end();
    },
  };
  return server;
}

/** A case's database, made afresh with its setup. */
export async function prepareCase(server: MysqlTestServer, database: string, c: MysqlCase) {
  await server.dropDatabase(database);
  await server.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
  for (const sql of c.setup ?? []) await server.query(sql, database);
}

export interface RecordedMysqlCase {
  output: unknown[];
  errors: string[];
  statuses: unknown[];
  after?: unknown;
}

/**
 * What a case did, as the recording keeps it: the messages out (without `_msgid`, as JSON), the errors' messages, the statuses and the `after` rows, with the run's database
 * written as CASES_DATABASE.
 */
export async function recordCase(server: MysqlTestServer, database: string, c: MysqlCase, arrivals: Array<{ sink: string; msg: Record<string, unknown> }>): Promise<RecordedMysqlCase> {
  const of = (sink: string) => arrivals.filter((a) => a.sink === sink).map((a) => a.msg);
  const result: RecordedMysqlCase = {
    output: of("out").map(({ _msgid: _id, ...rest }) => asJson(rest)),
    errors: of("err").map((m) => String((m.error as { message?: unknown }).message)),
    statuses: of("st").map((m) => {
      const s = m.status as { fill?: string; shape?: string; text?: string };
      return { ...(s.fill ? { fill: s.fill } : {}), ...(s.shape ? { shape: s.shape } : {}), ...(s.text !== undefined ? { text: s.text } : {}) };
    }),
    ...(c.after ? { after: asJson(await server.query(c.after, database)) } : {}),
  };
  return JSON.parse(JSON.stringify(result).replaceAll(database, CASES_DATABASE)) as RecordedMysqlCase;
}
