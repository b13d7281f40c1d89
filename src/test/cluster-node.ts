/**
 * One instance of the app for the multi-process cluster tests and the failover benchmark: the real
 * AppServices (createAppServices: PostgreSQL, Redis, the clustered flow runtime) serving the REST API
 * (/api/v1), webhooks (/hooks/{slug}/...), tRPC (/api/trpc) and GET /metrics through src/server.ts's
 * request listener, and the WebSocket hub (/ws, with the device channel) on a real port, with
 * src/server.ts's start-up order (listen, then join the cluster) and shutdown (SIGTERM: stop
 * accepting, close the app, which hands the flows over). Next's pages are left out: they play no
 * part in placement, and a production build per test run would cost minutes.
 *
 * Environment: the app's own variables (DATABASE_URL, REDIS_URL, PORT, INSTANCE_ID, ...) plus
 * CLUSTER_DB_SCHEMA (the database schema the instances share) and CLUSTER_KEY_PREFIX (their Redis
 * key prefix), so a test run keeps to itself on shared servers.
 */
import http from "node:http";
import { getEnv } from "@/env";
import { createAppServices } from "@/server/compose";
import { setAppServices } from "@/server/services-slot";
import { createLogger } from "@/server/logger";
import { restCore } from "@/server/api/rest";
import { serveWebhookTarget } from "@/server/api/rest/webhook-handler";
import { CLIENT_IP_HEADER, resolveClientIp } from "@/server/http/client-ip";
import { createRequestListener } from "@/server/http/request-listener";
import { peerUpgradeRoute, routeUpgrade, type UpgradeRoute } from "@/server/http/upgrades";
import { createSocketHooks } from "@/server/http/socket-hooks";
import { createTrpcHandler } from "@/server/api/trpc-handler";
import { createTrpcCore } from "@/server/api/trpc-node";
import { appRouter } from "@/server/api/root";
import { createRealtimeHub } from "@/server/realtime/hub";
import { DeviceChannel } from "@/server/realtime/devices";
import { agentDeps } from "@/server/services/devices/agents";
import { actorName } from "@/server/services/flows/events";
import { createDashboardSocketServer, dashboardSlugOf } from "@/server/dashboards/socket";

const env = getEnv();
const app = await createAppServices({
  env,
  dbSchema: process.env.CLUSTER_DB_SCHEMA,
  storeKeyPrefix: process.env.CLUSTER_KEY_PREFIX,
  logger: createLogger({ level: env.LOG_LEVEL }),
});
setAppServices(app);

/** What Next would serve (pages, next-auth, assets): not here. */
async function noPages(_req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  res.statusCode = 404;
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify({ error: { code: "NOT_FOUND", message: "not found" } }));
}

// src/server.ts's own request listener (the REST core over Node's request, webhooks, tRPC, GET
// /metrics), so what the cluster tests and the failover and forwarding benchmarks measure is the
// production request path, Next's pages aside.
const server = http.createServer(
  createRequestListener({
    app,
    trustProxyHops: env.TRUST_PROXY_HOPS,
    hsts: false,
    rest: restCore,
    webhooks: (req) => serveWebhookTarget(app, req),
    trpc: createTrpcHandler(async () => app),
    trpcCore: createTrpcCore(appRouter, async () => app),
    next: noPages,
    metricsToken: env.METRICS_TOKEN,
  }),
);
const hub = createRealtimeHub({ app, displayName: (userId) => actorName(app, userId), devices: new DeviceChannel(app.store, app.flowRuntime, agentDeps(app)) });
const socketHooks = createSocketHooks(app, {
  trustProxyHops: env.TRUST_PROXY_HOPS,
  maxFrameBytes: env.WS_HOOK_MAX_FRAME_BYTES,
  maxSocketsPerOrganization: env.WS_HOOK_SOCKETS_PER_ORGANIZATION,
  sendQueueBytes: env.WS_HOOK_SEND_QUEUE_BYTES,
});
// Dashboards (SPEC §21): the dashboard socket, as src/server.ts mounts it.
const dashboardSockets = createDashboardSocketServer(app);
// src/server.ts's upgrade routes: the hub at /ws, websocket-listener nodes at /ws/hooks/{slug}/{path}.
const upgradeRoutes: UpgradeRoute[] = [
  {
    name: "hub",
    matches: (pathname) => pathname === "/ws",
    handle: (req, socket, head) => {
      req.headers[CLIENT_IP_HEADER] = resolveClientIp(req, env.TRUST_PROXY_HOPS);
      hub.handleUpgrade(req, socket, head);
    },
  },
  socketHooks.route,
  // Another instance's connection for the calls it forwards here (a cluster only).
  peerUpgradeRoute(app.flowRuntime),
  // The built-in MQTT broker over WebSocket (SPEC §20).
  { name: "mqtt", matches: (pathname) => pathname === "/mqtt", handle: (req, socket, head) => app.mqtt.handleUpgrade(req, socket, head) },
  { name: "dashboard", matches: (pathname) => dashboardSlugOf(pathname) !== null, handle: (req, socket, head) => dashboardSockets.handleUpgrade(req, socket, head) },
];
server.on("upgrade", routeUpgrade(upgradeRoutes, (_req, socket) => socket.destroy()));
await new Promise<void>((resolve) => server.listen(env.PORT, "127.0.0.1", resolve));
if (env.MQTT_PORT !== undefined) await app.mqtt.listen({ port: env.MQTT_PORT, host: "127.0.0.1" });
await app.flowRuntime.start();
// The harness waits for this line.
console.log(`cluster-node ready ${app.flowRuntime.instanceId} ${env.PORT}`);

let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  const force = setTimeout(() => process.exit(1), 10_000);
  force.unref();
  server.close();
  server.closeAllConnections();
  await app.flowRuntime.close();
  await hub.close();
  await socketHooks.close();
  await dashboardSockets.close();
  await app.close();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown());
process.on("SIGINT", () => void shutdown());
