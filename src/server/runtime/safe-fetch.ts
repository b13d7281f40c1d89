import http from "node:http";
import https from "node:https";
import dns from "node:dns";
import ipaddr from "ipaddr.js";

/** Address ranges an http-request node may not reach unless the operator allows private targets. */
const BLOCKED_RANGES = new Set(["unspecified", "broadcast", "multicast", "linkLocal", "loopback", "private", "uniqueLocal", "carrierGradeNat", "reserved", "benchmarking", "amt", "as112", "deprecated", "orchid2", "6to4", "teredo", "rfc6145", "rfc6052", "ipv4Mapped", "discard"]);

export function isBlockedAddress(address: string): boolean {
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return BLOCKED_RANGES.has(parsed.range());
}

export class BlockedAddressError extends Error {
  override name = "BlockedAddressError";
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
  const lookup: typeof dns.lookup = ((hostname: string, opts: dns.LookupOptions, callback: (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void) => {
    dns.lookup(hostname, { ...opts, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 4);
      const list = addresses as dns.LookupAddress[];
      if (!options.allowPrivate) {
        const blocked = list.find((a) => isBlockedAddress(a.address));
        if (blocked) return callback(new BlockedAddressError(`${hostname} resolves to ${blocked.address}, a private or reserved address; requests there are not allowed`), "", 4);
      }
      if (opts.all) callback(null, list);
      else callback(null, list[0]!.address, list[0]!.family);
    });
  }) as typeof dns.lookup;

  async function once(url: URL, init: { method: string; headers: Record<string, string>; body?: string | Buffer; timeoutMs: number }) {
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`only http and https URLs are allowed, not ${url.protocol}`);
    // A literal IP address never goes through lookup: check it here.
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (!options.allowPrivate && ipaddr.isValid(host) && isBlockedAddress(host)) {
      throw new BlockedAddressError(`${host} is a private or reserved address; requests there are not allowed`);
    }
    const client = url.protocol === "https:" ? https : http;
    return new Promise<{ status: number; headers: Record<string, string>; body: Buffer }>((resolve, reject) => {
      const req = client.request(url, { method: init.method, headers: init.headers, lookup, timeout: init.timeoutMs }, (res) => {
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
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
          resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
        });
        res.on("error", reject);
      });
      req.on("timeout", () => req.destroy(new Error(`no response within ${init.timeoutMs} ms`)));
      req.on("error", reject);
      if (init.body !== undefined) req.write(init.body);
      req.end();
    });
  }

  return async function safeFetch(url: string, init: { method: string; headers: Record<string, string>; body?: string | Buffer; timeoutMs: number }) {
    let target = new URL(url);
    let method = init.method;
    let body = init.body;
    for (let hop = 0; hop <= (options.maxRedirects ?? 5); hop++) {
      const res = await once(target, { ...init, method, body });
      if ([301, 302, 303, 307, 308].includes(res.status) && res.headers.location) {
        target = new URL(res.headers.location, target);
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === "POST")) {
          method = "GET";
          body = undefined;
        }
        continue;
      }
      return { ...res, url: target.toString() };
    }
    throw new Error("too many redirects");
  };
}

export type SafeFetch = ReturnType<typeof createSafeFetch>;
