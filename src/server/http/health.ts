import type { IncomingMessage, ServerResponse } from "node:http";
import type { AppServices } from "../app-services";
import { API_PREFIX, requestIdFor } from "../api/rest/handler";
import { accessLogger } from "../logger";
import { health } from "../services/system/health";
import { SITE_HEADERS } from "./direct-mount";

export const HEALTH_PATH = `${API_PREFIX}/health`;

/** GET or HEAD /api/v1/health, with or without a query string (which the procedure ignores too). */
export function isHealthRequest(method: string | undefined, url: string): boolean {
  if (method !== "GET" && method !== "HEAD") return false;
  return url === HEALTH_PATH || (url.startsWith(HEALTH_PATH) && url.charCodeAt(HEALTH_PATH.length) === 63 /* ? */);
}

/**
 * GET /api/v1/health on the custom server without the REST adapter: the same body (the `health`
 * service the procedure returns), the same headers (Cache-Control, nosniff, X-Request-Id, the site
 * headers; HSTS is set by the listener before this runs), the same access log line, written in one
 * synchronous call. Load balancers and orchestrators poll it, and the adapter's routing, URL
 * parsing, context, middleware, output validation and promises cost more than twice the answer
 * (docs/BENCHMARKS.md, "/health"). Next's route file and the REST adapter still serve it too (for
 * `next dev` and the fetch mount), from the same service.
 */
export function serveHealth(req: IncomingMessage, res: ServerResponse, app: AppServices, started: number): void {
  const incoming = req.headers["x-request-id"];
  const requestId = requestIdFor(typeof incoming === "string" ? incoming : undefined);
  const body = JSON.stringify(health(app));
  res.writeHead(200, {
    ...SITE_HEADERS,
    "cache-control": "no-store",
    "x-request-id": requestId,
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
  accessLogger(app.logger).info({ requestId, method: req.method, path: HEALTH_PATH, status: 200, ms: Math.round(performance.now() - started) }, "request");
}
