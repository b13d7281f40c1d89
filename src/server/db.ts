import path from "node:path";
import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "../generated/prisma/client";
import { applyMigrations, type MigrateResult, type SqlExecutor } from "./migrate";

export type { PrismaClient };
export type Db = PrismaClient;

export interface Database {
  readonly kind: "embedded" | "postgresql";
  readonly prisma: PrismaClient;
  /**
   * One read-only statement with $1… parameters, straight to the driver (the pg pool, or PGlite,
   * which runs it after any open transaction): for the hottest reads only, where Prisma's own
   * per-query work cost more than the query (docs/BENCHMARKS.md, benchmark 2). Tables and columns
   * are the database's names (flows, organization_id), in the connection's schema.
   */
  sql<T>(text: string, params: unknown[]): Promise<T[]>;
  /** Resolves when the database answers within timeoutMs; rejects otherwise. */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
  readonly migrations: MigrateResult;
}

/** How long one statement may wait for the server's answer on an open connection (see openPostgres). */
export const QUERY_TIMEOUT_MS = 3_000;

export class DatabaseUnavailableError extends Error {
  override name = "DatabaseUnavailableError";
}

export interface DatabaseOptions {
  /** Any PostgreSQL server; without it an embedded PostgreSQL (PGlite) is used. */
  databaseUrl?: string;
  /** Where the embedded database keeps its files; "memory://" keeps them in memory (tests). */
  dataDir: string;
  /** PostgreSQL schema to use (tests isolate themselves in their own schema). */
  schema?: string;
  migrationsDir?: string;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DatabaseUnavailableError(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.databaseUrl ? openPostgres(options.databaseUrl, options) : openEmbedded(options);
}

async function openEmbedded(options: DatabaseOptions): Promise<Database> {
  let pglite: PGlite;
  if (options.dataDir === "memory://") {
    pglite = new PGlite();
  } else {
    const dir = path.resolve(options.dataDir, "pgdata");
    mkdirSync(dir, { recursive: true });
    pglite = new PGlite(dir);
  }
  await pglite.waitReady;
  if (options.schema) {
    await pglite.exec(`CREATE SCHEMA IF NOT EXISTS "${options.schema}"; SET search_path TO "${options.schema}"`);
  }
  const executor: SqlExecutor = {
    exec: async (sql) => {
      await pglite.exec(sql);
    },
    query: async <T,>(sql: string, params?: unknown[]) => (await pglite.query<T>(sql, params)).rows,
  };
  const migrations = await applyMigrations(executor, { dir: options.migrationsDir });
  // PGlite has no autovacuum daemon: without statistics the planner scans instead of using the
  // indexes. Analyze every 10 minutes (not at start: statistics of still-empty tables would mislead
  // the planner while the first data arrives).
  const analyze = setInterval(() => void pglite.exec("ANALYZE").catch(() => undefined), 10 * 60_000);
  analyze.unref();
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
  return {
    kind: "embedded",
    prisma,
    migrations,
    sql: (text, params) => executor.query(text, params),
    // In-process: it is reachable exactly as long as it is open.
    ping: async (timeoutMs = 2000) => {
      await withTimeout(pglite.query("SELECT 1"), timeoutMs, "database ping");
    },
    close: async () => {
      clearInterval(analyze);
      await prisma.$disconnect();
      await pglite.close();
    },
  };
}

async function openPostgres(url: string, options: DatabaseOptions): Promise<Database> {
  const searchPath = options.schema ? `-c search_path="${options.schema}"` : undefined;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000, options: searchPath });
  await client.connect();
  let migrations: MigrateResult;
  try {
    if (options.schema) {
      // IF NOT EXISTS still races between two sessions; the loser's duplicate error is harmless.
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${options.schema}"`).catch((err: { code?: string }) => {
        if (err.code !== "23505" && err.code !== "42P06") throw err;
      });
    }
    migrations = await applyMigrations(
      {
        exec: async (sql) => {
          await client.query(sql);
        },
        query: async <T,>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as T[],
      },
      { dir: options.migrationsDir },
    );
  } finally {
    await client.end();
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    // Fail fast when the server is gone instead of queueing requests forever.
    connectionTimeoutMillis: 3000,
    // A server that stops answering (frozen, partitioned) would hold a query on an open connection
    // until TCP gives up, minutes later: give up after 3 s (SPEC §17: 503 within 5 s). The pool
    // then drops that connection. Our statements take milliseconds; this bounds none that works.
    query_timeout: QUERY_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    // The server cancels a statement before the client gives up on it, so the client's timeout only
    // speaks for a server that does not answer at all, and a cancelled statement inside a
    // transaction is rolled back normally. A transaction left open by a client that went away ends
    // by itself.
    options: [searchPath, `-c statement_timeout=${QUERY_TIMEOUT_MS - 500}`, "-c idle_in_transaction_session_timeout=10000"].filter(Boolean).join(" "),
  });
  // A dropped connection emits 'error' on the pool; without a listener it would crash the process.
  pool.on("error", () => {});
  // A query the client gave up on (query_timeout) leaves the connection in an unknown state: inside
  // a transaction whose ROLLBACK was never sent, the next borrower's statements would run (and
  // commit) in it. Such a connection is destroyed, never reused; the server then rolls it back.
  pool.on("connect", (client) => {
    // A connection destroyed while checked out reports an 'error' that nothing else listens to then.
    client.on("error", () => {});
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const result = query(...args);
      if (result && typeof (result as Promise<unknown>).catch === "function") {
        (result as Promise<unknown>).catch((err: unknown) => {
          if (err instanceof Error && /Query read timeout/i.test(err.message)) {
            (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
          }
        });
      }
      return result;
    };
  });
  const prisma = new PrismaClient({
    adapter: new PrismaPg(pool, options.schema ? { schema: options.schema } : undefined),
  });
  return {
    kind: "postgresql",
    prisma,
    migrations,
    sql: async <T,>(text: string, params: unknown[]) => (await pool.query(text, params)).rows as T[],
    ping: async (timeoutMs = 2000) => {
      await withTimeout(pool.query("SELECT 1").then(() => undefined), timeoutMs, "database ping");
    },
    close: async () => {
      await prisma.$disconnect();
      await pool.end().catch(() => {});
    },
  };
}
