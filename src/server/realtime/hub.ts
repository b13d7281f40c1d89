import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import type { AppServices } from "../app";
import { resolvePrincipal, type Principal } from "../auth/principal";
import { browserSessionId } from "../auth/next-auth";
import { assertPermission } from "../permissions";
import { SESSION_REVOKED_CHANNEL } from "../auth/sessions";
import { orgEventsChannel, type OrgEvent } from "../services/flows/events";
import { AppError, toAppError } from "../errors";
import { verifyAccessToken } from "../auth/jwt";
import { appJwtKeys } from "../auth/principal";
import { clientFrameSchema, eventTopics, WS_CLOSE, WS_LIMITS, type ServerFrame } from "../../shared/realtime";
import { PresenceTracker } from "./presence";
import type { DeviceChannel } from "./devices";

export { WS_CLOSE };

interface Client {
  ws: WebSocket;
  alive: boolean;
  principal?: Principal;
  topics: Set<string> | null;
  flowId: string | null;
  dropped: number;
  expiryTimer?: NodeJS.Timeout;
  /** The flow this connection has open (presence), and the name shown for its user. */
  presenceFlowId: string | null;
  displayName?: string;
}

export interface RealtimeHub {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  readonly clientCount: number;
  close(): Promise<void>;
}

function send(ws: WebSocket, frame: ServerFrame) {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
}

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
  const orgSubscriptions = new Map<string, { count: number; unsubscribe: Promise<() => Promise<void>> }>();

  const presence = new PresenceTracker({
    store: app.store,
    logger,
    onChange(organizationId, flowId, users) {
      for (const client of clients) {
        if (client.principal?.organizationId === organizationId && client.presenceFlowId === flowId) send(client.ws, { type: "presence", flow_id: flowId, users });
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
    send(client.ws, { type: "presence", flow_id: flowId, users: presence.users(p.organizationId, flowId) });
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

  const revocations = app.store.subscribe(SESSION_REVOKED_CHANNEL, (message) => {
    const { session_id } = JSON.parse(message) as { session_id: string };
    for (const client of clients) {
      if (client.principal?.kind === "session" && client.principal.sessionId === session_id) {
        client.ws.close(WS_CLOSE.unauthenticated, "session revoked");
      }
    }
  });

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
      if (client.ws.bufferedAmount > WS_LIMITS.maxBufferedBytes) {
        if (event.topic === "debug") {
          client.dropped++;
          continue;
        }
      } else if (client.dropped > 0) {
        send(client.ws, { type: "dropped", count: client.dropped });
        client.dropped = 0;
      }
      if (client.ws.readyState === client.ws.OPEN) client.ws.send(raw);
    }
  }

  function joinOrg(organizationId: string) {
    const existing = orgSubscriptions.get(organizationId);
    if (existing) {
      existing.count++;
      return;
    }
    orgSubscriptions.set(organizationId, {
      count: 1,
      unsubscribe: app.store.subscribe(orgEventsChannel(organizationId), (m) => deliver(organizationId, m)),
    });
  }

  function leaveOrg(organizationId: string) {
    const sub = orgSubscriptions.get(organizationId);
    if (!sub) return;
    if (--sub.count <= 0) {
      orgSubscriptions.delete(organizationId);
      void sub.unsubscribe.then((fn) => fn()).catch(() => undefined);
    }
  }

  async function authenticate(credentials: { authorization?: string; apiKey?: string; cookie?: string; origin?: string }): Promise<Principal> {
    const sessionId = credentials.cookie ? await browserSessionId(app, { cookie: credentials.cookie, origin: credentials.origin ?? null }) : undefined;
    if (!credentials.authorization && !credentials.apiKey && !sessionId) throw new AppError("UNAUTHENTICATED", "authentication required");
    const principal = await resolvePrincipal(
      app,
      { authorization: credentials.authorization, apiKey: credentials.apiKey, browserSessionId: credentials.authorization || credentials.apiKey ? undefined : sessionId },
      { allowDeviceKeys: true },
    );
    if (!(principal.kind === "api_key" && principal.keyKind === "device")) {
      assertPermission({ role: principal.role, kind: principal.kind, scopes: principal.kind === "api_key" ? principal.scopes : undefined }, "events:read");
    }
    return principal;
  }

  async function ready(client: Client, principal: Principal, bearer?: string) {
    const first = !client.principal;
    if (client.principal && client.principal.organizationId !== principal.organizationId) {
      client.ws.close(WS_CLOSE.forbidden, "re-authentication must keep the organization");
      return;
    }
    client.principal = principal;
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
      if (principal.kind === "api_key" && principal.keyKind === "device") options.devices?.attach(client.ws, principal);
      else joinOrg(principal.organizationId);
    }
    send(client.ws, {
      type: "ready",
      user_id: principal.userId,
      organization_id: principal.organizationId,
      ...(principal.kind === "api_key" && principal.keyKind === "device" ? { device_key_id: principal.keyId } : {}),
    });
  }

  function onConnection(ws: WebSocket, fromHeaders: { principal: Principal; bearer?: string } | null) {
    const client: Client = { ws, alive: true, topics: null, flowId: null, dropped: 0, presenceFlowId: null };
    clients.add(client);
    ws.on("pong", () => {
      client.alive = true;
    });
    ws.on("close", () => {
      clients.delete(client);
      clearTimeout(client.expiryTimer);
      clearTimeout(authTimer);
      const p = client.principal;
      if (p && !(p.kind === "api_key" && p.keyKind === "device")) {
        if (client.presenceFlowId) presence.set(p.organizationId, client, null);
        leaveOrg(p.organizationId);
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
        send(ws, { type: "error", code: "INVALID_FRAME", message: "frames must be JSON objects" });
        return;
      }
      const frame = clientFrameSchema.safeParse(parsed);
      if (!frame.success) {
        send(ws, { type: "error", code: "INVALID_FRAME", message: frame.error.issues[0]?.message ?? "invalid frame" });
        return;
      }
      const f = frame.data;
      if (f.type === "auth") {
        const token = f.token;
        const credentials = /^(service|device)_/.test(token) ? { apiKey: token } : { authorization: `Bearer ${token}` };
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
          send(ws, { type: "pong", ts: new Date().toISOString() });
          return;
        case "subscribe":
          client.topics = f.topics ? new Set(f.topics) : null;
          client.flowId = f.flow_id ?? null;
          send(ws, { type: "subscribed", topics: f.topics ?? "all", flow_id: client.flowId });
          return;
        case "unsubscribe":
          if (f.topics) {
            const current = client.topics ?? new Set<string>(eventTopics);
            for (const t of f.topics) current.delete(t);
            client.topics = current;
          } else if (f.flow_id) client.flowId = null;
          else client.topics = new Set();
          send(ws, { type: "subscribed", topics: client.topics ? [...client.topics] : "all", flow_id: client.flowId });
          return;
        case "presence":
          if (client.principal.kind === "api_key" && client.principal.keyKind === "device") {
            send(ws, { type: "error", code: "FORBIDDEN", message: "device keys have no presence" });
            return;
          }
          setPresence(client, f.flow_id).catch((err: unknown) => logger.warn({ err }, "presence failed"));
          return;
        case "device.publish":
          if (client.principal.kind === "api_key" && client.principal.keyKind === "device" && options.devices) {
            options.devices.publish(client.principal, f.topic, f.payload);
          } else send(ws, { type: "error", code: "FORBIDDEN", message: "only device keys publish device messages" });
          return;
      }
    });
  }

  return {
    handleUpgrade(req, socket, head) {
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
          onConnection(ws, result);
        });
      if (!explicit && !credentials.cookie) {
        accept(null);
        return;
      }
      authenticate(credentials).then(
        (principal) => {
          const bearer = credentials.authorization?.replace(/^Bearer\s+/i, "");
          accept({ principal, bearer: bearer && !/^(service|device)_/.test(bearer) ? bearer : undefined });
        },
        // A cookie that does not authenticate leaves the client the `auth` frame.
        (err: unknown) => accept(null, toAppError(err)),
      );
    },
    get clientCount() {
      return clients.size;
    },
    async close() {
      clearInterval(heartbeat);
      await presence.close();
      for (const client of clients) client.ws.close(WS_CLOSE.goingAway, "server shutting down");
      await Promise.all([...orgSubscriptions.values()].map((s) => s.unsubscribe.then((fn) => fn()).catch(() => undefined)));
      await revocations.then((fn) => fn()).catch(() => undefined);
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
