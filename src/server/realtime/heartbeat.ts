import type { WebSocket } from "ws";
import { WS_LIMITS } from "../../shared/realtime";

interface Beating {
  ws: WebSocket;
  alive: boolean;
}

/** Marks the connection alive whenever it answers a ping. */
export function trackPongs(client: Beating): void {
  client.ws.on("pong", () => {
    client.alive = true;
  });
}

/**
 * Every `intervalMs` (30 s) pings each connection; one that has not answered the previous ping is
 * terminated. Returns the function that stops it. The timer never keeps the process alive.
 */
export function startHeartbeat(clients: Iterable<Beating>, intervalMs: number = WS_LIMITS.heartbeatMs): () => void {
  const timer = setInterval(() => {
    for (const client of clients) {
      if (!client.alive) {
        client.ws.terminate();
        continue;
      }
      client.alive = false;
      client.ws.ping();
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
