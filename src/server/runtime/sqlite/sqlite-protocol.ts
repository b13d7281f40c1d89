/**
 * What the host (sqlite-host.ts) and the SQLite worker (sqlite-worker.ts) say to each other. The
 * worker holds the databases in memory; the host owns their bytes (the organization's files) and
 * writes back what the worker exports after a change.
 */

/** How a database is opened: Node-RED's sqlitedb modes. */
export type SqliteMode = "RWC" | "RW" | "RO";

/** A value bound to a statement's parameter (structured-clone safe). */
export type SqliteValue = null | number | string | boolean | Uint8Array;

/** Parameters: positional (an array) or named (`{$id: 1}`), as node-sqlite3 takes them. */
export type SqliteParams = SqliteValue[] | Record<string, SqliteValue>;

/**
 * One statement run: `all` prepares the first statement of `sql` and returns its rows (node-sqlite3's
 * Database#all); `exec` runs every statement of it and returns none (Database#exec).
 */
export interface SqliteOp {
  kind: "all" | "exec";
  sql: string;
  params?: SqliteParams;
}

/** A SQLite failure as node-sqlite3 reports it: `SQLITE_ERROR: no such table: t`, errno 1, code "SQLITE_ERROR". */
export interface SqliteFailure {
  message: string;
  code: string;
  errno: number;
}

/** `size`: the rows' size as the result's bound counts it. */
export type SqliteOpResult = { ok: true; rows: Array<Record<string, unknown>>; size: number } | { ok: false; error: SqliteFailure };

export interface SqliteLimits {
  /** How long one statement may run (a progress handler interrupts it). */
  statementMs: number;
  /** The largest database, in bytes (PRAGMA max_page_count). */
  maxDatabaseBytes: number;
  /** The largest text or blob a value may hold (SQLITE_LIMIT_LENGTH). */
  maxValueBytes: number;
  /** The most a result may hold (texts and blobs counted by length, other values 8 bytes). */
  maxResultBytes: number;
}

export type SqliteRequest =
  | { t: "open"; id: number; key: string; bytes: Uint8Array | null; mode: SqliteMode; limits: SqliteLimits }
  /** `writeBack`: the database is a file (false for :memory:): export it after changes, and write back before a transaction opens. */
  | { t: "run"; id: number; key: string; ops: SqliteOp[]; limits: SqliteLimits; writeBack: boolean }
  | { t: "export"; id: number; key: string }
  | { t: "close"; id: number; key: string };

export type SqliteReply =
  | { t: "opened"; id: number; error?: SqliteFailure }
  | {
      t: "ran";
      id: number;
      results: SqliteOpResult[];
      /** The whole database after the ops, when they changed it and no transaction is left open. */
      bytes?: Uint8Array;
      /** A transaction the ops began is still open: nothing is written back until it ends. */
      inTransaction: boolean;
    }
  | { t: "exported"; id: number; bytes?: Uint8Array }
  | { t: "closed"; id: number }
  /** The request failed as a whole (out of memory in the worker, say): nothing of it counts. */
  | { t: "failed"; id: number; error: SqliteFailure };
