import { sqliteNode } from "./definition";
import { defineBehaviour } from "../types";
import { DONE_LATER, type Message, type Send } from "../../runtime/types";
import { normalizeFilePath } from "../../../shared/file-paths";
import { MEMORY_DATABASE, type SqlitedbConfig } from "../sqlitedb/definition";
import type { SqliteDatabase } from "../../runtime/sqlite/sqlite-host";
import type { SqliteParams, SqliteValue } from "../../runtime/sqlite/sqlite-protocol";

/** A message's value as node-sqlite3 binds it: dates as their milliseconds, any other object (arrays too) as "[object Object]". */
function bindable(value: unknown): SqliteValue {
  if (value === null || value === undefined) return null;
  if (typeof value === "number" || typeof value === "string" || typeof value === "boolean") return value;
  if (value instanceof Uint8Array) return value;
  if (value instanceof Date) return value.getTime();
  if (typeof value === "bigint") return Number(value);
  return "[object Object]";
}

function paramsOf(value: unknown): SqliteParams {
  if (Array.isArray(value)) return value.map(bindable);
  // node-sqlite3 binds a buffer or a date given as the parameters as one value, the first.
  if (value instanceof Uint8Array || value instanceof Date) return [bindable(value)];
  const out: Record<string, SqliteValue> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = bindable(v);
  return out;
}

/** Rows as node-sqlite3 gives them: blobs are Buffers. */
function withBuffers(rows: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  for (const row of rows) {
    for (const key of Object.keys(row)) {
      const value = row[key];
      if (value instanceof Uint8Array && !Buffer.isBuffer(value)) row[key] = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    }
  }
  return rows;
}

/**
 * node-red-node-sqlite 1.1's `sqlite` node (sqlite.js SqliteNodeIn), mode by mode, on the
 * organization's databases (runtime/sqlite/sqlite-host.ts). Its help says where it differs.
 */
export const sqliteBehaviour = defineBehaviour(sqliteNode, (ctx, c) => {
  const handle = c.mydb ? ctx.configNode<SqlitedbConfig>(c.mydb, "sqlitedb") : undefined;
  ctx.status(null);
  if (!handle) {
    ctx.log.error("Sqlite database not configured");
    return {};
  }
  const { db: name, mode } = handle.config;
  const host = ctx.services.sqlite;
  let database: SqliteDatabase | undefined;
  let problem: string | undefined;
  if (!host) problem = "SQLite databases are not available in this runtime";
  else if (name === MEMORY_DATABASE) {
    database = host.acquire({ organizationId: ctx.organizationId, path: null, privateId: `${handle.id}:${handle.revision}`, mode });
  } else {
    const path = normalizeFilePath(name);
    if (!path.ok) problem = `invalid database "${name.slice(0, 200)}": ${path.problem}`;
    else database = host.acquire({ organizationId: ctx.organizationId, path: path.path, privateId: handle.id, mode });
  }
  if (problem) ctx.log.error(`failed to open ${name}: ${problem}`);
  ctx.status({ fill: "green", shape: "dot", text: mode });

  const fail = (text: string, status: string, msg?: Message) => {
    ctx.log.error(text, msg);
    ctx.status({ fill: "red", shape: "dot", text: status });
  };
  const nothing = async () => () => undefined;

  /**
   * Starts the message's statement now (the database runs statements in the order they come, and
   * those that come together are written back together), and gives what to do once it is the
   * message's turn: send it with its rows, or report its error. Checks that fail are reported in
   * turn as well.
   */
  function start(msg: Message, send: Send): Promise<() => void> {
    if (!database) return Promise.resolve(() => (problem ? ctx.log.error(`failed to open ${name}: ${problem}`, msg) : undefined));
    const db = database;
    const run = (work: Promise<Array<Record<string, unknown>>>) =>
      work.then(
        (rows) => () => {
          msg.payload = withBuffers(rows);
          send(msg);
        },
        (err: unknown) => () => ctx.log.error(err, msg),
      );
    const sql = c.sql;
    switch (c.sqlquery) {
      case "msg.topic": {
        if (typeof msg.topic !== "string") return Promise.resolve(() => fail("msg.topic : the query is not defined as a string", "msg.topic error", msg));
        if (msg.topic.length === 0) return nothing();
        const topic = msg.topic;
        // node-red-node-sqlite binds the payload only when it has as many values as the SQL has "$".
        const bind = Array.isArray(msg.payload) && msg.payload.length === topic.split("$").length - 1 ? paramsOf(msg.payload) : [];
        return run(db.all(topic, bind));
      }
      case "batch": {
        if (typeof msg.topic !== "string") return Promise.resolve(() => fail("msg.topic : the query is not defined as string", "msg.topic error", msg));
        if (msg.topic.length === 0) return nothing();
        return run(db.exec(msg.topic).then(() => []));
      }
      case "fixed":
        // An empty statement does nothing (node-red-node-sqlite's "not set up" error is for none at all).
        if (sql.length === 0) return nothing();
        return run(db.all(sql, []));
      case "prepared": {
        const params = msg.params;
        if (params !== undefined && typeof params === "object") {
          if (sql.length === 0) return nothing();
          return run(db.all(sql, params === null ? [null] : paramsOf(params)));
        }
        return Promise.resolve(() => {
          if (sql.length === 0) fail("Prepared statement config not set up", "Prepared statement not set up", msg);
          if (params === undefined) fail("msg.params not passed", "msg.params not defined");
          else if (typeof params !== "object") fail("msg.params not an object", "msg.params not an object");
        });
      }
    }
  }

  // Messages leave in the order they came, as node-sqlite3's queue answers a connection's statements.
  let queue: Promise<void> = Promise.resolve();
  return {
    input(msg, send, done): Promise<typeof DONE_LATER> {
      let outcome: Promise<() => void>;
      try {
        outcome = Object.prototype.hasOwnProperty.call(msg, "extension")
          ? Promise.resolve(() => ctx.log.error("SQLite extensions (msg.extension) are not loaded in the shared runtime", msg))
          : start(msg, send);
      } catch (err) {
        // A message whose parameters cannot be read (a getter that throws): its error in its turn.
        outcome = Promise.resolve(() => ctx.log.error(err, msg));
      }
      const run = queue.then(async () => {
        (await outcome)();
        done();
      });
      queue = run.catch(() => undefined);
      return run.then((): typeof DONE_LATER => DONE_LATER);
    },
    async close() {
      await queue;
      await database?.release();
    },
  };
});
