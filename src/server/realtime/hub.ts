import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import type { AppServices } from "../app-services";
import type { Principal } from "../auth/principal";
import { SESSION_REVOKED_CHANNEL } from "../auth/session-store";
import { API_KEY_REVOKED_CHANNEL } from "../auth/revocation-channels";
import type { OrgEvent } from "../services/flows/events";
import { AppError, toAppError } from "../errors";
import { verifyAccessToken } from "../auth/jwt";
import { appJwtKeys } from "../auth/principal";
import { clientFrameSchema, eventTopics, WS_CLOSE, WS_LIMITS } from "../../shared/realtime";
import { PresenceTracker } from "./presence";
import { ClientOutbox } from "./outbox";
import { authenticateSocket, isApiKey, PendingPerIp, refuseUpgrade, tokenCredentials, type SocketCredentials } from "./admission";
import { OrgChannels } from "./org-channels";
import { durableSubscription, type DurableSubscription } from "../store/durable-subscription";
import type { DeviceChannel } from "./devices";
import { authLimiters } from "../auth/limits";
import { CLIENT_IP_HEADER } from "../api/rest/client-ip";

export { WS_CLOSE };

interface Client {
  ws: WebSocket;
  alive: boolean;
  principal?: Principal;
  topics: Set<string> | null;
  flowId: string | null;
  /** Every frame to this connection goes through it: ordering, drop counting, debug batches. */
  out: ClientOutbox;
  expiryTimer?: NodeJS.Timeout;
  /** The client IP while the socket is not authenticated yet (counted in pendingPerIp). */
  pendingIp?: string;
  /** The flow this connection has open (presence), and the name shown for its user. */
  presenceFlowId: string | null;
  displayName?: string;
}

export interface RealtimeHub {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  readonly clientCount: number;
  close(): Promise<void>;
}

/** `subscribed` says `batch: true` to a connection that batches, and nothing more to others. */
const batchFlag = (client: Client): { batch?: true } => (client.out.batchesDebug ? { batch: true } : {});

/**
 * The WebSocket endpoint at /ws. Authentication on the upgrade (Authorization, X-API-Key, or the
 * UI's session cookie from our own origin) or by an `auth` frame within 10 s; failures close with
 * 4401 before any event. Events come from the organization's channel in the store's pub/sub, so
 * with Redis every instance's clients see every event. A slow client only loses its own debug
 * events (counted and reported), never slows the runtime or other clients.
 */
export function createRealtimeHub(options: { app: AppServices; devices?: DeviceChannel; authTimeoutMs?: number }): RealtimeHub {
  const { app } = options;
  const { logger } = app;
  const wss = new WebSocketServer({ noServer: true, maxPayload: WS_LIMITS.maxPayloadBytes });
  const clients = new Set<Client>();
  const pendingPerIp = new PendingPerIp();
  const settlePending = (client: Client) => {
    if (client.pendingIp === undefined) return;
    pendingPerIp.remove(client.pendingIp);
    client.pendingIp = undefined;
  };
  // Subscriptions that keep trying while the store cannot subscribe (Redis still connecting at
  // start-up, or down): without them revocations and events would silently never arrive here.
  const subscribe = (channel: string, handler: (message: string) => void): DurableSubscription =>
    durableSubscription(app.store, channel, handler, {
      onRetry: (err, attempt) => logger.warn({ err, channel, attempt }, "store subscription failed; retrying"),
    });

  const presence = new PresenceTracker({
    store: app.store,
    logger,
    onChange(organizationId, flowId, users) {
      for (const client of clients) {
        if (client.principal?.organizationId === organizationId && client.presenceFlowId === flowId) client.out.send({ type: "presence", flow_id: flowId, users });
      }
    },
  });

  async function displayName(client: Client, userId: string): Promise<string> {
    if (client.displayName) return client.displayName;
    const user = await app.db.prisma.user.findUnique({ where: { id: userId }, select: { firstName: true, lastName: true, email: true } });
    client.displayName = user ? [user.firstName, user.lastName].filter(Boolean).join(" ") || user.email : "someone";
    return client.displayName;
  }

  async function setPresence(client: Client, flowId: string | null) {
    const p = client.principal;
    if (!p) return;
    client.presenceFlowId = flowId;
    if (!flowId) {
      presence.set(p.organizationId, client, null);
      return;
    }
    const name = await displayName(client, p.userId);
    // The connection may have moved on (or closed) while its name was looked up.
    if (client.presenceFlowId !== flowId || !clients.has(client)) return;
    presence.set(p.organizationId, client, { flow_id: flowId, user_id: p.userId, name });
    client.out.send({ type: "presence", flow_id: flowId, users: presence.users(p.organizationId, flowId) });
  }

  const heartbeat = setInterval(() => {
    for (const client of clients) {
      if (!client.alive) {
        client.ws.terminate();
        continue;
      }
      client.alive = false;
      client.ws.ping();
    }
  }, WS_LIMITS.heartbeatMs);
  heartbeat.unref();

  const revocations = subscribe(SESSION_REVOKED_CHANNEL, (message) => {
    const { session_id } = JSON.parse(message) as { session_id: string };
    for (const client of clients) {
      if (client.principal?.kind === "session" && client.principal.sessionId === session_id) {
        client.ws.close(WS_CLOSE.unauthenticated, "session revoked");
      }
    }
  });

  // A revoked API key (service or device) loses its sockets on every instance.
  const keyRevocations = subscribe(API_KEY_REVOKED_CHANNEL, (message) => {
    let keyId: unknown;
    try {
      keyId = (JSON.parse(message) as { key_id?: unknown }).key_id;
    } catch {
      return;
    }
    for (const client of clients) {
      if (client.principal?.kind === "api_key" && client.principal.keyId === keyId) client.ws.close(WS_CLOSE.unauthenticated, "API key revoked");
    }
  });

  function onLifecycle(organizationId: string, raw: string) {
    let type: unknown;
    try {
      type = (JSON.parse(raw) as { type?: unknown }).type;
    } catch {
      return;
    }
    if (type !== "organization.deleted") return;
    for (const client of clients) {
      if (client.principal?.organizationId === organizationId) client.ws.close(WS_CLOSE.unauthenticated, "organization deleted");
    }
  }

  function deliver(organizationId: string, raw: string) {
    let event: OrgEvent;
    try {
      event = JSON.parse(raw) as OrgEvent;
    } catch {
      return;
    }
    for (const client of clients) {
      const p = client.principal;
      if (!p || p.organizationId !== organizationId || (p.kind === "api_key" && p.keyKind === "device")) continue;
      if (client.topics && !client.topics.has(event.topic)) continue;
      if (client.flowId && event.flow_id !== client.flowId) continue;
      client.out.event(raw, event.topic === "debug");
    }
  }

  const orgChannels = new OrgChannels(subscribe, { event: deliver, lifecycle: onLifecycle });
  const authenticate = (credentials: SocketCredentials) => authenticateSocket(app, credentials);

  async function ready(client: Client, principal: Principal, bearer?: string) {
    const first = !client.principal;
    if (client.principal && client.principal.organizationId !== principal.organizationId) {
      client.ws.close(WS_CLOSE.forbidden, "re-authentication must keep the organization");
      return;
    }
    client.principal = principal;
    settlePending(client);
    clearTimeout(client.expiryTimer);
    // An access token's expiry ends the socket unless the client re-authenticates with a fresh one.
    if (bearer && principal.kind === "session") {
      const claims = await verifyAccessToken(appJwtKeys(app), bearer).catch(() => null);
      if (claims) {
        const ms = claims.exp * 1000 - Date.now();
        client.expiryTimer = setTimeout(() => client.ws.close(WS_CLOSE.unauthenticated, "access token expired"), Math.max(0, ms));
        client.expiryTimer.unref();
      }
    }
    if (first) {
      // Every client joins its organization (device keys for its lifecycle only: deliver() skips them).
      if (principal.kind === "api_key" && principal.keyKind === "device") options.devices?.attach(client.ws, principal);
      orgChannels.join(principal.organizationId);
    }
    client.out.send({
      type: "ready",
      user_id: principal.userId,
      organization_id: principal.organizationId,
      ...(principal.kind === "api_key" && principal.keyKind === "device" ? { device_key_id: principal.keyId } : {}),
    });
  }

  function onConnection(ws: WebSocket, fromHeaders: { principal: Principal; bearer?: string } | null, ip: string) {
    const client: Client = { ws, alive: true, topics: null, flowId: null, out: new ClientOutbox(ws), presenceFlowId: null };
    if (!fromHeaders) {
      client.pendingIp = ip;
      pendingPerIp.add(ip);
    }
    clients.add(client);
    ws.on("pong", () => {
      client.alive = true;
    });
    ws.on("close", () => {
      clients.delete(client);
      client.out.dispose();
      settlePending(client);
      clearTimeout(client.expiryTimer);
      clearTimeout(authTimer);
      const p = client.principal;
      if (p) {
        if (client.presenceFlowId) presence.set(p.organizationId, client, null);
        orgChannels.leave(p.organizationId);
      }
    });
    ws.on("error", (err) => logger.debug({ err }, "websocket error"));

    let authTimer: NodeJS.Timeout | undefined;
    if (fromHeaders) void ready(client, fromHeaders.principal, fromHeaders.bearer);
    else authTimer = setTimeout(() => ws.close(WS_CLOSE.unauthenticated, "authentication timeout"), options.authTimeoutMs ?? WS_LIMITS.authTimeoutMs);

    ws.on("message", (data, isBinary) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(isBinary ? "" : data.toString());
      } catch {
        client.out.send({ type: "error", code: "INVALID_FRAME", message: "frames must be JSON objects" });
        return;
      }
      const frame = clientFrameSchema.safeParse(parsed);
      if (!frame.success) {
        client.out.send({ type: "error", code: "INVALID_FRAME", message: frame.error.issues[0]?.message ?? "invalid frame" });
        return;
      }
      const f = frame.data;
      if (f.type === "auth") {
        const token = f.token;
        const credentials = tokenCredentials(token);
        authenticate(credentials).then(
          (principal) => {
            clearTimeout(authTimer);
            return ready(client, principal, credentials.authorization ? token : undefined);
          },
          (err: unknown) => {
            const e = toAppError(err);
            ws.close(e.status === 403 ? WS_CLOSE.forbidden : WS_CLOSE.unauthenticated, e.code);
          },
        );
        return;
      }
      if (!client.principal) {
        ws.close(WS_CLOSE.unauthenticated, "authenticate first");
        return;
      }
      switch (f.type) {
        case "ping":
          client.out.send({ type: "pong", ts: new Date().toISOString() });
          return;
        case "subscribe":
          // What was batched under the old subscription goes out before the answer.
          client.out.setBatching(f.batch === true);
          client.topics = f.topics ? new Set(f.topics) : null;
          client.flowId = f.flow_id ?? null;
          client.out.send({ type: "subscribed", topics: f.topics ?? "all", flow_id: client.flowId, ...batchFlag(client) });
          return;
        case "unsubscribe":
          if (f.topics) {
            const current = client.topics ?? new Set<string>(eventTopics);
            for (const t of f.topics) current.delete(t);
            client.topics = current;
          } else if (f.flow_id) client.flowId = null;
          else client.topics = new Set();
          client.out.send({ type: "subscribed", topics: client.topics ? [...client.topics] : "all", flow_id: client.flowId, ...batchFlag(client) });
          return;
        case "presence":
          if (client.principal.kind === "api_key" && client.principal.keyKind === "device") {
            client.out.send({ type: "error", code: "FORBIDDEN", message: "device keys have no presence" });
            return;
          }
          setPresence(client, f.flow_id).catch((err: unknown) => logger.warn({ err }, "presence failed"));
          return;
        case "device.publish":
          if (client.principal.kind === "api_key" && client.principal.keyKind === "device" && options.devices) {
            options.devices.publish(client.principal, f.topic, f.payload);
          } else client.out.send({ type: "error", code: "FORBIDDEN", message: "only device keys publish device messages" });
          return;
      }
    });
  }

  return {
    handleUpgrade(req, socket, head) {
      const ip = typeof req.headers[CLIENT_IP_HEADER] === "string" ? req.headers[CLIENT_IP_HEADER] : (req.socket.remoteAddress ?? "unknown");
      authLimiters(app)
        .wsUpgradePerIp.consume(ip)
        .then(
          (result) => {
            if (!result.allowed) refuseUpgrade(socket, 429, result.retryAfterSec);
            else upgrade(req, socket, head, ip);
          },
          // The store is down: fail closed, as authentication would.
          () => refuseUpgrade(socket, 503, 5),
        );
    },
    get clientCount() {
      return clients.size;
    },
    async close() {
      clearInterval(heartbeat);
      await presence.close();
      for (const client of clients) {
        client.out.flush();
        client.ws.close(WS_CLOSE.goingAway, "server shutting down");
      }
      await orgChannels.close();
      await keyRevocations.stop();
      await revocations.stop();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };

  function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, ip: string) {
    const header = (name: string) => {
      const v = req.headers[name];
      return typeof v === "string" ? v : undefined;
    };
    const credentials = { authorization: header("authorization"), apiKey: header("x-api-key"), cookie: header("cookie"), origin: header("origin") };
    const explicit = Boolean(credentials.authorization || credentials.apiKey);
    const accept = (result: { principal: Principal; bearer?: string } | null, error?: AppError) =>
      wss.handleUpgrade(req, socket, head, (ws) => {
        if (error && explicit) {
          ws.close(error.status === 403 ? WS_CLOSE.forbidden : WS_CLOSE.unauthenticated, error.code);
          return;
        }
        onConnection(ws, result, ip);
      });
    // Unauthenticated sockets per IP are bounded: each holds a slot until its `auth` frame or timeout.
    const refuseIfCrowded = () => {
      if (!pendingPerIp.crowded(ip)) return false;
      refuseUpgrade(socket, 429, 10);
      return true;
    };
    if (!explicit && !credentials.cookie) {
      if (!refuseIfCrowded()) accept(null);
      return;
    }
    authenticate(credentials).then(
      (principal) => {
        const bearer = credentials.authorization?.replace(/^Bearer\s+/i, "");
        accept({ principal, bearer: bearer && !isApiKey(bearer) ? bearer : undefined });
      },
      // A cookie that does not authenticate leaves the client the `auth` frame.
      (err: unknown) => {
        if (!explicit && refuseIfCrowded()) return;
        accept(null, toAppError(err));
      },
    );
  }
}
