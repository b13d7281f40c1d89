import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import type { AppServices } from "../app";

export const WS_CLOSE = {
  unauthenticated: 4401,
  forbidden: 4403,
  going_away: 1001,
} as const;

const MAX_PAYLOAD = 64 * 1024;
const AUTH_TIMEOUT_MS = 10_000;
const HEARTBEAT_MS = 30_000;

export interface WsIdentity {
  userId: string;
  organizationId: string;
}

export interface WsCredentials {
  authorization?: string;
  apiKey?: string;
  cookie?: string;
  origin?: string;
  token?: string;
}

export interface RealtimeHubOptions {
  app: AppServices;
  /** Resolves credentials to an identity, or null when they are not valid. */
  authenticate?: (credentials: WsCredentials) => Promise<WsIdentity | null>;
}

export interface RealtimeHub {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  readonly clientCount: number;
  close(): Promise<void>;
}

interface Client {
  ws: WebSocket;
  alive: boolean;
  identity?: WsIdentity;
}

function send(ws: WebSocket, frame: unknown) {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
}

/**
 * The WebSocket endpoint at /ws: authentication on the upgrade or by a first `auth` frame within
 * 10 s, JSON frames, bounded client frames, and heartbeats that drop dead peers.
 */
export function createRealtimeHub(options: RealtimeHubOptions): RealtimeHub {
  const { logger } = options.app;
  const authenticate = options.authenticate ?? (async () => null);
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD });
  const clients = new Set<Client>();

  const heartbeat = setInterval(() => {
    for (const client of clients) {
      if (!client.alive) {
        client.ws.terminate();
        continue;
      }
      client.alive = false;
      client.ws.ping();
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();

  function ready(client: Client, identity: WsIdentity) {
    client.identity = identity;
    send(client.ws, { type: "ready", user_id: identity.userId, organization_id: identity.organizationId });
  }

  function onConnection(ws: WebSocket, fromHeaders: WsIdentity | null) {
    const client: Client = { ws, alive: true };
    clients.add(client);
    ws.on("pong", () => {
      client.alive = true;
    });
    ws.on("close", () => clients.delete(client));
    ws.on("error", (err) => logger.debug({ err }, "websocket error"));

    let authTimer: NodeJS.Timeout | undefined;
    if (fromHeaders) {
      ready(client, fromHeaders);
    } else {
      authTimer = setTimeout(() => ws.close(WS_CLOSE.unauthenticated, "authentication timeout"), AUTH_TIMEOUT_MS);
    }

    ws.on("message", (data, isBinary) => {
      let frame: { type?: unknown; token?: unknown };
      try {
        frame = JSON.parse(isBinary ? "" : data.toString()) as typeof frame;
        if (typeof frame !== "object" || frame === null) throw new Error("not an object");
      } catch {
        send(ws, { type: "error", code: "INVALID_FRAME", message: "frames must be JSON objects" });
        return;
      }
      if (frame.type === "auth") {
        if (typeof frame.token !== "string") {
          ws.close(WS_CLOSE.unauthenticated, "invalid credentials");
          return;
        }
        void authenticate({ token: frame.token }).then(
          (identity) => {
            if (!identity) {
              ws.close(WS_CLOSE.unauthenticated, "invalid credentials");
              return;
            }
            clearTimeout(authTimer);
            ready(client, identity);
          },
          (err: unknown) => {
            logger.warn({ err }, "websocket authentication failed");
            ws.close(WS_CLOSE.unauthenticated, "authentication unavailable");
          },
        );
        return;
      }
      if (!client.identity) {
        ws.close(WS_CLOSE.unauthenticated, "authenticate first");
        return;
      }
      if (frame.type === "ping") {
        send(ws, { type: "pong", ts: new Date().toISOString() });
        return;
      }
      send(ws, { type: "error", code: "UNKNOWN_FRAME", message: `unknown frame type ${String(frame.type)}` });
    });
  }

  return {
    handleUpgrade(req, socket, head) {
      const credentials: WsCredentials = {
        authorization: req.headers.authorization,
        apiKey: typeof req.headers["x-api-key"] === "string" ? req.headers["x-api-key"] : undefined,
        cookie: req.headers.cookie,
        origin: req.headers.origin,
      };
      // A bad Authorization or X-API-Key header fails the connection; a cookie that does not
      // authenticate leaves the client the `auth` frame.
      const explicit = Boolean(credentials.authorization || credentials.apiKey);
      const accept = (identity: WsIdentity | null) =>
        wss.handleUpgrade(req, socket, head, (ws) => {
          if (explicit && !identity) {
            ws.close(WS_CLOSE.unauthenticated, "invalid credentials");
            return;
          }
          onConnection(ws, identity);
        });
      if (!explicit && !credentials.cookie) {
        accept(null);
        return;
      }
      authenticate(credentials).then(accept, (err: unknown) => {
        logger.warn({ err }, "websocket authentication failed");
        accept(null);
      });
    },
    get clientCount() {
      return clients.size;
    },
    async close() {
      clearInterval(heartbeat);
      for (const client of clients) client.ws.close(WS_CLOSE.going_away, "server shutting down");
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
