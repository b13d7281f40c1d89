import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AppMetrics } from "../metrics";
import { AppError, errorBody } from "../errors";
import { CLIENT_IP_HEADER } from "./client-ip";
import { SITE_HEADERS } from "./direct-mount";

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/** 127.0.0.0/8 and ::1 (client-ip.ts has already turned ::ffff:127.0.0.1 into 127.0.0.1). */
export function isLoopback(ip: string): boolean {
  return ip === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(ip);
}

/**
 * Who may scrape (SPEC §18): with METRICS_TOKEN, whoever sends `Authorization: Bearer <token>`
 * (compared in constant time, over digests so the length leaks nothing either), from anywhere;
 * a missing or wrong token answers 401 UNAUTHENTICATED. Without it, loopback clients only: the
 * client TRUST_PROXY_HOPS resolves (the header the custom server set) and the socket's peer must
 * both be loopback; anyone else gets 404 NOT_FOUND, as if the endpoint did not exist.
 */
export function metricsRefusal(req: IncomingMessage, token: string | undefined): AppError | null {
  if (token !== undefined) {
    const header = req.headers.authorization ?? "";
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (match && timingSafeEqual(digest(match[1]!), digest(token))) return null;
    return new AppError("UNAUTHENTICATED", "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>", {
      headers: { "WWW-Authenticate": 'Bearer realm="metrics"' },
    });
  }
  // The socket's peer must be loopback as well: with TRUST_PROXY_HOPS set, an X-Forwarded-For of
  // 127.0.0.1 sent straight to the instance (not through the proxy) would otherwise pass.
  const ip = req.headers[CLIENT_IP_HEADER];
  const peer = (req.socket.remoteAddress ?? "").replace(/^::ffff:/, "");
  if (typeof ip === "string" && isLoopback(ip) && isLoopback(peer)) return null;
  return new AppError("NOT_FOUND", "not found");
}

function writeError(res: ServerResponse, error: AppError): void {
  const body = JSON.stringify(errorBody(error));
  res.statusCode = error.status;
  for (const [name, value] of Object.entries(SITE_HEADERS)) res.setHeader(name, value);
  for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
  res.setHeader("cache-control", "no-store");
  res.setHeader("content-type", "application/json; charset=utf-8");
  res.setHeader("content-length", Buffer.byteLength(body));
  res.end(body);
}

/** GET /metrics: this instance's metrics in Prometheus's text exposition format. */
export async function serveMetrics(req: IncomingMessage, res: ServerResponse, metrics: AppMetrics, token: string | undefined): Promise<void> {
  const refusal = metricsRefusal(req, token);
  if (refusal) return writeError(res, refusal);
  if (req.method !== "GET" && req.method !== "HEAD") {
    return writeError(res, new AppError("METHOD_NOT_ALLOWED", `${req.method ?? ""} is not allowed on /metrics`, { headers: { Allow: "GET, HEAD" } }));
  }
  const text = await metrics.exposition();
  res.statusCode = 200;
  for (const [name, value] of Object.entries(SITE_HEADERS)) res.setHeader(name, value);
  res.setHeader("cache-control", "no-store");
  res.setHeader("content-type", metrics.contentType);
  res.setHeader("content-length", Buffer.byteLength(text));
  res.end(req.method === "HEAD" ? undefined : text);
}
