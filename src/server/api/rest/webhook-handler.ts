import type { AppServices } from "../../app-services";
import { AppError, errorBody, toAppError } from "../../errors";
import { bodyLimits } from "../../../shared/policy";
import { WEBHOOK_SECURITY_HEADERS, filterResponseHeaders, webhookRequestHeaders } from "../../runtime/webhooks";
import { readBodyBytesWithLimit, type LimitedBytes } from "./read-body";
import { lazyRequire } from "../../lazy-require";
import { isMultipartFormData, webhookMultipart } from "./multipart";
import type { WebhookMultipart } from "../../runtime/webhooks";
import { consumeWebhookLimits } from "../../auth/limits";
import { CLIENT_IP_HEADER } from "../../http/client-ip";
import { JSON_TOO_DEEP_MESSAGE, jsonTooDeep } from "../../../shared/json-depth";
import { ResponseHeaderMap, type RestResult } from "./handler";

/**
 * A webhook request as the handler reads it, from either mount: Node's request on the custom server
 * (http/direct-mount.ts, serveWebhookNode), a fetch Request in Next's route file and in tests
 * (handleWebhook, below).
 */
export interface WebhookHttpRequest {
  method: string;
  /** The request target: path and query, as sent ("/hooks/acme/orders?x=1"). */
  target: string;
  /** A header's value by its lower-case name; null when absent. */
  header(name: string): string | null;
  /** Every header by lower-case name, in the order they came (msg.req.headers: the hidden ones are removed later). */
  headers(): Record<string, string>;
  /** Reads the body within `limit` bytes (read-body.ts's rules); null when the method takes none. */
  readBytes: ((limit: number) => Promise<LimitedBytes>) | null;
}

/** A refusal of ours (not the flow's answer): status and body from the one error table. */
function fail(err: AppError): RestResult {
  const headers = new ResponseHeaderMap();
  for (const [name, value] of Object.entries(WEBHOOK_SECURITY_HEADERS)) headers.set(name, value);
  headers.set("content-type", "application/json; charset=utf-8");
  headers.set("cache-control", "no-store");
  for (const [name, value] of Object.entries(err.headers ?? {})) headers.set(name, value);
  return { status: err.status, headers, body: JSON.stringify(errorBody(err)) };
}

/**
 * The webhook mount without Next's router: /hooks/{org_slug}/{path…} parsed from the target, its
 * segments decoded as Next decodes a catch-all's params.
 */
export async function serveWebhookTarget(app: AppServices, req: WebhookHttpRequest): Promise<RestResult> {
  const pathname = new URL(req.target, "http://webhook.invalid").pathname;
  let parts: string[];
  try {
    parts = pathname.slice("/hooks/".length).split("/").map(decodeURIComponent);
  } catch {
    return fail(new AppError("VALIDATION_FAILED", "the webhook path is not valid percent-encoding"));
  }
  const [slug, ...segments] = parts;
  return serveWebhookRequest(app, req, slug!, segments);
}

/**
 * /hooks/{org_slug}/{path}: a request for an http-in node of a running flow of that organization.
 * The flow answers through its http-response node; no running listener → JSON 404, before a byte
 * of the body is read. The body is counted while it streams in (413 as soon as it passes the limit).
 * Every answer carries WEBHOOK_SECURITY_HEADERS, and a flow's own headers pass an allow-list.
 */
export async function serveWebhookRequest(app: AppServices, req: WebhookHttpRequest, slug: string, segments: string[]): Promise<RestResult> {
  try {
    return await serveWebhook(app, req, slug, segments);
  } catch (err) {
    // What the store or the database threw on the way (the listener lookup and the rate limits
    // read the store, a forwarded call crosses its pub/sub) answers from the one table: an outage
    // is 503 UNAVAILABLE with Retry-After, never a 500.
    const appError = toAppError(err);
    if (appError.code === "INTERNAL") app.logger.error({ err, path: req.target.split("?")[0] }, "webhook failed");
    return fail(appError);
  }
}

/** A fetch Request as a WebhookHttpRequest. */
function fromFetch(req: Request): WebhookHttpRequest {
  const url = new URL(req.url);
  return {
    method: req.method,
    target: url.pathname + url.search,
    header: (name) => req.headers.get(name),
    headers: () => {
      const out: Record<string, string> = {};
      req.headers.forEach((value, name) => {
        out[name] = value;
      });
      return out;
    },
    readBytes: req.body ? (limit) => readBodyBytesWithLimit(req, limit) : null,
  };
}

/** A RestResult as a fetch Response. */
function toResponse(result: RestResult): Response {
  const headers = new Headers();
  for (const [name, value] of result.headers.map) headers.set(name, value);
  return new Response(typeof result.body === "string" || result.body === null ? result.body : new Uint8Array(result.body), { status: result.status, headers });
}

/** The fetch mount of /hooks/…: the whole URL (tests, and the custom server's listener in tests). */
export async function handleWebhookUrl(app: AppServices, req: Request): Promise<Response> {
  return toResponse(await serveWebhookTarget(app, fromFetch(req)));
}

/** Next's route file: the slug and the catch-all's segments as Next decoded them. */
export async function handleWebhook(app: AppServices, req: Request, slug: string, segments: string[]): Promise<Response> {
  return toResponse(await serveWebhookRequest(app, fromFetch(req), slug, segments));
}

/** qs, at the first form a webhook receives (issue 39: idle memory). */
const qs = lazyRequire<typeof import("qs")>("qs");
const FORM_PARAMETER_LIMIT = 1000;
const FORM_DEPTH_LIMIT = 32;

/**
 * A form body as Node-RED's `bodyParser.urlencoded({ extended: true })` (body-parser 1.20) gives
 * it: qs with the same options, so `a=1&a=2` is `["1", "2"]` and `b[c]=3` is `{ b: { c: "3" } }`
 * (a `__proto__` key is dropped, by qs); more than 1,000 parameters is a 413, nesting deeper than
 * 32 levels a 400.
 */
export function parseForm(text: string): Record<string, unknown> | AppError {
  let ampersands = 0;
  for (let i = text.indexOf("&"); i !== -1; i = text.indexOf("&", i + 1)) {
    if (++ampersands >= FORM_PARAMETER_LIMIT) return new AppError("PAYLOAD_TOO_LARGE", `a form body may have at most ${FORM_PARAMETER_LIMIT} parameters`);
  }
  try {
    return qs().parse(text, { allowPrototypes: true, arrayLimit: Math.max(100, ampersands), depth: FORM_DEPTH_LIMIT, strictDepth: true, parameterLimit: FORM_PARAMETER_LIMIT });
  } catch {
    return new AppError("VALIDATION_FAILED", `a form body may nest at most ${FORM_DEPTH_LIMIT} levels deep`);
  }
}

/**
 * A query string as Express 4.22's default ("extended") query parser gives it to Node-RED's http
 * in: qs with Express's options (arrays up to index 1,000) and qs's own bounds (1,000 parameters,
 * 5 levels), so `a=1&a=2` is `["1", "2"]` and `b[c]=3` is `{ b: { c: "3" } }` (a `__proto__` key is
 * dropped, by qs).
 */
export function parseQuery(text: string): Record<string, unknown> {
  return qs().parse(text, { allowPrototypes: true, arrayLimit: 1000 });
}

/**
 * Node-RED's http in keeps a body as bytes (a Buffer) when its media type is neither text nor XML
 * and either not `application/*` at all (multipart/form-data, image/png, audio/…) or one of
 * `application/octet-stream`, `application/cbor` and `application/x-protobuf` (21-httpin.js,
 * `rawBodyParser`); every other body is text, JSON and form bodies parsed first, as here.
 */
export function keptAsBytes(contentType: string): boolean {
  const essence = contentType.split(";")[0]!.trim().toLowerCase();
  const m = /^([\w.+-]+)\/([\w.-]+)(?:\+([\w.-]+))?$/.exec(essence);
  if (!m) return false;
  const [, type, subtype, suffix] = m;
  if (type === "text" || subtype === "xml" || suffix === "xml") return false;
  if (type !== "application") return true;
  return subtype === "octet-stream" || subtype === "cbor" || subtype === "x-protobuf";
}

/**
 * A request body as Node-RED's parsers give it: JSON for application/json itself (an object or an
 * array, as body-parser's strict mode; an empty body is {}; other +json types are text), a form
 * for application/x-www-form-urlencoded (parseForm), bytes in base64 for the types keptAsBytes
 * names, else text.
 */
function webhookBody(contentType: string, raw: Buffer): { body?: unknown; bytes?: string } | AppError {
  if (keptAsBytes(contentType)) return { bytes: raw.toString("base64") };
  const text = raw.toString("utf8");
  const essence = contentType.split(";")[0]!.trim().toLowerCase();
  if (essence === "application/x-www-form-urlencoded") {
    const form = parseForm(text);
    return form instanceof AppError ? form : { body: form };
  }
  if (essence !== "application/json") return { body: text };
  if (text === "") return { body: {} };
  if (jsonTooDeep(text)) return new AppError("VALIDATION_FAILED", JSON_TOO_DEEP_MESSAGE);
  if (!/^[ \t\n\r]*[{[]/.test(text)) return new AppError("INVALID_JSON", "request body is not valid JSON (an object or an array)");
  try {
    return { body: JSON.parse(text) };
  } catch {
    return new AppError("INVALID_JSON", "request body is not valid JSON (an object or an array)");
  }
}

async function serveWebhook(app: AppServices, req: WebhookHttpRequest, slug: string, segments: string[]): Promise<RestResult> {
  const method = req.method;
  const path = `/${segments.map(encodeURIComponent).join("/")}`;
  if (!(await app.flowRuntime.hasWebhook(slug, method, path))) return fail(new AppError("NOT_FOUND", `no running flow serves ${method} /hooks/${slug}${path}`));
  // Per organization: its slug names it (unique), without a database read per request.
  const refused = await consumeWebhookLimits(app, req.header(CLIENT_IP_HEADER) ?? "unknown", slug);
  if (refused) return fail(new AppError("RATE_LIMITED", "too many webhook requests, try again later", { headers: { "retry-after": String(refused.retryAfterSec) } }));
  let body: unknown = undefined;
  let multipart: WebhookMultipart | undefined;
  let bytes: string | undefined;
  if (method !== "GET" && method !== "HEAD") {
    const read = req.readBytes ? await req.readBytes(bodyLimits.defaultBytes) : { ok: true as const, bytes: Buffer.alloc(0) };
    if (!read.ok) return fail(new AppError("PAYLOAD_TOO_LARGE", `request body exceeds ${bodyLimits.defaultBytes} bytes`));
    const type = req.header("content-type") ?? "";
    // Parsed as Node-RED's multer parses it, for an http in node that accepts file uploads (the
    // others take its bytes, and a malformed body is an error only for those that accept uploads).
    if (isMultipartFormData(type)) multipart = await webhookMultipart(type, read.bytes);
    const parsed = webhookBody(type, read.bytes);
    if (parsed instanceof AppError) return fail(parsed);
    ({ body, bytes } = parsed);
  }
  // The query as the URL parser reads it: a fragment (which a raw client may send) is not part of it.
  const hash = req.target.indexOf("#");
  const target = hash === -1 ? req.target : req.target.slice(0, hash);
  const q = target.indexOf("?");
  const query = q === -1 || q === target.length - 1 ? {} : parseQuery(target.slice(q + 1));
  // Served by the flow wherever it runs (another instance, in a cluster).
  const res = await app.flowRuntime.handleWebhook(slug, { method, path, query, headers: webhookRequestHeaders(req.headers()), body, ...(multipart !== undefined && { multipart }), ...(bytes !== undefined && { bytes }) });
  if (!res) return fail(new AppError("NOT_FOUND", `no running flow serves ${method} /hooks/${slug}${path}`));
  const headers = new ResponseHeaderMap();
  for (const [name, value] of Object.entries(filterResponseHeaders(res.headers).allowed)) headers.set(name, value);
  let payload: string | Buffer | null;
  if (res.body === undefined || res.body === null) payload = null;
  else if (typeof res.body === "string") {
    payload = res.body;
    // Express's res.send(text), as Node-RED's http response sends it: HTML unless the flow said otherwise (inert here: WEBHOOK_SECURITY_HEADERS).
    if (!headers.has("content-type")) headers.set("content-type", "text/html; charset=utf-8");
  } else if (Buffer.isBuffer(res.body)) {
    payload = res.body;
    if (!headers.has("content-type")) headers.set("content-type", "application/octet-stream");
  } else {
    // (A value JSON cannot write, a function or a symbol, is no body.)
    payload = JSON.stringify(res.body) ?? null;
    if (!headers.has("content-type")) headers.set("content-type", "application/json; charset=utf-8");
  }
  if (!headers.has("cache-control")) headers.set("cache-control", "no-store");
  for (const [name, value] of Object.entries(WEBHOOK_SECURITY_HEADERS)) headers.set(name, value);
  // A flow's bad status (1xx, out of range) is its own error, not a 500.
  const status = Number.isInteger(res.status) && res.status >= 200 && res.status <= 599 ? res.status : 502;
  const noBody = status === 204 || status === 205 || status === 304 || method === "HEAD";
  return { status, headers, body: noBody ? null : payload };
}
