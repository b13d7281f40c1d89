/**
 * Our fetch-style handlers (the REST adapter, webhooks) on a plain Node http server without Next,
 * for the cluster tests' instances (cluster-node.ts) and the benchmarks' REST server
 * (bench/lib/rest-server.ts): IncomingMessage → fetch Request → handler → the Response written
 * back. The client IP header is set from the socket as src/server.ts does.
 */
import type http from "node:http";
import { CLIENT_IP_HEADER, resolveClientIp } from "@/server/http/client-ip";

function toHeaders(req: http.IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  return headers;
}

async function readBody(req: http.IncomingMessage): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length > 0 ? Uint8Array.from(Buffer.concat(chunks)) : undefined;
}

export async function toFetchRequest(req: http.IncomingMessage, trustProxyHops: number): Promise<Request> {
  req.headers[CLIENT_IP_HEADER] = resolveClientIp(req, trustProxyHops);
  const method = req.method ?? "GET";
  const body = method === "GET" || method === "HEAD" ? undefined : await readBody(req);
  return new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url ?? "/"}`, { method, headers: toHeaders(req), body });
}

/** Writes a fetch Response to Node's response, every Set-Cookie header kept. */
export async function writeFetchResponse(res: http.ServerResponse, response: Response): Promise<void> {
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

/** A request listener that serves `handle`; a handler that throws answers 500 INTERNAL after `onError`. */
export function fetchListener(
  handle: (request: Request) => Promise<Response>,
  { trustProxyHops, onError }: { trustProxyHops: number; onError: (err: unknown) => void },
): http.RequestListener {
  return (req, res) => {
    toFetchRequest(req, trustProxyHops)
      .then(handle)
      .then((response) => writeFetchResponse(res, response))
      .catch((err: unknown) => {
        onError(err);
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { code: "INTERNAL", message: "internal error" } }));
      });
  };
}
