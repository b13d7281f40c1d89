import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { API_PREFIX, type RestRequest, type RestResult } from "../api/rest/handler";
import { CLIENT_IP_HEADER } from "./client-ip";
import { refusedUnread, type LimitedBytes, type LimitedRead } from "../api/rest/read-body";
import type { WebhookHttpRequest } from "../api/rest/webhook-handler";
import { isKeptBody } from "../api/frozen-output";
import { chooseCoding, compressedBody, COMPRESS_MIN_BYTES, type ContentCoding } from "./compression";

/**
 * The headers next.config.mjs's `headers()` puts on every response. Requests the custom server
 * hands straight to a route's handler (below) get the same ones, so both mounts answer alike.
 */
export const SITE_HEADERS: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "X-Frame-Options": "DENY",
};

export type FetchHandler = (req: Request) => Promise<Response>;

/**
 * Which requests the custom server serves without Next: the REST API (everything under /api/v1
 * except the OpenAPI document, a route file of its own), the webhooks, tRPC and GET /metrics (which
 * has no route file: Next never serves it). Paths Next would
 * rewrite first (a trailing slash, which Next redirects; empty segments) stay with Next, so its
 * answers to them do not change.
 */
export function directMountFor(url: string): "rest" | "webhooks" | "trpc" | "metrics" | undefined {
  const q = url.indexOf("?");
  const pathname = q === -1 ? url : url.slice(0, q);
  if (pathname === "/metrics") return "metrics";
  if (pathname.endsWith("/") || pathname.includes("//")) return undefined;
  if (pathname.startsWith(`${API_PREFIX}/`)) return pathname === `${API_PREFIX}/openapi.json` ? undefined : "rest";
  if (pathname.startsWith("/hooks/")) return "webhooks";
  // /api/trpc/[trpc]: one segment (a procedure name, or several joined by commas when batched).
  if (pathname.startsWith("/api/trpc/") && pathname.indexOf("/", "/api/trpc/".length) === -1) return "trpc";
  return undefined;
}

/** IncomingMessage → fetch Request (the body streamed, so the handler's size limits apply while reading). */
export function toRequest(req: IncomingMessage, origin: string): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    // The client's own value of the client-IP header never passes; the server's (set on
    // req.headers from the socket before this runs) does.
    if (raw[i]!.toLowerCase() !== CLIENT_IP_HEADER) headers.append(raw[i]!, raw[i + 1]!);
  }
  const ip = req.headers[CLIENT_IP_HEADER];
  if (typeof ip === "string") headers.set(CLIENT_IP_HEADER, ip);
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(origin + (req.url ?? "/"), {
    method,
    headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
    // Required by undici for a streamed request body.
    ...(hasBody ? { duplex: "half" } : {}),
  } as RequestInit);
}

/** Bodies up to this size are written as one string with the head (writeResponse). */
const SMALL_BODY_BYTES = 16 * 1024;

/** Writes a fetch Response (nothing here streams) to the Node response. */
export async function writeResponse(res: ServerResponse, response: Response, req?: IncomingMessage): Promise<void> {
  for (const [name, value] of Object.entries(SITE_HEADERS)) {
    if (!response.headers.has(name)) res.setHeader(name, value);
  }
  response.headers.forEach((value, name) => {
    // The body is written whole with its Content-Length: Node frames it, whatever framing the
    // Response named (tRPC's streamed batches say Transfer-Encoding: chunked).
    if (name !== "set-cookie" && name !== "transfer-encoding" && name !== "content-length") res.setHeader(name, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  res.statusCode = response.status;
  if (response.body === null) {
    res.end();
    return;
  }
  // The body's bytes as the Response holds them. A small JSON or text body becomes a string, which
  // Node writes with the head in one chunk; a large one (the node catalog: 150 KB) stays bytes:
  // decoding it only for Node to encode it again cost more than the request's own work.
  const bytes = Buffer.from(await response.arrayBuffer());
  const type = response.headers.get("content-type") ?? "";
  const payload = bytes.byteLength <= SMALL_BODY_BYTES && /^(application\/(?:[\w.+-]+\+)?json|text\/)/i.test(type) ? bytes.toString("utf8") : bytes;
  const compressing = compressible(res, type, response.headers.get("vary"), response.headers.has("content-encoding"), payload, req);
  if (compressing) return endCompressed(res, payload, await compressing.body, compressing.coding);
  res.setHeader("Content-Length", bytes.byteLength);
  res.end(payload);
}

/**
 * Serves one request with a route file's own handler (the same function Next mounts), so the REST
 * API and the webhooks skip Next's routing, rendering and request wrapping, which cost more than
 * our whole request under load (docs/BENCHMARKS.md, benchmark 2).
 */
export async function serveDirect(req: IncomingMessage, res: ServerResponse, origin: string, handler: FetchHandler): Promise<void> {
  const response = await handler(toRequest(req, origin));
  await writeResponse(res, response, req);
}

/**
 * /api/trpc on the custom server: the common requests through the core (api/trpc-node.ts), the rest
 * through tRPC's fetch adapter, which answers them as it always has.
 */
export async function serveTrpc(req: IncomingMessage, res: ServerResponse, origin: string, core: (req: RestRequest) => Promise<RestResult | undefined>, fallback: FetchHandler): Promise<void> {
  const result = await core(restRequestFrom(req));
  if (!result) return serveDirect(req, res, origin, fallback);
  const written = writeRestResult(res, result, req);
  if (written) await written;
}

/** A Node request as the REST adapter reads it: no fetch Request, no web stream in between. */
export function restRequestFrom(req: IncomingMessage): RestRequest {
  const method = req.method ?? "GET";
  return {
    method,
    target: req.url ?? "/",
    header(name) {
      const value = req.headers[name];
      return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
    },
    readBody: method === "GET" || method === "HEAD" ? null : (limit) => readNodeBody(req, limit),
    readBytes: method === "GET" || method === "HEAD" ? null : (limit) => readNodeBytes(req, limit),
  };
}

/**
 * The webhooks on the custom server, over Node's objects as the REST mount (a fetch Request and
 * Response around each call cost half of a webhook's CPU: docs/BENCHMARKS.md). msg.req.headers
 * are Node's `req.headers`, as Express hands them to Node-RED's http in: in the order they came, a
 * repeated singleton header (Content-Type, Authorization…) as its first value.
 */
export async function serveWebhooks(req: IncomingMessage, res: ServerResponse, handler: (req: WebhookHttpRequest) => Promise<RestResult>): Promise<void> {
  const rest = restRequestFrom(req);
  const result = await handler({
    method: rest.method,
    target: rest.target,
    header: rest.header,
    headers() {
      const out: Record<string, string> = {};
      for (const name in req.headers) {
        const value = req.headers[name];
        if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
      }
      return out;
    },
    readBytes: rest.readBytes ?? null,
  });
  // A body left unread (no flow serves the path, or refused as too large) is not drained: the
  // connection closes once the answer is written.
  if (!req.complete) res.setHeader("connection", "close");
  // A flow's answer goes as the flow made it (Node-RED's http response does not compress either).
  void writeRestResult(res, result);
}

/**
 * A Node request's body within `limit` bytes, by its own events (no async iterator: each of its
 * steps is a promise, and promises cost on the request path). Past the limit it stops reading and
 * answers "refused" without destroying the socket, so the 413 can still be written (serveRest
 * closes the connection afterwards). A request that ends before its body does rejects.
 */
export function readNodeBody(req: IncomingMessage, limit: number): Promise<LimitedRead> {
  const declared = req.headers["content-length"];
  if (refusedUnread(declared ?? null, limit)) return Promise.resolve({ ok: false });
  return new Promise<LimitedRead>((resolve, reject) => new BodyReader(req, limit, resolve as (read: LimitedRead | LimitedBytes) => void, reject, "text").start());
}

/** readNodeBody, keeping the bytes as they came (PUT /files/{path}). */
export function readNodeBytes(req: IncomingMessage, limit: number): Promise<LimitedBytes> {
  const declared = req.headers["content-length"];
  if (refusedUnread(declared ?? null, limit)) return Promise.resolve({ ok: false });
  return new Promise<LimitedBytes>((resolve, reject) => new BodyReader(req, limit, resolve as (read: LimitedRead | LimitedBytes) => void, reject, "bytes").start());
}

/**
 * readNodeBody's listeners, as methods bound once per request: closures declared inside the
 * function would each get a name-setting wrapper from the TypeScript loader on every call.
 */
class BodyReader {
  private readonly kept: Buffer[] = [];
  private total = 0;

  constructor(
    private readonly req: IncomingMessage,
    private readonly limit: number,
    private readonly resolve: (read: LimitedRead | LimitedBytes) => void,
    private readonly reject: (error: unknown) => void,
    private readonly as: "text" | "bytes",
  ) {
    this.onData = this.onData.bind(this);
    this.onEnd = this.onEnd.bind(this);
    this.onError = this.onError.bind(this);
    this.onClose = this.onClose.bind(this);
  }

  start(): void {
    // Only future events are heard: a request already gone, or whose body was already consumed,
    // must settle now rather than never.
    if (this.req.destroyed && !this.req.readableEnded) return this.reject(new Error("the request ended before its body was read"));
    if (this.req.readableEnded) return this.resolve(this.as === "text" ? { ok: true, text: "" } : { ok: true, bytes: Buffer.alloc(0) });
    this.req.on("data", this.onData);
    this.req.on("end", this.onEnd);
    this.req.on("error", this.onError);
    this.req.on("close", this.onClose);
  }

  private stop(): void {
    this.req.off("data", this.onData);
    this.req.off("end", this.onEnd);
    this.req.off("error", this.onError);
    this.req.off("close", this.onClose);
  }

  private onData(chunk: Buffer): void {
    this.total += chunk.byteLength;
    if (this.total > this.limit) {
      this.stop();
      this.req.pause();
      this.resolve({ ok: false });
      return;
    }
    this.kept.push(chunk);
  }

  private onEnd(): void {
    this.stop();
    const bytes = this.kept.length === 1 ? this.kept[0]! : Buffer.concat(this.kept);
    this.resolve(this.as === "text" ? { ok: true, text: bytes.toString("utf8") } : { ok: true, bytes });
  }

  private onError(error: unknown): void {
    this.stop();
    this.reject(error);
  }

  private onClose(): void {
    this.stop();
    this.reject(new Error("the request ended before its body was read"));
  }
}

const SITE_HEADER_ENTRIES = Object.entries(SITE_HEADERS).map(([name, value]) => [name.toLowerCase(), value] as const);

/**
 * Writes the REST adapter's result: the head and the body in one write. Given the request it
 * answers, a JSON body over 16 KiB goes compressed when the client takes Brotli or gzip
 * (http/compression.ts, compressible below); the answer is then written once the bytes are ready
 * (a kept body's are ready after its first answer). Without it (a flow's answer) never.
 */
export function writeRestResult(res: ServerResponse, result: RestResult, req?: IncomingMessage): void | Promise<void> {
  for (const [name, value] of SITE_HEADER_ENTRIES) if (!result.headers.map.has(name)) res.setHeader(name, value);
  for (const [name, value] of result.headers.map) res.setHeader(name, value);
  res.statusCode = result.status;
  const body = result.body;
  if (body === null) {
    res.end();
    return;
  }
  const compressing = compressible(res, result.headers.get("content-type"), result.headers.get("vary"), result.headers.has("content-encoding"), body, req);
  if (compressing) {
    const compressed = compressing.body;
    if (Buffer.isBuffer(compressed)) return endCompressed(res, body, compressed, compressing.coding);
    return compressed.then((made) => endCompressed(res, body, made, compressing.coding));
  }
  res.setHeader("content-length", typeof body === "string" ? Buffer.byteLength(body) : body.byteLength);
  res.end(body);
}

/**
 * For a JSON body over 16 KiB that the server wrote (not raw bytes such as a file's, and not
 * encoded already) answering a GET or HEAD: sets Vary (the answer depends on Accept-Encoding
 * whether or not this one is compressed) and, for a GET whose client takes Brotli or gzip, starts
 * the compressed body. Else undefined. Only answers to GET are compressed: every answer that
 * carries a credential (a login's tokens, a new API key, an MFA secret) answers a POST, so no
 * secret ever shares a compressed body with text a client chose (BREACH); HEAD has no body.
 */
function compressible(
  res: ServerResponse,
  contentType: string | null,
  vary: string | null,
  encoded: boolean,
  body: string | Buffer,
  req: IncomingMessage | undefined,
): { coding: ContentCoding; body: Buffer | Promise<Buffer | null> } | undefined {
  if (!req || body.length <= COMPRESS_MIN_BYTES || encoded || contentType === null || !JSON_TYPE.test(contentType)) return undefined;
  if (req.method !== "GET" && req.method !== "HEAD") return undefined;
  res.setHeader("vary", vary ? `${vary}, Accept-Encoding` : "Accept-Encoding");
  if (req.method === "HEAD") return undefined;
  const coding = chooseCoding(req.headers["accept-encoding"], typeof body !== "string" && isKeptBody(body));
  if (!coding) return undefined;
  return { coding, body: compressedBody(typeof body === "string" ? Buffer.from(body, "utf8") : body, coding) };
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;

function endCompressed(res: ServerResponse, body: string | Buffer, compressed: Buffer | null, coding: ContentCoding): void {
  if (res.destroyed) return;
  if (compressed === null) {
    // Compression failed (it should not): the body as it is.
    res.setHeader("content-length", typeof body === "string" ? Buffer.byteLength(body) : body.byteLength);
    res.end(body);
    return;
  }
  res.setHeader("content-encoding", coding);
  res.setHeader("content-length", compressed.byteLength);
  res.end(compressed);
}

/** The REST API on the custom server: the same core as the route file's handler, over Node's objects. */
export async function serveRest(req: IncomingMessage, res: ServerResponse, core: (req: RestRequest) => Promise<RestResult>): Promise<RestResult> {
  const result = await core(restRequestFrom(req));
  // A body left unread (refused as too large, or sent where none is taken) is not drained: the
  // connection closes once the answer is written.
  if (!req.complete) res.setHeader("connection", "close");
  const written = writeRestResult(res, result, req);
  if (written) await written;
  return result;
}
