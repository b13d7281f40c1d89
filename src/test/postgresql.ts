import pg from "pg";
import { PG_CASES_DATABASE, type PgCase } from "@/server/nodes/postgresql/pg-cases";

/**
 * The PostgreSQL server the postgresql node's tests use: the machine's (127.0.0.1:5432, postgres
 * with trust auth, as .ci/run starts it), or PG_TEST_URL. Each test makes a database of its own
 * and drops it.
 */
/** The application name of the tests' own connections. */
export const TEST_CLIENT = "flowplane-test";

export interface PgTestServer {
  host: string;
  port: number;
  user: string;
  password: string;
  query(sql: string, database?: string): Promise<Array<Record<string, unknown>>>;
  createDatabase(name: string): Promise<void>;
  dropDatabase(name: string): Promise<void>;
  close(): Promise<void>;
}

export function pgTestServer(): PgTestServer {
  const url = new URL(process.env.PG_TEST_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres");
  const settings = { host: url.hostname, port: Number(url.port || 5432), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
  const clients = new Map<string, Promise<pg.Client>>();
  const clientOf = (database: string) => {
    let c = clients.get(database);
    if (!c) {
      // Named, so a test counting the node's connections leaves these out.
      const client = new pg.Client({ ...settings, database, application_name: TEST_CLIENT });
      c = client.connect().then(() => client);
      clients.set(database, c);
    }
    return c;
  };
  const admin = url.pathname.slice(1) || "postgres";
  const end = async (database: string) => {
    const c = clients.get(database);
    clients.delete(database);
    if (c) await (await c).end().catch(() => undefined);
  };
  return {
    ...settings,
    async query(sql, database = admin) {
      return (await (await clientOf(database)).query(sql)).rows as Array<Record<string, unknown>>;
    },
    async createDatabase(name) {
      await (await clientOf(admin)).query(`CREATE DATABASE "${name}"`);
    },
    async dropDatabase(name) {
      await end(name);
      await (await clientOf(admin)).query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
    async close() {
      for (const database of [...clients.keys()]) await end(database);
    },
  };
}

/**
 * A case's database, made afresh with its setup (a database per case: a split query left waiting
 * for ticks holds its table, and the package never releases it; DROP … WITH (FORCE) ends it).
 */
export async function preparePgCase(server: PgTestServer, database: string, c: PgCase) {
  await server.dropDatabase(database);
  await server.createDatabase(database);
  for (const sql of c.setup ?? []) await server.query(sql, database);
}

export interface RecordedPgCase {
  output: unknown[];
  caught: unknown[];
  after?: unknown;
}

/**
 * What a case did, as the recording keeps it: the messages out and those a catch node saw (without
 * `_msgid`; `parts.id` as its order of appearance; a caught one's `error` as its message), the
 * `after` rows, with the run's database written as PG_CASES_DATABASE.
 */
export async function recordPgCase(server: PgTestServer, database: string, c: PgCase, arrivals: Array<{ sink: string; msg: Record<string, unknown> }>): Promise<RecordedPgCase> {
  const ids = new Map<unknown, number>();
  const idOf = (id: unknown) => {
    if (!ids.has(id)) ids.set(id, ids.size + 1);
    return ids.get(id);
  };
  const plain = (msg: Record<string, unknown>) => {
    const { _msgid: _id, error, ...rest } = JSON.parse(JSON.stringify(msg)) as Record<string, unknown>;
    const parts = rest.parts as { id?: unknown } | undefined;
    if (parts && "id" in parts) parts.id = idOf(parts.id);
    return { ...rest, ...(error ? { error: (error as { message?: unknown }).message } : {}) };
  };
  const result: RecordedPgCase = {
    output: arrivals.filter((a) => a.sink === "out").map((a) => plain(a.msg)),
    caught: arrivals.filter((a) => a.sink === "err").map((a) => plain(a.msg)),
    ...(c.after ? { after: JSON.parse(JSON.stringify(await server.query(c.after, database))) } : {}),
  };
  return JSON.parse(JSON.stringify(result).replaceAll(database, PG_CASES_DATABASE)) as RecordedPgCase;
}
