import { createHash } from "node:crypto";
import type { ConfigNodeHandle, NodeContext } from "../../runtime/types";
import type { ConnectionLease } from "../../runtime/connections";
import type { DispatcherSettings, HttpDispatcher } from "../../runtime/http-dispatchers";

/** What http-request reads of a tls-config (Node-RED's names). */
type TlsConfig = { servername?: string; verifyservercert?: boolean; alpnprotocol?: string };
/** What http-request reads of an http-proxy. */
type ProxyConfig = { url?: string; noproxy?: string[] };

export interface ConfiguredDispatcher {
  /** Why requests cannot go out (a named configuration node is not available); reported once at start. */
  missing?: string;
  /**
   * The dispatcher for the configuration nodes' values as they resolve now: held for one request
   * (release it after). A changed `${NAME}` (a rotated secret in a credential) opens a new one; the
   * previous one closes when its last request ends.
   */
  acquire(): Promise<ConnectionLease<HttpDispatcher>>;
  close(): Promise<void>;
}

/**
 * http-request's TLS configuration and proxy (SPEC §19, Node-RED's `tls` and `proxy` properties),
 * as a dispatcher shared through the instance's connection pool: one per (configuration nodes'
 * revisions, resolved values), whoever uses it on this instance.
 */
export function configuredDispatcher(ctx: NodeContext, refs: { tls?: string; proxy?: string }): ConfiguredDispatcher | undefined {
  if (!refs.tls && !refs.proxy) return undefined;
  const tls = refs.tls ? ctx.configNode<TlsConfig>(refs.tls, "tls-config") : undefined;
  const proxy = refs.proxy ? ctx.configNode<ProxyConfig>(refs.proxy, "http-proxy") : undefined;
  const missing =
    refs.tls && !tls
      ? `the TLS configuration ${refs.tls} is not available (see the node's error)`
      : refs.proxy && !proxy
        ? `the proxy ${refs.proxy} is not available (see the node's error)`
        : undefined;
  if (missing) ctx.status({ fill: "red", shape: "ring", text: "configuration missing" });
  const create = ctx.services.httpDispatcher;
  /** The node's own hold on the current dispatcher, so it stays open between requests. */
  let held: { variant: string; lease: ConnectionLease<HttpDispatcher> } | undefined;
  const primary = (proxy ?? tls) as ConfigNodeHandle | undefined;
  return {
    ...(missing ? { missing } : {}),
    async acquire() {
      if (!primary) throw new Error(missing ?? "no configuration");
      if (!create) throw new Error("TLS and proxy configurations are not available on this server");
      const settings = settingsOf(tls, proxy);
      // The values (PEM, passwords) never sit in the key: a digest of them does.
      const variant = createHash("sha256")
        .update(JSON.stringify([tls?.id, tls?.revision, proxy?.id, proxy?.revision, settings]))
        .digest("base64url");
      const lease = await primary.connect("http-dispatcher", { open: () => create(settings), close: (d) => d.close() }, { variant });
      if (held?.variant !== variant) {
        const previous = held;
        const keep = await primary.connect("http-dispatcher", { open: () => create(settings), close: (d) => d.close() }, { variant });
        held = { variant, lease: keep };
        void previous?.lease.release();
      }
      return lease;
    },
    async close() {
      const previous = held;
      held = undefined;
      await previous?.lease.release();
    },
  };
}

function settingsOf(tls: ConfigNodeHandle<TlsConfig> | undefined, proxy: ConfigNodeHandle<ProxyConfig> | undefined): DispatcherSettings {
  const settings: DispatcherSettings = {};
  if (tls) {
    const config = tls.config;
    const credentials = tls.credentials;
    settings.tls = {
      ...(credentials.cadata ? { ca: credentials.cadata } : {}),
      ...(credentials.certdata ? { cert: credentials.certdata } : {}),
      ...(credentials.keydata ? { key: credentials.keydata } : {}),
      ...(credentials.passphrase ? { passphrase: credentials.passphrase } : {}),
      ...(config.servername ? { servername: config.servername } : {}),
      ...(config.alpnprotocol ? { alpnProtocols: [config.alpnprotocol] } : {}),
      rejectUnauthorized: config.verifyservercert !== false,
    };
  }
  if (proxy) {
    const config = proxy.config;
    const credentials = proxy.credentials;
    settings.proxy = {
      url: config.url ?? "",
      noproxy: config.noproxy ?? [],
      ...(credentials.username ? { username: credentials.username } : {}),
      ...(credentials.password ? { password: credentials.password } : {}),
    };
  }
  return settings;
}
