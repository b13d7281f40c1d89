/**
 * The custom server's request listener (src/server.ts's, Next aside: pages answer 404 "next") on a
 * loopback port, for tests that go through the production request path over real HTTP.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { AppServices } from "@/server/app-services";
import { appRouter } from "@/server/api/root";
import { createRestCore } from "@/server/api/rest/handler";
import { serveWebhookTarget } from "@/server/api/rest/webhook-handler";
import { createTrpcHandler } from "@/server/api/trpc-handler";
import { createRequestListener, type RequestListenerOptions } from "@/server/http/request-listener";

export interface ListeningServer {
  base: string;
  port: number;
  close(): Promise<void>;
}

export async function listenWithRequestListener(app: AppServices, options: Partial<Omit<RequestListenerOptions, "app">> = {}): Promise<ListeningServer> {
  const server = http.createServer(
    createRequestListener({
      app,
      trustProxyHops: 0,
      hsts: false,
      // The server's restCore, with this test's app instead of the services slot's.
      rest: createRestCore({ router: appRouter, getAppServices: async () => app }),
      webhooks: (req) => serveWebhookTarget(app, req),
      trpc: createTrpcHandler(async () => app),
      next: async (_req, res) => {
        res.statusCode = 404;
        res.end("next");
      },
      ...options,
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
