import type { Database, PreparedStatement, Sqlite3Static } from "@sqlite.org/sqlite-wasm";
import type { SqliteFailure, SqliteLimits, SqliteMode, SqliteOp, SqliteOpResult, SqliteValue } from "./sqlite-protocol";

/**
 * The databases of one SQLite worker: SQLite compiled to WebAssembly (@sqlite.org/sqlite-wasm, the
 * SQLite project's own build), each database in memory, loaded from its bytes and exported after a
 * change (the host keeps the bytes in the organization's files). Statements run as node-sqlite3
 * (Node-RED's node-red-node-sqlite) runs them: `all` the first statement of the text with its rows,
 * `exec` every statement; its errors in its words (`SQLITE_ERROR: no such table: t`).
 *
 * The worker is shared by every organization of the process, so a database is fenced: no ATTACH or
 * DETACH (VACUUM INTO is one), no PRAGMA outside a list of harmless ones, no extensions (the build
 * has none), a time limit per statement, a size limit per database, a length limit per value, and
 * a heap limit for all (set once, by the host's choice).
 */

/** PRAGMAs a flow may use: they read the schema or set a connection's own behaviour. */
const PRAGMAS = new Set([
  "application_id",
  "auto_vacuum",
  "case_sensitive_like",
  "collation_list",
  "data_version",
  "database_list",
  "defer_foreign_keys",
  "encoding",
  "foreign_key_check",
  "foreign_key_list",
  "foreign_keys",
  "freelist_count",
  "function_list",
  "ignore_check_constraints",
  "incremental_vacuum",
  "index_info",
  "index_list",
  "index_xinfo",
  "integrity_check",
  "journal_mode",
  "legacy_alter_table",
  "module_list",
  "optimize",
  "page_count",
  "pragma_list",
  "quick_check",
  "recursive_triggers",
  "reverse_unordered_selects",
  "schema_version",
  "secure_delete",
  "synchronous",
  "table_info",
  "table_list",
  "table_xinfo",
  "user_version",
]);

/** PRAGMAs that only read, even with an argument (`table_info(t)`): they do not make a database changed. */
const READING_PRAGMAS = new Set([
  "foreign_key_check",
  "foreign_key_list",
  "index_info",
  "index_list",
  "index_xinfo",
  "integrity_check",
  "quick_check",
  "table_info",
  "table_list",
  "table_xinfo",
]);

/** Authorizer actions that only read: anything else may change the database. */
type Codes = Record<string, number>;

interface Held {
  db: Database;
  readonly: boolean;
  /** A statement since the last export may have changed the database. */
  dirty: boolean;
  deadline: number;
  /** Why the authorizer refused, for the error's message. */
  refused?: string;
  /** The statement being prepared begins a transaction. */
  begins: boolean;
  /** The op is a plain VACUUM. */
  vacuum: boolean;
  statementMs: number;
}

const failure = (code: string, errno: number, message: string): SqliteFailure => ({ code, errno, message: `${code}: ${message}` });

export class SqliteEngine {
  private readonly held = new Map<string, Held>();
  private readonly capi: Sqlite3Static["capi"];
  private readonly codes: Codes;
  private readonly reading: Set<number>;

  constructor(
    private readonly sqlite3: Sqlite3Static,
    heapLimitBytes: number,
  ) {
    this.capi = sqlite3.capi;
    this.codes = sqlite3.capi as unknown as Codes;
    const c = this.codes;
    this.reading = new Set([c.SQLITE_READ!, c.SQLITE_SELECT!, c.SQLITE_TRANSACTION!, c.SQLITE_SAVEPOINT!, c.SQLITE_FUNCTION!, c.SQLITE_RECURSIVE!]);
    // One heap for every database of the worker: a query that would take more fails (SQLITE_NOMEM).
    const scratch = new sqlite3.oo1.DB(":memory:", "c");
    try {
      scratch.exec(`PRAGMA hard_heap_limit = ${Math.max(8 << 20, Math.floor(heapLimitBytes))}`);
    } finally {
      scratch.close();
    }
  }

  open(key: string, bytes: Uint8Array | null, mode: SqliteMode, limits: SqliteLimits): SqliteFailure | undefined {
    this.close(key);
    const { capi, sqlite3 } = this;
    const db = new sqlite3.oo1.DB(":memory:", "c");
    try {
      if (bytes && bytes.byteLength > 0) {
        const pointer = sqlite3.wasm.allocFromTypedArray(bytes);
        const flags = capi.SQLITE_DESERIALIZE_FREEONCLOSE | (mode === "RO" ? capi.SQLITE_DESERIALIZE_READONLY : capi.SQLITE_DESERIALIZE_RESIZEABLE);
        const rc = capi.sqlite3_deserialize(db, "main", pointer, bytes.byteLength, bytes.byteLength, flags);
        if (rc !== 0) {
          db.close();
          return failure("SQLITE_NOTADB", 26, "file is not a database");
        }
        // Deserialized bytes are read lazily: a file that is not a database fails here, not at the first query.
        try {
          db.exec("SELECT count(*) FROM sqlite_schema");
        } catch {
          db.close();
          return failure("SQLITE_NOTADB", 26, "file is not a database");
        }
      }
      const pageSize = Number(db.selectValue("PRAGMA page_size") ?? 4096);
      const pages = Math.max(1, Math.floor(limits.maxDatabaseBytes / pageSize));
      // The database and its temporary tables (kept in memory) each within one file's size; a small
      // page cache (the database is in memory already).
      db.exec(`PRAGMA max_page_count = ${pages}; PRAGMA temp.max_page_count = ${pages}; PRAGMA cache_size = -1024`);
      capi.sqlite3_limit(db, capi.SQLITE_LIMIT_LENGTH, limits.maxValueBytes);
      capi.sqlite3_limit(db, capi.SQLITE_LIMIT_SQL_LENGTH, limits.maxValueBytes);
      // VACUUM attaches one database of its own; a flow's ATTACH is refused by the authorizer.
      capi.sqlite3_limit(db, capi.SQLITE_LIMIT_ATTACHED, 1);
      // A database file may come from anywhere (an upload): no writes to its internals, no trust in its schema's functions.
      capi.sqlite3_db_config(db, capi.SQLITE_DBCONFIG_DEFENSIVE, 1, 0);
      capi.sqlite3_db_config(db, capi.SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, 0);
      // Read-only, for a database in memory too (SQLITE_READONLY: attempt to write a readonly database).
      if (mode === "RO") db.exec("PRAGMA query_only = ON");
    } catch (err) {
      db.close();
      return this.failureOf(undefined, err);
    }
    const held: Held = { db, readonly: mode === "RO", dirty: false, begins: false, vacuum: false, deadline: Number.POSITIVE_INFINITY, statementMs: limits.statementMs };
    capi.sqlite3_progress_handler(db, 1000, () => (Date.now() > held.deadline ? 1 : 0), 0);
    capi.sqlite3_set_authorizer(db, (_user: number, action: number, a: string | number, b: string | number) => this.authorize(held, action, a, b), 0);
    this.held.set(key, held);
    return undefined;
  }

  private authorize(held: Held, action: number, a: string | number, b: string | number): number {
    const c = this.codes;
    // VACUUM attaches a temporary database of its own (its name is empty); only a statement that is VACUUM alone may.
    if (action === c.SQLITE_ATTACH && a === "" && held.vacuum) {
      held.dirty = true;
      return 0;
    }
    if (action === c.SQLITE_ATTACH || action === c.SQLITE_DETACH) {
      held.refused = "ATTACH, DETACH and VACUUM INTO are not offered: a database is one of the organization's files";
      return c.SQLITE_DENY!;
    }
    if (action === c.SQLITE_PRAGMA) {
      const name = typeof a === "string" ? a.toLowerCase() : "";
      if (!PRAGMAS.has(name)) {
        held.refused = `PRAGMA ${name} is not offered in the shared runtime`;
        return c.SQLITE_DENY!;
      }
      if (b !== 0 && b !== null && b !== undefined && !READING_PRAGMAS.has(name)) held.dirty = true;
      return 0;
    }
    // BEGIN, or a SAVEPOINT outside a transaction (it opens one): either may hold what follows.
    if ((action === c.SQLITE_TRANSACTION || action === c.SQLITE_SAVEPOINT) && a === "BEGIN") held.begins = true;
    if (action === c.SQLITE_FUNCTION && typeof b === "string" && b.toLowerCase() === "load_extension") {
      held.refused = "extensions are not offered in the shared runtime";
      return c.SQLITE_DENY!;
    }
    if (!this.reading.has(action)) held.dirty = true;
    return 0;
  }

  close(key: string): void {
    const held = this.held.get(key);
    if (!held) return;
    this.held.delete(key);
    held.db.close();
  }

  /**
   * Runs the ops in order (each stands alone: one failing does not stop the next). `bytes`: the
   * database after them, when one may have changed it and no transaction is open. The results may
   * be fewer than the ops: a batch stops before an op that would open a transaction (or a script)
   * after changes not yet written back, so they are written back first; the host runs the rest next.
   */
  run(key: string, ops: SqliteOp[], limits: SqliteLimits, writeBack = true): { results: SqliteOpResult[]; bytes?: Uint8Array; inTransaction: boolean } {
    const held = this.held.get(key);
    if (!held) return { results: ops.map(() => ({ ok: false, error: failure("SQLITE_MISUSE", 21, "the database is not open") })), inTransaction: false };
    held.statementMs = limits.statementMs;
    const results: SqliteOpResult[] = [];
    let resultBytes = 0;
    const started = Date.now();
    for (let i = 0; i < ops.length; i++) {
      // The rows of one reply stay within one result's bound, and a batch within one statement's
      // time (so the host's deadline for a reply is short): the rest of the batch runs next.
      if (i > 0 && (resultBytes > limits.maxResultBytes || Date.now() - started > limits.statementMs)) break;
      const committedChanges = writeBack && i > 0 && held.dirty && this.capi.sqlite3_get_autocommit(held.db) !== 0;
      const result = this.runOne(held, ops[i]!, limits, committedChanges);
      if (result === "stop") break;
      results.push(result);
      if (result.ok) resultBytes += result.size;
    }
    const inTransaction = this.capi.sqlite3_get_autocommit(held.db) === 0;
    if (!writeBack || !held.dirty || inTransaction || held.readonly) return { results, inTransaction };
    // An export that fails (out of memory) fails the whole request: the host reloads, and nothing of it counts.
    const bytes = this.capi.sqlite3_js_db_export(held.db);
    held.dirty = false;
    return { results, bytes, inTransaction };
  }

  /** The database's bytes as they are (a new database's first file). */
  export(key: string): Uint8Array | undefined {
    const held = this.held.get(key);
    return held ? this.capi.sqlite3_js_db_export(held.db) : undefined;
  }

  private runOne(held: Held, op: SqliteOp, limits: SqliteLimits, committedChanges: boolean): SqliteOpResult | "stop" {
    held.refused = undefined;
    held.begins = false;
    held.vacuum = op.kind === "all" && /^\s*vacuum(\s+main)?\s*;?\s*$/i.test(op.sql);
    held.deadline = Date.now() + limits.statementMs;
    let stmt: PreparedStatement | undefined;
    try {
      if (op.kind === "exec") {
        // A script may open a transaction: changes before it are written back first.
        if (committedChanges) return "stop";
        held.db.exec(op.sql);
        return { ok: true, rows: [], size: 0 };
      }
      stmt = held.db.prepare(op.sql);
      if (committedChanges && held.begins) return "stop";
      const bound = this.bind(stmt, op.params);
      if (bound) return { ok: false, error: bound };
      const rows: Array<Record<string, unknown>> = [];
      let size = 0;
      const perRow = 32;
      const names: string[] = [];
      for (let i = 0; i < stmt.columnCount; i++) names.push(stmt.getColumnName(i) ?? "");
      // Each row carries its column names again when it is posted: they count.
      const namesSize = names.reduce((n, name) => n + name.length, 0);
      while (stmt.step()) {
        size += perRow + namesSize;
        const row: Record<string, unknown> = {};
        for (let i = 0; i < names.length; i++) {
          let value = stmt.get(i) as unknown;
          if (typeof value === "bigint") value = Number(value);
          size += typeof value === "string" ? value.length : value instanceof Uint8Array ? value.byteLength : 8;
          // An own property even for a column named __proto__ (never the row's prototype).
          Object.defineProperty(row, names[i]!, { value, enumerable: true, writable: true, configurable: true });
        }
        rows.push(row);
        if (size > limits.maxResultBytes) {
          return { ok: false, error: failure("SQLITE_TOOBIG", 18, `the result holds more than ${limits.maxResultBytes} bytes: select fewer rows or columns (LIMIT)`) };
        }
      }
      return { ok: true, rows, size };
    } catch (err) {
      return { ok: false, error: this.failureOf(held, err) };
    } finally {
      held.deadline = Number.POSITIVE_INFINITY;
      stmt?.finalize();
    }
  }

  /** Binds as node-sqlite3 does: an array by position, an object by name (`$id`) or index ("1"). */
  private bind(stmt: PreparedStatement, params: SqliteOp["params"]): SqliteFailure | undefined {
    if (params === undefined) return undefined;
    const { capi } = this;
    const count = stmt.parameterCount;
    const range = failure("SQLITE_RANGE", 25, "column index out of range");
    const one = (index: number, value: SqliteValue) => {
      if (index < 1 || index > count) return range;
      if (typeof value === "number" && Number.isInteger(value) && value >= -2147483648 && value <= 2147483647) capi.sqlite3_bind_int(stmt, index, value);
      else if (typeof value === "number") capi.sqlite3_bind_double(stmt, index, value);
      else if (typeof value === "boolean") capi.sqlite3_bind_int(stmt, index, value ? 1 : 0);
      else stmt.bind(index, value);
      return undefined;
    };
    if (Array.isArray(params)) {
      for (let i = 0; i < params.length; i++) {
        const problem = one(i + 1, params[i] ?? null);
        if (problem) return problem;
      }
      return undefined;
    }
    for (const [name, value] of Object.entries(params)) {
      const index = /^\d+$/.test(name) ? Number(name) : capi.sqlite3_bind_parameter_index(stmt, name);
      const problem = one(index, value);
      if (problem) return problem;
    }
    return undefined;
  }

  private failureOf(held: Held | undefined, err: unknown): SqliteFailure {
    const rc = typeof (err as { resultCode?: unknown })?.resultCode === "number" ? (err as { resultCode: number }).resultCode : undefined;
    if (rc === undefined || !held) {
      const text = err instanceof Error ? err.message : String(err);
      return { code: "SQLITE_ERROR", errno: 1, message: text.startsWith("SQLITE_") ? text.replace(/ sqlite3 result code \d+:/, "") : `SQLITE_ERROR: ${text}` };
    }
    const primary = rc & 0xff;
    const code = this.capi.sqlite3_js_rc_str(primary) ?? "SQLITE_ERROR";
    let message = this.capi.sqlite3_errmsg(held.db);
    // An error of the JavaScript binding itself (SQLite has none to report).
    if (message === "not an error") message = err instanceof Error ? err.message : String(err);
    if (primary === this.codes.SQLITE_AUTH && held.refused) message = `${message} (${held.refused})`;
    if (primary === this.codes.SQLITE_INTERRUPT) message = `${message} (a statement may run for at most ${held.statementMs} ms)`;
    return { code, errno: primary, message: `${code}: ${message}` };
  }
}
