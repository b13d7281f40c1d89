import type http from "node:http";
import type { Duplex } from "node:stream";
import { PEER_PATH } from "../flow-runtime/peer-link";

/**
 * WebSocket upgrades of the custom server, by path: `/ws` (the hub, SPEC §6), and the paths other
 * features serve beside it (`/ws/hooks/…` websocket-listener nodes §23, `/ws/dashboard/…` dashboards
 * §21, `/mqtt` the built-in broker §20). The first route whose `matches` accepts the path takes the
 * socket; none: Next's own upgrade (hot reload in development).
 */
export interface UpgradeRoute {
  /** Short name, for logs. */
  name: string;
  matches(pathname: string): boolean;
  handle(req: http.IncomingMessage, socket: Duplex, head: Buffer): void;
}

export function routeUpgrade(routes: readonly UpgradeRoute[], fallback: UpgradeRoute["handle"]) {
  return (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    let pathname: string;
    try {
      pathname = new URL(req.url ?? "/", "http://localhost").pathname;
    } catch {
      socket.destroy();
      return;
    }
    const route = routes.find((r) => r.matches(pathname));
    if (route) route.handle(req, socket, head);
    else fallback(req, socket, head);
  };
}

/**
 * The connection another instance of a cluster sends its requests for this one over (GET
 * /_cluster/peer, `Upgrade: flowplane-peer/1`, flow-runtime/peer-link.ts); without a clustered
 * runtime the socket is closed.
 */
export function peerUpgradeRoute(runtime: { acceptPeer?(req: http.IncomingMessage, socket: Duplex, head: Buffer): void }): UpgradeRoute {
  return {
    name: "peer",
    matches: (pathname) => pathname === PEER_PATH,
    handle: (req, socket, head) => {
      if (runtime.acceptPeer) runtime.acceptPeer(req, socket, head);
      else socket.destroy();
    },
  };
}
