import type http from "node:http";
import type { Duplex } from "node:stream";
import { randomBytes } from "node:crypto";
import { STATUS_CODES } from "node:http";
import { WebSocketServer, type WebSocket } from "ws";
import type { AppServices } from "../app-services";
import { AppError, errorBody, toAppError } from "../errors";
import { consumeWebhookLimits } from "../auth/limits";
import { resolveClientIp } from "./client-ip";
import type { UpgradeRoute } from "./upgrades";
import { SOCKET_ROUTE_METHOD, socketListenerPath, socketRouteChannel, type SocketEvent, type SocketOut } from "../runtime/socket-hooks";

/** The URL space of websocket-listener nodes (SPEC §23): `/ws/hooks/{org-slug}/{path}`. */
export const SOCKET_HOOKS_PREFIX = "/ws/hooks/";

export interface SocketHookLimits {
  /** The largest frame a client may send (ws closes the socket with 1009 past it). */
  maxFrameBytes: number;
  /** Sockets per organization on this instance. */
  maxSocketsPerOrganization: number;
  /** Sockets one client address may hold of one organization's on this instance (so one client cannot take all of them). */
  maxSocketsPerIp?: number;
  /** Bytes waiting to be sent to one client before it is closed (1013). */
  sendQueueBytes: number;
}

/** Frames, or bytes, waiting to reach the flow from one socket before reading from it pauses. */
const RECEIVE_QUEUE_FRAMES = 64;
/** An event the flow's instance could not take (an outage, no answer) is tried this often, a second apart, before the socket is closed. */
const UNAVAILABLE_ATTEMPTS = 5;
/**
 * An event no running flow took is tried again this long before the socket is closed: the flow
 * may be moving to another instance (a hand-over takes a fraction of a second, a failover after a
 * crash up to the lease's TTL and a start, SPEC §11). A flow that stops closes its sockets itself
 * ("the listener stopped"), so this only matters in that window.
 */
const NOT_SERVED_GRACE_MS = 6_000;
const NOT_SERVED_RETRY_MS = 250;

interface SocketState {
  ws: WebSocket;
  session: string;
  /** The number of the socket's last event (SocketEvent.seq). */
  seq: number;
  queue: SocketEvent[];
  queuedBytes: number;
  running: boolean;
  paused: boolean;
  ended: boolean;
}

interface RouteState {
  slug: string;
  path: string;
  sockets: Map<string, SocketState>;
  subscribed: Promise<(() => Promise<void>) | undefined>;
}

/**
 * The edge of websocket listeners (`runtime/socket-hooks.ts` has the protocol): accepts sockets on
 * `/ws/hooks/{slug}/{path}` for paths a running flow serves (anywhere in the cluster), keeps them,
 * and hands each socket's events, in order, one at a time, to the flow runtime as requests on the
 * listener's route: the instance running the flow gets each once, as a webhook request. What the
 * listener sends comes back on the route's pub/sub channel, to which this instance subscribes while
 * it holds sockets of the route.
 */
export function createSocketHooks(app: AppServices, options: SocketHookLimits & { trustProxyHops: number }) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxFrameBytes, perMessageDeflate: false });
  const routes = new Map<string, RouteState>();
  const perOrganization = new Map<string, number>();
  /** `${slug} ${ip}` → its open sockets. */
  const perClient = new Map<string, number>();
  const maxPerIp = options.maxSocketsPerIp ?? 100;
  const edge = app.flowRuntime.instanceId;
  let closing = false;

  function refuse(socket: Duplex, err: AppError) {
    const body = JSON.stringify(errorBody(err));
    const extra = Object.entries(err.headers ?? {})
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("");
    socket.end(`HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? ""}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`);
  }

  async function admit(req: http.IncomingMessage, socket: Duplex, head: Buffer) {
    const pathname = new URL(req.url ?? "/", "http://localhost").pathname;
    let parts: string[];
    try {
      parts = pathname.slice(SOCKET_HOOKS_PREFIX.length).split("/").map(decodeURIComponent);
    } catch {
      return refuse(socket, new AppError("VALIDATION_FAILED", "the path is not valid percent-encoding"));
    }
    const [slug = "", ...segments] = parts;
    const path = socketListenerPath(`/${segments.map(encodeURIComponent).join("/")}`);
    const ip = resolveClientIp(req, options.trustProxyHops);
    try {
      // The limits first: probing for listeners that do not exist counts as requests too.
      const refused = await consumeWebhookLimits(app, ip, slug);
      if (refused) return refuse(socket, new AppError("RATE_LIMITED", "too many webhook requests, try again later", { headers: { "Retry-After": String(refused.retryAfterSec) } }));
      if (closing || !slug || !(await app.flowRuntime.hasWebhook(slug, SOCKET_ROUTE_METHOD, path, { fresh: true }))) {
        return refuse(socket, new AppError("NOT_FOUND", `no running flow serves a WebSocket listener at /ws/hooks/${slug}${path}`));
      }
    } catch (err) {
      return refuse(socket, toAppError(err));
    }
    if ((perOrganization.get(slug) ?? 0) >= options.maxSocketsPerOrganization) {
      return refuse(socket, new AppError("RATE_LIMITED", "too many WebSocket connections for this organization", { headers: { "Retry-After": "10" } }));
    }
    if ((perClient.get(`${slug} ${ip}`) ?? 0) >= maxPerIp) {
      return refuse(socket, new AppError("RATE_LIMITED", "too many WebSocket connections from this address", { headers: { "Retry-After": "10" } }));
    }
    if (socket.destroyed) return;
    wss.handleUpgrade(req, socket, head, (ws) => accept(ws, slug, path, ip));
  }

  const count = (map: Map<string, number>, key: string, by: 1 | -1) => {
    const next = (map.get(key) ?? 0) + by;
    if (next > 0) map.set(key, next);
    else map.delete(key);
  };

  function routeOf(slug: string, path: string): RouteState {
    const channel = socketRouteChannel(slug, path);
    let route = routes.get(channel);
    if (!route) {
      const created: RouteState = {
        slug,
        path,
        sockets: new Map(),
        subscribed: app.store.subscribe(channel, (text) => deliver(created, text)).catch((err: unknown) => {
          app.logger.warn({ err, channel }, "a WebSocket listener's channel could not be subscribed; its clients are closed");
          for (const state of created.sockets.values()) state.ws.close(1011, "unavailable");
          return undefined;
        }),
      };
      route = created;
      routes.set(channel, route);
    }
    return route;
  }

  function accept(ws: WebSocket, slug: string, path: string, ip: string) {
    const session = randomBytes(8).toString("hex");
    const route = routeOf(slug, path);
    const state: SocketState = { ws, session, seq: 0, queue: [], queuedBytes: 0, running: false, paused: false, ended: false };
    route.sockets.set(session, state);
    count(perOrganization, slug, 1);
    count(perClient, `${slug} ${ip}`, 1);
    enqueue(route, state, { event: "open", session });
    ws.on("message", (data, isBinary) => {
      const frame = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
      enqueue(route, state, { event: "message", session, data: isBinary ? frame.toString("base64") : frame.toString("utf8"), binary: isBinary });
    });
    ws.on("error", () => undefined);
    ws.on("close", () => {
      if (state.ended) return;
      state.ended = true;
      count(perOrganization, slug, -1);
      count(perClient, `${slug} ${ip}`, -1);
      route.sockets.delete(session);
      // The listener hears of the close after the frames before it.
      enqueue(route, state, { event: "close", session }, { evenIfEnded: true });
      if (route.sockets.size === 0) void dropRoute(route);
    });
  }

  async function dropRoute(route: RouteState) {
    const channel = socketRouteChannel(route.slug, route.path);
    if (routes.get(channel) !== route || route.sockets.size > 0) return;
    routes.delete(channel);
    const unsubscribe = await route.subscribed;
    await unsubscribe?.().catch(() => undefined);
  }

  function enqueue(route: RouteState, state: SocketState, event: SocketEvent, { evenIfEnded = false } = {}) {
    if (state.ended && !evenIfEnded) return;
    // Which instance holds the socket, and the event's number: sent again, it is taken once.
    state.queue.push({ ...event, edge, seq: ++state.seq });
    state.queuedBytes += event.event === "message" ? event.data.length : 0;
    // The flow takes frames more slowly than they come: stop reading (TCP pushes back on the client).
    if (!state.paused && !state.ended && (state.queue.length > RECEIVE_QUEUE_FRAMES || state.queuedBytes > options.maxFrameBytes * 2)) {
      state.paused = true;
      state.ws.pause();
    }
    if (!state.running) void drain(route, state);
  }

  async function drain(route: RouteState, state: SocketState) {
    state.running = true;
    await route.subscribed;
    let unavailable = 0;
    let notServedSince: number | undefined;
    while (state.queue.length > 0) {
      const event = state.queue[0]!;
      let status: number;
      let retryAfterSec = 1;
      try {
        const res = await app.flowRuntime.handleWebhook(route.slug, { method: SOCKET_ROUTE_METHOD, path: route.path, query: {}, headers: {}, body: event });
        status = res?.status ?? 404;
        const retryAfter = Number(res?.headers["retry-after"] ?? res?.headers["Retry-After"]);
        if (Number.isFinite(retryAfter) && retryAfter > 0) retryAfterSec = retryAfter;
      } catch (err) {
        status = toAppError(err).status;
      }
      if (status === 429 || status === 503 || status === 504) {
        // Busy (429) waits as long as it takes; an unreachable instance a few times, then the client is told.
        if (status !== 429 && ++unavailable >= UNAVAILABLE_ATTEMPTS) {
          finish(state, 1011, "the flow is not reachable");
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, retryAfterSec * 1000));
        if (closing) break;
        continue;
      }
      unavailable = 0;
      // (Once the client is gone, what it sent is dropped and its close goes on.)
      if (status === 404 && event.event !== "close" && !state.ended) {
        notServedSince ??= performance.now();
        if (performance.now() - notServedSince < NOT_SERVED_GRACE_MS) {
          await new Promise((resolve) => setTimeout(resolve, NOT_SERVED_RETRY_MS));
          if (closing) break;
          continue;
        }
        // No running flow serves the path any more.
        finish(state, 1001, "no running flow serves this path");
        return;
      }
      notServedSince = undefined;
      state.queue.shift();
      if (event.event === "message") state.queuedBytes -= event.data.length;
      if (state.paused && state.queue.length <= RECEIVE_QUEUE_FRAMES / 2 && state.queuedBytes <= options.maxFrameBytes) {
        state.paused = false;
        state.ws.resume();
      }
    }
    state.running = false;
  }

  /** Closes a socket whose events can no longer reach the flow; what it still had queued is dropped. */
  function finish(state: SocketState, code: number, reason: string) {
    state.queue = [];
    state.queuedBytes = 0;
    state.running = false;
    state.ws.close(code, reason);
  }

  function deliver(route: RouteState, text: string) {
    let out: SocketOut;
    try {
      out = JSON.parse(text) as SocketOut;
    } catch {
      return;
    }
    if (out.kind === "close") {
      for (const state of route.sockets.values()) state.ws.close(1001, "the listener stopped");
      return;
    }
    if (out.kind !== "send") return;
    const data = out.binary ? Buffer.from(out.data, "base64") : out.data;
    const targets = out.session === undefined ? [...route.sockets.values()] : [route.sockets.get(out.session)].filter((s): s is SocketState => s !== undefined);
    for (const state of targets) {
      if (state.ws.readyState !== state.ws.OPEN) continue;
      // A client that does not read what is sent to it is not kept waiting for in memory.
      if (state.ws.bufferedAmount + data.length > options.sendQueueBytes) {
        state.ws.close(1013, "send queue full");
        continue;
      }
      state.ws.send(data, { binary: out.binary });
    }
  }

  const route: UpgradeRoute = {
    name: "socket-hooks",
    matches: (pathname) => pathname.startsWith(SOCKET_HOOKS_PREFIX),
    handle: (req, socket, head) => {
      socket.on("error", () => undefined);
      void admit(req, socket, head).catch((err: unknown) => {
        app.logger.error({ err }, "a WebSocket listener upgrade failed");
        socket.destroy();
      });
    },
  };

  return {
    route,
    /** Sockets open on this instance (tests, metrics). */
    size: () => [...routes.values()].reduce((n, r) => n + r.sockets.size, 0),
    async close() {
      closing = true;
      for (const r of routes.values()) for (const state of r.sockets.values()) state.ws.close(1001, "the server is shutting down");
      const all = [...routes.values()];
      routes.clear();
      await Promise.all(all.map(async (r) => (await r.subscribed)?.().catch(() => undefined)));
      wss.close();
    },
  };
}

export type SocketHookServer = ReturnType<typeof createSocketHooks>;
