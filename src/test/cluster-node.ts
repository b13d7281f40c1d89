/**
 * One instance of the app for the multi-process cluster tests and the failover benchmark: the real
 * AppServices (createAppServices: PostgreSQL, Redis, the clustered flow runtime) serving the REST API
 * (/api/v1, the same adapter as Next's route), webhooks (/hooks/{slug}/...), tRPC (/api/trpc) and
 * the WebSocket hub (/ws, with the device channel) on a real port, with
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
import { createLogger } from "@/server/logger";
import { createRestHandler } from "@/server/api/rest/handler";
import { handleWebhook } from "@/server/api/rest/webhook-handler";
import { CLIENT_IP_HEADER, resolveClientIp } from "@/server/http/client-ip";
import { appRouter } from "@/server/api/root";
import { createTrpcHandler } from "@/server/api/trpc-handler";
import { fetchListener } from "./http-bridge";
import { createRealtimeHub } from "@/server/realtime/hub";
import { DeviceChannel } from "@/server/realtime/devices";
import { actorName } from "@/server/services/flows/events";

const env = getEnv();
const app = await createAppServices({
  env,
  dbSchema: process.env.CLUSTER_DB_SCHEMA,
  storeKeyPrefix: process.env.CLUSTER_KEY_PREFIX,
  logger: createLogger({ level: env.LOG_LEVEL }),
});
const rest = createRestHandler({ router: appRouter, getAppServices: async () => app });
const trpc = createTrpcHandler(async () => app);

/** Webhooks, the REST API and tRPC, as src/server.ts routes them; anything else is not served here. */
async function route(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  const webhookPath = /^\/hooks\/([^/]+)((?:\/[^/]*)*)$/.exec(pathname);
  if (webhookPath) {
    const segments = webhookPath[2]!.split("/").filter(Boolean).map(decodeURIComponent);
    return handleWebhook(app, request, decodeURIComponent(webhookPath[1]!), segments);
  }
  if (pathname.startsWith("/api/v1/")) return rest(request);
  if (pathname.startsWith("/api/trpc/")) return trpc(request);
  return new Response(JSON.stringify({ error: { code: "NOT_FOUND", message: "not found" } }), { status: 404, headers: { "content-type": "application/json" } });
}

const server = http.createServer(
  fetchListener(route, { trustProxyHops: env.TRUST_PROXY_HOPS, onError: (err) => app.logger.error({ err }, "request failed") }),
);
const hub = createRealtimeHub({ app, displayName: (userId) => actorName(app, userId), devices: new DeviceChannel(app.store, app.flowRuntime) });
server.on("upgrade", (req, socket, head) => {
  req.headers[CLIENT_IP_HEADER] = resolveClientIp(req, env.TRUST_PROXY_HOPS);
  if (new URL(req.url ?? "/", "http://localhost").pathname === "/ws") hub.handleUpgrade(req, socket, head);
  else socket.destroy();
});
await new Promise<void>((resolve) => server.listen(env.PORT, "127.0.0.1", resolve));
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
  await app.close();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown());
process.on("SIGINT", () => void shutdown());
