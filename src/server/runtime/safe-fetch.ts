import http from "node:http";
import https from "node:https";
import { createOutboundRules } from "./outbound";
import type { HttpDispatcher } from "./http-dispatchers";
import type { ByteBudget } from "./work-limits";

export { BlockedAddressError, isBlockedAddress } from "./outbound";

/**
 * The only headers that follow a redirect to another origin: the CORS-safelisted request headers
 * and User-Agent. fetch drops Authorization there and curl every header it was given for the first
 * host; a flow's custom header may hold a secret as well as Authorization does (`X-API-Key:
 * ${KEY}`), and nothing tells a credential from an ordinary header, so every other header is
 * dropped (docs/SECURITY.md, "Secrets sent on by a redirect").
 */
const CROSS_ORIGIN_HEADERS = new Set(["accept", "accept-language", "content-language", "content-type", "user-agent"]);
const BODY_HEADERS = new Set(["content-type", "content-length", "content-encoding", "content-language", "content-location"]);

/** A request that ran out of time: Node's code for it, which http-request reports as Node-RED's got does. */
function timedOut(timeoutMs: number): Error {
  return Object.assign(new Error(`no complete response within ${timeoutMs} ms`), { code: "ETIMEDOUT" });
}

/**
 * Called before each hop (the first request and every redirect followed) connects: throws to stop
 * the request there. `proxyHost`: the plain-http proxy the hop is sent to in full, if any.
 */
export type HopCheck = (url: URL, proxyHost?: string) => void;

/**
 * A request's cookie jar across its hops (Node-RED's http request gives got a tough-cookie jar): the
 * Cookie header for each hop's URL, and each response's Set-Cookie lines, redirects' included, kept
 * for the hops after it. Domain, path and Secure are the jar's to match, so a cookie never goes to a
 * host it was not set for.
 */
export interface HopCookies {
  forHop(url: URL): Promise<string>;
  fromHop(url: URL, setCookie: readonly string[]): Promise<void>;
}

/** A response's headers as Node gives them: one text each, Set-Cookie a list of its lines. */
export type ResponseHeaders = Record<string, string | string[]>;

/** A redirect followed: its Location as sent, and the Set-Cookie lines it carried. */
export interface RedirectFollowed {
  location: string;
  setCookie?: string[];
}

export interface SafeFetchOptions {
  allowPrivate: boolean;
  maxRedirects?: number;
  maxResponseBytes?: number;
}

/**
 * Outgoing HTTP for flows with SSRF protection: every address the host name resolves to is checked
 * at connect time (the check and the connection use the same lookup, so DNS rebinding cannot slip
 * a private address in), redirects are followed with the same check, and responses are bounded.
 */
export function createSafeFetch(options: SafeFetchOptions) {
  const maxResponseBytes = options.maxResponseBytes ?? 10 * 1024 * 1024;
  // The outbound rules every client node uses (runtime/outbound.ts): the checking lookup the
  // connection itself uses, and the check of a literal address.
  const { lookup, checkHost } = createOutboundRules({ allowPrivate: options.allowPrivate });

  async function once(url: URL, init: { method: string; headers: Record<string, string>; body?: string | Buffer; deadline: number; timeoutMs: number; dispatcher?: HttpDispatcher; budget?: ByteBudget; checkHop?: HopCheck }) {
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`only http and https URLs are allowed, not ${url.protocol}`);
    // A TLS configuration or a proxy (SPEC §19): where this hop connects and with which agent.
    const route = init.dispatcher?.route(url);
    // The caller's rule for this hop's host (a secret's allowed hosts), before any lookup or
    // connection; a plain-http proxy (absolute-form request) sees the whole request, so its host too.
    init.checkHop?.(url, route?.host);
    // A literal IP address never goes through lookup: check it here (the proxy's too).
    for (const literal of new Set([url.hostname, route?.connectHost ?? url.hostname])) checkHost(literal);
    const client = (route?.protocol ?? url.protocol) === "https:" ? https : http;
    const routed = route
      ? { agent: route.agent, ...(route.host !== undefined ? { protocol: route.protocol, hostname: route.host, port: route.port, path: route.path } : {}) }
      : {};
    const headers = route?.headers ? { ...init.headers, ...route.headers } : init.headers;
    return new Promise<{ status: number; headers: ResponseHeaders; setCookie: string[]; body: Buffer }>((resolve, reject) => {
      // A total deadline, not an idle timeout: a server that drips one byte a second is cut off too.
      const left = init.deadline - Date.now();
      if (left <= 0) {
        reject(timedOut(init.timeoutMs));
        return;
      }
      // The body is read once the organization's download budget holds it (its length, or the most
      // a response may be): the response waits meanwhile, unread, under the same deadline.
      let reserved = 0;
      let cancelReservation: () => void = () => undefined;
      const giveBack = () => {
        cancelReservation();
        if (reserved > 0) init.budget!.give(reserved);
        reserved = 0;
      };
      let req: http.ClientRequest;
      try {
        req = client.request(url, { method: init.method, headers, lookup, ...routed }, (res) => {
          if (!init.budget) return read(res);
          const length = Number(res.headers["content-length"]);
          const expected = Number.isFinite(length) && length >= 0 ? Math.min(length, maxResponseBytes) : maxResponseBytes;
          cancelReservation = init.budget.reserve(expected, () => {
            reserved = expected;
            read(res);
          });
        });
      } catch (err) {
        // A request Node refuses at once (a header value with a line break) rejects here; the
        // deadline's timer is set only once the request exists.
        reject(err);
        return;
      }
      const timer = setTimeout(() => req.destroy(timedOut(init.timeoutMs)), left);
      const read = (res: http.IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxResponseBytes) {
            req.destroy(new Error(`response larger than ${maxResponseBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on("end", () => {
          clearTimeout(timer);
          const headers: ResponseHeaders = {};
          // Set-Cookie stays a list (its lines hold commas: Expires); another header repeated is one text.
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) && k !== "set-cookie" ? v.join(", ") : v;
          resolve({ status: res.statusCode ?? 0, headers, setCookie: res.headers["set-cookie"] ?? [], body: Buffer.concat(chunks) });
        });
        res.on("error", reject);
        res.on("close", giveBack);
      };
      req.on("error", (err) => {
        clearTimeout(timer);
        giveBack();
        reject(err);
      });
      req.on("close", () => {
        clearTimeout(timer);
        // A response still waiting for the budget when the request ends (its deadline) stops waiting.
        if (reserved === 0) giveBack();
      });
      if (init.body !== undefined) req.write(init.body);
      req.end();
    });
  }

  /** `followRedirects: false`: a redirect is the answer (Node-RED's msg.followRedirects). */
  return async function safeFetch(url: string, init: { method: string; headers: Record<string, string>; body?: string | Buffer; timeoutMs: number; dispatcher?: HttpDispatcher; budget?: ByteBudget; checkHop?: HopCheck; followRedirects?: boolean; cookies?: HopCookies }) {
    let target = new URL(url);
    let method = init.method;
    let body = init.body;
    let headers = { ...init.headers };
    const deadline = Date.now() + init.timeoutMs;
    /** The redirects followed, by their Location header as sent (Node-RED's msg.redirectList). */
    const redirects: RedirectFollowed[] = [];
    for (let hop = 0; hop <= (options.maxRedirects ?? 5); hop++) {
      let sent = headers;
      if (init.cookies) {
        // The jar's cookies for this hop replace a Cookie header of any case (got's cookieJar does).
        const jarCookies = await init.cookies.forHop(target);
        if (jarCookies) sent = { ...Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== "cookie")), cookie: jarCookies };
      }
      const res = await once(target, { method, headers: sent, body, deadline, timeoutMs: init.timeoutMs, dispatcher: init.dispatcher, budget: init.budget, checkHop: init.checkHop });
      if (init.cookies && res.setCookie.length > 0) await init.cookies.fromHop(target, res.setCookie);
      const location = typeof res.headers.location === "string" ? res.headers.location : undefined;
      if (init.followRedirects !== false && [301, 302, 303, 307, 308].includes(res.status) && location) {
        const next = new URL(location, target);
        redirects.push({ location, ...(res.setCookie.length > 0 ? { setCookie: res.setCookie } : {}) });
        if (next.origin !== target.origin) {
          headers = Object.fromEntries(Object.entries(headers).filter(([name]) => CROSS_ORIGIN_HEADERS.has(name.toLowerCase())));
        }
        target = next;
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === "POST")) {
          method = "GET";
          body = undefined;
          headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !BODY_HEADERS.has(name.toLowerCase())));
        }
        continue;
      }
      return { status: res.status, headers: res.headers, body: res.body, url: target.toString(), redirects };
    }
    throw new Error("too many redirects");
  };
}

export type SafeFetch = ReturnType<typeof createSafeFetch>;
