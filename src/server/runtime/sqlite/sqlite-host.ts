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
  /** The most statements run together before a write-back. */
  batchSize?: number;
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
  private ready: Promise<void> | undefined;
  private readonly waiting = new Map<number, { resolve(reply: SqliteReply): void; reject(err: Error): void; timer: NodeJS.Timeout }>();
  private nextId = 1;
  /** Bumped each time a worker goes: databases loaded in an earlier one must be loaded again. */
  generation = 0;

  constructor(private readonly heapLimitBytes: number) {}

  private start(): Promise<void> {
    if (this.ready) return this.ready;
    const { url, execArgv } = workerEntry();
    const worker = new Worker(url, {
      execArgv,
      workerData: { heapLimitBytes: this.heapLimitBytes },
      // Rows are built here before they are posted: a huge result fails this thread, not the server.
      resourceLimits: { maxOldGenerationSizeMb: 512 },
    });
    this.worker = worker;
    this.ready = new Promise<void>((resolve, reject) => {
      const failed = (err: Error) => {
        this.lost(worker, err);
        reject(err);
      };
      worker.once("error", failed);
      worker.once("exit", (code) => failed(new Error(`the SQLite worker stopped (exit code ${code})`)));
      worker.on("message", (reply: SqliteReply | { t: "ready" }) => {
        if (reply.t === "ready") return resolve();
        const entry = this.waiting.get(reply.id);
        if (!entry) return;
        this.waiting.delete(reply.id);
        clearTimeout(entry.timer);
        entry.resolve(reply);
        if (this.waiting.size === 0) worker.unref();
      });
    });
    return this.ready;
  }

  private lost(worker: Worker, err: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.ready = undefined;
    this.generation++;
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const entry of waiting) {
      clearTimeout(entry.timer);
      entry.reject(err);
    }
  }

  async request<R extends SqliteReply>(request: WithoutId<SqliteRequest>, hardMs: number): Promise<R> {
    await this.start();
    const worker = this.worker!;
    const id = this.nextId++;
    return new Promise<R>((resolve, reject) => {
      // The statement's own limit interrupts it; this one is for a worker that stopped answering.
      const timer = setTimeout(() => {
        const err = new Error("the SQLite worker did not answer in time and was restarted");
        this.lost(worker, err);
        void worker.terminate();
      }, hardMs);
      timer.unref();
      this.waiting.set(id, { resolve: resolve as (reply: SqliteReply) => void, reject, timer });
      worker.ref();
      worker.postMessage({ ...request, id });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.lost(worker, new Error("the SQLite worker was closed"));
    await worker.terminate();
  }
}

class SharedDatabase {
  users = 0;
  /** The file's version loaded in the worker (null: no file yet), or undefined when nothing is loaded. */
  private version: number | null | undefined;
  private loadedIn = -1;
  private readonly queue: Pending[] = [];
  private running = false;

  constructor(
    readonly key: string,
    private readonly ref: SqliteRef,
    private readonly link: WorkerLink,
    private readonly options: SqliteHostOptions,
  ) {}

  submit(op: SqliteOp): Promise<Array<Record<string, unknown>>> {
    return new Promise((resolve, reject) => {
      this.queue.push({ op, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.options.batchSize ?? 64);
        try {
          await this.runBatch(batch);
        } catch (err) {
          const error = err instanceof Error ? err : new Error(String(err));
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

  /** Loads the file into the worker when the loaded copy is not the file's current version; false: it cannot be opened. */
  private async ensureLoaded(): Promise<SqliteFailure | undefined> {
    const { ref } = this;
    const fresh = this.loadedIn !== this.link.generation;
    if (ref.path === null) {
      if (!fresh) return undefined;
      return this.load(null, null);
    }
    const files = this.options.files;
    if (!files) return { code: "SQLITE_CANTOPEN", errno: 14, message: "SQLITE_CANTOPEN: unable to open database file (the organization's files are not available in this runtime)" };
    if (!fresh && this.version !== undefined && (await files.version(ref.organizationId, ref.path)) === this.version) return undefined;
    const file = await files.readVersioned(ref.organizationId, ref.path);
    if (!file && ref.mode !== "RWC") {
      this.version = undefined;
      return { code: "SQLITE_CANTOPEN", errno: 14, message: "SQLITE_CANTOPEN: unable to open database file" };
    }
    return this.load(file?.content ?? null, file?.version ?? null);
  }

  private async load(bytes: Uint8Array | null, version: number | null): Promise<SqliteFailure | undefined> {
    const generation = this.link.generation;
    const reply = await this.link.request<Extract<SqliteReply, { t: "opened" }>>({ t: "open", key: this.key, bytes, mode: this.ref.mode, limits: this.options.limits }, this.hardMs);
    if (reply.error) {
      this.version = undefined;
      return reply.error;
    }
    this.version = version;
    this.loadedIn = generation;
    return undefined;
  }

  private async runBatch(batch: Pending[]): Promise<void> {
    const { ref } = this;
    for (let attempt = 0; ; attempt++) {
      const problem = await this.ensureLoaded();
      if (problem) {
        for (const pending of batch) pending.reject(sqliteError(problem));
        return;
      }
      const reply = await this.link.request<Extract<SqliteReply, { t: "ran" }>>(
        { t: "run", key: this.key, ops: batch.map((p) => p.op), limits: this.options.limits },
        this.options.limits.statementMs * batch.length + 10_000,
      );
      if (reply.bytes && ref.path !== null && this.options.files) {
        let written: number | false;
        try {
          written = await this.options.files.replaceIf(ref.organizationId, ref.path, reply.bytes, this.version ?? null);
        } catch (err) {
          // Past the organization's quota or a file's limit: nothing is kept, as a full disk in SQLite.
          this.version = undefined;
          const reason = err instanceof Error ? err.message : String(err);
          const full = sqliteError({ code: "SQLITE_FULL", errno: 13, message: `SQLITE_FULL: database or disk is full (${reason})` });
          for (const pending of batch) pending.reject(full);
          return;
        }
        if (written === false) {
          // Someone else wrote the file since it was loaded: run the batch again on theirs.
          this.version = undefined;
          if (attempt + 1 < CONFLICT_RETRIES) continue;
          const busy = sqliteError({ code: "SQLITE_BUSY", errno: 5, message: "SQLITE_BUSY: database is locked (it kept changing elsewhere while this ran)" });
          for (const pending of batch) pending.reject(busy);
          return;
        }
        this.version = written;
      }
      reply.results.forEach((result, i) => {
        const pending = batch[i]!;
        if (result.ok) pending.resolve(result.rows);
        else pending.reject(sqliteError(result.error));
      });
      return;
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

export class SqliteHost {
  private readonly link: WorkerLink;
  private readonly databases = new Map<string, SharedDatabase>();

  constructor(private readonly options: SqliteHostOptions) {
    this.link = new WorkerLink(options.heapLimitBytes);
  }

  get limits(): SqliteLimits {
    return this.options.limits;
  }

  /** The database `ref` names, shared with the other users of the same file and mode on this instance. */
  acquire(ref: SqliteRef): SqliteDatabase {
    const key = JSON.stringify(ref.path === null ? [ref.organizationId, "memory", ref.privateId] : [ref.organizationId, "file", ref.path, ref.mode]);
    let shared = this.databases.get(key);
    if (!shared) {
      shared = new SharedDatabase(key, ref, this.link, this.options);
      this.databases.set(key, shared);
    }
    shared.users++;
    const database = shared;
    let released = false;
    return {
      all: (sql, params) => database.submit({ kind: "all", sql, ...(params !== undefined ? { params } : {}) }),
      exec: async (sql) => {
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
