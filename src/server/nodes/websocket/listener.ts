import { webhookError, type WebhookRegistry, type WebhookRequest, type WebhookResponse } from "../../runtime/webhooks";
import { SOCKET_ROUTE_METHOD, socketListenerPath, type SocketEvent, type SocketHooks } from "../../runtime/socket-hooks";
import { AppError, flowBusy } from "../../errors";
import { FLOW_BUSY_RETRY_AFTER_SEC } from "../../runtime/engine";
import { type Endpoint, type EndpointEvent, type EndpointPeer } from "./endpoint";

const OK: WebhookResponse = { status: 200, headers: {}, body: null };

/**
 * How often a listener checks that the edges holding its clients are alive (SocketHooks.edgesAlive).
 * A client counts until its edge is seen dead twice in a row: an edge killed without closing its
 * sockets (kill -9) is forgotten within about two sweeps after its cluster membership expires.
 */
export const EDGE_SWEEP_MS = 1_000;

interface Session {
  /** The instance holding the socket (absent from an edge of an older version: never forgotten but by its close). */
  edge?: string;
  /** The number of the last event taken (SocketEvent.seq; 0 when the edge sends none). */
  seq: number;
  /** Sweeps in a row that found its edge dead. */
  missing: number;
}

/**
 * A websocket-listener on the instance running its flows: Node-RED's WebSocketListenerNode in
 * server mode, without the sockets (they stay with the instance that accepted them: the edge,
 * `http/socket-hooks.ts`). Registered in the webhook registry under SOCKET_ROUTE_METHOD, it takes
 * the edges' events, keeps the set of sessions (the connection count of the nodes' status; a session
 * whose edge died is forgotten, EDGE_SWEEP_MS), gives
 * each frame to the websocket-in nodes, and publishes what websocket-out nodes send to the route's
 * channel, where the edges holding its sockets listen.
 *
 * One per instance, organization, listener id and deployed revision (ConnectionPool), shared by the
 * flows here using it; the route is bound to the first of them (a pending answer is never made).
 */
export class ListenerConnection implements Endpoint {
  private readonly peers = new Set<EndpointPeer>();
  private readonly sessions = new Map<string, Session>();
  private unregister: (() => void) | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping = false;
  readonly path: string;

  constructor(
    private readonly options: {
      slug: string;
      organizationId: string;
      flowId: string;
      listenerId: string;
      path: string;
      wholemsg: boolean;
      registry: WebhookRegistry;
      hooks: SocketHooks;
    },
  ) {
    this.path = socketListenerPath(options.path);
  }

  /** Takes the route; throws (Node-RED's `duplicate-path`) when another listener of the organization serves the path. */
  open(): this {
    const { registry, slug, organizationId, flowId, listenerId } = this.options;
    if (registry.lookup(slug, SOCKET_ROUTE_METHOD, this.path)) {
      throw new Error(`another WebSocket listener already serves ${this.path}`);
    }
    this.unregister = registry.register(slug, SOCKET_ROUTE_METHOD, this.path, {
      flowId,
      organizationId,
      nodeId: listenerId,
      onRequest: (req, respond) => respond(this.onEvent(req)),
    });
    if (this.options.hooks.edgesAlive) {
      this.sweepTimer = setInterval(() => void this.sweepEdges(), EDGE_SWEEP_MS);
      this.sweepTimer.unref();
    }
    return this;
  }

  close(): void {
    this.unregister?.();
    this.unregister = undefined;
    clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    // Node-RED's server closes its clients when the listener closes (a redeploy, a stop); they reconnect.
    this.options.hooks.publish(this.options.slug, this.path, { kind: "close" });
    this.sessions.clear();
    this.peers.clear();
  }

  attach(peer: EndpointPeer): () => void {
    this.peers.add(peer);
    return () => this.peers.delete(peer);
  }

  send(data: string | Buffer, session: string | undefined): void {
    const binary = Buffer.isBuffer(data);
    this.options.hooks.publish(this.options.slug, this.path, {
      kind: "send",
      ...(session === undefined ? {} : { session }),
      data: binary ? data.toString("base64") : data,
      binary,
    });
  }

  private emit(event: EndpointEvent) {
    for (const peer of this.peers) peer.event(event);
  }

  private onEvent(req: WebhookRequest): WebhookResponse {
    const event = req.body as SocketEvent | null;
    if (!event || typeof event !== "object" || typeof event.session !== "string") {
      return webhookError(new AppError("VALIDATION_FAILED", "not a socket event"));
    }
    switch (event.event) {
      case "open":
        this.opened(event.session, event.edge, event.seq);
        return OK;
      case "close":
        if (this.sessions.delete(event.session)) this.emit({ kind: "closed", count: this.sessions.size, id: event.session });
        return OK;
      case "message": {
        // Sent again because another instance running a flow on this listener was busy: taken already.
        const known = this.sessions.get(event.session);
        if (known && typeof event.seq === "number" && event.seq <= known.seq) return OK;
        const receivers = [...this.peers].filter((p) => p.receive);
        // Backpressure: the edge pauses the socket and sends the frame again after Retry-After.
        const busy = receivers.find((p) => p.busy());
        if (busy) return webhookError(flowBusy(FLOW_BUSY_RETRY_AFTER_SEC, busy.waiting()));
        // A socket that connected before this listener started (a redeploy elsewhere, a failover) is counted at its first frame.
        this.opened(event.session, event.edge, event.seq);
        const data = event.binary ? Buffer.from(event.data, "base64") : event.data;
        for (const peer of receivers) peer.receive!({ data, session: event.session, wholemsg: this.options.wholemsg });
        return OK;
      }
      default:
        return webhookError(new AppError("VALIDATION_FAILED", "not a socket event"));
    }
  }

  private opened(session: string, edge: string | undefined, seq: number | undefined) {
    const known = this.sessions.get(session);
    if (known) {
      if (typeof seq === "number" && seq > known.seq) known.seq = seq;
      return;
    }
    this.sessions.set(session, { ...(edge === undefined ? {} : { edge }), seq: typeof seq === "number" ? seq : 0, missing: 0 });
    this.emit({ kind: "opened", count: this.sessions.size, id: session });
  }

  /** Forgets the clients of edges found dead twice in a row (their sockets are gone with them, unclosed). */
  private async sweepEdges() {
    const edgesAlive = this.options.hooks.edgesAlive;
    if (!edgesAlive || this.sweeping) return;
    const edges = new Set<string>();
    for (const s of this.sessions.values()) if (s.edge !== undefined) edges.add(s.edge);
    if (edges.size === 0) return;
    this.sweeping = true;
    let alive: Set<string>;
    try {
      alive = await edgesAlive([...edges]);
    } catch {
      // The store cannot say (an outage): nobody is forgotten on a guess.
      return;
    } finally {
      this.sweeping = false;
    }
    for (const [id, s] of this.sessions) {
      if (s.edge === undefined || alive.has(s.edge)) {
        s.missing = 0;
        continue;
      }
      if (++s.missing < 2) continue;
      this.sessions.delete(id);
      this.emit({ kind: "closed", count: this.sessions.size, id });
    }
  }
}
