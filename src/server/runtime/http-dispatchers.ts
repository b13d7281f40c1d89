import http from "node:http";
import https from "node:https";
import net from "node:net";
import tls from "node:tls";
import type { Duplex } from "node:stream";

/**
 * How http-request reaches a server through its configuration nodes (SPEC §19): a TLS
 * configuration (Node-RED's `tls-config`: trusted authorities, a client certificate and key, the
 * server name, whether the server's certificate is checked, ALPN) and an HTTP proxy (Node-RED's
 * `http proxy`: its URL, the hosts reached without it, its credentials). A dispatcher holds
 * keep-alive agents for one combination; it is shared per instance through the connection pool
 * (one per deployed revision of the configuration nodes) and closed with its last user.
 *
 * The SSRF policy stays safe-fetch's: the request's `lookup` (which refuses private addresses
 * unless the operator allows them) is the one used to connect, whether to the server or to the
 * proxy, so the proxy's own address is checked as any target's is; safe-fetch checks literal
 * addresses of both (`connectHost`).
 */

export interface TlsSettings {
  /** PEM texts. */
  ca?: string;
  cert?: string;
  key?: string;
  passphrase?: string;
  /** SNI and the name the certificate is checked against; empty: the URL's host. */
  servername?: string;
  /** Node-RED's verifyservercert. */
  rejectUnauthorized: boolean;
  alpnProtocols?: string[];
}

export interface ProxySettings {
  /** http://host:port or https://host:port (user:password@ in it are used when no credentials are given, as Node-RED). */
  url: string;
  /** Node-RED's noproxy list: host names, `.example.com` / `*.example.com` for every host under it, `host:port`, or `*`. */
  noproxy: string[];
  username?: string;
  password?: string;
}

export interface DispatcherSettings {
  tls?: TlsSettings;
  proxy?: ProxySettings;
}

/** Where one request (one hop of a redirect chain) goes, as options for http(s).request. */
export interface DispatchRoute {
  /** The module to use: the target's protocol, or the proxy's for a plain-HTTP request sent through it. */
  protocol: "http:" | "https:";
  agent: http.Agent;
  /** The host connected to (the proxy's, when proxied): safe-fetch checks it when it is a literal address. */
  connectHost: string;
  /** Set when the request goes to a proxy in absolute form (plain HTTP through a proxy). */
  host?: string;
  port?: number;
  path?: string;
  /** Headers added to this hop only (the target's Host and Proxy-Authorization, for a request sent to a proxy). */
  headers?: Record<string, string>;
}

export interface HttpDispatcher {
  route(url: URL): DispatchRoute;
  close(): void;
}

const DEFAULT_PORTS: Record<string, number> = { "http:": 80, "https:": 443 };
/** A proxy that does not answer CONNECT in this time is given up (the request's own deadline may be shorter). */
const CONNECT_TIMEOUT_MS = 30_000;

function tlsOptions(settings: TlsSettings | undefined): tls.ConnectionOptions {
  if (!settings) return {};
  return {
    ...(settings.ca ? { ca: settings.ca } : {}),
    ...(settings.cert ? { cert: settings.cert } : {}),
    ...(settings.key ? { key: settings.key } : {}),
    ...(settings.passphrase ? { passphrase: settings.passphrase } : {}),
    ...(settings.servername ? { servername: settings.servername } : {}),
    ...(settings.alpnProtocols?.length ? { ALPNProtocols: settings.alpnProtocols } : {}),
    rejectUnauthorized: settings.rejectUnauthorized,
  };
}

/**
 * Node-RED's proxyHelper shouldProxy (strict mode) over the configuration node's noproxy list:
 * true when a request to `url` goes through the proxy.
 */
export function shouldProxy(url: URL, noproxy: string[]): boolean {
  const list = noproxy.join(",").toLowerCase();
  if (!list) return true;
  if (list === "*") return false;
  const hostname = url.hostname.toLowerCase();
  const port = Number(url.port) || DEFAULT_PORTS[url.protocol] || 0;
  return list.split(/[,\s]/).every((entry) => {
    if (!entry) return true;
    const withPort = /^(.+):(\d+)$/.exec(entry);
    let host = withPort ? withPort[1]! : entry;
    const entryPort = withPort ? Number(withPort[2]) : 0;
    if (entryPort && entryPort !== port) return true;
    if (!/^[.*]/.test(host)) return hostname !== host;
    if (host.startsWith("*")) host = host.slice(1);
    return !hostname.endsWith(host);
  });
}

/** The Proxy-Authorization of a proxy: its credentials, else the URL's user:password. */
function proxyAuthorization(proxy: ProxySettings, proxyUrl: URL): string | undefined {
  const user = proxy.username || proxy.password ? (proxy.username ?? "") : decodeURIComponent(proxyUrl.username);
  const pass = proxy.username || proxy.password ? (proxy.password ?? "") : decodeURIComponent(proxyUrl.password);
  if (!user && !pass) return undefined;
  return `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;
}

/**
 * An https agent whose connections are tunnels through an HTTP proxy (CONNECT host:port), with the
 * TLS configuration applied to the server's handshake inside the tunnel.
 */
class TunnelAgent extends https.Agent {
  constructor(
    private readonly proxyUrl: URL,
    private readonly authorization: string | undefined,
    private readonly serverTls: tls.ConnectionOptions,
  ) {
    super({ keepAlive: true });
  }

  override createConnection(options: http.ClientRequestArgs, callback?: (err: Error | null, stream: Duplex) => void): Duplex | undefined {
    const done = (err: Error | null, socket?: Duplex) => callback?.(err, socket as Duplex);
    const host = String(options.host ?? options.hostname ?? "").replace(/^\[|\]$/g, "");
    const port = Number(options.port) || 443;
    const client = this.proxyUrl.protocol === "https:" ? https : http;
    const authority = net.isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`;
    const connect = client.request({
      host: this.proxyUrl.hostname.replace(/^\[|\]$/g, ""),
      port: Number(this.proxyUrl.port) || DEFAULT_PORTS[this.proxyUrl.protocol],
      method: "CONNECT",
      path: authority,
      headers: { host: authority, ...(this.authorization ? { "proxy-authorization": this.authorization } : {}) },
      // The same lookup as any request: the proxy's address is checked as a target's is.
      lookup: options.lookup,
      agent: false,
    });
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      connect.destroy();
      done(err);
    };
    const timer = setTimeout(() => fail(new Error(`the proxy did not answer within ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS);
    connect.once("connect", (res, socket) => {
      if (settled) {
        socket.destroy();
        return;
      }
      if (res.statusCode !== 200) {
        socket.destroy();
        fail(new Error(`the proxy refused the connection to ${authority}: ${res.statusCode}${res.statusMessage ? ` ${res.statusMessage}` : ""}`));
        return;
      }
      settled = true;
      clearTimeout(timer);
      const servername = this.serverTls.servername ?? (net.isIP(host) ? undefined : host);
      const secure = tls.connect({ ...this.serverTls, socket, ...(servername ? { servername } : {}) });
      done(null, secure);
    });
    connect.once("error", (err) => fail(err));
    connect.end();
    return undefined;
  }
}

/**
 * A dispatcher for one combination of TLS configuration and proxy. Its agents keep connections
 * alive between requests of every node sharing it; `close()` ends them.
 */
export function createHttpDispatcher(settings: DispatcherSettings): HttpDispatcher {
  const serverTls = tlsOptions(settings.tls);
  const agents: http.Agent[] = [];
  const keep = <A extends http.Agent>(agent: A): A => {
    agents.push(agent);
    return agent;
  };
  const direct = { http: keep(new http.Agent({ keepAlive: true })), https: keep(new https.Agent({ keepAlive: true, ...serverTls })) };
  let proxied: { url: URL; authorization?: string; plain: http.Agent; tunnel: TunnelAgent } | undefined;
  if (settings.proxy?.url) {
    const url = new URL(settings.proxy.url);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`the proxy must be an http:// or https:// URL, not ${url.protocol}`);
    const authorization = proxyAuthorization(settings.proxy, url);
    proxied = {
      url,
      authorization,
      plain: keep(url.protocol === "https:" ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true })),
      tunnel: keep(new TunnelAgent(url, authorization, serverTls)),
    };
  }
  return {
    route(target) {
      const protocol = target.protocol === "https:" ? "https:" : "http:";
      if (!proxied || !shouldProxy(target, settings.proxy!.noproxy)) {
        return { protocol, agent: protocol === "https:" ? direct.https : direct.http, connectHost: target.hostname };
      }
      const connectHost = proxied.url.hostname;
      if (protocol === "https:") return { protocol, agent: proxied.tunnel, connectHost };
      // Plain HTTP through the proxy: the request goes to it in absolute form, as Node-RED's HttpProxyAgent sends it.
      return {
        protocol: proxied.url.protocol as "http:" | "https:",
        agent: proxied.plain,
        connectHost,
        host: connectHost.replace(/^\[|\]$/g, ""),
        port: Number(proxied.url.port) || DEFAULT_PORTS[proxied.url.protocol],
        path: target.href,
        headers: { host: target.host, ...(proxied.authorization ? { "proxy-authorization": proxied.authorization } : {}) },
      };
    },
    close() {
      for (const agent of agents) agent.destroy();
    },
  };
}
