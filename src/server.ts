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
import { createAppServer } from "./server/http/app-server";

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
// The request listener, its direct mounts and the WebSocket upgrades (src/server/http/app-server.ts);
// pages, next-auth, assets and hot reload go to Next.
const { server, close } = createAppServer({
  app,
  env,
  hsts: app.config.publicUrl.startsWith("https://"),
  next: { handle, upgrade: (req, socket, head) => void nextUpgrade(req, socket, head) },
});

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
  await close();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
