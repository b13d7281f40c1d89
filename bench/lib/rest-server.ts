import http from "node:http";
import type { AddressInfo } from "node:net";
import type { AppServices } from "@/server/app-services";
import { createRestHandler } from "@/server/api/rest/handler";
import { appRouter } from "@/server/api/root";
import { fetchListener } from "@/test/http-bridge";

export interface RestServer {
  /** http://127.0.0.1:<port> */
  url: string;
  close(): Promise<void>;
}

/**
 * Our REST stack on a real port without Next (src/test/http-bridge.ts), for the benchmarks that
 * call it over HTTP.
 */
export async function startRestServer(app: AppServices): Promise<RestServer> {
  const handle = createRestHandler({ router: appRouter, getAppServices: async () => app });

  const server = http.createServer(
    fetchListener(handle, { trustProxyHops: app.config.env.TRUST_PROXY_HOPS, onError: (err) => app.logger.error({ err }, "bench server: request failed") }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
