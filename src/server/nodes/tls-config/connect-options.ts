import type { ConnectionOptions } from "node:tls";
import type { NodeContext } from "../../runtime/types";

type TlsConfig = { servername?: string; verifyservercert?: boolean; alpnprotocol?: string };

/**
 * A tls-config as options for `tls.connect` (and `ws`, which passes them on): the PEM credentials,
 * the server name, ALPN and the certificate check, resolved now (a rotated secret is used by the
 * next connection). Undefined when the node names none; null when it names one the flow lacks
 * (reported as the node's error by `ctx.configNode`).
 */
export function tlsConnectOptions(ctx: NodeContext, id: string): ConnectionOptions | undefined | null {
  if (!id) return undefined;
  const handle = ctx.configNode<TlsConfig>(id, "tls-config");
  if (!handle) return null;
  const credentials = handle.credentials;
  const config = handle.config;
  return {
    ...(credentials.cadata ? { ca: credentials.cadata } : {}),
    ...(credentials.certdata ? { cert: credentials.certdata } : {}),
    ...(credentials.keydata ? { key: credentials.keydata } : {}),
    ...(credentials.passphrase ? { passphrase: credentials.passphrase } : {}),
    ...(config.servername ? { servername: config.servername } : {}),
    ...(config.alpnprotocol ? { ALPNProtocols: [config.alpnprotocol] } : {}),
    rejectUnauthorized: config.verifyservercert !== false,
  };
}
