import { parentPort, workerData } from "node:worker_threads";
import type { Sqlite3Static } from "@sqlite.org/sqlite-wasm";
import { SqliteEngine } from "./sqlite-engine";
import type { SqliteReply, SqliteRequest } from "./sqlite-protocol";

/**
 * The SQLite worker thread (sqlite-host.ts starts it when a flow first opens a database): statements
 * run here, never on the thread that serves requests and runs flows. Requests are answered one at
 * a time, in order.
 */
if (!parentPort) throw new Error("sqlite-worker runs as a worker thread");
const port = parentPort;

const transfer = (bytes: Uint8Array | undefined): ArrayBuffer[] => (bytes && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? [bytes.buffer as ArrayBuffer] : []);

function answer(engine: SqliteEngine, request: SqliteRequest): { reply: SqliteReply; transferList: ArrayBuffer[] } {
  switch (request.t) {
    case "open": {
      const error = engine.open(request.key, request.bytes, request.mode, request.limits);
      return { reply: { t: "opened", id: request.id, ...(error ? { error } : {}) }, transferList: [] };
    }
    case "run": {
      const ran = engine.run(request.key, request.ops, request.limits, request.writeBack);
      return { reply: { t: "ran", id: request.id, ...ran }, transferList: transfer(ran.bytes) };
    }
    case "export": {
      const bytes = engine.export(request.key);
      return { reply: { t: "exported", id: request.id, ...(bytes ? { bytes } : {}) }, transferList: transfer(bytes) };
    }
    case "close":
      engine.close(request.key);
      return { reply: { t: "closed", id: request.id }, transferList: [] };
  }
}

function reply(engine: SqliteEngine, request: SqliteRequest): void {
  let answered: { reply: SqliteReply; transferList: ArrayBuffer[] };
  try {
    answered = answer(engine, request);
  } catch (err) {
    // Out of memory exporting a database, say: the request fails whole, the worker goes on.
    const text = err instanceof Error ? err.message : String(err);
    answered = { reply: { t: "failed", id: request.id, error: { code: "SQLITE_NOMEM", errno: 7, message: `SQLITE_NOMEM: ${text.slice(0, 200)}` } }, transferList: [] };
  }
  port.postMessage(answered.reply, answered.transferList);
}

async function start(): Promise<void> {
  const { default: init } = (await import("@sqlite.org/sqlite-wasm")) as unknown as { default: (options: object) => Promise<Sqlite3Static> };
  // SQLite's own diagnostics (sqlite3_step() rc=…) stay out of the server's log: errors are reported to the node.
  const sqlite3 = await init({ print: () => {}, printErr: () => {} });
  const engine = new SqliteEngine(sqlite3, (workerData as { heapLimitBytes: number }).heapLimitBytes);
  // The host asks nothing before "ready".
  port.on("message", (request: SqliteRequest) => reply(engine, request));
  port.postMessage({ t: "ready" });
}

// Not a top-level await: the host terminates a worker that hangs loading SQLite, and V8 ends the
// whole process when a worker is terminated while it evaluates a module with a top-level await
// ("Check failed: (location_) != nullptr"; denoland/deno#12930 works around the same V8 bug). A
// failed start is the worker's uncaught error, as it was.
start().catch((err: unknown) => {
  process.nextTick(() => {
    throw err;
  });
});
