import type { AnyRouter } from "@trpc/server";
import { AppError, errorBody, toAppError } from "../../errors";
import { newId } from "../../ids";
import type { AppServices } from "../../app";
import { createInnerContext, type Context } from "../trpc";
import { bodyLimits } from "../../../shared/policy";
import { collectRoutes, matchRoute, type RestRoute } from "./routes";
import { clientIp } from "./client-ip";

export const API_PREFIX = "/api/v1";

const BASE_HEADERS: Record<string, string> = {
  "Cache-Control": "no-store",
  "X-Content-Type-Options": "nosniff",
};

function json(status: number, body: unknown, headers: Headers): Response {
  headers.set("Content-Type", "application/json; charset=utf-8");
  return new Response(status === 204 ? null : JSON.stringify(body), { status, headers });
}

async function readBody(req: Request, limit: number): Promise<unknown> {
  const declared = req.headers.get("content-length");
  const hasBody = (declared !== null && declared !== "0") || req.headers.has("transfer-encoding");
  if (!hasBody || !req.body) return undefined;
  const type = (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json" && !/^application\/[\w.+-]+\+json$/.test(type)) {
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", "request bodies must be sent as Content-Type: application/json");
  }
  const tooLarge = () => new AppError("PAYLOAD_TOO_LARGE", `request body exceeds ${limit} bytes`);
  if (declared !== null && Number(declared) > limit) throw tooLarge();
  // Count while reading: a chunked body has no Content-Length to trust.
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError("INVALID_JSON", "request body is not valid JSON");
  }
}

function queryObject(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of url.searchParams) out[k] = v;
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
  const input: Record<string, unknown> = { ...query, ...(body as Record<string, unknown> | undefined), ...params };
  // Optimistic concurrency over HTTP: `If-Match: "7"` is the same as sending revision 7.
  if (ifMatch && input.revision === undefined && (route.method === "PUT" || route.method === "PATCH")) {
    const revision = Number(ifMatch.replace(/^W\//, "").replace(/"/g, ""));
    input.revision = Number.isInteger(revision) ? revision : ifMatch;
  }
  return input;
}

export interface RestHandlerOptions {
  router: AnyRouter;
  getApp: () => Promise<AppServices>;
  /** Builds a caller for the router (createCallerFactory(router)). */
  createCaller: (ctx: Context) => unknown;
}

/**
 * The REST adapter: one function from Request to Response for everything under /api/v1. It finds
 * the procedure whose meta names the route, parses the body within its limit, calls the procedure
 * through a tRPC caller (so validation, auth and permissions are the procedure's), and turns any
 * error into the error envelope with the status from errors.ts.
 */
export function createRestHandler(options: RestHandlerOptions): (req: Request) => Promise<Response> {
  const routes = collectRoutes(options.router);

  return async function handle(req: Request): Promise<Response> {
    const started = performance.now();
    const incomingId = req.headers.get("x-request-id");
    const requestId = incomingId && /^[\w.-]{1,64}$/.test(incomingId) ? incomingId : newId("req");
    const headers = new Headers({ ...BASE_HEADERS, "X-Request-Id": requestId });
    const url = new URL(req.url);
    const path = url.pathname.startsWith(API_PREFIX) ? url.pathname.slice(API_PREFIX.length) || "/" : url.pathname;
    let app: AppServices | undefined;
    let status = 500;
    let response: Response;
    try {
      const match = matchRoute(routes, req.method === "HEAD" ? "GET" : req.method, path);
      if (!match) throw new AppError("NOT_FOUND", `no endpoint ${req.method} ${API_PREFIX}${path}`);
      if ("allowed" in match) {
        headers.set("Allow", match.allowed.join(", "));
        throw new AppError("METHOD_NOT_ALLOWED", `${req.method} is not allowed on ${API_PREFIX}${path}`);
      }
      const { route, params } = match;
      const body = route.method === "GET" ? undefined : await readBody(req, route.meta.rest.bodyLimit ?? bodyLimits.defaultBytes);
      const input = buildInput(route, params, route.method === "GET" || route.method === "DELETE" ? queryObject(url) : {}, body, req.headers.get("if-match"));
      app = await options.getApp();
      const ctx = createInnerContext(app, {
        requestId,
        ip: clientIp(req),
        userAgent: req.headers.get("user-agent") ?? "",
        credentials: {
          authorization: req.headers.get("authorization") ?? undefined,
          apiKey: req.headers.get("x-api-key") ?? undefined,
        },
        responseHeaders: headers,
      });
      const caller = options.createCaller(ctx);
      const fn = route.procedurePath.split(".").reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], caller);
      const output = await (fn as (input: unknown) => Promise<unknown>)(input);
      status = route.meta.rest.status ?? 200;
      response = json(status, output, headers);
    } catch (err) {
      const appError = toAppError(err);
      status = appError.status;
      for (const [k, v] of Object.entries(appError.headers ?? {})) headers.set(k, v);
      if (appError.code === "INTERNAL" && !AppError.is(err) && app) {
        app.logger.error({ err, requestId }, "unhandled error");
      }
      response = json(status, errorBody(appError), headers);
    }
    const logger = app?.logger ?? (await options.getApp().catch(() => undefined))?.logger;
    logger?.info(
      { requestId, method: req.method, path: url.pathname, status, ms: Math.round(performance.now() - started) },
      "request",
    );
    return response;
  };
}
