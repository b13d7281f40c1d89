import type { AnyProcedure, AnyRouter } from "@trpc/server";
import { AppError, errorBody } from "../errors";
import { bodyLimits } from "../../shared/policy";
import { readBodyWithLimit } from "./rest/read-body";

type Meta = { rest?: { bodyLimit?: number } };

/**
 * The body limit of a /api/trpc request: the largest limit among the procedures it names (a batch
 * names several: "flows.update,flows.create"), the same per-procedure limits as the REST adapter
 * (flows 5 MiB, everything else 1 MiB). Unknown names get the default.
 */
export function trpcBodyLimit(router: AnyRouter, url: URL, endpoint: string): number {
  const procedures = router._def.procedures as Record<string, AnyProcedure>;
  const names = decodeURIComponent(url.pathname.slice(endpoint.length).replace(/^\//, "")).split(",");
  let limit: number = bodyLimits.defaultBytes;
  for (const name of names) {
    const meta = procedures[name]?._def.meta as Meta | undefined;
    limit = Math.max(limit, meta?.rest?.bodyLimit ?? bodyLimits.defaultBytes);
  }
  return limit;
}

/**
 * Reads the request's body counting bytes while it streams (413 as soon as it passes the limit,
 * before tRPC buffers or parses anything) and hands on a request with the buffered body.
 */
export async function limitTrpcBody(req: Request, router: AnyRouter, endpoint: string): Promise<Request | Response> {
  if (req.method === "GET" || req.method === "HEAD" || !req.body) return req;
  const limit = trpcBodyLimit(router, new URL(req.url), endpoint);
  const read = await readBodyWithLimit(req, limit);
  if (!read.ok) {
    const err = new AppError("PAYLOAD_TOO_LARGE", `request body exceeds ${limit} bytes`);
    return new Response(JSON.stringify(errorBody(err)), {
      status: err.status,
      headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff" },
    });
  }
  const headers = new Headers(req.headers);
  headers.delete("content-length");
  headers.delete("transfer-encoding");
  return new Request(req.url, { method: req.method, headers, body: read.text, signal: req.signal });
}
