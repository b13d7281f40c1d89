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
    user: creds.user || undefined,
    password: creds.password || undefined,
  };
  // The resolved settings decide the pool: a rotated secret or another flow's variables open another.
  const variant = createHash("sha256").update(JSON.stringify(settings)).digest("base64url");
  return handle.connect<Link>(
    "postgresql",
    {
      open: () => {
        const pool = new pg.Pool({ ...settings, stream: guardedStream(ctx.services.outbound) } as pg.PoolConfig);
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
    let query = (msg.query ? msg.query : Mustache.render(c.query, { msg })) as string;
    let client: PgClient | null = null;
    let ownClient = false;
    // A connection lost while this query holds it (a split one waiting for ticks): the node's error, never the process's.
    const onClientError = (err: Error) => ctx.log.error(err.message);

    const handleDone = async (isError = false) => {
      if (cursor) {
        cursor.close();
        cursor = null;
      }
      if (client) {
        const held = client;
        client = null;
        active.delete(abort);
        if (abortSplit === abort) abortSplit = null;
        held.off("error", onClientError);
        if (ownClient) await (held as pg.Client).end().catch(() => undefined);
        else (held as pg.PoolClient).release(isError);
        updateStatus(-1, isError);
      } else if (isError) {
        updateStatus(-1, isError);
      }
      getNextRows = null;
    };

    const handleError = (err: unknown) => {
      const error = `${err ? String(err) : "Unknown error!"} ${query}`;
      void handleDone(true);
      msg.payload = error;
      msg.parts = { id: partsId, abort: true };
      downstreamReady = false;
      if (err) done(err);
      else done();
    };

    abortSplit?.();
    abortSplit = null;
    void handleDone();
    const abort = () => void handleDone(true);
    active.add(abort);
    updateStatus(+1);
    downstreamReady = true;

    try {
      if (msg.pgConfig && typeof msg.pgConfig === "object") {
        // A connection of the message's own: through the outbound rules as well.
        const own = new pg.Client({ ...(msg.pgConfig as pg.ClientConfig), stream: guardedStream(ctx.services.outbound) } as pg.ClientConfig);
        own.on("error", onClientError);
        ownClient = true;
        client = own;
        await own.connect();
      } else {
        if (!pool) throw new Error("PostgreSQL database not configured");
        const pooled = await pool.connect();
        pooled.on("error", onClientError);
        client = pooled;
        if (closed) {
          void handleDone(true);
          return;
        }
      }

      let params: unknown[] = [];
      if (Array.isArray(msg.params) && msg.params.length > 0) params = msg.params;
      else if (msg.queryParameters && typeof msg.queryParameters === "object") ({ text: query, values: params } = namedToNumbered(query, msg.queryParameters as Record<string, unknown>));

      const held = client;
      if (c.split) {
        let partsIndex = 0;
        delete msg.complete;
        const opened = held.query(new Cursor(query, params) as never) as unknown as Cursor;
        cursor = opened;
        abortSplit = abort;
        const rowsPerMsg = c.rowsPerMsg || 1;
        const cursorCallback = (err: Error | undefined, rows: Array<Record<string, unknown>>, result: pg.QueryResult | undefined) => {
          if (err) {
            handleError(err);
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
        getNextRows = () => {
          if (downstreamReady && cursor === opened) opened.read(rowsPerMsg, cursorCallback);
        };
      } else {
        getNextRows = () => {
          void (async () => {
            // The answer's size, counted on the wire: past the limit the socket is destroyed.
            const socket = (held as unknown as { connection?: { stream?: net.Socket } }).connection?.stream;
            let bytes = 0;
            const count = (chunk: Buffer) => {
              bytes += chunk.length;
              if (bytes > PG_RESULT_BYTES) socket?.destroy(new Error(`the answer is larger than ${PG_RESULT_BYTES / 1024 / 1024} MiB: select fewer rows, or split the results`));
            };
            socket?.on("data", count);
            try {
              const result = (await held.query(query, params)) as pg.QueryResult | pg.QueryResult[];
              socket?.off("data", count);
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
              socket?.off("data", count);
              handleError(bytes > PG_RESULT_BYTES ? new Error(`the answer is larger than ${PG_RESULT_BYTES / 1024 / 1024} MiB: select fewer rows, or split the results`) : ex);
            }
          })();
        };
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
        done();
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
