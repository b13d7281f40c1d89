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
import { createAppServer } from "@/server/http/app-server";

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

// src/server.ts's own server (the request listener with the REST core over Node's request, webhooks,
// tRPC and GET /metrics; the WebSocket upgrades), so what the cluster tests and the failover and
// forwarding benchmarks exercise is the production wiring, Next's pages aside.
const { server, close } = createAppServer({ app, env, hsts: false, next: { handle: noPages, upgrade: (_req, socket) => socket.destroy() } });
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
  await close();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown());
process.on("SIGINT", () => void shutdown());
