import { parentPort, workerData } from "node:worker_threads";
import type { Sqlite3Static } from "@sqlite.org/sqlite-wasm";
import { SqliteEngine } from "./sqlite-engine";
import type { SqliteReply, SqliteRequest } from "./sqlite-protocol";

/**
 * The SQLite worker thread (sqlite-host.ts starts it when a flow first opens a database): statements
 * run here, never on the thread that serves requests and runs flows. Requests are answered one at
 * a time, in order.
 */
const port = parentPort;
if (!port) throw new Error("sqlite-worker runs as a worker thread");

const { default: init } = (await import("@sqlite.org/sqlite-wasm")) as unknown as { default: (options: object) => Promise<Sqlite3Static> };
// SQLite's own diagnostics (sqlite3_step() rc=…) stay out of the server's log: errors are reported to the node.
const sqlite3 = await init({ print: () => {}, printErr: () => {} });
const engine = new SqliteEngine(sqlite3, (workerData as { heapLimitBytes: number }).heapLimitBytes);

port.on("message", (request: SqliteRequest) => {
  let reply: SqliteReply;
  switch (request.t) {
    case "open": {
      const error = engine.open(request.key, request.bytes, request.mode, request.limits);
      reply = { t: "opened", id: request.id, ...(error ? { error } : {}) };
      break;
    }
    case "run": {
      const ran = engine.run(request.key, request.ops, request.limits);
      reply = { t: "ran", id: request.id, ...ran };
      port.postMessage(reply, ran.bytes ? [ran.bytes.buffer as ArrayBuffer] : []);
      return;
    }
    case "close":
      engine.close(request.key);
      reply = { t: "closed", id: request.id };
      break;
  }
  port.postMessage(reply);
});
port.postMessage({ t: "ready" });
