import type { AnyRouter } from "@trpc/server";
import { JSON_TOO_DEEP_MESSAGE, jsonTooDeep } from "../../../shared/json-depth";
import { AppError, errorBody, toAppError } from "../../errors";
import { newId } from "../../ids";
import { accessLogger } from "../../logger";
import type { AppServices } from "../../app-services";
import { requestContext } from "../request-context";
import { authenticate } from "../trpc";
import { browserSessionId } from "../../auth/browser-session";
import { noCredentialError } from "../../auth/principal";
import { bodyLimits } from "../../../shared/policy";
import { collectRoutes, indexRoutes, matchRoute, type RestRoute } from "./routes";
import { jsonBodyOf } from "../frozen-output";
import { invokeProcedure } from "../invoke-procedure";
import { readLimited, readLimitedBytes, type LimitedBytes, type LimitedRead } from "./read-body";

export const API_PREFIX = "/api/v1";

const BASE_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ["cache-control", "no-store"],
  ["x-content-type-options", "nosniff"],
];

/**
 * What the REST adapter needs of a request, whichever server received it: Node's IncomingMessage
 * (the custom server, src/server/http/direct-mount.ts) or a fetch Request (Next's route file, used
 * by `next dev`). Building neither a fetch Request nor a Response on the custom server's path saves
 * a good part of a request's cost (docs/BENCHMARKS.md, benchmark 2).
 */
export interface RestRequest {
  method: string;
  /** The request target: path and query, as sent ("/api/v1/flows?limit=5"). */
  target: string;
  /** A header's value by its lower-case name; null when absent. */
  header(name: string): string | null;
  /**
   * Reads the body within `limit` bytes (read-body.ts's rules: a declared length over the limit is
   * refused unread, a streamed one as soon as it passes it); null when the method takes none.
   */
  readBody: ((limit: number) => Promise<LimitedRead>) | null;
  /** readBody keeping the bytes (routes whose meta says `rawBody`); null when the method takes none. */
  readBytes?: ((limit: number) => Promise<LimitedBytes>) | null;
}

/** Response headers by lower-case name: what procedures set through ctx.responseHeaders. */
export class ResponseHeaderMap {
  readonly map = new Map<string, string>();
  set(name: string, value: string): void {
    this.map.set(name.toLowerCase(), value);
  }
  get(name: string): string | null {
    return this.map.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.map.has(name.toLowerCase());
  }
}

export interface RestResult {
  status: number;
  headers: ResponseHeaderMap;
  /** The JSON text (the bytes, for a route whose meta says `rawResponse`); null for 204. */
  body: string | Buffer | null;
  /** The matched route's path template under /api/v1 ("/flows/{id}"); absent when none matched (GET /metrics labels by it). */
  route?: string;
}

/** The caller's X-Request-Id when it is a plain token of at most 64 characters, else a new one. */
export function requestIdFor(incoming: string | null | undefined): string {
  return incoming && /^[\w.-]{1,64}$/.test(incoming) ? incoming : newId("req");
}

function jsonResult(status: number, body: unknown, headers: ResponseHeaderMap): RestResult {
  headers.set("content-type", "application/json; charset=utf-8");
  return { status, headers, body: status === 204 ? null : jsonBodyOf(body) };
}

async function readBody(req: RestRequest, limit: number): Promise<unknown> {
  const declared = req.header("content-length");
  const hasBody = (declared !== null && declared !== "0") || req.header("transfer-encoding") !== null;
  if (!hasBody || !req.readBody) return undefined;
  const type = (req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json" && !/^application\/[\w.+-]+\+json$/.test(type)) {
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", "request bodies must be sent as Content-Type: application/json");
  }
  // The same rules as tRPC and the webhooks: a Content-Length that is not a number, or too large,
  // is refused unread; a chunked body is counted as it streams.
  const read = await req.readBody(limit);
  if (!read.ok) throw new AppError("PAYLOAD_TOO_LARGE", `request body exceeds ${limit} bytes`);
  const text = read.text;
  // Only white space is not JSON: refused as any other text that is not.
  if (text.trim() === "") throw new AppError("INVALID_JSON", "request body is not valid JSON (it is empty)");
  if (jsonTooDeep(text)) throw new AppError("VALIDATION_FAILED", JSON_TOO_DEEP_MESSAGE);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError("INVALID_JSON", "request body is not valid JSON");
  }
}

/** A raw body (meta.rest.rawBody): any Content-Type, the bytes as sent; none is an empty body. */
async function readRawBody(req: RestRequest, limit: number): Promise<Buffer> {
  if (!req.readBytes) return Buffer.alloc(0);
  const read = await req.readBytes(limit);
  if (!read.ok) throw new AppError("PAYLOAD_TOO_LARGE", `request body exceeds ${limit} bytes`);
  return read.bytes;
}

/** The output's bytes (meta.rest.rawResponse), sent as they are. */
function rawResult(status: number, output: unknown, headers: ResponseHeaderMap): RestResult {
  const content = (output as { content: Uint8Array }).content;
  headers.set("content-type", "application/octet-stream");
  return { status, headers, body: Buffer.from(content.buffer, content.byteOffset, content.byteLength) };
}

function queryObject(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of url.searchParams) out[k] = v;
  return out;
}

/** The query parameters a body-taking route declares (Meta.rest.query); others are ignored. */
function pickQuery(url: URL, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = url.searchParams.get(name);
    if (value !== null) out[name] = value;
  }
  return out;
}

function buildInput(route: RestRoute, params: Record<string, string>, query: Record<string, string>, body: unknown, ifMatch: string | null): unknown {
  // A body sent to an endpoint that takes none is ignored, as most REST APIs do.
  if (route.procedure._def.inputs.length === 0) return undefined;
  if (body !== undefined && (typeof body !== "object" || body === null || Array.isArray(body))) {
    throw new AppError("VALIDATION_FAILED", "request body must be a JSON object", {
      details: [{ path: "", message: "expected a JSON object" }],
    });
  }
  const writes = route.method === "PUT" || route.method === "PATCH";
  // Every PUT and PATCH takes a body (an update says what it changes): none at all is a mistake,
  // not an update of nothing that would still write a new version. (A raw body comes apart.)
  if (writes && body === undefined && !route.meta.rest.rawBody) {
    throw new AppError("VALIDATION_FAILED", "request body must be a JSON object", { details: [{ path: "", message: "expected a JSON object, got no body" }] });
  }
  const input: Record<string, unknown> = { ...query, ...(body as Record<string, unknown> | undefined), ...params };
  const condition = writes ? ifMatchRevision(ifMatch) : undefined;
  if (condition !== undefined) {
    // Both preconditions must hold: two different revisions cannot both be the current one.
    if (input.revision !== undefined && input.revision !== condition) {
      throw new AppError("REVISION_CONFLICT", `If-Match names revision ${condition} and the body revision ${JSON.stringify(input.revision)}: send one`);
    }
    input.revision = condition;
  }
  return input;
}

/**
 * Optimistic concurrency over HTTP: `If-Match: "7"` (or W/"7", or 7) is the same as sending
 * revision 7; `*` asks only that the resource exist, which every update does anyway (RFC 9110
 * §13.1.1). Several tags cannot be one revision, and anything else is not one of ours.
 */
function ifMatchRevision(header: string | null): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (value === "" || value === "*") return undefined;
  const tags = value.split(",").map((t) => t.trim());
  const revision = tags.length === 1 ? /^(?:W\/)?"?(\d{1,15})"?$/.exec(tags[0]!)?.[1] : undefined;
  if (revision === undefined) {
    throw new AppError("VALIDATION_FAILED", 'If-Match must name one revision, such as "7", or be *', { details: [{ path: "If-Match", message: `got ${JSON.stringify(header.slice(0, 100))}` }] });
  }
  return Number(revision);
}

export interface RestHandlerOptions {
  router: AnyRouter;
  getAppServices: () => Promise<AppServices>;
}

/**
 * The REST adapter: one function from a request to a result for everything under /api/v1. It finds
 * the procedure whose meta names the route, parses the body within its limit, calls the procedure
 * through tRPC's middleware chain (invokeProcedure: validation, auth and permissions are the procedure's), and turns any
 * error into the error envelope with the status from errors.ts. Two mounts wrap it: Node's
 * request/response (src/server/http/direct-mount.ts) and fetch's (createRestHandler, below).
 */
/**
 * The web UI's session cookie on REST (SPEC §4: the three credentials resolve to the same identity;
 * the API docs' "try it" uses it). Only when the request carries no Authorization or X-API-Key
 * header, and a request that can change something (anything but GET and HEAD) must name our own
 * origin in Origin: a cross-site form or fetch never rides on the cookie.
 */
async function restBrowserSession(app: AppServices, req: RestRequest): Promise<string | undefined> {
  if (req.header("authorization") || req.header("x-api-key")) return undefined;
  const cookie = req.header("cookie");
  if (!cookie) return undefined;
  const origin = req.header("origin");
  if (req.method !== "GET" && req.method !== "HEAD" && origin !== new URL(app.config.publicUrl).origin) return undefined;
  return browserSessionId(app, { cookie, origin });
}

export function createRestCore(options: RestHandlerOptions): (req: RestRequest) => Promise<RestResult> {
  const routes = indexRoutes(collectRoutes(options.router));

  return async function handle(req: RestRequest): Promise<RestResult> {
    const started = performance.now();
    const requestId = requestIdFor(req.header("x-request-id"));
    const headers = new ResponseHeaderMap();
    for (const [name, value] of BASE_HEADERS) headers.map.set(name, value);
    headers.map.set("x-request-id", requestId);
    const url = new URL(req.target, "http://localhost");
    const path = url.pathname.startsWith(API_PREFIX) ? url.pathname.slice(API_PREFIX.length) || "/" : url.pathname;
    const method = req.method;
    let app: AppServices | undefined;
    let result: RestResult;
    let template: string | undefined;
    try {
      const match = matchRoute(routes, method === "HEAD" ? "GET" : method, path);
      if (!match) throw new AppError("NOT_FOUND", `no endpoint ${method} ${API_PREFIX}${path}`);
      if ("allowed" in match) {
        headers.set("Allow", match.allowed.join(", "));
        throw new AppError("METHOD_NOT_ALLOWED", `${method} is not allowed on ${API_PREFIX}${path}`);
      }
      const { route, params } = match;
      template = route.path;
      const raw = route.meta.rest.rawBody;
      app = await options.getAppServices();
      const ctx = requestContext(app, req.header, {
        requestId,
        responseHeaders: headers,
        headerCredentials: true,
        browserSessionId: await restBrowserSession(app, req),
      });
      // A body is read only for a caller with a credential (a large one costs memory while it comes).
      const anonymous = route.meta.auth ? noCredentialError(ctx.credentials) : null;
      if (anonymous) throw anonymous;
      let content: Buffer | undefined;
      if (raw) {
        // An upload (up to FILES_MAX_UPLOAD_BYTES) is read only for a caller allowed to make it:
        // without credentials, with a wrong key or past the key's rate it is refused unread.
        if (route.meta.auth) ctx.authenticated = await authenticate(ctx, route.meta);
        content = await readRawBody(req, raw.limitOf(app));
      }
      const body = route.method === "GET" || raw ? undefined : await readBody(req, route.meta.rest.bodyLimit ?? bodyLimits.defaultBytes);
      const query = route.method === "GET" || route.method === "DELETE" ? queryObject(url) : pickQuery(url, route.meta.rest.query ?? []);
      const input = buildInput(route, params, query, body, req.header("if-match"));
      if (content) (input as Record<string, unknown>).content = content;
      const output = await invokeProcedure(route.procedure, route.procedurePath, ctx, input);
      const status = route.meta.rest.statusOf?.(output) ?? route.meta.rest.status ?? 200;
      result = route.meta.rest.rawResponse && status !== 204 ? rawResult(status, output, headers) : jsonResult(status, output, headers);
    } catch (err) {
      const appError = toAppError(err);
      for (const [k, v] of Object.entries(appError.headers ?? {})) headers.set(k, v);
      if (appError.code === "INTERNAL" && !AppError.is(err) && app) {
        app.logger.error({ err, requestId }, "unhandled error");
      }
      result = jsonResult(appError.status, errorBody(appError), headers);
    }
    if (template !== undefined) result.route = template;
    const logger = app?.logger ?? (await options.getAppServices().catch(() => undefined))?.logger;
    if (logger) accessLogger(logger).info({ requestId, method, path: url.pathname, status: result.status, ms: Math.round(performance.now() - started) }, "request");
    return result;
  };
}

/** The fetch mount (Next's route file, tests): Request in, Response out, around the same core. */
export function createRestHandler(options: RestHandlerOptions): (req: Request) => Promise<Response> {
  const core = createRestCore(options);
  return async (req: Request) => {
    const url = new URL(req.url);
    const body = req.body as AsyncIterable<Uint8Array> | null;
    const result = await core({
      method: req.method,
      target: url.pathname + url.search,
      header: (name) => req.headers.get(name),
      readBody: body ? (limit) => readLimited(body, req.headers.get("content-length"), limit) : null,
      readBytes: body ? (limit) => readLimitedBytes(body, req.headers.get("content-length"), limit) : null,
    });
    const headers = new Headers();
    for (const [name, value] of result.headers.map) headers.set(name, value);
    return new Response(typeof result.body === "string" || result.body === null ? result.body : new Uint8Array(result.body), { status: result.status, headers });
  };
}
