import path from "node:path";
import { fileURLToPath } from "node:url";
import { cpSync, existsSync, mkdirSync } from "node:fs";
// The drivers are loaded by the backend that uses them (openEmbedded, openPostgres): the embedded
// defaults never load pg and its Prisma adapter, a PostgreSQL instance never loads PGlite.
import type { PGlite } from "@electric-sql/pglite";
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
  /**
   * Statements sent to the database since it opened (GET /metrics): every query of Prisma's driver
   * adapter (in transactions too, with their begin and end) and of sql(). Pings and migrations are
   * not counted (nor pg's SET TRANSACTION ISOLATION LEVEL, sent inside the begin).
   */
  readonly roundTrips: number;
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
  /**
   * A data directory initialized ahead of time, copied into a new `dataDir` instead of running
   * initdb there; null: always initdb. Default: the built server's (embeddedTemplateDir()).
   */
  templateDir?: string | null;
  /**
   * For a "memory://" database: an image (embeddedImage()) it starts from instead of running initdb
   * and the migrations again. Tests stand up one or more apps per file; initdb was most of each.
   */
  image?: Blob;
}

/**
 * The embedded database's data directory made at build time (`node scripts/build.mjs pgdata`:
 * initdb and the migrations of the build, dist/pgdata-template), beside the compiled server. A new
 * DATA_DIR starts as a copy of it: initdb is most of a first start's time (seconds) and its
 * WebAssembly memory stays in the process that ran it (docs/BENCHMARKS.md, "Idle memory and ready
 * time"). The sources (tsx, tests) have none and run initdb.
 */
export function embeddedTemplateDir(): string | null {
  const here = new URL(import.meta.url);
  if (here.protocol !== "file:" || /\.[cm]?tsx?$/.test(here.pathname)) return null;
  const dir = fileURLToPath(new URL("../pgdata-template", here));
  return existsSync(path.join(dir, "PG_VERSION")) ? dir : null;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DatabaseUnavailableError(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The methods of a driver adapter (or of its transactions) that each send one statement. */
const STATEMENT_CALLS = ["queryRaw", "executeRaw", "executeScript"] as const;
/**
 * A transaction's end: a statement of its own only when the driver ends the transaction itself
 * (`usePhantomQuery`, PGlite); otherwise Prisma sends COMMIT or ROLLBACK through executeRaw and
 * commit() only releases the connection (pg).
 */
const END_CALLS = ["commit", "rollback"] as const;
type Calls = Record<string, ((...args: unknown[]) => Promise<unknown>) | undefined>;

function countCalls(target: object, counter: { n: number }, names: readonly string[] = STATEMENT_CALLS): void {
  const calls = target as Calls;
  for (const name of names) {
    const original = calls[name];
    if (typeof original !== "function") continue;
    calls[name] = (...args: unknown[]) => {
      counter.n++;
      return original.apply(target, args);
    };
  }
}

/**
 * Counts the statements Prisma sends, at its one door to the driver: the adapter each connect()
 * returns, and the transactions it starts. Methods are replaced on those objects only (no shared
 * prototype is touched), each a counter increment before the driver's own call.
 */
function counted<F extends { connect(): Promise<object> }>(factory: F, counter: { n: number }): F {
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    countCalls(adapter, counter);
    const calls = adapter as Calls;
    const startTransaction = calls.startTransaction;
    if (typeof startTransaction === "function") {
      calls.startTransaction = async (...args: unknown[]) => {
        counter.n++;
        // The adapter's BEGIN (pg sends it inside startTransaction; PGlite starts its own): one.
        const transaction = (await startTransaction.apply(adapter, args)) as { options?: { usePhantomQuery?: boolean } };
        countCalls(transaction, counter, transaction.options?.usePhantomQuery ? [...STATEMENT_CALLS, ...END_CALLS] : STATEMENT_CALLS);
        return transaction;
      };
    }
    return adapter;
  };
  return factory;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.databaseUrl ? openPostgres(options.databaseUrl, options) : openEmbedded(options);
}

/**
 * An in-memory embedded database, initialized and migrated, as an image (PGlite's dumpDataDir) that
 * `openDatabase({ dataDir: "memory://", image })` starts from in a fraction of initdb's time.
 */
export async function embeddedImage(options: { migrationsDir?: string } = {}): Promise<Blob> {
  const { PGlite } = await import("@electric-sql/pglite");
  const pglite = new PGlite(embeddedOptions(PGlite));
  try {
    await pglite.waitReady;
    await applyMigrations(pgliteExecutor(pglite), { dir: options.migrationsDir });
    return await pglite.dumpDataDir("none");
  } finally {
    await pglite.close();
  }
}

/**
 * PostgreSQL's memory settings for the embedded database, sized for one small app rather than
 * PostgreSQL's server defaults: PGlite runs the whole server inside this process's WebAssembly
 * heap, and PostgreSQL initializes all of shared_buffers at start, so the default 128 MB is resident
 * from the first second whatever the data. The database of a newcomer's instance is a few MB; 16 MB
 * of buffers keep it whole, and the heap grows past its 128 MB floor only when a query needs it.
 * docs/BENCHMARKS.md "Idle memory and ready time" has what each setting bought.
 */
const EMBEDDED_SETTINGS = ["shared_buffers=16MB", "wal_buffers=1MB", "work_mem=2MB", "maintenance_work_mem=16MB", "temp_buffers=2MB"];

const embeddedOptions = (pglite: typeof PGlite) => ({ startParams: [...pglite.defaultStartParams, ...EMBEDDED_SETTINGS.flatMap((setting) => ["-c", setting])] });

const pgliteExecutor = (pglite: PGlite): SqlExecutor => ({
  exec: async (sql) => {
    await pglite.exec(sql);
  },
  query: async <T,>(sql: string, params?: unknown[]) => (await pglite.query<T>(sql, params)).rows,
});

async function openEmbedded(options: DatabaseOptions): Promise<Database> {
  const [{ PGlite }, { PrismaPGlite }] = await Promise.all([import("@electric-sql/pglite"), import("pglite-prisma-adapter")]);
  let pglite: PGlite;
  if (options.dataDir === "memory://") {
    pglite = new PGlite({ ...embeddedOptions(PGlite), ...(options.image ? { loadDataDir: options.image } : {}) });
  } else {
    const dir = path.resolve(options.dataDir, "pgdata");
    mkdirSync(dir, { recursive: true });
    const template = options.templateDir === undefined ? embeddedTemplateDir() : options.templateDir;
    if (!existsSync(path.join(dir, "PG_VERSION")) && template) {
      // A new data directory from the build's template: the migrations of this build are in it,
      // later ones (none, unless the template is stale) apply below as usual.
      cpSync(template, dir, { recursive: true });
    } else if (!existsSync(path.join(dir, "PG_VERSION"))) {
      // A new data directory: initdb runs in a PGlite of its own, closed at once. The instance that
      // ran initdb keeps initdb's WebAssembly module and memory for its whole life (about 270 MB,
      // measured); one opened on the initialized directory never loads them.
      const init = new PGlite(dir, embeddedOptions(PGlite));
      await init.waitReady;
      await init.close();
    }
    pglite = new PGlite(dir, embeddedOptions(PGlite));
  }
  await pglite.waitReady;
  if (options.schema) {
    await pglite.exec(`CREATE SCHEMA IF NOT EXISTS "${options.schema}"; SET search_path TO "${options.schema}"`);
  }
  const executor = pgliteExecutor(pglite);
  const migrations = await applyMigrations(executor, { dir: options.migrationsDir });
  // PGlite has no autovacuum daemon: without statistics the planner scans instead of using the
  // indexes. Analyze every 10 minutes (not at start: statistics of still-empty tables would mislead
  // the planner while the first data arrives).
  const analyze = setInterval(() => void pglite.exec("ANALYZE").catch(() => undefined), 10 * 60_000);
  analyze.unref();
  const statements = { n: 0 };
  const prisma = new PrismaClient({ adapter: counted(new PrismaPGlite(pglite), statements) });
  return {
    kind: "embedded",
    prisma,
    migrations,
    get roundTrips() {
      return statements.n;
    },
    sql: (text, params) => {
      statements.n++;
      return executor.query(text, params);
    },
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
  const [{ default: pg }, { PrismaPg }] = await Promise.all([import("pg"), import("@prisma/adapter-pg")]);
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
  const statements = { n: 0 };
  const prisma = new PrismaClient({
    adapter: counted(new PrismaPg(pool, options.schema ? { schema: options.schema } : undefined), statements),
  });
  return {
    kind: "postgresql",
    prisma,
    migrations,
    get roundTrips() {
      return statements.n;
    },
    sql: async <T,>(text: string, params: unknown[]) => {
      statements.n++;
      return (await pool.query(text, params)).rows as T[];
    },
    ping: async (timeoutMs = 2000) => {
      await withTimeout(pool.query("SELECT 1").then(() => undefined), timeoutMs, "database ping");
    },
    close: async () => {
      await prisma.$disconnect();
      await pool.end().catch(() => {});
    },
  };
}
