import type { Message } from "./types";
import { AppError, errorBody } from "../errors";
import { randomKey } from "../ids";
import { compileSafeRegex } from "./regex";

export interface WebhookRequest {
  method: string;
  path: string;
  /** The query as Express's extended parser (qs) gives it: a repeated name is an array, `a[b]=1` nests. */
  query: Record<string, unknown>;
  headers: Record<string, string>;
  body: unknown;
  /**
   * A multipart/form-data body as the transport parsed it (api/rest/multipart.ts), for an http in
   * node that accepts file uploads: its text fields and files (bytes in base64, so the request can
   * cross to the instance running the flow), or why it could not be parsed.
   */
  multipart?: WebhookMultipart;
  /**
   * A body Node-RED keeps as bytes (a Buffer in msg.payload: multipart/*, image/*,
   * application/octet-stream… see `keptAsBytes` in api/rest/webhook-handler.ts), in base64 so the
   * request can cross to the instance running the flow; `body` is then undefined.
   */
  bytes?: string;
  /** Route parameters (`/hello/:name` → `{name}`), filled in by the registry that matched the route. */
  params?: Record<string, string>;
}

/** An uploaded file of a WebhookRequest: multer's memory-storage fields, the bytes in base64. */
export interface WebhookUpload {
  fieldname: string;
  originalname: string;
  encoding: string;
  mimetype: string;
  size: number;
  base64: string;
}

export type WebhookMultipart = { fields: Record<string, string | string[]>; files: WebhookUpload[] } | { error: string };

/**
 * The "method" of a websocket listener's route in the registry and its cluster keys
 * (runtime/socket-hooks.ts). Not an HTTP token (`:` is not a token character, and Node's parser only
 * knows the registered methods), so no HTTP request to `/hooks/...` can ever reach a socket listener.
 */
export const SOCKET_ROUTE_METHOD = "ws:";

/**
 * A route with Express 4 parameters (path-to-regexp 0.1.13, which Node-RED 5.0.7's Express 4.22
 * uses for its http in nodes): its matcher and parameter names (numbers for `*` and unnamed groups).
 */
export interface RoutePattern {
  /** The captured values (index 0: the first parameter), or null when the path does not match. */
  exec(path: string): Array<string | undefined> | null;
  keys: string[];
}

/** path-to-regexp 0.1.13's tokens: an escaped character, a parameter, `.`, `*`, or `/(`. */
const ROUTE_TOKEN = /\\.|(\/)?(\.)?:(\w+)(\(.*?\))?(\*)?(\?)?|[.*]|\/\(/g;
/** Its count of capturing groups (an unnamed one becomes a numbered parameter). */
const MATCHING_GROUP = /\\.|\((?:\?<(.*?)>)?(?!\?)/g;
/** What a route path may hold besides its parameters: `/` and URL-safe characters. */
const ROUTE_LITERAL = /^[A-Za-z0-9._~\-/]*$/;
const ROUTE_MAX_CHARS = 1000;

interface RouteSource {
  source: string;
  keys: string[];
  /** Whether a parameter carries its own regular expression (`:id(\\d+)`). */
  custom: boolean;
  /** What is left of the path outside its parameters. */
  literal: string;
}

/**
 * path-to-regexp 0.1.13's `pathToRegexp(path, keys, {sensitive: false, strict: false, end: true})`,
 * Express 4's route options, step by step: a parameter is one segment (`[^/]+?`, or up to the
 * literal that follows it: `/:from-:to`), `/:name?` an optional segment with its slash, `.:ext` a
 * dot-separated part, `:name*` the rest of the path, `:name(re)` its own expression, `*` anything;
 * `.` is literal; a trailing slash is allowed; case is ignored.
 */
function routeSource(path: string): RouteSource {
  const keys: Array<{ name: string; offset: number }> = [];
  let extraOffset = 0;
  let pos = 0;
  let backtrack = "";
  let custom = false;
  let literal = "";
  let literalFrom = 0;
  let source = path.replace(ROUTE_TOKEN, (match: string, slash: string | undefined, format: string | undefined, key: string | undefined, capture: string | undefined, star: string | undefined, optional: string | undefined, offset: number) => {
    literal += path.slice(literalFrom, offset);
    literalFrom = offset + match.length;
    if (match[0] === "\\") {
      literal += match.slice(1);
      backtrack += match;
      pos += 2;
      return match;
    }
    if (match === ".") {
      literal += ".";
      backtrack += "\\.";
      extraOffset += 1;
      pos += 1;
      return "\\.";
    }
    if (slash || format) backtrack = "";
    else backtrack += path.slice(pos, offset);
    pos = offset + match.length;
    if (match === "*") {
      backtrack = "";
      extraOffset += 3;
      return "(.*)";
    }
    if (match === "/(") {
      // An unnamed group of the path itself: not offered (refused by the literal check).
      literal += "/(";
      backtrack += "/";
      extraOffset += 2;
      return "/(?:";
    }
    literal += slash ?? "";
    const fmt = format ? "\\." : "";
    if (capture) custom = true;
    const group = capture
      ? capture.replace(/\\.|\*/, (m) => (m === "*" ? "(.*)" : m))
      : backtrack
        ? `((?:(?!/|${backtrack}).)+?)`
        : `([^/${fmt}]+?)`;
    keys.push({ name: key!, offset: offset + extraOffset });
    const result = `(?:${fmt}${slash ?? ""}${group}${star ? `((?:[/${fmt}].+?)?)` : ""})${optional ?? ""}`;
    backtrack = "";
    extraOffset += result.length - match.length;
    return result;
  });
  literal += path.slice(literalFrom);
  // Unnamed capturing groups (inside a parameter's expression, `*`) become numbered parameters, in place.
  const named = keys.map((k) => ({ name: k.name as string | number, offset: k.offset }));
  let unnamed = 0;
  let i = 0;
  for (const m of source.matchAll(MATCHING_GROUP)) {
    if (m[0][0] === "\\") continue;
    if (i === named.length || named[i]!.offset > m.index) named.splice(i, 0, { name: unnamed++, offset: m.index });
    i++;
  }
  source += path.endsWith("/") ? "?" : "/?";
  return { source: `^${source}$`, keys: named.map((k) => String(k.name)), custom, literal };
}

/**
 * Express 4's route grammar as Node-RED's `http in` uses it (routeSource). Null for a path without
 * parameters (matched as it is, ignoring case). A parameter's own expression (`/user/:id(\\d+)`)
 * runs on RE2 (runtime/regex.ts: linear time, so a route cannot stall the server); throws when the
 * path is not a route (see routePathProblem).
 */
export function compileRoute(path: string): RoutePattern | null {
  if (!/[:*]/.test(path)) return null;
  const { source, keys, custom } = routeSource(path);
  if (custom) {
    const re = compileSafeRegex(source, { caseInsensitive: true });
    return {
      keys,
      exec(text) {
        const m = re.matcher(text);
        if (!m.matches()) return null;
        return keys.map((_, i) => m.group(i + 1) ?? undefined);
      },
    };
  }
  const re = new RegExp(source, "i");
  return {
    keys,
    exec(text) {
      const m = re.exec(text);
      return m ? m.slice(1, keys.length + 1) : null;
    },
  };
}

/** Why `path` is not a route http-in accepts, or null: `/` and URL-safe characters, with Express parameters. */
export function routePathProblem(path: string): string | null {
  if (!path.startsWith("/")) return "must start with /";
  if (path.length > ROUTE_MAX_CHARS) return `must be at most ${ROUTE_MAX_CHARS} characters`;
  const { source, custom, literal } = routeSource(path);
  if (!ROUTE_LITERAL.test(literal)) return "must use URL-safe characters outside its parameters (letters, digits, . _ ~ - /); parameters as Express writes them (/users/:id, /users/:id(\\d+), /files/*)";
  try {
    if (custom) compileSafeRegex(source, { caseInsensitive: true });
    else new RegExp(source, "i");
  } catch (err) {
    return `has a parameter whose regular expression is not supported (RE2 syntax: no backreferences or lookaround${custom && source.includes("(?!") ? "; a parameter that follows text in its segment, such as -:to, cannot sit beside one with its own expression" : ""}): ${err instanceof Error ? err.message : String(err)}`.slice(0, 300);
  }
  return null;
}

/** Whether a route path is one http-in accepts (routePathProblem finds nothing). */
export function isRoutePath(path: string): boolean {
  return routePathProblem(path) === null;
}

/** The parameters of `path` under `pattern`, decoded as Express decodes them; null when it does not match. */
export function matchRoute(pattern: RoutePattern, path: string): Record<string, string> | null {
  const m = pattern.exec(path);
  if (!m) return null;
  const params: Record<string, string> = {};
  pattern.keys.forEach((key, i) => {
    const value = m[i];
    if (value === undefined) return;
    try {
      params[key] = decodeURIComponent(value);
    } catch {
      params[key] = value;
    }
  });
  return params;
}

export interface WebhookResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/**
 * A WebhookResponse as it crosses between instances (the bus carries JSON): a Buffer body (http
 * response sending bytes) travels as base64 and becomes a Buffer again on the other side, where
 * the transport answers with its bytes.
 */
export type WireWebhookResponse = WebhookResponse & { bodyBase64?: string };

export function webhookResponseToWire(res: WebhookResponse | null): WireWebhookResponse | null {
  if (res === null || !Buffer.isBuffer(res.body)) return res;
  return { status: res.status, headers: res.headers, body: null, bodyBase64: res.body.toString("base64") };
}

export function webhookResponseFromWire(res: WireWebhookResponse | null): WebhookResponse | null {
  if (res === null || res.bodyBase64 === undefined) return res;
  return { status: res.status, headers: res.headers, body: Buffer.from(res.bodyBase64, "base64") };
}

/** An error as a webhook answer: status and body from the one error table (src/server/errors.ts). */
export function webhookError(err: AppError): WebhookResponse {
  return { status: err.status, headers: { "content-type": "application/json", ...lowerCaseKeys(err.headers) }, body: errorBody(err) };
}

function lowerCaseKeys(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) out[name.toLowerCase()] = value;
  return out;
}

/** Which flow of which organization a node belongs to: a pending response answers only its own. */
export interface FlowBinding {
  flowId: string;
  organizationId: string;
}

export interface WebhookListener extends FlowBinding {
  nodeId: string;
  onRequest: (req: WebhookRequest, respond: (r: WebhookResponse) => void) => void;
}

const RESPONSE_TIMEOUT_MS = 30_000;

/**
 * Request headers a webhook never passes into the flow: the caller's credentials for this app
 * (a flow author must not harvest the session cookie or API key of whoever calls the webhook), and
 * our own internal headers.
 */
const HIDDEN_REQUEST_HEADERS = new Set(["cookie", "authorization", "proxy-authorization", "x-api-key", "x-flowplane-client-ip"]);

/** A request's headers (lower-case names) as a flow sees them in msg.req.headers: credentials and our client-IP header left out. */
export function webhookRequestHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) if (!HIDDEN_REQUEST_HEADERS.has(name)) out[name] = headers[name]!;
  return out;
}

/**
 * Response headers a flow may set on a webhook answer. Everything else (Set-Cookie, Clear-Site-Data,
 * Content-Security-Policy, Access-Control-Allow-Credentials, Refresh, Link, Service-Worker-Allowed,
 * Strict-Transport-Security...) is dropped: a webhook is served on the app's origin and must not
 * touch its cookies, its security policy or its credentials. `x-*` headers are allowed except the
 * ones that carry security policy.
 */
const ALLOWED_RESPONSE_HEADERS = new Set([
  "content-type",
  "content-language",
  "content-disposition",
  "content-encoding",
  "cache-control",
  "etag",
  "last-modified",
  "expires",
  "location",
  "retry-after",
  "vary",
  "access-control-allow-origin",
  "access-control-allow-methods",
  "access-control-allow-headers",
  "access-control-expose-headers",
  "access-control-max-age",
]);
const DENIED_X_HEADERS = new Set(["x-frame-options", "x-content-type-options", "x-xss-protection", "x-permitted-cross-domain-policies", "x-dns-prefetch-control"]);
/**
 * `x-` headers that a reverse proxy acts on instead of passing them on: nginx's X-Accel-* (an
 * internal redirect to any location, or a file), Apache's and lighttpd's X-Sendfile, LiteSpeed's
 * X-LiteSpeed-*. A flow that could send them could read files or internal locations through the
 * proxy in front of us. (DEPLOYMENT.md's nginx ignores them too: defence in depth.)
 */
const PROXY_X_HEADER = /^x-(accel-|sendfile|lighttpd-send-file|litespeed-)/;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/;

export function isAllowedResponseHeader(name: string): boolean {
  const lower = name.toLowerCase();
  if (!HEADER_NAME.test(name)) return false;
  if (ALLOWED_RESPONSE_HEADERS.has(lower)) return true;
  return lower.startsWith("x-") && !DENIED_X_HEADERS.has(lower) && !PROXY_X_HEADER.test(lower);
}

/**
 * A header value HTTP can carry as it is: Latin-1 (U+0000–U+00FF) without control characters other
 * than tab, the characters Node's `setHeader` takes (its checkInvalidHeaderChar). `10 €` or a
 * U+0001 is not one: it is refused at save and dropped at run time, never a 500.
 */
export function isHeaderValue(value: string): boolean {
  return /^[\t\x20-\x7e\x80-\xff]*$/.test(value);
}

/** Splits a flow's headers into the ones sent and the ones dropped (names, for the node's warning). */
export function filterResponseHeaders(headers: Record<string, unknown>): { allowed: Record<string, string>; dropped: string[] } {
  const allowed: Record<string, string> = {};
  const dropped: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const text = typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" ? String(value) : null;
    // A control character or one past U+00FF would make Node's setHeader throw (a 500): dropped here instead.
    if (!isAllowedResponseHeader(name) || text === null || !isHeaderValue(text)) dropped.push(name);
    else allowed[name.toLowerCase()] = text;
  }
  // A wildcard or reflected origin is never combined with credentials: we never send Allow-Credentials,
  // and an `Access-Control-Allow-Origin` with a value of `null` is refused (sandboxed documents are `null`).
  if (allowed["access-control-allow-origin"]?.trim().toLowerCase() === "null") {
    delete allowed["access-control-allow-origin"];
    dropped.push("access-control-allow-origin");
  }
  return { allowed, dropped };
}

/**
 * Headers we set on every webhook answer, over anything the flow sent: the response is inert on the
 * app's origin (a sandboxed, script-less, opaque-origin document that loads nothing and cannot be
 * framed), and its content type is never sniffed.
 */
export const WEBHOOK_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": "sandbox; default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
};

/** A key part with `%` and whitespace percent-encoded, so the space between parts never comes from inside one. */
const ESCAPED = /[%\s]/u;
// Each request makes four keys: the test first leaves the usual part (nothing to escape) as it is.
const keyPart = (text: string) => (ESCAPED.test(text) ? text.replace(/[%\s]/gu, (c) => encodeURIComponent(c)) : text);

/**
 * The key of a webhook route: organization slug, method (lower case) and path (without trailing
 * slashes), each escaped. The slug comes from the request's URL, percent-decoded, so it may hold
 * spaces: without the escaping, slug `acme get /x` with path `/y` would make the same key as slug
 * `acme` with path `/x get /y`. Valid slugs, methods and paths hold neither `%` nor spaces, so their
 * keys read as they always did (instances of an older version find the same cluster keys, for
 * lower-case paths: an HTTP route's path is keyed in lower case, so `/Hello` and `/hello` are one route).
 */
export function webhookRouteKey(slug: string, method: string, path: string): string {
  // HTTP routes ignore case, as Express's do (a websocket listener's path does not: Node-RED compares it as it is).
  const routePath = method === SOCKET_ROUTE_METHOD ? path : path.toLowerCase();
  return `${keyPart(slug)} ${keyPart(method.toLowerCase())} ${keyPart(routePath.replace(/\/+$/, "") || "/")}`;
}

/**
 * http-in nodes of running flows, by organization slug, method and path, and the requests waiting
 * for their http-response node. A path answers only while its flow runs. A pending response has an
 * unguessable id (128 random bits) and is bound to the flow and organization whose http-in opened
 * it: only an http-response of that same flow can answer it.
 */
export class WebhookRegistry {
  private readonly listeners = new Map<string, { listener: WebhookListener; seq: number }>();
  /** Routes with parameters, per slug and method, in the order they were registered (Express: the first that matches wins). */
  private readonly patterns = new Map<string, Array<{ pattern: RoutePattern; listener: WebhookListener; seq: number }>>();
  /** Requests waiting for their http-response, oldest first: opened in deadline order (RESPONSE_TIMEOUT_MS after, on the monotonic clock). */
  private readonly pending = new Map<string, FlowBinding & { deadline: number; resolve: (r: WebhookResponse) => void }>();
  /** The one timer of the pending responses: due at the oldest one's deadline. */
  private expiry: NodeJS.Timeout | undefined;
  private seq = 0;

  private key(slug: string, method: string, path: string) {
    return webhookRouteKey(slug, method, path);
  }

  register(slug: string, method: string, path: string, listener: WebhookListener): () => void {
    const key = this.key(slug, method, path);
    const existing = this.listeners.get(key);
    if (existing && existing.listener.flowId !== listener.flowId) {
      throw new Error(`${method.toUpperCase()} ${path} is served by another flow already`);
    }
    const entry = { listener, seq: existing?.seq ?? ++this.seq };
    this.listeners.set(key, entry);
    const pattern = compileRoute(path);
    const group = this.key(slug, method, "");
    if (pattern) {
      const list = (this.patterns.get(group) ?? []).filter((p) => p.seq !== entry.seq);
      list.push({ pattern, listener, seq: entry.seq });
      list.sort((a, b) => a.seq - b.seq);
      this.patterns.set(group, list);
    }
    return () => {
      if (this.listeners.get(key) !== entry) return;
      this.listeners.delete(key);
      if (!pattern) return;
      const left = (this.patterns.get(group) ?? []).filter((p) => p.listener !== listener);
      if (left.length > 0) this.patterns.set(group, left);
      else this.patterns.delete(group);
    };
  }

  /**
   * The listener a request goes to and its route parameters: as Express, the route registered first
   * among those that match (a fixed path matches only itself; `/hello/:name` any one segment).
   */
  match(slug: string, method: string, path: string): { listener: WebhookListener; params: Record<string, string> } | undefined {
    const exact = this.listeners.get(this.key(slug, method, path));
    for (const p of this.patterns.get(this.key(slug, method, "")) ?? []) {
      if (exact && p.seq > exact.seq) break;
      const params = matchRoute(p.pattern, path);
      if (params) return { listener: p.listener, params };
    }
    return exact ? { listener: exact.listener, params: {} } : undefined;
  }

  /** A response handle for a message of `binding`'s flow: only that flow's http-response answers it. */
  openResponse(binding: FlowBinding, respond: (r: WebhookResponse) => void): string {
    // From the pooled random bytes: a handle, not a secret (respond() answers only the flow that
    // opened it), and a randomBytes call per request cost a tenth of a webhook's time.
    const id = randomKey(16);
    this.pending.set(id, { flowId: binding.flowId, organizationId: binding.organizationId, deadline: performance.now() + RESPONSE_TIMEOUT_MS, resolve: respond });
    // One timer for all of them instead of a timer set and cleared per request: due at the oldest
    // one's deadline, it answers those past theirs and is set again for the next.
    if (!this.expiry) this.expireAfter(RESPONSE_TIMEOUT_MS);
    return id;
  }

  private expireAfter(delayMs: number) {
    this.expiry = setTimeout(() => this.expire(), delayMs);
    this.expiry.unref();
  }

  /**
   * Answers 504 to the requests past their deadline (the oldest first), and waits for the next.
   * The timer is set again before any answer is given, so one that throws cannot leave the rest
   * waiting forever.
   */
  private expire() {
    this.expiry = undefined;
    const now = performance.now();
    const expired: Array<(r: WebhookResponse) => void> = [];
    for (const [id, entry] of this.pending) {
      if (entry.deadline > now) {
        this.expireAfter(entry.deadline - now);
        break;
      }
      this.pending.delete(id);
      expired.push(entry.resolve);
    }
    for (const resolve of expired) resolve(webhookError(new AppError("GATEWAY_TIMEOUT", "the flow did not answer in time")));
  }

  /** Answers the request `msg` came from, if it is pending and belongs to `binding`'s flow. */
  respond(binding: FlowBinding, msg: Message, response: WebhookResponse): boolean {
    const res = msg.res;
    const id = res !== null && typeof res === "object" ? (res as { _id?: unknown })._id : undefined;
    if (typeof id !== "string") return false;
    const entry = this.pending.get(id);
    if (!entry || entry.flowId !== binding.flowId || entry.organizationId !== binding.organizationId) return false;
    this.pending.delete(id);
    entry.resolve(response);
    return true;
  }

  /** The listener for a request, if a running flow serves it (looked up before any body is read). */
  lookup(slug: string, method: string, path: string): WebhookListener | undefined {
    return this.match(slug, method, path)?.listener;
  }

  /** The listener registered for exactly this route (a pattern as written, `/hello/:name`), if any. */
  registered(slug: string, method: string, path: string): WebhookListener | undefined {
    return this.listeners.get(this.key(slug, method, path))?.listener;
  }

  dispatch(listener: WebhookListener, request: WebhookRequest): Promise<WebhookResponse> {
    return new Promise((resolve) => listener.onRequest(request, resolve));
  }

  /** Serves a request; resolves to null when no running flow listens there. */
  handle(slug: string, request: WebhookRequest): Promise<WebhookResponse> | null {
    const found = this.match(slug, request.method, request.path);
    return found ? this.dispatch(found.listener, { ...request, params: found.params }) : null;
  }
}
