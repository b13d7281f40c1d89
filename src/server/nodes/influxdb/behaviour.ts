import { STATUS_CODES } from "node:http";
import { defineBehaviour } from "../types";
import type { ConfigNodeHandle, Message, NodeContext } from "../../runtime/types";
import type { HttpDispatcher } from "../../runtime/http-dispatchers";
import { configuredDispatcher } from "../http-request/dispatcher";
import { influxdbBatchNode, influxdbInNode, influxdbOutNode, type InfluxdbConfig } from "./definition";
import { Point, v1Lines, v1PointOf, type V1Point, type WritePrecision } from "./line-protocol";
import { fluxRows, v1ResultError, v1Results } from "./results";

/**
 * node-red-contrib-influxdb 0.7.0's nodes (influxdb.js) over the runtime's outgoing HTTP (the
 * outbound rules apply): the requests InfluxDB gets and what the flow sees are the package's
 * (influx-cases.ts, recorded from Node-RED), the transport ours.
 */

const FLUX_DIALECT = { header: true, delimiter: ",", quoteChar: '"', commentPrefix: "#", annotations: ["datatype", "group", "default"] };
/** node-influx's request timeout (its Pool's default; the package sets none). */
const V1_TIMEOUT_MS = 30_000;
const has = (msg: Message, key: string) => Object.prototype.hasOwnProperty.call(msg, key);
/** Query strings as node-influx's `querystring.stringify` writes them: every key, undefined as empty. */
const query = (params: Array<[string, unknown]>) => params.map(([k, v]) => `${k}=${v === undefined || v === null ? "" : encodeURIComponent(String(v))}`).join("&");

/**
 * node-influx's answer to a 1.x status: 5xx is its ServiceNotAvailableError (the status text, and
 * no response, so the package reports 503), any other non-2xx its RequestError.
 */
function v1StatusError(status: number, body: string): InfluxRequestError {
  return status >= 500 ? new InfluxRequestError(STATUS_CODES[status] ?? "") : new InfluxRequestError(`A ${status} ${STATUS_CODES[status] ?? ""} error occurred: ${body}`, status);
}

/** node-influx's RequestError (named Error, as Node-RED's catch shows it). */
class InfluxRequestError extends Error {
  constructor(
    message: string,
    readonly statusCode?: number,
  ) {
    super(message);
    this.name = "Error";
  }
}

/** @influxdata/influxdb-client's HttpError: its text, and what Node-RED puts in msg.influx_error.errorMessage. */
function httpError(status: number, body: string, contentType: string | undefined): Error & { influx: Record<string, unknown> } {
  const statusMessage = STATUS_CODES[status] ?? "";
  let json: unknown;
  let message: string | undefined;
  let code: unknown;
  if (body && contentType?.startsWith("application/json")) {
    try {
      json = JSON.parse(body);
      message = (json as { message?: string }).message;
      code = (json as { code?: unknown }).code;
    } catch {
      // InfluxDB's text stays in the body.
    }
  }
  if (!message) message = body ? `${status} ${statusMessage} : ${body}` : `${status} ${statusMessage}`;
  const err = new Error(message) as Error & { influx: Record<string, unknown> };
  err.name = "HttpError";
  err.influx = {
    statusCode: status,
    statusMessage,
    body,
    ...(contentType ? { contentType } : {}),
    ...(json !== undefined ? { json } : {}),
    message,
    ...(code !== undefined ? { code } : {}),
    name: "HttpError",
    _retryAfter: 0,
  };
  return err;
}

interface Server {
  version: InfluxdbConfig["influxdbVersion"];
  /** 1.x: the database written to and queried. */
  database: string;
  /** Why it cannot be used (reported at start, as Node-RED's "Configuration missing"). */
  missing?: string;
  request(method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string; contentType?: string }>;
  v1Auth(): { u: string; p: string };
  v2Token(): string;
  close(): Promise<void>;
}

/** The influxdb configuration node as a node uses it: its version, credentials and transport. */
function serverOf(ctx: NodeContext, ref: string): Server | undefined {
  const handle = ref ? ctx.configNode<InfluxdbConfig>(ref, "influxdb") : undefined;
  if (!handle) return undefined;
  const c = handle.config;
  const version = c.influxdbVersion ?? "1.x";
  const literal6 = c.hostname.includes(":") && !c.hostname.startsWith("[");
  const base = version === "1.x" ? `${c.usetls ? "https" : "http"}://${literal6 ? `[${c.hostname}]` : c.hostname}:${c.port}` : c.url.replace(/\/+$/, "");
  let host = "";
  try {
    host = new URL(base).hostname;
  } catch {
    // The request below reports the address.
  }
  const creds = () => (handle as ConfigNodeHandle).credentialsFor(host);
  // 1.x with TLS: its TLS configuration's certificates and checks; 2.0 over https without checks: a dispatcher of its own.
  const tls = version === "1.x" && c.usetls && c.tls ? configuredDispatcher(ctx, { tls: c.tls }) : undefined;
  let unverified: HttpDispatcher | undefined;
  const timeoutMs = version === "1.x" ? V1_TIMEOUT_MS : Math.round(c.timeout * 1000);
  return {
    version,
    database: c.database,
    ...(tls?.missing ? { missing: tls.missing } : {}),
    async request(method, path, headers, body) {
      const fetcher = ctx.services.httpRequest;
      if (!fetcher) throw new Error("outgoing HTTP is not available in this runtime");
      const lease = tls ? await tls.acquire() : undefined;
      try {
        let dispatcher = lease?.connection;
        if (!dispatcher && version !== "1.x" && !c.rejectUnauthorized && base.startsWith("https:")) {
          unverified ??= ctx.services.httpDispatcher?.({ tls: { rejectUnauthorized: false } });
          dispatcher = unverified;
        }
        // A query's answer is a download like http-request's: it waits for the organization's byte budget.
        const budget = ctx.services.workLimits?.responseBudget(ctx.organizationId);
        const res = await fetcher(`${base}${path}`, { method, headers, ...(body !== undefined ? { body } : {}), timeoutMs, followRedirects: false, ...(dispatcher ? { dispatcher } : {}), ...(budget ? { budget } : {}) });
        const type = res.headers["content-type"];
        return { status: res.status, body: res.body.toString("utf8"), ...(typeof type === "string" ? { contentType: type } : {}) };
      } finally {
        await lease?.release();
      }
    },
    v1Auth() {
      const k = creds();
      // node-influx's defaults when none are given.
      return { u: k.username || "root", p: k.password || "root" };
    },
    v2Token() {
      const k = creds();
      return version === "1.8-flux" ? `${k.username ?? ""}:${k.password ?? ""}` : (k.token ?? "");
    },
    async close() {
      await tls?.close();
      await unverified?.close();
    },
  };
}

/**
 * Node-RED's `done(err)` with msg.influx_error set first, as the package does: on 1.x the answer's
 * status (503 without one), on 1.8-flux and 2.0 the client's error.
 */
function fail(server: Server, done: (err?: unknown) => void, msg: Message, err: unknown) {
  if (err && typeof err === "object" && "influx" in err) msg.influx_error = { errorMessage: (err as { influx: unknown }).influx };
  else if (server.version !== "1.x") msg.influx_error = { errorMessage: { message: err instanceof Error ? err.message : String(err) } };
  else msg.influx_error = { statusCode: err instanceof InfluxRequestError && err.statusCode !== undefined ? err.statusCode : 503 };
  done(err);
}

async function v1Write(server: Server, points: V1Point[], precision: string, rp: unknown) {
  const { u, p } = server.v1Auth();
  const path = `/write?${query([["db", server.database], ["p", p], ["precision", precision || "n"], ["rp", rp || undefined], ["u", u]])}`;
  const res = await server.request("POST", path, {}, v1Lines(points, precision || "n"));
  if (res.status >= 300) throw v1StatusError(res.status, res.body);
}

async function v2Write(server: Server, org: string, bucket: string, precision: WritePrecision, lines: string[]) {
  if (lines.length === 0) return;
  const path = `/api/v2/write?org=${encodeURIComponent(org)}&bucket=${encodeURIComponent(bucket)}&precision=${precision}`;
  const res = await server.request("POST", path, { authorization: `Token ${server.v2Token()}`, "content-type": "text/plain; charset=utf-8" }, lines.join("\n"));
  if (res.status >= 300) throw httpError(res.status, res.body, res.contentType);
}

/** Where a 1.8-flux or 2.0 write goes: 1.8's database/retention policy is the bucket, with no organization. */
function v2Target(server: Server, c: { database: string; retentionPolicyV18Flux: string; org: string; bucket: string }) {
  return server.version === "1.8-flux" ? { org: "", bucket: `${c.database}/${c.retentionPolicyV18Flux || "autogen"}` } : { org: c.org, bucket: c.bucket };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v) && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);

function started(ctx: NodeContext, ref: string): Server | undefined {
  const server = serverOf(ctx, ref);
  if (!server) ctx.log.error("Configuration missing");
  else if (server.missing) ctx.log.error(server.missing);
  return server && !server.missing ? server : undefined;
}

export const influxdbOutBehaviour = defineBehaviour(influxdbOutNode, (ctx, c) => {
  const server = started(ctx, c.influxdb);
  if (!server) return {};
  return {
    async input(msg, _send, done) {
      const measurement = has(msg, "measurement") ? msg.measurement : c.measurement;
      if (!measurement) {
        done("No measurement specified");
        return;
      }
      const payload = msg.payload;
      try {
        if (server.version === "1.x") {
          const precision = has(msg, "precision") ? String(msg.precision ?? "") : c.precision;
          const rp = has(msg, "retentionPolicy") ? msg.retentionPolicy : c.retentionPolicy;
          const m = String(measurement);
          let points: V1Point[];
          if (Array.isArray(payload) && payload.length > 0) {
            points = Array.isArray(payload[0]) && payload[0].length > 0 ? payload.map((p) => v1PointOf(m, (p as unknown[])[0] as Record<string, unknown>, (p as unknown[])[1] as Record<string, unknown>)) : [v1PointOf(m, payload[0] as Record<string, unknown>, payload[1] as Record<string, unknown>)];
          } else points = [isPlainObject(payload) ? v1PointOf(m, payload) : v1PointOf(m, { value: payload })];
          await v1Write(server, points, precision, rp);
        } else {
          const m = String(measurement);
          const points: Point[] = [];
          if (Array.isArray(payload) && payload.length > 0) {
            if (Array.isArray(payload[0]) && payload[0].length > 0) for (const p of payload as unknown[][]) points.push(new Point(m).fieldsOf(p[0]).tagsOf(p[1]));
            else points.push(new Point(m).fieldsOf(payload[0]).tagsOf(payload[1]));
          } else points.push(isPlainObject(payload) ? new Point(m).fieldsOf(payload) : new Point(m).field("value", payload));
          const { org, bucket } = v2Target(server, c);
          await v2Write(server, org, bucket, c.precisionV18FluxV20, points.flatMap((p) => p.toLine(c.precisionV18FluxV20) ?? []));
        }
        done();
      } catch (err) {
        fail(server, done, msg, err);
      }
    },
    close: () => server.close(),
  };
});

export const influxdbBatchBehaviour = defineBehaviour(influxdbBatchNode, (ctx, c) => {
  const server = started(ctx, c.influxdb);
  if (!server) return {};
  return {
    async input(msg, _send, done) {
      try {
        if (!Array.isArray(msg.payload)) throw new TypeError("msg.payload.forEach is not a function");
        const entries = msg.payload as Array<Record<string, unknown>>;
        if (server.version === "1.x") {
          const precision = has(msg, "precision") ? String(msg.precision ?? "") : c.precision;
          const rp = has(msg, "retentionPolicy") ? msg.retentionPolicy : c.retentionPolicy;
          const points = entries.map((e) => ({ measurement: String(e.measurement), fields: (e.fields ?? {}) as Record<string, unknown>, ...(e.tags !== undefined ? { tags: e.tags as Record<string, unknown> } : {}), ...(e.timestamp !== undefined ? { timestamp: e.timestamp } : {}) }));
          await v1Write(server, points, precision, rp);
        } else {
          const lines = entries.flatMap((e) => {
            const point = new Point(String(e.measurement ?? "")).fieldsOf(e.fields).tagsOf(e.tags);
            if (e.timestamp) point.timestamp(e.timestamp);
            return point.toLine(c.precisionV18FluxV20) ?? [];
          });
          const { org, bucket } = v2Target(server, c);
          await v2Write(server, org, bucket, c.precisionV18FluxV20, lines);
        }
        done();
      } catch (err) {
        fail(server, done, msg, err);
      }
    },
    close: () => server.close(),
  };
});

export const influxdbInBehaviour = defineBehaviour(influxdbInNode, (ctx, c) => {
  const server = started(ctx, c.influxdb);
  if (!server) return {};
  return {
    async input(msg, send, done) {
      const q = has(msg, "query") ? msg.query : c.query;
      if (!q) {
        done("No query");
        return;
      }
      try {
        if (server.version === "1.x") {
          const raw = has(msg, "rawOutput") ? msg.rawOutput : c.rawOutput;
          let precision: string | undefined = (has(msg, "precision") ? String(msg.precision ?? "") : c.precision) || undefined;
          const rp = (has(msg, "retentionPolicy") ? msg.retentionPolicy : c.retentionPolicy) || undefined;
          // node-influx's query() asks for RFC 3339 times when nanoseconds are asked for (a Date cannot hold them).
          if (!raw && precision === "n") precision = undefined;
          const { u, p } = server.v1Auth();
          const text = Array.isArray(q) ? q.join(";") : String(q);
          const path = `/query?${query([["p", p], ["u", u], ["db", server.database], ["epoch", precision], ["q", text], ["rp", rp], ["params", "{}"]])}`;
          const res = await server.request("GET", path, {});
          if (res.status >= 300) throw v1StatusError(res.status, res.body);
          const answer = JSON.parse(res.body) as Parameters<typeof v1Results>[0];
          if (raw) msg.payload = answer;
          else {
            const problem = v1ResultError(answer);
            if (problem) throw new InfluxRequestError(problem);
            msg.payload = v1Results(answer, precision);
          }
        } else {
          const org = server.version === "2.0" ? c.org : "";
          const body = JSON.stringify({ query: String(q), dialect: FLUX_DIALECT, type: "flux" });
          const res = await server.request("POST", `/api/v2/query?org=${encodeURIComponent(org)}`, { authorization: `Token ${server.v2Token()}`, "content-type": "application/json; encoding=utf-8" }, body);
          if (res.status >= 300) throw httpError(res.status, res.body, res.contentType);
          msg.payload = fluxRows(res.body);
        }
        send(msg);
        done();
      } catch (err) {
        fail(server, done, msg, err);
      }
    },
    close: () => server.close(),
  };
});
