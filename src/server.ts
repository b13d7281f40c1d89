/**
 * The custom server: one HTTP port serving Next (pages, /api/v1, /api/trpc) and the WebSocket hub
 * at /ws. It builds the process's AppServices once, installs them for Next's route handlers, and
 * shuts everything down cleanly on SIGTERM/SIGINT.
 */
import http from "node:http";
import type { Duplex } from "node:stream";
import next from "next";
import { EnvError, getEnv, type Env } from "./env";
import { createAppServices } from "./server/compose";
import { collectGarbage } from "./server/gc";
import type { AppServices } from "./server/app-services";
import { setAppServices } from "./server/services-slot";
import { CLIENT_IP_HEADER, resolveClientIp } from "./server/http/client-ip";
import { peerUpgradeRoute, routeUpgrade, type UpgradeRoute } from "./server/http/upgrades";
import { createSocketHooks } from "./server/http/socket-hooks";
import { createRealtimeHub } from "./server/realtime/hub";
import { DeviceChannel } from "./server/realtime/devices";
import { agentDeps } from "./server/services/devices/agents";
import { actorName } from "./server/services/flows/events";
import { createRequestListener } from "./server/http/request-listener";
import { restCore } from "./server/api/rest";
import { serveWebhookTarget } from "./server/api/rest/webhook-handler";
import { createTrpcHandler } from "./server/api/trpc-handler";
import { createTrpcCore } from "./server/api/trpc-node";
import { appRouter } from "./server/api/root";
import { createDashboardSocketServer, dashboardSlugOf } from "./server/dashboards/socket";

let env: Env;
try {
  env = getEnv();
} catch (err) {
  if (err instanceof EnvError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}

const dev = env.NODE_ENV !== "production";
const startedAt = performance.now();

let app: AppServices;
try {
  app = await createAppServices({ env });
} catch (err) {
  console.error(`start-up failed: ${(err as Error).message}`);
  process.exit(1);
}
setAppServices(app);
const { logger } = app;
// next-auth builds its callback URLs from this; it must be the configured origin, not a Host header.
process.env.NEXTAUTH_URL = app.config.publicUrl;

const nextApp = next({ dev, hostname: env.HOST, port: env.PORT, dir: process.cwd() });
// Next (pages, next-auth, /_next assets) is prepared by the first request that needs it, in
// production: the API, webhooks, tRPC and /ws are direct mounts and never wait for it, and a server
// that serves no page (an API or webhook host, a CI target) never holds Next's ~50 MB and starts
// sooner. In development at once (hot reload, errors at start). A failed prepare ends the process,
// as it did at start.
let nextPrepared: Promise<void> | undefined;
const prepareNext = () =>
  (nextPrepared ??= nextApp.prepare().catch((err: unknown) => {
    logger.fatal({ err }, "Next could not start");
    process.exit(1);
  }));
if (dev) await prepareNext();
const nextHandler = nextApp.getRequestHandler();
const handle = (req: http.IncomingMessage, res: http.ServerResponse) => prepareNext().then(() => nextHandler(req, res));
const nextUpgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => prepareNext().then(() => nextApp.getUpgradeHandler()(req, socket, head));
const socketHooks = createSocketHooks(app, {
  trustProxyHops: env.TRUST_PROXY_HOPS,
  maxFrameBytes: env.WS_HOOK_MAX_FRAME_BYTES,
  maxSocketsPerOrganization: env.WS_HOOK_SOCKETS_PER_ORGANIZATION,
  sendQueueBytes: env.WS_HOOK_SEND_QUEUE_BYTES,
});
const hub = createRealtimeHub({ app, displayName: (userId) => actorName(app, userId), devices: new DeviceChannel(app.store, app.flowRuntime, agentDeps(app)) });
// Dashboards (SPEC §21): /ws/dashboard/{org-slug}?path=… (src/server/dashboards/socket.ts).
const dashboardSockets = createDashboardSocketServer(app);

// The REST API, the webhooks and tRPC go straight to the handlers their route files export (one handler,
// two mounts: Next keeps the route files for `next dev`), GET /metrics to its own; everything else
// goes through Next. src/server/http/README.md, "Request path" and "Metrics".
const services = app;
const server = http.createServer(
  createRequestListener({
    app,
    trustProxyHops: env.TRUST_PROXY_HOPS,
    hsts: app.config.publicUrl.startsWith("https://"),
    rest: restCore,
    webhooks: (req) => serveWebhookTarget(services, req),
    trpc: createTrpcHandler(async () => services),
    trpcCore: createTrpcCore(appRouter, async () => services),
    next: handle,
    metricsToken: env.METRICS_TOKEN,
  }),
);

// WebSocket upgrades by path (src/server/http/upgrades.ts); anything else is Next's (hot reload).
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
  // The built-in MQTT broker over WebSocket (SPEC §20); its TCP/TLS port is MQTT_PORT, below.
  { name: "mqtt", matches: (pathname) => pathname === "/mqtt", handle: (req, socket, head) => app.mqtt.handleUpgrade(req, socket, head) },
  {
    name: "dashboard",
    matches: (pathname) => dashboardSlugOf(pathname) !== null,
    handle: (req, socket, head) => dashboardSockets.handleUpgrade(req, socket, head),
  },
];
// Idle keep-alive connections outlive those of the proxy or client in front (env.ts): the side that
// closes first must be theirs, or their next request meets a reset. Headers of a request on such a
// connection are given as long.
server.keepAliveTimeout = env.HTTP_KEEP_ALIVE_TIMEOUT_MS;
server.headersTimeout = Math.max(server.headersTimeout, env.HTTP_KEEP_ALIVE_TIMEOUT_MS + 1000);

server.on("upgrade", routeUpgrade(upgradeRoutes, (req, socket, head) => void nextUpgrade(req, socket, head)));

if (env.MQTT_PORT !== undefined) {
  await app.mqtt.listen({ port: env.MQTT_PORT, host: env.HOST, tls: env.MQTT_TLS_CERT && env.MQTT_TLS_KEY ? { cert: env.MQTT_TLS_CERT, key: env.MQTT_TLS_KEY } : undefined });
}

// Deployed, enabled flows run again from their deployment snapshots: all of them here with one
// instance; in a cluster, this instance joins and takes its share.
await app.flowRuntime.start();

server.listen(env.PORT, env.HOST, () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : env.PORT;
  logger.info(
    { port, host: env.HOST, database: app.db.kind, store: app.store.kind, ms: Math.round(performance.now() - startedAt) },
    `listening on http://${env.HOST === "0.0.0.0" ? "localhost" : env.HOST}:${port}`,
  );
  // One full collection once the server listens. Start-up leaves a few hundred MB of garbage, most
  // of it outside V8's heap (PGlite's closed initdb instance and its WebAssembly memory, Next's
  // manifests, the migrations' buffers); an idle server allocates too little for V8 to collect on
  // its own, so without this the process keeps that memory for as long as nobody uses it. About
  // 50 ms, once, before any request can be waiting on it.
  setImmediate(collectGarbage);
});

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "shutting down");
  const force = setTimeout(() => process.exit(1), 10_000);
  force.unref();
  server.close();
  server.closeAllConnections?.();
  // Flows first: in a cluster the others take them over at once, whatever the sockets still do.
  await app.flowRuntime.close();
  await hub.close();
  await socketHooks.close();
  await dashboardSockets.close();
  await app.close();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
