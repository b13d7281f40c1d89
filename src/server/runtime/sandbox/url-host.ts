/**
 * The host's half of the function sandbox's `URL` (url-source.ts): a URL is parsed, and a setter
 * applied, by V8's own `URL` here, so what the code gets is exactly what Node-RED's code gets from
 * Node's. One call per parse or setter; the sandbox keeps the parts it answers.
 *
 * The call and its answer are JSON text:
 * - `["parse", input, base?]` → `[href, origin, protocol, username, password, host, hostname, port,
 *   pathname, search, hash]`, or `null` when the input (against the base) is not a URL;
 * - `["set", href, property, value]` → the parts after `url[property] = value` (a setter that the
 *   URL standard ignores leaves them as they were; `href` that is not a URL answers `null`).
 * Strings are at most URL_MAX_CHARS long (a host call cannot be interrupted): past it the answer is
 * `"long"` and the sandbox throws a RangeError the code can catch.
 */
export const URL_MAX_CHARS = 1_000_000;

const SETTABLE = new Set(["href", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "hash"]);

/** `URL.parse` (Node 22.1+) on every Node this runs on. */
function parseUrl(input: string, base?: string): URL | null {
  try {
    return new URL(input, base);
  } catch {
    return null;
  }
}

function parts(url: URL): string[] {
  return [url.href, url.origin, url.protocol, url.username, url.password, url.host, url.hostname, url.port, url.pathname, url.search, url.hash];
}

export function urlCall(json: string): string {
  // The sandbox checks each string first; this bounds the parse of a call that did not (JSON
  // escapes at most 6 characters for one, and a call holds at most three strings).
  if (json.length > 18 * URL_MAX_CHARS + 64) return JSON.stringify("long");
  let call: unknown;
  try {
    call = JSON.parse(json);
  } catch {
    return "null";
  }
  if (!Array.isArray(call) || !call.every((v) => typeof v === "string")) return "null";
  if (call.some((v: string) => v.length > URL_MAX_CHARS)) return JSON.stringify("long");
  const [op, a, b, c] = call as string[];
  if (op === "parse") {
    const url = parseUrl(a ?? "", b);
    return url === null ? "null" : JSON.stringify(parts(url));
  }
  if (op === "set" && b !== undefined && c !== undefined && SETTABLE.has(b)) {
    const url = parseUrl(a ?? "");
    if (url === null) return "null";
    if (b === "href") {
      const next = parseUrl(c);
      return next === null ? "null" : JSON.stringify(parts(next));
    }
    (url as unknown as Record<string, string>)[b] = c;
    return JSON.stringify(parts(url));
  }
  return "null";
}
