import http from "node:http";
import type { AddressInfo } from "node:net";
import type { AppServices } from "@/server/app";
import { createRestHandler } from "@/server/api/rest/handler";
import { CLIENT_IP_HEADER, resolveClientIp } from "@/server/api/rest/client-ip";
import { appRouter, createCaller } from "@/server/api/root";

export interface RestServer {
  /** http://127.0.0.1:<port> */
  url: string;
  close(): Promise<void>;
}

function toHeaders(req: http.IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  return headers;
}

/** The API takes JSON bodies only, so the body is read as text. */
async function readAll(req: http.IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length > 0 ? Buffer.concat(chunks).toString("utf8") : undefined;
}

/**
 * Our REST stack on a real port without Next: IncomingMessage → fetch Request → createRestHandler
 * → the Response written back. The client IP header is set from the socket as src/server.ts does.
 */
export async function startRestServer(app: AppServices): Promise<RestServer> {
  const handle = createRestHandler({ router: appRouter, getApp: async () => app, createCaller: (ctx) => createCaller(ctx) });

  async function serve(req: http.IncomingMessage, res: http.ServerResponse) {
    req.headers[CLIENT_IP_HEADER] = resolveClientIp(req, app.config.env.TRUST_PROXY_HOPS);
    const method = req.method ?? "GET";
    const body = method === "GET" || method === "HEAD" ? undefined : await readAll(req);
    const response = await handle(new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url ?? "/"}`, { method, headers: toHeaders(req), body }));
    const headers: Record<string, string | string[]> = {};
    response.headers.forEach((value, name) => {
      if (name !== "set-cookie") headers[name] = value;
    });
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) headers["set-cookie"] = cookies;
    const payload = Buffer.from(await response.arrayBuffer());
    res.writeHead(response.status, headers);
    res.end(payload);
  }

  const server = http.createServer((req, res) => {
    serve(req, res).catch((err: unknown) => {
      app.logger.error({ err }, "bench server: request failed");
      if (!res.headersSent) res.writeHead(500, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ error: { code: "INTERNAL", message: "internal error" } }));
    });
  });
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
