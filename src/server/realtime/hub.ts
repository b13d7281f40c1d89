import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import type { AppServices } from "../app-services";
import type { Principal } from "../auth/principal";
import type { AccessChangedMessage } from "../auth/access-cache";
import { SESSION_REVOKED_CHANNEL } from "../auth/session-store";
import { ACCESS_CHANGED_CHANNEL, API_KEY_REVOKED_CHANNEL } from "../auth/revocation-channels";
import { tokenPolicy } from "../../shared/policy";
import { AppError, socketCloseCode, toAppError, UNAVAILABLE_RETRY_AFTER_SEC } from "../errors";
import { verifyAccessToken } from "../auth/jwt";
import { appJwtKeys } from "../auth/principal";
import { WS_CLOSE, WS_LIMITS, type OrgEvent } from "../../shared/realtime";
import { PresenceTracker } from "./presence";
import { ClientOutbox } from "./outbox";
import { authenticateSocket, isApiKey, PendingPerIp, refuseUpgrade, type SocketCredentials } from "./admission";
import { isDeviceKey, type Client } from "./client";
import { handleClientFrame, type ClientFrameDeps } from "./client-frames";
import { startHeartbeat, trackPongs } from "./heartbeat";
import { OrgChannels } from "./org-channels";
import { eventLines } from "./org-events";
import { durableSubscription, type DurableSubscription } from "../store/durable-subscription";
import type { DeviceChannel } from "./devices";
import { authLimiters } from "../auth/limits";
import { CLIENT_IP_HEADER } from "../http/client-ip";

export { WS_CLOSE };

/** Sockets checked at once after an access change. */
const RECHECK_CONCURRENCY = 50;
/** When a check could not be made (the store or database is down), it is tried again after this. */
const RECHECK_RETRY_MS = 5_000;
/** A timed check runs this long after the access should have run out (the store's TTL has passed by then). */
const RECHECK_SLACK_MS = 1_000;
/** The longest a socket's `ready` waits for its organization's subscriptions (see ready()). */
const ORG_JOIN_WAIT_MS = 2_000;

export interface RealtimeHub {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  readonly clientCount: number;
  close(): Promise<void>;
}

/**
 * The WebSocket endpoint at /ws. Authentication on the upgrade (Authorization, X-API-Key, or the
 * UI's session cookie from our own origin) or by an `auth` frame within 10 s; failures close with
 * 4401 before any event. Events come from the organization's channel in the store's pub/sub, so
 * with Redis every instance's clients see every event. A slow client only loses its own debug
 * events (counted and reported), never slows the runtime or other clients.
 */
export interface RealtimeHubOptions {
  app: AppServices;
  /** How people see a user in presence lists (the services' actorName: their name, else their email). */
  displayName: (userId: string) => Promise<string>;
  devices?: DeviceChannel;
  authTimeoutMs?: number;
}

export function createRealtimeHub(options: RealtimeHubOptions): RealtimeHub {
  const { app } = options;
  const { logger } = app;
  const wss = new WebSocketServer({ noServer: true, maxPayload: WS_LIMITS.maxPayloadBytes });
  const clients = new Set<Client>();
  // GET /metrics reads the count on each scrape: sockets open, whether authenticated yet or not.
  app.metrics.webSocketClients = () => clients.size;
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
    client.displayName ??= await options.displayName(userId);
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

  const stopHeartbeat = startHeartbeat(clients);

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

  function deliver(organizationId: string, message: string) {
    for (const raw of eventLines(message)) {
      let event: OrgEvent;
      try {
        event = JSON.parse(raw) as OrgEvent;
      } catch {
        continue;
      }
      for (const client of clients) {
        const p = client.principal;
        if (!p || p.organizationId !== organizationId || isDeviceKey(p)) continue;
        if (client.topics && !client.topics.has(event.topic)) continue;
        // A flow filter passes that flow's events and the organization's that belong to no flow
        // (its configuration nodes): an editor shows both.
        if (client.flowId && event.flow_id !== null && event.flow_id !== client.flowId) continue;
        client.out.event(raw, event.topic);
      }
    }
  }

  const orgChannels = new OrgChannels(subscribe, { event: deliver, lifecycle: onLifecycle });
  /**
   * Bumped by every access change this instance hears of. An authentication that started before a
   * change may have read the old access: its socket is checked again as soon as it is ready.
   */
  let accessEpoch = 0;
  const authenticatedAt = new WeakMap<Principal, number>();
  const authenticate = (credentials: SocketCredentials) => {
    const epoch = accessEpoch;
    return authenticateSocket(app, credentials).then((principal) => {
      authenticatedAt.set(principal, epoch);
      return principal;
    });
  };
  /** The same identity: re-authentication may renew a credential, never swap who the socket is. */
  const sameIdentity = (a: Principal, b: Principal) =>
    a.organizationId === b.organizationId && a.userId === b.userId && a.kind === b.kind && (a.kind !== "api_key" || (b.kind === "api_key" && a.keyId === b.keyId));

  async function ready(client: Client, principal: Principal, bearer: string | undefined, credentials: SocketCredentials) {
    // Closed while it authenticated: nothing may be joined or attached for it (they would never be left).
    if (!clients.has(client) || client.ws.readyState !== client.ws.OPEN) return;
    const first = !client.principal;
    if (client.principal && !sameIdentity(client.principal, principal)) {
      // Another key or user would escape the revocation of the first (and a device socket stays
      // attached to its first key): a socket is one identity for its whole life.
      client.ws.close(WS_CLOSE.forbidden, "re-authentication must keep the same organization, user and key");
      return;
    }
    client.principal = principal;
    client.credentials = credentials;
    scheduleRecheck(client, principal);
    settlePending(client);
    clearTimeout(client.expiryTimer);
    // An access token's expiry ends the socket unless the client re-authenticates with a fresh one.
    if (bearer && principal.kind === "session") {
      const claims = await verifyAccessToken(appJwtKeys(app), bearer).catch(() => null);
      if (!clients.has(client)) return;
      if (claims) {
        const ms = claims.exp * 1000 - Date.now();
        client.expiryTimer = setTimeout(() => client.ws.close(WS_CLOSE.unauthenticated, "access token expired"), Math.max(0, ms));
        client.expiryTimer.unref();
      }
    }
    if (first) {
      // Every client joins its organization (device keys for its lifecycle only: deliver() skips them).
      if (isDeviceKey(principal)) options.devices?.attach(client.ws, principal);
      // `ready` means the organization's events reach this socket: a client that reads state when
      // it comes and then follows events misses nothing between the two. On Redis the first
      // connection of an organization here waits for SUBSCRIBE's answer (bounded: a store that does
      // not answer delays no one for long; its events could not arrive anyway).
      await Promise.race([orgChannels.join(principal.organizationId), new Promise<void>((resolve) => setTimeout(resolve, ORG_JOIN_WAIT_MS).unref())]);
      if (!clients.has(client) || client.ws.readyState !== client.ws.OPEN) return;
    }
    client.out.send({
      type: "ready",
      user_id: principal.userId,
      organization_id: principal.organizationId,
      ...(isDeviceKey(principal) ? { device_key_id: principal.keyId } : {}),
    });
    // Access changed while this authentication ran: what it read may be stale.
    if ((authenticatedAt.get(principal) ?? accessEpoch) !== accessEpoch) void recheck(client);
  }

  // ---------------------------------------------------------------------------------------------
  // Access that changes or runs out reaches open sockets (issue 28): one mechanism for every cause.
  // A socket's credentials are checked again, as a request's would be (without renewing the
  // session), whenever any instance changes access (ACCESS_CHANGED_CHANNEL: role change, member
  // removal, account or organization deletion, key revocation), and at the moment its access runs
  // out by itself (a key's expires_at, a session's idle or absolute limit). A socket whose check
  // fails closes with 4401 (4403 when it is known but no longer allowed); one that passes takes the
  // new principal, so its permissions follow a changed role.

  /**
   * Coalesced: a burst of changes makes one pass over the sockets they concern, then one more for
   * those that came during it. A change names its organization or user; only their sockets are
   * checked (a change that names neither checks every socket).
   */
  let rechecking: Promise<void> | null = null;
  let pendingScopes: AccessChangedMessage[] | "all" = [];
  function recheckAll(scope: AccessChangedMessage | null) {
    accessEpoch++;
    if (!scope || (!scope.organization_id && !scope.user_id)) pendingScopes = "all";
    else if (pendingScopes !== "all") pendingScopes.push(scope);
    if (rechecking) return;
    rechecking = (async () => {
      while (pendingScopes === "all" || pendingScopes.length > 0) {
        const scopes = pendingScopes;
        pendingScopes = [];
        const concerned = (p: Principal) =>
          scopes === "all" || scopes.some((s) => (s.organization_id !== null && p.organizationId === s.organization_id) || (s.user_id !== null && p.userId === s.user_id));
        const open = [...clients].filter((c) => c.principal && c.credentials && concerned(c.principal));
        // Bounded concurrency: the checks share the store and the database with requests.
        for (let i = 0; i < open.length; i += RECHECK_CONCURRENCY) await Promise.all(open.slice(i, i + RECHECK_CONCURRENCY).map(recheck));
      }
    })().finally(() => {
      rechecking = null;
    });
  }

  async function recheck(client: Client) {
    const credentials = client.credentials;
    if (!clients.has(client) || !credentials) return;
    clearTimeout(client.recheckTimer);
    let principal: Principal;
    try {
      principal = await authenticateSocket(app, credentials, { recheck: true });
    } catch (err) {
      const e = toAppError(err);
      if (e.status === 401 || e.status === 403) {
        client.ws.close(e.status === 403 ? WS_CLOSE.forbidden : WS_CLOSE.unauthenticated, e.code);
        return;
      }
      // The store or the database cannot say (an outage): keep the socket and ask again shortly,
      // spread out so that the sockets of an instance do not all ask at once when it comes back.
      if (clients.has(client)) client.recheckTimer = setTimeout(() => void recheck(client), RECHECK_RETRY_MS * (1 + Math.random())).unref();
      return;
    }
    // Re-authenticated meanwhile with other credentials: that check stands.
    if (!clients.has(client) || client.credentials !== credentials) return;
    if (principal.organizationId !== client.principal?.organizationId) {
      client.ws.close(WS_CLOSE.forbidden, "the credentials no longer belong to this organization");
      return;
    }
    client.principal = principal;
    scheduleRecheck(client, principal);
  }

  /** A timer for the moment the principal's access runs out by itself, if it does. */
  function scheduleRecheck(client: Client, principal: Principal) {
    clearTimeout(client.recheckTimer);
    client.recheckTimer = undefined;
    const now = Date.now();
    let until: number | null = null;
    if (principal.kind === "api_key") until = principal.expiresAt;
    else if (client.credentials?.cookie && !client.credentials.authorization) {
      // A cookie socket: the session's idle limit (from its last request) or its absolute limit.
      const idle = Date.parse(principal.session.last_accessed_at) + tokenPolicy.sessionIdleTtlSec * 1000;
      until = Math.min(idle, Date.parse(principal.session.absolute_expires_at));
    }
    if (until === null || !Number.isFinite(until)) return;
    // At least a second later (a session renewed meanwhile is found alive and rescheduled), and at
    // most a day (timers cannot wait longer than 24.8 days; the check simply runs again).
    const ms = Math.min(Math.max(until - now, 0) + RECHECK_SLACK_MS, 24 * 3600_000);
    client.recheckTimer = setTimeout(() => void recheck(client), ms).unref();
  }

  const accessChanges = subscribe(ACCESS_CHANGED_CHANNEL, (message) => {
    let scope: AccessChangedMessage | null = null;
    try {
      scope = JSON.parse(message) as AccessChangedMessage;
    } catch {
      // Unreadable: check everyone.
    }
    recheckAll(scope);
  });

  const frameDeps: ClientFrameDeps = { authenticate, ready, setPresence, devices: options.devices, logger };

  function onConnection(ws: WebSocket, fromHeaders: { principal: Principal; bearer?: string; credentials: SocketCredentials } | null, ip: string) {
    const client: Client = { ws, alive: true, topics: null, flowId: null, out: new ClientOutbox(ws), presenceFlowId: null };
    if (!fromHeaders) {
      client.pendingIp = ip;
      pendingPerIp.add(ip);
    }
    clients.add(client);
    trackPongs(client);
    ws.on("close", () => {
      clients.delete(client);
      client.out.dispose();
      settlePending(client);
      clearTimeout(client.expiryTimer);
      clearTimeout(client.recheckTimer);
      clearTimeout(client.authTimer);
      const p = client.principal;
      if (p) {
        if (client.presenceFlowId) presence.set(p.organizationId, client, null);
        orgChannels.leave(p.organizationId);
      }
    });
    ws.on("error", (err) => logger.debug({ err }, "websocket error"));

    if (fromHeaders) {
      ready(client, fromHeaders.principal, fromHeaders.bearer, fromHeaders.credentials).catch((err: unknown) => {
        logger.warn({ err }, "websocket ready failed");
        ws.close(socketCloseCode(toAppError(err)), "ready failed");
      });
    }
    else client.authTimer = setTimeout(() => ws.close(WS_CLOSE.unauthenticated, "authentication timeout"), options.authTimeoutMs ?? WS_LIMITS.authTimeoutMs);

    ws.on("message", (data, isBinary) => handleClientFrame(client, isBinary ? "" : data.toString(), frameDeps));
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
          () => refuseUpgrade(socket, 503, UNAVAILABLE_RETRY_AFTER_SEC),
        );
    },
    get clientCount() {
      return clients.size;
    },
    async close() {
      stopHeartbeat();
      await presence.close();
      for (const client of clients) {
        client.out.flush();
        client.ws.close(WS_CLOSE.goingAway, "server shutting down");
      }
      await orgChannels.close();
      await keyRevocations.stop();
      await accessChanges.stop();
      await rechecking;
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
    const accept = (result: { principal: Principal; bearer?: string; credentials: SocketCredentials } | null, error?: AppError) =>
      wss.handleUpgrade(req, socket, head, (ws) => {
        // Credentials that could not be checked now (a store down) close the socket whatever
        // brought them: a browser on its cookie would otherwise wait for an `auth` frame it never
        // sends, then be told 4401 and give up.
        const code = error ? socketCloseCode(error) : undefined;
        if (error && (explicit || code === WS_CLOSE.tryAgainLater)) {
          ws.close(code, error.code);
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
        accept({ principal, bearer: bearer && !isApiKey(bearer) ? bearer : undefined, credentials });
      },
      // A cookie that does not authenticate leaves the client the `auth` frame.
      (err: unknown) => {
        if (!explicit && refuseIfCrowded()) return;
        accept(null, toAppError(err));
      },
    );
  }
}
