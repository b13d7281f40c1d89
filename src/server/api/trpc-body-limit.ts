import type { AnyProcedure, AnyRouter } from "@trpc/server";
import { AppError, errorBody } from "../errors";
import { bodyLimits } from "../../shared/policy";
import { SESSION_COOKIE } from "../auth/browser-session";
import { readBodyWithLimit } from "./rest/read-body";
import { JSON_TOO_DEEP_MESSAGE, jsonTooDeep } from "../../shared/json-depth";

type Meta = { rest?: { bodyLimit?: number }; trpcBodyLimit?: number };

/**
 * The body limit of a /api/trpc request: the largest limit among the procedures it names (a batch
 * names several: "flows.update,flows.create"), the same per-procedure limits as the REST adapter
 * (flows 5 MiB, everything else 1 MiB). Unknown names get the default.
 */
export function trpcBodyLimit(router: AnyRouter, url: URL, endpoint: string): number {
  const procedures = router._def.procedures as Record<string, AnyProcedure>;
  const names = procedureNames(url, endpoint) ?? [];
  let limit: number = bodyLimits.defaultBytes;
  for (const name of names) {
    const meta = procedures[name]?._def.meta as Meta | undefined;
    limit = Math.max(limit, meta?.trpcBodyLimit ?? meta?.rest?.bodyLimit ?? bodyLimits.defaultBytes);
  }
  return limit;
}

/** The procedure names of a /api/trpc path; null when the path is not valid percent-encoded UTF-8. */
function procedureNames(url: URL, endpoint: string): string[] | null {
  try {
    return decodeURIComponent(url.pathname.slice(endpoint.length).replace(/^\//, "")).split(",");
  } catch {
    return null;
  }
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Whether tRPC reads the body as JSON (its JSON content-type handler; forms and octet streams are not). */
function isJsonBody(req: Request): boolean {
  return (req.headers.get("content-type") ?? "").split(";", 1)[0]!.trim().toLowerCase() === "application/json";
}

const refuse = (err: AppError) =>
  new Response(JSON.stringify(errorBody(err)), {
    status: err.status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff" },
  });

/**
 * Reads the request's body counting bytes while it streams (413 as soon as it passes the limit,
 * before tRPC buffers or parses anything) and hands on a request with the buffered body.
 */
export async function limitTrpcBody(req: Request, router: AnyRouter, endpoint: string): Promise<Request | Response> {
  const url = new URL(req.url);
  // tRPC would throw a URIError (a 500) on such a path before any procedure runs.
  if (procedureNames(url, endpoint) === null) return refuse(new AppError("VALIDATION_FAILED", "the procedure path is not valid percent-encoding"));
  // A query's input travels in the URL.
  const input = url.searchParams.get("input");
  if (input) {
    if (jsonTooDeep(input)) return refuse(new AppError("VALIDATION_FAILED", JSON_TOO_DEEP_MESSAGE));
    // tRPC's own parse would fail inside the procedure, as a 500.
    if (!parsesAsJson(input)) return refuse(new AppError("INVALID_JSON", "the input parameter is not valid JSON"));
  }
  if (req.method === "GET" || req.method === "HEAD" || !req.body) return req;
  const limit = trpcBodyLimit(router, url, endpoint);
  // Only authenticated procedures take more than the default: without any credential such a body
  // (an upload's 16 MiB) is not read at all.
  if (limit > bodyLimits.defaultBytes && !req.headers.get("authorization") && !req.headers.get("x-api-key") && !(req.headers.get("cookie") ?? "").includes(SESSION_COOKIE)) {
    return refuse(new AppError("UNAUTHENTICATED", "authentication required: sign in, or send a bearer access token or an API key"));
  }
  const read = await readBodyWithLimit(req, limit);
  if (!read.ok) return refuse(new AppError("PAYLOAD_TOO_LARGE", `request body exceeds ${limit} bytes`));
  if (jsonTooDeep(read.text)) return refuse(new AppError("VALIDATION_FAILED", JSON_TOO_DEEP_MESSAGE));
  if (isJsonBody(req) && !parsesAsJson(read.text)) return refuse(new AppError("INVALID_JSON", "request body is not valid JSON"));
  const headers = new Headers(req.headers);
  headers.delete("content-length");
  headers.delete("transfer-encoding");
  return new Request(req.url, { method: req.method, headers, body: read.text, signal: req.signal });
}
