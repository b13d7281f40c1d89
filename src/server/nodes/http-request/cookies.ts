import * as cookie from "cookie";
import type { CookieJar } from "tough-cookie";
import type { HopCookies } from "../../runtime/safe-fetch";

/**
 * Cookies as Node-RED's http request has them (got with a tough-cookie jar, the `cookie` package to
 * read and write them): a request's jar starts with a `cookie` header's pairs and msg.cookies, keeps
 * what every response sets (a redirect's too, for the hops after it), and sends each hop what
 * matches its URL.
 */
export class RequestCookies implements HopCookies {
  /**
   * Made on first use (most requests neither send nor receive a cookie), and tough-cookie loaded
   * only then: its public suffix list is 13 MB of an idle server's memory otherwise.
   */
  private jar: Promise<CookieJar> | undefined;
  /** The Set-Cookie lines the request starts with, put in the jar when it is made. */
  private readonly seeded: string[] = [];

  constructor(private readonly url: string) {}

  private cookieJar(): Promise<CookieJar> {
    return (this.jar ??= import("tough-cookie").then(({ CookieJar }) => {
      const jar = new CookieJar();
      for (const line of this.seeded) put(jar, line, this.url);
      return jar;
    }));
  }

  /**
   * The cookies a request starts with: a header named exactly `cookie` (taken out of the headers;
   * its values as written), then msg.cookies: `name: "value"` or `name: {value, encode}` (the value
   * URI-encoded unless `encode` is false); null, or a null value (which clears a cookie for http
   * response nodes), is skipped. A name the cookie package refuses is the node's error.
   */
  seed(headers: Record<string, string>, msgCookies: unknown) {
    if (Object.prototype.hasOwnProperty.call(headers, "cookie")) {
      const pairs = cookie.parse(headers.cookie!, { decode: String });
      for (const name of Object.keys(pairs)) this.seeded.push(cookie.serialize(name, pairs[name]!, { encode: String }));
      delete headers.cookie;
    }
    if (!msgCookies || typeof msgCookies !== "object") return;
    const given = msgCookies as Record<string, unknown>;
    for (const name of Object.keys(given)) {
      const item = given[name];
      if (item === null || (typeof item === "object" && (item as { value?: unknown }).value === null)) continue;
      if (typeof item === "object") {
        const { value, encode } = item as { value?: unknown; encode?: unknown };
        this.seeded.push(encode === false ? cookie.serialize(name, value as string, { encode: String }) : cookie.serialize(name, value as string));
      } else this.seeded.push(cookie.serialize(name, item as string));
    }
  }

  async forHop(url: URL): Promise<string> {
    if (!this.jar && this.seeded.length === 0) return "";
    return (await this.cookieJar()).getCookieString(url.toString());
  }

  async fromHop(url: URL, setCookie: readonly string[]): Promise<void> {
    const jar = await this.cookieJar();
    for (const line of setCookie) put(jar, line, url.toString());
  }
}

/** One cookie as a Set-Cookie line for a URL; one the jar refuses is skipped, as Node-RED's ignoreError. */
function put(jar: CookieJar, line: string, url: string) {
  try {
    jar.setCookieSync(line, url, { ignoreError: true });
  } catch {
    // A line tough-cookie cannot read at all.
  }
}

/**
 * Node-RED's extractCookies: each Set-Cookie line as `{value, <attribute>: text}` under its name
 * (msg.responseCookies, and a redirect's `cookies` in msg.redirectList). Attributes without a value
 * (HttpOnly, Secure) are not listed; a line without a name is skipped.
 */
export function extractCookies(setCookie: readonly unknown[]): Record<string, Record<string, string>> {
  const cookies: Record<string, Record<string, string>> = {};
  for (const line of setCookie) {
    if (typeof line !== "string") continue;
    try {
      const parsed = cookie.parse(line);
      const eq = line.indexOf("=");
      if (eq === -1) continue;
      const key = line.slice(0, eq).trim();
      if (!key) continue;
      parsed.value = parsed[key]!;
      delete parsed[key];
      cookies[key] = parsed;
    } catch {
      // A malformed line is skipped, as there.
    }
  }
  return cookies;
}
