import http from "node:http";
import type { Duplex } from "node:stream";
import type { Env } from "../../env";
import type { AppServices } from "../app-services";
import { restCore } from "../api/rest";
import { serveWebhookTarget } from "../api/rest/webhook-handler";
import { createTrpcHandler } from "../api/trpc-handler";
import { createTrpcCore } from "../api/trpc-node";
import { appRouter } from "../api/root";
import { createRealtimeHub } from "../realtime/hub";
import { DeviceChannel } from "../realtime/devices";
import { agentDeps } from "../services/devices/agents";
import { actorName } from "../services/flows/events";
import { createDashboardSocketServer, dashboardSlugOf } from "../dashboards/socket";
import { CLIENT_IP_HEADER, resolveClientIp } from "./client-ip";
import { createRequestListener } from "./request-listener";
import { createSocketHooks } from "./socket-hooks";
import { peerUpgradeRoute, routeUpgrade, type UpgradeRoute } from "./upgrades";

type ServerEnv = Pick<
  Env,
  "TRUST_PROXY_HOPS" | "HTTP_KEEP_ALIVE_TIMEOUT_MS" | "METRICS_TOKEN" | "WS_HOOK_MAX_FRAME_BYTES" | "WS_HOOK_SOCKETS_PER_ORGANIZATION" | "WS_HOOK_SOCKETS_PER_IP" | "WS_HOOK_SEND_QUEUE_BYTES"
>;

export interface AppServerOptions {
  app: AppServices;
  env: ServerEnv;
  /** Strict-Transport-Security on pages (the public URL is https). */
  hsts: boolean;
  /** What is not a direct mount: Next's pages, next-auth and assets, and their upgrades (hot reload). */
  next: {
    handle: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;
    upgrade: (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void;
  };
}

export interface AppServer {
  server: http.Server;
  /** Stops accepting, closes the connections, then the flows (in a cluster the others take them at once), the sockets and the app. */
  close(): Promise<void>;
}

/**
 * The app's HTTP server, not yet listening: the request listener with its direct mounts (the REST
 * API, webhooks, tRPC, GET /metrics; everything else is Next's) and the WebSocket upgrades by path
 * (the hub at /ws with the device channel, websocket-listener nodes at /ws/hooks/{slug}/{path},
 * another instance's peer link, the built-in MQTT broker at /mqtt, dashboards). src/server.ts runs
 * it, and so do the cluster tests' instances (src/test/cluster-node.ts), which pass no Next: what
 * they test and the benchmarks measure is this wiring, not a copy of it.
 */
export function createAppServer({ app, env, hsts, next }: AppServerOptions): AppServer {
  const socketHooks = createSocketHooks(app, {
    trustProxyHops: env.TRUST_PROXY_HOPS,
    maxFrameBytes: env.WS_HOOK_MAX_FRAME_BYTES,
    maxSocketsPerOrganization: env.WS_HOOK_SOCKETS_PER_ORGANIZATION,
    maxSocketsPerIp: env.WS_HOOK_SOCKETS_PER_IP,
    sendQueueBytes: env.WS_HOOK_SEND_QUEUE_BYTES,
  });
  const hub = createRealtimeHub({ app, displayName: (userId) => actorName(app, userId), devices: new DeviceChannel(app.store, app.flowRuntime, agentDeps(app)) });
  // Dashboards (SPEC §21): /ws/dashboard/{org-slug}?path=… (src/server/dashboards/socket.ts).
  const dashboardSockets = createDashboardSocketServer(app);

  // The REST API, the webhooks and tRPC go straight to the handlers their route files export (one
  // handler, two mounts: Next keeps the route files for `next dev`), GET /metrics to its own;
  // everything else goes through Next. src/server/http/README.md, "Request path" and "Metrics".
  const server = http.createServer(
    createRequestListener({
      app,
      trustProxyHops: env.TRUST_PROXY_HOPS,
      hsts,
      rest: restCore,
      webhooks: (req) => serveWebhookTarget(app, req),
      trpc: createTrpcHandler(async () => app),
      trpcCore: createTrpcCore(appRouter, async () => app),
      next: next.handle,
      metricsToken: env.METRICS_TOKEN,
    }),
  );

  // WebSocket upgrades by path (upgrades.ts); anything else is Next's.
  const upgradeRoutes: UpgradeRoute[] = [
    {
      name: "hub",
      matches: (pathname) => pathname === "/ws",
      handle: (req, socket, head) => {
        req.headers[CLIENT_IP_HEADER] = resolveClientIp(req, env.TRUST_PROXY_HOPS);
        hub.handleUpgrade(req, socket, head);
      },
    },
    // websocket-listener nodes (SPEC §23): /ws/hooks/{org-slug}/{path}.
    socketHooks.route,
    // Another instance's connection for the calls it forwards here (a cluster only).
    peerUpgradeRoute(app.flowRuntime),
    // The built-in MQTT broker over WebSocket (SPEC §20); its TCP/TLS port is MQTT_PORT.
    {
      name: "mqtt",
      matches: (pathname) => pathname === "/mqtt",
      // The client's address as the hub resolves it (its unadmitted connections are bounded per address).
      handle: (req, socket, head) => app.mqtt.handleUpgrade(req, socket, head, resolveClientIp(req, env.TRUST_PROXY_HOPS)),
    },
    {
      name: "dashboard",
      matches: (pathname) => dashboardSlugOf(pathname) !== null,
      handle: (req, socket, head) => dashboardSockets.handleUpgrade(req, socket, head),
    },
  ];
  server.on("upgrade", routeUpgrade(upgradeRoutes, next.upgrade));

  // Idle keep-alive connections outlive those of the proxy or client in front (env.ts): the side that
  // closes first must be theirs, or their next request meets a reset. Headers of a request on such a
  // connection are given as long.
  server.keepAliveTimeout = env.HTTP_KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = Math.max(server.headersTimeout, env.HTTP_KEEP_ALIVE_TIMEOUT_MS + 1000);

  return {
    server,
    async close() {
      server.close();
      server.closeAllConnections();
      // Flows first: in a cluster the others take them over at once, whatever the sockets still do.
      await app.flowRuntime.close();
      await hub.close();
      await socketHooks.close();
      await dashboardSockets.close();
      await app.close();
    },
  };
}
