import { createHash } from "node:crypto";
import { EventEmitter } from "node:events";
import net from "node:net";
import mysql from "mysql2";
import { defineBehaviour } from "../types";
import type { Done, Message, NodeContext, NodeStatus } from "../../runtime/types";
import type { OutboundRules } from "../../runtime/outbound";
import { MYSQL_CONNECTION_LIMIT, MYSQL_RESULT_BYTES, mysqlNode, type MysqlDatabaseConfig } from "./definition";

/**
 * node-red-node-mysql 3.0 (68-mysql.js) over mysql2, as Node-RED runs it (mysql-cases.ts, recorded
 * from Node-RED against a real server): a pool per database with its connection test, retry and
 * periodic check, the package's `:name` query format, statuses and errors. Ours: the connections
 * go through the outbound rules, one database's pool is shared by the flows of its revision on this
 * instance (SPEC §19), and an answer past MYSQL_RESULT_BYTES is refused.
 */

/** Node-RED's `mysqlReconnectTime` default. */
export const RECONNECT_MS = 20_000;
/** How often a connected database is asked its version (Node-RED's 290 s). */
export const CHECK_MS = 290_000;

type State = "connecting" | "connected" | string;

/** One database's pool and the state Node-RED's config node keeps (`connected`, "state" events). */
class MysqlLink extends EventEmitter {
  connected = false;
  state: State = "connecting";
  private connecting = false;
  private tick: NodeJS.Timeout | undefined;
  private check: NodeJS.Timeout | undefined;
  private closed = false;
  pool: mysql.Pool | undefined;

  constructor(
    private readonly options: mysql.PoolOptions,
    private readonly report: (err: unknown) => void,
  ) {
    super();
    this.setMaxListeners(0);
  }

  private setState(state: State) {
    this.state = state;
    this.emit("state", state);
  }

  connect() {
    if (!this.connected && !this.connecting && !this.closed) this.doConnect();
  }

  private doConnect() {
    // One retry at a time, none once closed (a closed link never opens a pool again).
    clearTimeout(this.tick);
    this.tick = undefined;
    if (this.closed || this.connecting) return;
    this.connecting = true;
    this.setState("connecting");
    try {
      this.pool ??= mysql.createPool(this.options);
      // A refused address throws from the socket's opening, inside mysql2's connection.
      this.pool.getConnection((err, connection) => this.tested(err, connection));
    } catch (err) {
      this.failed(err);
    }
  }

  private tested(err: NodeJS.ErrnoException | null, connection: mysql.PoolConnection) {
    this.connecting = false;
    if (this.closed) {
      connection?.release();
      return;
    }
    if (err) {
      this.failed(err);
      return;
    }
    this.connected = true;
    this.setState("connected");
    this.check ??= setInterval(() => this.checkVersion(), CHECK_MS);
    this.check.unref?.();
    connection.release();
  }

  private failed(err: unknown) {
    this.connecting = false;
    if (this.closed) return;
    const code = (err as { code?: unknown }).code;
    this.setState(typeof code === "string" ? code : err instanceof Error ? err.message : String(err));
    this.report(err);
    clearTimeout(this.tick);
    this.tick = setTimeout(() => this.doConnect(), RECONNECT_MS);
    this.tick.unref?.();
  }

  private checkVersion() {
    if (this.connecting || this.closed) return;
    this.pool?.query("SELECT version();", [], (err) => {
      // Node-RED shows "Bad Ping" on the configuration node, which no flow sees: here the error, then the test again.
      if (err && !this.closed) {
        this.report(err);
        this.doConnect();
      }
    });
  }

  async close() {
    this.closed = true;
    clearTimeout(this.tick);
    clearInterval(this.check);
    this.emit("state", " ");
    const pool = this.pool;
    this.pool = undefined;
    this.connected = false;
    if (pool) await new Promise<void>((resolve) => pool.end(() => resolve()));
  }
}

/** The package's query format for an object payload: each `:name` it has, escaped; others stay. */
function customQueryFormat(this: { escape(v: unknown): string }, query: string, values: unknown): string {
  if (!values) return query;
  const object = values as Record<string, unknown>;
  return query.replace(/:(\w+)/g, (text, key: string) => (Object.prototype.hasOwnProperty.call(object, key) ? this.escape(object[key]) : text));
}

/** A socket to the server under the outbound rules (a literal address checked first, a name resolved by the rules' lookup). */
function openSocket(outbound: OutboundRules | undefined, host: string, port: number): net.Socket {
  outbound?.checkHost(host);
  const lookup = outbound?.lookup;
  const socket = net.connect({ host, port, ...(lookup ? { lookup } : {}) });
  // What mysql2 sets on the sockets it opens itself (a connection a firewall dropped is noticed).
  socket.setNoDelay(true);
  socket.setKeepAlive(true, 0);
  return socket;
}

/** A result as a message carries it: rows and result headers as plain objects (mysql2's are class instances). */
function plain(result: unknown): unknown {
  if (Array.isArray(result)) return result.map(plain);
  if (result && typeof result === "object" && !(result instanceof Date) && !Buffer.isBuffer(result) && Object.getPrototypeOf(result) !== Object.prototype) return { ...result };
  return result;
}

function acquireLink(ctx: NodeContext, ref: string) {
  const handle = ref ? ctx.configNode<MysqlDatabaseConfig>(ref, "mysql-database") : undefined;
  if (!handle) return undefined;
  const c = handle.config;
  const creds = handle.credentialsFor(c.host);
  const settings = {
    host: c.host,
    port: c.port,
    user: creds.user ?? "",
    password: creds.password ?? "",
    database: c.db,
    // mysql2 takes another text as Z, with a warning on the console: the same, without it.
    timezone: !c.tz ? "local" : /^(?:local|Z|[ +-]\d\d:\d\d)$/.test(c.tz) ? c.tz : "Z",
    charset: (c.charset || "UTF8_GENERAL_CI").toUpperCase(),
  };
  // The resolved settings decide the pool: a rotated secret or another flow's variables open another.
  const variant = createHash("sha256").update(JSON.stringify(settings)).digest("base64url");
  return handle.connect<MysqlLink>(
    "mysql",
    {
      open: () => {
        const link = new MysqlLink(
          {
            ...settings,
            ...(settings.database ? {} : { database: undefined }),
            insecureAuth: true,
            multipleStatements: true,
            connectionLimit: MYSQL_CONNECTION_LIMIT,
            connectTimeout: 30_000,
            decimalNumbers: true,
            stream: () => openSocket(ctx.services.outbound, settings.host, settings.port),
          },
          // The configuration node's error in Node-RED's log: here each node using it reports it (once while it lasts).
          (err) => link.emit("failure", err),
        );
        link.connect();
        return link;
      },
      close: (link) => link.close(),
    },
    { variant },
  );
}

/** Node-RED's status of a node for its database's state. */
function stateStatus(state: State): NodeStatus {
  if (state === "connecting") return { fill: "grey", shape: "ring", text: state };
  if (state === "connected") return { fill: "green", shape: "dot", text: state };
  return { fill: "red", shape: "ring", text: state };
}

export const mysqlBehaviour = defineBehaviour(mysqlNode, async (ctx, c) => {
  ctx.status(null);
  const lease = await acquireLink(ctx, c.mydb);
  if (!lease) {
    if (!c.mydb) ctx.log.error("MySQL database not configured");
    return {};
  }
  const link = lease.connection;
  // A failure is reported once while it lasts (Node-RED logs each retry, every 20 s).
  let reported: string | undefined;
  const onState = (state: State) => {
    if (state === "connected") reported = undefined;
    ctx.status(stateStatus(state));
  };
  const onFailure = (err: unknown) => {
    const text = err instanceof Error ? err.message : String(err);
    if (text === reported) return;
    reported = text;
    ctx.log.error(err);
  };
  link.on("state", onState);
  link.on("failure", onFailure);
  if (link.state !== "connecting") onState(link.state);
  else ctx.status(stateStatus("connecting"));
  link.connect();
  let busy = false;
  let status: NodeStatus | null = null;
  let tout: NodeJS.Timeout | undefined;
  let closed = false;

  // Node-RED's node.error(err, msg) then done(): catch nodes get the error, complete nodes the message.
  const fail = (msg: Message, err: unknown, done: Done) => {
    ctx.log.error(err, msg);
    done(undefined, { handled: err });
  };

  const query = (msg: Message, topic: string, send: (m: Message) => void, done: (err?: unknown) => void) => {
    const pool = link.pool;
    if (!pool) {
      fail(msg, "Database not connected", done);
      return;
    }
    const withConnection = (then: (err: NodeJS.ErrnoException | null, conn: mysql.PoolConnection) => void) => {
      try {
        pool.getConnection(then);
      } catch (err) {
        then(err as NodeJS.ErrnoException, undefined as unknown as mysql.PoolConnection);
      }
    };
    withConnection((err, conn) => {
      if (err) {
        conn?.release?.();
        status = { fill: "red", shape: "ring", text: `Error: ${String((err as { code?: unknown }).code)}` };
        if (!closed) ctx.status(status);
        fail(msg, err, done);
        return;
      }
      const payload = msg.payload;
      const bind = (Array.isArray(payload) ? payload : typeof payload === "object" && payload !== null ? payload : []) as mysql.QueryValues;
      (conn.config as { queryFormat?: unknown }).queryFormat = Array.isArray(payload) ? null : customQueryFormat;
      // The answer's size, counted on the wire: past the limit the connection is dropped.
      const socket = (conn as unknown as { stream?: net.Socket }).stream;
      let bytes = 0;
      let tooBig = false;
      const count = (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > MYSQL_RESULT_BYTES && !tooBig) {
          tooBig = true;
          // The socket itself: mysql2's destroy() only half-closes it and goes on reading the answer.
          socket?.destroy(Object.assign(new Error("the answer is too large"), { code: "ER_RESULT_TOO_LARGE" }));
        }
      };
      socket?.on("data", count);
      conn.query(topic, bind, (qerr, rows) => {
        socket?.off("data", count);
        if (tooBig) conn.destroy();
        else conn.release();
        const failure = tooBig ? Object.assign(new Error(`the answer is larger than ${MYSQL_RESULT_BYTES / 1024 / 1024} MiB: select fewer rows`), { code: "ER_RESULT_TOO_LARGE" }) : qerr;
        if (failure) {
          status = { fill: "red", shape: "ring", text: `Error: ${String((failure as { code?: unknown }).code)}` };
          if (!closed) ctx.status(status);
          fail(msg, failure, done);
        } else {
          msg.payload = plain(rows);
          send(msg);
          status = { fill: "green", shape: "dot", text: "OK" };
          if (!closed) ctx.status(status);
          done();
        }
      });
    });
  };

  return {
    input(msg, send, done) {
      if (link.connected) {
        if (typeof msg.topic === "string") query(msg, msg.topic, (m) => send(m), done);
        else {
          ctx.log.error("msg.topic : the query is not defined as a string");
          done();
        }
      } else {
        status = { fill: "red", shape: "ring", text: "not yet connected" };
        fail(msg, "Database not connected", done);
      }
      if (!busy) {
        busy = true;
        ctx.status(status);
        tout = setTimeout(() => {
          busy = false;
          if (!closed) ctx.status(status);
        }, 500);
      }
    },
    async close() {
      closed = true;
      clearTimeout(tout);
      link.off("state", onState);
      link.off("failure", onFailure);
      ctx.status(null);
    },
  };
});
