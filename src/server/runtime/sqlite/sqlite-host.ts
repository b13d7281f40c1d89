import { Worker } from "node:worker_threads";
import type { OrgFiles } from "../types";
import type { SqliteFailure, SqliteLimits, SqliteMode, SqliteOp, SqliteReply, SqliteRequest } from "./sqlite-protocol";

/**
 * SQLite databases for flows (node-red-node-sqlite's `sqlite` and `sqlitedb`): each database is one
 * of the organization's files (SPEC §23, in PostgreSQL, the same on every instance), run in memory
 * by one worker thread of this process (sqlite-worker.ts), and written back to the file after the
 * statements that changed it, before their messages go on.
 *
 * Several instances may use one database at once. Each batch of statements first compares the
 * file's version with the one loaded (a cheap read) and reloads it when another instance, a file
 * node or an upload changed it; the write-back is conditional on that version
 * (OrgFiles.replaceIf), and one that finds the file changed meanwhile reloads and runs the batch
 * again. So a database behaves as one SQLite file shared by several connections, with every write
 * committed to the organization's storage before its message is sent.
 *
 * Statements queued while a batch runs go together in the next one (one write-back for many
 * inserts). A transaction a flow begins (BEGIN … COMMIT over several messages) holds the write-back
 * until it ends; a change to the file by someone else meanwhile discards it (the next statement
 * finds the database reloaded).
 */

export interface SqliteHostOptions {
  files?: OrgFiles;
  limits: SqliteLimits;
  /** The heap of all databases of the worker together. */
  heapLimitBytes: number;
  /** The most statements run together before a write-back (default 1024; a batch's rows stay within one result's bound). */
  batchSize?: number;
  /** Databases one organization may hold open on the instance (default 32). */
  maxOpenPerOrganization?: number;
  /** Where a storage failure's detail goes (the server's log); the flow sees a generic SQLITE_IOERR. */
  log?: (err: unknown, message: string) => void;
}

/** A database as a node uses it: statements in, rows or node-sqlite3's error out. */
export interface SqliteDatabase {
  all(sql: string, params?: SqliteOp["params"]): Promise<Array<Record<string, unknown>>>;
  exec(sql: string): Promise<void>;
  release(): Promise<void>;
}

export interface SqliteRef {
  organizationId: string;
  /** The file (normalized, shared/file-paths.ts); null: an in-memory database private to `privateId`. */
  path: string | null;
  privateId: string;
  mode: SqliteMode;
}

/** An Error as node-sqlite3 makes one: `SQLITE_ERROR: no such table: t`, with `code` and `errno`. */
export function sqliteError(failure: SqliteFailure): Error & { code: string; errno: number } {
  const err = Object.assign(new Error(failure.message), { code: failure.code, errno: failure.errno });
  // node-sqlite3's errors are made in C++: their stack is their text alone, with no frame.
  err.stack = `Error: ${failure.message}`;
  return err;
}

interface Pending {
  op: SqliteOp;
  resolve(rows: Array<Record<string, unknown>>): void;
  reject(err: Error): void;
}

const CONFLICT_RETRIES = 3;

type WithoutId<T> = T extends unknown ? Omit<T, "id"> : never;

function workerEntry(): { url: URL; execArgv: string[] | undefined } {
  const here = import.meta.url;
  if (/\.[cm]?tsx?$/.test(new URL(here).pathname)) return { url: new URL("./sqlite-worker-boot.mjs", here), execArgv: [] };
  return { url: new URL("./sqlite-worker.js", here), execArgv: undefined };
}

/** The worker thread and its requests, answered in order. */
class WorkerLink {
  private worker: Worker | undefined;
  private ready: Promise<Worker> | undefined;
  /** Requests posted and not answered, in the order the worker answers them. */
  private readonly waiting: Array<{ id: number; hardMs: number; resolve(reply: SqliteReply): void; reject(err: Error): void }> = [];
  private timer: NodeJS.Timeout | undefined;
  private nextId = 1;
  /** Bumped each time a worker goes: databases loaded in an earlier one must be loaded again. */
  generation = 0;
  closed = false;

  constructor(private readonly heapLimitBytes: number) {}

  private start(): Promise<Worker> {
    if (this.closed) return Promise.reject(sqliteError({ code: "SQLITE_MISUSE", errno: 21, message: "SQLITE_MISUSE: the SQLite databases of this instance are closed" }));
    if (this.ready) return this.ready;
    const { url, execArgv } = workerEntry();
    const worker = new Worker(url, {
      execArgv,
      workerData: { heapLimitBytes: this.heapLimitBytes },
      // Rows are built here before they are posted: a huge result fails this thread, not the server.
      resourceLimits: { maxOldGenerationSizeMb: 512 },
    });
    this.worker = worker;
    this.ready = new Promise<Worker>((resolve, reject) => {
      const failed = (err: Error) => {
        clearTimeout(booting);
        this.lost(worker, err);
        reject(err);
      };
      // A worker that never gets ready (it hangs loading SQLite) is given up, and the next request starts another.
      const booting = setTimeout(() => {
        failed(new Error("the SQLite worker did not start in time"));
        void worker.terminate();
      }, 30_000);
      booting.unref();
      worker.once("error", failed);
      worker.once("exit", (code) => failed(new Error(`the SQLite worker stopped (exit code ${code})`)));
      worker.on("message", (reply: SqliteReply | { t: "ready" }) => {
        if (reply.t === "ready") {
          clearTimeout(booting);
          return resolve(worker);
        }
        const head = this.waiting[0];
        if (!head || head.id !== reply.id) return;
        this.waiting.shift();
        this.armHead(worker);
        head.resolve(reply);
        if (this.waiting.length === 0) worker.unref();
      });
    });
    return this.ready;
  }

  /**
   * Times the request at the head of the queue only (the worker answers one at a time, so one
   * waiting behind others has not started): its statements' own limits interrupt them; this
   * deadline is for a worker that stopped answering.
   */
  private armHead(worker: Worker): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const head = this.waiting[0];
    if (!head) return;
    this.timer = setTimeout(() => {
      this.lost(worker, new Error("the SQLite worker did not answer in time and was restarted"));
      void worker.terminate();
    }, head.hardMs);
    this.timer.unref();
  }

  private lost(worker: Worker, err: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.ready = undefined;
    this.generation++;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    // Said as SQLite would: the statement was abandoned (not a storage failure).
    const abandoned = sqliteError(aborted(err.message));
    for (const entry of this.waiting.splice(0)) entry.reject(abandoned);
  }

  async request<R extends SqliteReply>(request: WithoutId<SqliteRequest>, hardMs: number): Promise<R> {
    const worker = await this.start();
    // Lost while this waited for it: the next request starts another.
    if (this.worker !== worker) throw sqliteError(aborted("the SQLite worker stopped"));
    const id = this.nextId++;
    const reply = await new Promise<SqliteReply>((resolve, reject) => {
      // Posted first: a message that cannot be posted leaves nothing waiting for an answer.
      worker.postMessage({ ...request, id });
      this.waiting.push({ id, hardMs, resolve, reject });
      if (this.waiting.length === 1) this.armHead(worker);
      worker.ref();
    });
    if (reply.t === "failed") throw sqliteError(reply.error);
    return reply as R;
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    this.lost(worker, new Error("the SQLite worker was closed"));
    await worker.terminate();
  }
}

/** The file store's refusals a flow may read (past a size or a quota); anything else stays in the server's log. */
function storageFailure(err: unknown, log: SqliteHostOptions["log"]): SqliteFailure {
  const code = (err as { code?: unknown })?.code;
  if (code === "PAYLOAD_TOO_LARGE" || code === "FILES_QUOTA_EXCEEDED") {
    return { code: "SQLITE_FULL", errno: 13, message: `SQLITE_FULL: database or disk is full (${(err as Error).message})` };
  }
  log?.(err, "a SQLite database could not be read or written in the organization's files");
  return { code: "SQLITE_IOERR", errno: 10, message: "SQLITE_IOERR: disk I/O error (the organization's files could not be reached; try again)" };
}

const aborted = (why: string): SqliteFailure => ({ code: "SQLITE_ABORT", errno: 4, message: `SQLITE_ABORT: ${why}` });

class SharedDatabase {
  users = 0;
  /** The file's version loaded in the worker (null: no file yet), or undefined when nothing is loaded. */
  private version: number | null | undefined;
  private loadedIn = -1;
  /** The file does not exist yet (RWC): it is written at the first batch, changed or not, as SQLite creates it at open. */
  private create = false;
  /** A transaction a statement began is open in the worker's copy. */
  private inTransaction = false;
  private readonly queue: Pending[] = [];
  private running = false;

  constructor(
    readonly key: string,
    private readonly ref: SqliteRef,
    private readonly link: WorkerLink,
    private readonly options: SqliteHostOptions,
  ) {}

  get organizationId(): string {
    return this.ref.organizationId;
  }

  submit(op: SqliteOp): Promise<Array<Record<string, unknown>>> {
    return new Promise((resolve, reject) => {
      this.queue.push({ op, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    // Statements submitted in the same turn (a burst of messages) go in the first batch together.
    await Promise.resolve();
    try {
      while (this.queue.length > 0) {
        // Everything waiting goes in one batch (up to batchSize), so one write-back carries many
        // changes: the longer a write-back takes (a large database), the more wait for the next.
        const batch = this.queue.splice(0, this.options.batchSize ?? 1024);
        try {
          const done = await this.runBatch(batch);
          // The worker stopped before an op that opens a transaction: the rest goes first in the next batch.
          if (done < batch.length) this.queue.unshift(...batch.slice(done));
        } catch (err) {
          const error = isSqliteError(err) ? err : sqliteError(storageFailure(err, this.options.log));
          // The copy is reloaded before the next batch (a transaction open on it is reported lost then).
          this.version = undefined;
          for (const pending of batch) pending.reject(error);
        }
      }
    } finally {
      this.running = false;
    }
  }

  private get hardMs(): number {
    return this.options.limits.statementMs * 2 + 10_000;
  }

  /**
   * Loads the file into the worker when the loaded copy is not the file's current version; a
   * failure when it cannot be opened, or when a transaction open on the old copy was lost.
   */
  private async ensureLoaded(): Promise<SqliteFailure | undefined> {
    const { ref } = this;
    const fresh = this.loadedIn !== this.link.generation;
    if (ref.path === null) {
      if (!fresh) return undefined;
      const lost = this.loadedIn !== -1;
      const problem = await this.load(null, null);
      // Node-RED's :memory: database lives as long as its connection: a restarted worker's is a new one, and says so.
      if (!problem && lost) return aborted("the in-memory database was lost (the SQLite worker restarted) and is empty again");
      return problem;
    }
    const files = this.options.files;
    if (!files) return { code: "SQLITE_CANTOPEN", errno: 14, message: "SQLITE_CANTOPEN: unable to open database file (the organization's files are not available in this runtime)" };
    if (!fresh && this.version !== undefined && (await files.version(ref.organizationId, ref.path)) === this.version) return undefined;
    // A transaction open on the copy that is replaced (changed elsewhere, or lost with a worker) is gone: said, never silently.
    const wasInTransaction = this.inTransaction;
    const file = await files.readVersioned(ref.organizationId, ref.path);
    if (!file && ref.mode !== "RWC") {
      this.version = undefined;
      await this.close();
      return { code: "SQLITE_CANTOPEN", errno: 14, message: "SQLITE_CANTOPEN: unable to open database file" };
    }
    const problem = await this.load(file?.content ?? null, file?.version ?? null);
    this.create = !problem && !file;
    if (!problem && wasInTransaction) return aborted("the transaction was rolled back: the database was changed elsewhere (another instance, an upload) while it was open");
    return problem;
  }

  private async load(bytes: Uint8Array | null, version: number | null): Promise<SqliteFailure | undefined> {
    const generation = this.link.generation;
    this.inTransaction = false;
    const reply = await this.link.request<Extract<SqliteReply, { t: "opened" }>>({ t: "open", key: this.key, bytes, mode: this.ref.mode, limits: this.options.limits }, this.hardMs);
    if (reply.error) {
      this.version = undefined;
      return reply.error;
    }
    this.version = version;
    this.loadedIn = generation;
    return undefined;
  }

  /** Runs a batch; how many of its ops ran (the rest are run next). */
  private async runBatch(batch: Pending[]): Promise<number> {
    const { ref } = this;
    for (let attempt = 0; ; attempt++) {
      const problem = await this.ensureLoaded();
      if (problem) {
        for (const pending of batch) pending.reject(sqliteError(problem));
        return batch.length;
      }
      const startedInTransaction = this.inTransaction;
      const reply = await this.link.request<Extract<SqliteReply, { t: "ran" }>>(
        { t: "run", key: this.key, ops: batch.map((p) => p.op), limits: this.options.limits, writeBack: ref.path !== null },
        // A batch stops after one statement's time (the worker's rule), whose own limit interrupts it: two, and a margin.
        this.hardMs,
      );
      this.inTransaction = reply.inTransaction;
      let bytes = reply.bytes;
      if (!bytes && this.create && !reply.inTransaction && ref.mode === "RWC") {
        bytes = (await this.link.request<Extract<SqliteReply, { t: "exported" }>>({ t: "export", key: this.key }, this.hardMs)).bytes;
      }
      if (bytes && ref.path !== null && this.options.files) {
        let written: number | false;
        try {
          written = await this.options.files.replaceIf(ref.organizationId, ref.path, bytes, this.version ?? null);
        } catch (err) {
          // Past the organization's quota or a file's limit: nothing is kept, as a full disk in SQLite.
          this.version = undefined;
          const failure = sqliteError(storageFailure(err, this.options.log));
          for (const pending of batch.slice(0, reply.results.length)) pending.reject(failure);
          return reply.results.length;
        }
        if (written === false) {
          this.version = undefined;
          if (startedInTransaction) {
            // Earlier statements of this transaction were answered already: it cannot run again, it is lost.
            this.inTransaction = false;
            const lost = sqliteError(aborted("the transaction was rolled back: the database was changed elsewhere (another instance, an upload) while it was open"));
            for (const pending of batch.slice(0, reply.results.length)) pending.reject(lost);
            return reply.results.length;
          }
          // Someone else wrote the file since it was loaded: run the batch again on theirs.
          if (attempt + 1 < CONFLICT_RETRIES) continue;
          const busy = sqliteError({ code: "SQLITE_BUSY", errno: 5, message: "SQLITE_BUSY: database is locked (it kept changing elsewhere while this ran)" });
          for (const pending of batch.slice(0, reply.results.length)) pending.reject(busy);
          return reply.results.length;
        }
        this.version = written;
        this.create = false;
      }
      reply.results.forEach((result, i) => {
        const pending = batch[i]!;
        if (result.ok) pending.resolve(result.rows);
        else pending.reject(sqliteError(result.error));
      });
      return reply.results.length;
    }
  }

  async close(): Promise<void> {
    if (this.loadedIn !== this.link.generation) return;
    this.loadedIn = -1;
    try {
      await this.link.request({ t: "close", key: this.key }, this.hardMs);
    } catch {
      // A worker that went away holds nothing.
    }
  }
}

function isSqliteError(err: unknown): err is Error & { code: string } {
  const code = (err as { code?: unknown } | null)?.code;
  return err instanceof Error && typeof code === "string" && code.startsWith("SQLITE_");
}

export class SqliteHost {
  private readonly link: WorkerLink;
  private readonly databases = new Map<string, SharedDatabase>();

  constructor(private readonly options: SqliteHostOptions) {
    this.link = new WorkerLink(options.heapLimitBytes);
  }

  /**
   * The database `ref` names as one connection: the users of one configuration node (of one
   * revision, for :memory:) on this instance share it, as Node-RED's nodes share their sqlitedb's.
   */
  acquire(ref: SqliteRef): SqliteDatabase {
    const key = JSON.stringify(ref.path === null ? [ref.organizationId, "memory", ref.privateId] : [ref.organizationId, "file", ref.path, ref.mode, ref.privateId]);
    let shared = this.databases.get(key);
    if (!shared) {
      const open = [...this.databases.values()].filter((d) => d.organizationId === ref.organizationId).length;
      const max = this.options.maxOpenPerOrganization ?? 32;
      if (open >= max) return refused(sqliteError({ code: "SQLITE_CANTOPEN", errno: 14, message: `SQLITE_CANTOPEN: unable to open database file (an organization may have ${max} databases open on an instance)` }));
      shared = new SharedDatabase(key, ref, this.link, this.options);
      this.databases.set(key, shared);
    }
    shared.users++;
    const database = shared;
    let released = false;
    const gone = () => Promise.reject(sqliteError({ code: "SQLITE_MISUSE", errno: 21, message: "SQLITE_MISUSE: the database was closed" }));
    return {
      all: (sql, params) => (released ? gone() : database.submit({ kind: "all", sql, ...(params !== undefined ? { params } : {}) })),
      exec: async (sql) => {
        if (released) return gone();
        await database.submit({ kind: "exec", sql });
      },
      release: async () => {
        if (released) return;
        released = true;
        database.users--;
        if (database.users > 0) return;
        if (this.databases.get(key) === database) this.databases.delete(key);
        await database.close();
      },
    };
  }

  async close(): Promise<void> {
    this.databases.clear();
    await this.link.close();
  }
}

function refused(error: Error): SqliteDatabase {
  return { all: () => Promise.reject(error), exec: () => Promise.reject(error), release: async () => undefined };
}
