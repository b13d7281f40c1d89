/**
 * Where the CLI may send its API key. It talks to one origin, the one logged in to: a redirect
 * within it is followed, a redirect to another origin is refused before anything is sent there
 * (fetch would carry the X-API-Key header along, as it drops only Authorization), and a plain
 * http:// URL is refused unless it is this machine or the user opted in (--insecure).
 */
import { ApiFailure } from "./client";

export class TransportRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TransportRefusal";
  }
}

const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** localhost, *.localhost, 127.0.0.0/8 and ::1: the key never leaves the machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Throws unless `url` may carry the key: https, or http to this machine, or http with `insecure`.
 * `scheme` names the protocol in the message (ws for the debug stream).
 */
export function assertKeyMayGo(url: string, options: { insecure: boolean }): void {
  const target = new URL(url);
  if (target.protocol === "https:" || target.protocol === "wss:") return;
  if (target.protocol !== "http:" && target.protocol !== "ws:") throw new TransportRefusal(`the URL must be http(s), not ${target.protocol}`);
  if (isLoopbackHost(target.hostname) || options.insecure) return;
  throw new TransportRefusal(
    `refusing to send your API key over plain ${target.protocol}// to ${target.host}: anyone on the way can read it. Use https://, or pass --insecure (or set FLOWPLANE_INSECURE=1) to send it anyway`,
  );
}

/**
 * A fetch that follows redirects itself: within the first request's origin (at most 5), never to
 * another one. 303, and 301/302 after a POST, continue as GET without a body, as fetch does.
 */
export function sameOriginFetch(fetchImpl: typeof fetch): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const first = new Request(input, init);
    const origin = new URL(first.url).origin;
    let method = first.method;
    let body: ArrayBuffer | undefined = first.body ? await first.arrayBuffer() : undefined;
    let url = first.url;
    for (let hop = 0; ; hop++) {
      const response = await fetchImpl(new Request(url, { method, headers: first.headers, body, redirect: "manual", signal: first.signal }));
      const location = REDIRECTS.has(response.status) ? response.headers.get("location") : null;
      if (location === null) return response;
      const next = new URL(location, url);
      if (next.origin !== origin) {
        throw new ApiFailure(
          `the server redirected to ${next.origin}, another origin than ${origin}: your API key is not sent there (log in with that URL if you trust it)`,
          response.status,
        );
      }
      if (hop >= MAX_REDIRECTS) throw new ApiFailure(`more than ${MAX_REDIRECTS} redirects from ${origin}`, response.status);
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
        method = "GET";
        body = undefined;
      }
      await response.body?.cancel();
      url = next.href;
    }
  }) as typeof fetch;
}
