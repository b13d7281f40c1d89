import { createHash } from "node:crypto";
import net from "node:net";
import Mustache from "mustache";
import pg from "pg";
import Cursor from "pg-cursor";
import { defineBehaviour } from "../types";
import type { Done, Message, NodeContext } from "../../runtime/types";
import { BlockedAddressError, type OutboundRules } from "../../runtime/outbound";
import { PG_RESULT_BYTES, postgresqlNode, type PostgresqlConfig } from "./definition";
import { namedToNumbered } from "./named";

/**
 * node-red-contrib-postgresql 0.16 (postgresql.js) over pg, as Node-RED runs it (pg-cases.ts,
 * recorded from Node-RED against a real PostgreSQL): the query as a Mustache template of the
 * message or msg.query, msg.params and msg.queryParameters, whole or split results with ticks, the
 * error message's payload, the "Queue" status. Ours: every socket goes through the outbound rules,
 * the pool is shared per database revision and settings on an instance (SPEC §19), and an answer
 * past PG_RESULT_BYTES is refused.
 */

/** The package's status period. */
const STATUS_PERIOD_MS = 1000;

/**
 * A socket for pg under the outbound rules: pg opens it itself (`connect(port, host)`, or a Unix
 * socket's path), so the connect is checked here; a refused address fails the connection.
 */
function guardedStream(outbound: OutboundRules | undefined): () => net.Socket {
  return () => {
    const socket = new net.Socket();
    const connect = socket.connect.bind(socket) as (options: net.TcpNetConnectOpts) => net.Socket;
    const refuse = (err: Error) => {
      process.nextTick(() => socket.destroy(err));
      return socket;
    };
    (socket as unknown as { connect: (port: number | string, host?: string) => net.Socket }).connect = (port, host) => {
      if (typeof port === "string") {
        if (outbound && !outbound.allowPrivate) return refuse(new BlockedAddressError(`${port} is a Unix socket; connections there are not allowed`));
        return (socket.connect as unknown as (path: string) => net.Socket).call(socket, port);
      }
      const target = host ?? "localhost";
      try {
        outbound?.checkHost(target);
      } catch (err) {
        return refuse(err as Error);
      }
      return connect({ port, host: target, ...(outbound ? { lookup: outbound.lookup } : {}) });
    };
    return socket;
  };
}

const tooLarge = () => Object.assign(new Error(`the answer is larger than ${PG_RESULT_BYTES / 1024 / 1024} MiB: select fewer rows, or split the results`), { code: "RESULT_TOO_LARGE" });

/**
 * A message's `msg.pgConfig` as a connection's settings: the plain ones only. pg would take
 * anything (its own `stream`, a `connectionString` whose ssl parameters read the server's files,
 * `ssl` options that open a second, unchecked socket, type parsers that throw where nothing catches
 * them), so the rest is left out; a missing user or password never falls back to the server's
 * environment (PGUSER, PGPASSWORD, ~/.pgpass).
 */
export function messageClientConfig(p: Record<string, unknown>): pg.ClientConfig {
  if (p.connectionString !== undefined) throw new Error("msg.pgConfig.connectionString is not taken here: give host, port, database, user and password");
  const text = (v: unknown) => (typeof v === "string" ? v : undefined);
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : typeof v === "string" && /^\d+$/.test(v) ? Number(v) : undefined);
  const ssl = p.ssl === true || p.ssl === "true" ? true : p.ssl && typeof p.ssl === "object" ? plainSsl(p.ssl as Record<string, unknown>) : false;
  const password = text(p.password) ?? "";
  return {
    host: text(p.host) ?? "localhost",
    port: num(p.port) ?? 5432,
    database: text(p.database) ?? "postgres",
    user: text(p.user) || "postgres",
    password: () => password,
    ssl,
    ...(text(p.application_name) ? { application_name: text(p.application_name) } : {}),
    ...(num(p.connectionTimeoutMillis) !== undefined ? { connectionTimeoutMillis: num(p.connectionTimeoutMillis) } : {}),
    ...(num(p.statement_timeout) !== undefined ? { statement_timeout: num(p.statement_timeout) } : {}),
    ...(num(p.query_timeout) !== undefined ? { query_timeout: num(p.query_timeout) } : {}),
  };
}

/** TLS settings a message may give: whether to check the certificate, and the CA to check it with. */
function plainSsl(ssl: Record<string, unknown>): { rejectUnauthorized: boolean; ca?: string } {
  return { rejectUnauthorized: ssl.rejectUnauthorized !== false, ...(typeof ssl.ca === "string" ? { ca: ssl.ca } : {}) };
}

interface Link {
  pool: pg.Pool;
  failures: { on(listener: (text: string) => void): () => void };
}

function acquirePool(ctx: NodeContext, ref: string) {
  const handle = ref ? ctx.configNode<PostgresqlConfig>(ref, "postgresql-config") : undefined;
  if (!handle) return undefined;
  const c = handle.config;
  const creds = handle.credentialsFor(c.host);
  const settings = {
    host: c.host,
    port: Number(c.port),
    database: c.database,
    ssl: c.ssl,
    application_name: c.applicationName || undefined,
    max: c.max,
    idleTimeoutMillis: c.idle,
    connectionTimeoutMillis: c.connectionTimeout,
    // Never the server's environment (PGUSER, PGPASSWORD, ~/.pgpass) for a missing one.
    user: creds.user || "postgres",
    password: creds.password ?? "",
  };
  // The resolved settings decide the pool: a rotated secret or another flow's variables open another.
  const variant = createHash("sha256").update(JSON.stringify(settings)).digest("base64url");
  return handle.connect<Link>(
    "postgresql",
    {
      open: () => {
        const password = settings.password;
        const pool = new pg.Pool({ ...settings, password: () => password, stream: guardedStream(ctx.services.outbound) } as pg.PoolConfig);
        const listeners = new Set<(text: string) => void>();
        // The package's pool.on('error'): an idle connection lost. The node's error, never a crash.
        pool.on("error", (err) => {
          for (const l of listeners) l(err.message);
        });
        return {
          pool,
          failures: {
            on(listener) {
              listeners.add(listener);
              return () => listeners.delete(listener);
            },
          },
        };
      },
      close: (link) => link.pool.end(),
    },
    { variant },
  );
}

type PgClient = pg.PoolClient | pg.Client;

export const postgresqlBehaviour = defineBehaviour(postgresqlNode, async (ctx, c) => {
  const lease = await acquirePool(ctx, c.postgreSQLConfig);
  const pool = lease?.connection.pool;
  const offFailure = lease?.connection.failures.on((text) => ctx.log.error(text));

  let downstreamReady = true;
  let cursor: Cursor | null = null;
  let getNextRows: (() => void) | null = null;
  /** The queries under way: each ends (its connection given back, destroyed) when the flow stops. */
  const active = new Set<() => void>();
  /** The split query waiting for ticks: a new message closes its cursor (as the package does) and gives its connection back (the package keeps it). */
  let abortSplit: (() => void) | null = null;

  // The package's status: the queries waiting, at most once a second.
  let nbQueue = 0;
  let hasError = false;
  let statusTimer: NodeJS.Timeout | null = null;
  let closed = false;
  const updateStatus = (incQueue = 0, isError = false) => {
    nbQueue += incQueue;
    hasError ||= isError;
    if (!statusTimer) {
      statusTimer = setTimeout(() => {
        statusTimer = null;
        if (closed) return;
        const total = pool?.totalCount ?? 0;
        const fill = hasError ? "red" : nbQueue <= 0 ? "blue" : nbQueue <= total ? "green" : "yellow";
        ctx.status({ fill, shape: hasError || nbQueue > total ? "ring" : "dot", text: `Queue: ${nbQueue}${hasError ? " Error!" : ""}` });
        hasError = false;
      }, STATUS_PERIOD_MS);
    }
  };
  updateStatus(0, false);

  const runQuery = async (msg: Message, send: (m: Message) => void, done: Done) => {
    const partsId = Math.random();
    let client: PgClient | null = null;
    let ownClient = false;
    /** Ended from outside (a new message replaced this waiting split query, or the flow stopped): its callbacks are ignored. */
    let abandoned = false;
    // A connection lost while this query holds it (a split one waiting for ticks): the node's error, never the process's.
    const onClientError = (err: Error) => ctx.log.error(err.message);
    // The answer's size, counted on the wire (per read of a split query): past the limit the socket is destroyed.
    let socket: net.Socket | undefined;
    let bytes = 0;
    const count = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > PG_RESULT_BYTES) socket?.destroy(tooLarge());
    };

    const handleDone = async (isError = false, quiet = false) => {
      if (cursor && cursor === ownCursor) {
        cursor.close();
        cursor = null;
      }
      socket?.off("data", count);
      socket = undefined;
      if (client) {
        const held = client;
        client = null;
        active.delete(abort);
        if (abortSplit === abort) abortSplit = null;
        held.off("error", onClientError);
        if (ownClient) {
          // pg may still report an error while ending: heard, never the process's. (A pooled
          // client goes back to the pool, whose own listener hears it: one more per query would pile up.)
          held.on("error", () => undefined);
          await (held as pg.Client).end().catch(() => undefined);
        } else (held as pg.PoolClient).release(isError);
        updateStatus(-1, isError && !quiet);
      } else if (isError && !quiet) {
        updateStatus(-1, isError);
      }
      if (getNextRows === ownNext) getNextRows = null;
    };

    let query = "";
    const handleError = (err: unknown) => {
      if (abandoned) return;
      const error = `${err ? String(err) : "Unknown error!"} ${query}`;
      void handleDone(true);
      msg.payload = error;
      msg.parts = { id: partsId, abort: true };
      downstreamReady = false;
      if (err) done(err);
      else done();
    };

    // The package closes a split query's cursor that waits for ticks when another message comes; here its connection goes back too (quietly: no error).
    abortSplit?.();
    abortSplit = null;
    if (cursor) {
      cursor.close();
      cursor = null;
    }
    getNextRows = null;
    let ownCursor: Cursor | null = null;
    let ownNext: (() => void) | null = null;
    const abort = () => {
      abandoned = true;
      void handleDone(true, true);
    };
    active.add(abort);
    updateStatus(+1);
    downstreamReady = true;

    try {
      // A query is text (pg would take a query object, whose own parsers could throw where nothing catches it).
      if (msg.query !== undefined && msg.query !== null && msg.query !== "" && msg.query !== false && msg.query !== 0 && typeof msg.query !== "string") throw new Error("msg.query must be text");
      query = typeof msg.query === "string" && msg.query ? msg.query : Mustache.render(c.query, { msg });
      if (msg.pgConfig && typeof msg.pgConfig === "object") {
        // A connection of the message's own: only plain settings, through the outbound rules as well.
        const own = new pg.Client({ ...messageClientConfig(msg.pgConfig as Record<string, unknown>), stream: guardedStream(ctx.services.outbound) } as pg.ClientConfig);
        own.on("error", onClientError);
        ownClient = true;
        client = own;
        await own.connect();
      } else {
        if (!pool) throw new Error("PostgreSQL database not configured");
        const pooled = await pool.connect();
        pooled.on("error", onClientError);
        client = pooled;
      }
      if (closed || abandoned) {
        void handleDone(true, true);
        return;
      }

      let params: unknown[] = [];
      if (Array.isArray(msg.params) && msg.params.length > 0) params = msg.params;
      else if (msg.queryParameters && typeof msg.queryParameters === "object") ({ text: query, values: params } = namedToNumbered(query, msg.queryParameters as Record<string, unknown>));

      const held = client;
      socket = (held as unknown as { connection?: { stream?: net.Socket } }).connection?.stream;
      socket?.on("data", count);
      if (c.split) {
        let partsIndex = 0;
        delete msg.complete;
        const opened = held.query(new Cursor(query, params) as never) as unknown as Cursor;
        cursor = opened;
        ownCursor = opened;
        abortSplit = abort;
        const rowsPerMsg = c.rowsPerMsg || 1;
        const cursorCallback = (err: Error | undefined, rows: Array<Record<string, unknown>>, result: pg.QueryResult | undefined) => {
          if (abandoned) return;
          if (err) {
            handleError(bytes > PG_RESULT_BYTES ? tooLarge() : err);
            return;
          }
          const complete = rows.length < rowsPerMsg;
          if (complete) void handleDone(false);
          const parts: Record<string, unknown> = { id: partsId, type: "array", index: partsIndex };
          if (msg.parts) parts.parts = msg.parts;
          const msg2: Message = { ...msg, payload: rowsPerMsg > 1 ? rows : rows[0], pgsql: { command: result ? result.command : undefined, rowCount: result ? result.rowCount : undefined }, parts };
          if (complete) {
            parts.count = partsIndex + 1;
            msg2.complete = true;
          }
          partsIndex++;
          downstreamReady = false;
          send(msg2);
          if (complete) done();
          else getNextRows?.();
        };
        ownNext = () => {
          if (downstreamReady && cursor === opened && !abandoned) {
            bytes = 0;
            opened.read(rowsPerMsg, cursorCallback);
          }
        };
        getNextRows = ownNext;
      } else {
        let ran = false;
        ownNext = () => {
          // Once: a tick while the query runs does not run it again.
          if (ran) return;
          ran = true;
          void (async () => {
            try {
              const result = (await held.query(query, params)) as pg.QueryResult | pg.QueryResult[];
              if (abandoned) return;
              if (Array.isArray(result)) {
                // Several statements.
                let rows: unknown[] = [];
                const pgsql: unknown[] = [];
                for (const r of result) {
                  rows = rows.concat(r.rows);
                  pgsql.push({ command: r.command, rowCount: r.rowCount, rows: r.rows });
                }
                msg.payload = rows;
                msg.pgsql = pgsql;
              } else {
                msg.payload = result.rows;
                msg.pgsql = { command: result.command, rowCount: result.rowCount };
              }
              await handleDone();
              downstreamReady = false;
              send(msg);
              done();
            } catch (ex) {
              handleError(bytes > PG_RESULT_BYTES ? tooLarge() : ex);
            }
          })();
        };
        getNextRows = ownNext;
      }
      getNextRows();
    } catch (err) {
      handleError(err);
    }
  };

  return {
    input(msg, send, done) {
      if (msg.tick) {
        downstreamReady = true;
        getNextRows?.();
        // The package never completes a tick: no complete node hears of it.
        done(undefined, { noComplete: true });
        return;
      }
      void runQuery(msg, (m) => send(m), done);
    },
    close() {
      closed = true;
      if (statusTimer) clearTimeout(statusTimer);
      for (const abort of [...active]) abort();
      abortSplit = null;
      cursor?.close();
      cursor = null;
      getNextRows = null;
      offFailure?.();
    },
  };
});
