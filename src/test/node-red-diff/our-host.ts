import http from "node:http";
import type { AddressInfo } from "node:net";
import type { AppServices } from "@/server/app-services";
import { serveWebhookTarget } from "@/server/api/rest/webhook-handler";
import { serveWebhooks } from "@/server/http/direct-mount";
import { CLIENT_IP_HEADER, resolveClientIp } from "@/server/http/client-ip";
import { createSocketHooks } from "@/server/http/socket-hooks";
import { routeUpgrade } from "@/server/http/upgrades";
import { createLogger } from "@/server/logger";
import { createOutboundRules } from "@/server/runtime/outbound";
import { createSafeFetch } from "@/server/runtime/safe-fetch";
import { socketRouteChannel } from "@/server/runtime/socket-hooks";
import type { RuntimeServices } from "@/server/runtime/types";
import { WebhookRegistry } from "@/server/runtime/webhooks";
import { MemoryStore, createRateLimiter } from "@/server/store";
import { MemoryFiles } from "@/test/memory-files";

/** The organization the differential flows run as: its webhooks are served at `/hooks/diff/…`, its listeners at `/ws/hooks/diff/…`. */
export const DIFF_ORGANIZATION_SLUG = "diff";

/**
 * What a flow of ours reaches outside the engine, for the differential harness, without a database:
 * the webhook mount (`/hooks/{slug}/…`, the app's own handler) and the websocket listeners'
 * edge (`/ws/hooks/{slug}/…`, the app's own upgrade route) on a real port, the organization's files
 * in memory, and outbound HTTP and sockets under the outbound rules with private addresses allowed
 * (OUTBOUND_ALLOW_PRIVATE: the example flows call their own server on localhost, as they do in
 * Node-RED). One process, one organization: the flow runtime here is the webhook registry itself.
 */
export async function startOurHost(options: { port?: number } = {}) {
  const store = new MemoryStore();
  const webhooks = new WebhookRegistry();
  const files = new MemoryFiles();
  const logger = createLogger({ level: "error", name: "diff" });
  const unlimited = (keyPrefix: string) => createRateLimiter(store, { keyPrefix, points: 1_000_000, durationSec: 60 });
  const app = {
    store,
    logger,
    limits: { webhookPerIp: unlimited("hook-ip"), webhookPerOrganization: unlimited("hook-org") },
    flowRuntime: {
      instanceId: "diff",
      hasWebhook: async (slug: string, method: string, path: string) => webhooks.lookup(slug, method, path) !== undefined,
      handleWebhook: async (slug: string, request: Parameters<WebhookRegistry["handle"]>[1]) => (await webhooks.handle(slug, request)) ?? null,
    },
  } as unknown as AppServices;
  const socketHooks = createSocketHooks(app, { trustProxyHops: 0, maxFrameBytes: 1024 * 1024, maxSocketsPerOrganization: 1000, sendQueueBytes: 4 * 1024 * 1024 });
  // The webhooks as the custom server mounts them (Node's request: msg.req as Express gives it).
  const server = http.createServer((req, res) => {
    if (!(req.url ?? "").startsWith("/hooks/")) return void res.writeHead(404).end();
    req.headers[CLIENT_IP_HEADER] = resolveClientIp(req, 0);
    serveWebhooks(req, res, (request) => serveWebhookTarget(app, request)).catch((err: unknown) => {
      logger.error({ err }, "webhook failed");
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: "INTERNAL", message: "internal error" } }));
    });
  });
  server.on(
    "upgrade",
    routeUpgrade([socketHooks.route], (_req, socket) => socket.destroy()),
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const outbound = createOutboundRules({ allowPrivate: true });
  const services: RuntimeServices = {
    webhooks,
    socketHooks: {
      publish: (slug, path, out) => void store.publish(socketRouteChannel(slug, path), JSON.stringify(out)),
    },
    files,
    outbound,
    httpRequest: createSafeFetch({ allowPrivate: true }),
  };
  return {
    base,
    /** Where this organization's http-in paths are served. */
    hooksBase: `${base}/hooks/${DIFF_ORGANIZATION_SLUG}`,
    /** Where its websocket listeners are served (ws:). */
    socketsBase: `${base.replace(/^http/, "ws")}/ws/hooks/${DIFF_ORGANIZATION_SLUG}`,
    services,
    files,
    async close() {
      await socketHooks.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
    },
  };
}
