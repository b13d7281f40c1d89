import type { ClientFrame, OrgEvent, ServerFrame } from "@/shared/realtime";
import { WS_CLOSE } from "@/shared/realtime";

export type ConnectionState =
  /** Never connected yet, or reconnecting after a drop. */
  | { status: "connecting"; attempt: number }
  | { status: "online" }
  /** Waiting before the next try; `retryAt` is a Date.now() value. */
  | { status: "offline"; retryAt: number; attempt: number }
  /** The server refused the credentials (signed out, session revoked, removed from the organization). */
  | { status: "signed_out"; reason: string };

export interface Subscription {
  topics?: OrgEvent["topic"][];
  flowId?: string | null;
}

export interface LiveSocketOptions {
  url: string;
  /** Backoff: the first delay and the cap, in ms. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Half-open connections (a laptop that slept) are found by a ping that gets no pong in time. */
  pingEveryMs?: number;
  pongTimeoutMs?: number;
  /**
   * Without it the upgrade carries the page's session cookie. With it (pages on another origin,
   * scripts), each connection sends `{"type":"auth"}` with a fresh access token and sends a new
   * one `reauthBeforeMs` before the token expires, so the hub never closes the socket for expiry.
   */
  getToken?: () => Promise<{ token: string; expiresAt: number }>;
  reauthBeforeMs?: number;
  /**
   * Ask the hub for `debug.batch` frames (several debug events per frame) instead of one frame per
   * debug event: at thousands a second the browser's per-message cost is what saturates the page.
   * On by default; listeners then get `debug.batch` frames.
   */
  batchDebug?: boolean;
  /** For tests: the WebSocket constructor and the random source of the jitter. */
  WebSocketImpl?: typeof WebSocket;
  random?: () => number;
}

type FrameListener = (frame: ServerFrame) => void;
type StateListener = (state: ConnectionState) => void;

/** The delay before reconnect attempt `attempt` (1-based): exponential with full jitter, capped. */
export function backoffDelay(attempt: number, base: number, cap: number, random: () => number): number {
  const ceiling = Math.min(cap, base * 2 ** Math.max(0, attempt - 1));
  // Never zero: at least half the base, so a flapping server is not hammered.
  return Math.round(base / 2 + random() * Math.max(0, ceiling - base / 2));
}

/**
 * The browser's one connection to /ws. It authenticates with the page's session cookie on the
 * upgrade (the hub checks Origin), so there is no token in page memory and nothing that expires
 * under an open socket; a revoked session closes it with 4401, which ends the retries. Any other
 * close reconnects with exponential backoff and jitter; each `ready` re-sends the subscription and
 * the presence, so a server restart is invisible to the page apart from the offline banner.
 */
export class LiveSocket {
  private ws: WebSocket | null = null;
  private state: ConnectionState = { status: "connecting", attempt: 1 };
  private readonly frameListeners = new Set<FrameListener>();
  private readonly stateListeners = new Set<StateListener>();
  private subscription: Subscription = {};
  private presenceFlowId: string | null = null;
  private attempt = 0;
  /** Consecutive failed connections; sets the backoff. */
  private failures = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private pongTimer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private reauthTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly opts: Required<Omit<LiveSocketOptions, "WebSocketImpl" | "getToken">> & Pick<LiveSocketOptions, "getToken"> & { WebSocketImpl: typeof WebSocket };

  constructor(options: LiveSocketOptions) {
    this.opts = {
      baseDelayMs: 500,
      maxDelayMs: 15_000,
      pingEveryMs: 25_000,
      pongTimeoutMs: 10_000,
      reauthBeforeMs: 60_000,
      batchDebug: true,
      random: Math.random,
      WebSocketImpl: options.WebSocketImpl ?? WebSocket,
      ...options,
    } as LiveSocket["opts"];
  }

  start() {
    this.stopped = false;
    if (typeof window !== "undefined") {
      window.addEventListener("online", this.onBrowserOnline);
    }
    this.open();
  }

  stop() {
    this.stopped = true;
    if (typeof window !== "undefined") window.removeEventListener("online", this.onBrowserOnline);
    clearTimeout(this.retryTimer);
    clearTimeout(this.reauthTimer);
    this.clearHeartbeat();
    const ws = this.ws;
    this.ws = null;
    if (ws && ws.readyState <= 1) ws.close(WS_CLOSE.normal, "page closed");
  }

  getState(): ConnectionState {
    return this.state;
  }

  onFrame(listener: FrameListener): () => void {
    this.frameListeners.add(listener);
    return () => this.frameListeners.delete(listener);
  }

  onState(listener: StateListener): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  /** Which events this page wants; kept and re-sent after every reconnect. */
  subscribe(subscription: Subscription) {
    this.subscription = subscription;
    this.sendSubscription();
  }

  /** The flow this page has open (null: none); kept and re-sent after every reconnect. */
  setPresence(flowId: string | null) {
    this.presenceFlowId = flowId;
    if (this.state.status === "online") this.send({ type: "presence", flow_id: flowId });
  }

  /** Reconnect now instead of waiting for the backoff (the banner's "Retry now"). */
  retryNow() {
    if (this.state.status !== "offline") return;
    clearTimeout(this.retryTimer);
    this.open();
  }

  private readonly onBrowserOnline = () => this.retryNow();

  private send(frame: ClientFrame) {
    if (this.ws?.readyState === 1) this.ws.send(JSON.stringify(frame));
  }

  private sendSubscription() {
    if (this.state.status !== "online") return;
    const { topics, flowId } = this.subscription;
    this.send({ type: "subscribe", ...(topics ? { topics } : {}), ...(flowId ? { flow_id: flowId } : {}), ...(this.opts.batchDebug ? { batch: true } : {}) });
  }

  private setState(state: ConnectionState) {
    this.state = state;
    for (const l of this.stateListeners) l(state);
  }

  private open() {
    if (this.stopped) return;
    this.attempt++;
    this.setState({ status: "connecting", attempt: this.attempt });
    let ws: WebSocket;
    try {
      ws = new this.opts.WebSocketImpl(this.opts.url);
    } catch {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    if (this.opts.getToken) ws.onopen = () => void this.authenticate(ws);
    ws.onmessage = (e: MessageEvent) => {
      if (this.ws !== ws) return;
      let frame: ServerFrame;
      try {
        frame = JSON.parse(String(e.data)) as ServerFrame;
      } catch {
        return;
      }
      if (frame.type === "pong") {
        clearTimeout(this.pongTimer);
        return;
      }
      if (frame.type === "ready") {
        this.attempt = 0;
        this.failures = 0;
        this.setState({ status: "online" });
        this.sendSubscription();
        if (this.presenceFlowId) this.send({ type: "presence", flow_id: this.presenceFlowId });
        this.startHeartbeat(ws);
      }
      for (const l of this.frameListeners) l(frame);
    };
    ws.onclose = (e: CloseEvent) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.clearHeartbeat();
      clearTimeout(this.reauthTimer);
      if (this.stopped) return;
      if (e.code === WS_CLOSE.unauthenticated || e.code === WS_CLOSE.forbidden) {
        this.setState({ status: "signed_out", reason: e.reason || "not signed in" });
        return;
      }
      this.scheduleRetry();
    };
  }

  private scheduleRetry() {
    this.failures++;
    const delay = backoffDelay(this.failures, this.opts.baseDelayMs, this.opts.maxDelayMs, this.opts.random);
    this.setState({ status: "offline", retryAt: Date.now() + delay, attempt: this.attempt });
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.open(), delay);
  }

  private startHeartbeat(ws: WebSocket) {
    this.clearHeartbeat();
    this.pingTimer = setInterval(() => {
      this.send({ type: "ping" });
      clearTimeout(this.pongTimer);
      // No answer in time: the connection is dead without anyone having said so. The browser may
      // take long to notice, so this side gives up on it at once.
      this.pongTimer = setTimeout(() => this.abandon(ws), this.opts.pongTimeoutMs);
    }, this.opts.pingEveryMs);
  }

  private async authenticate(ws: WebSocket) {
    clearTimeout(this.reauthTimer);
    let credential: { token: string; expiresAt: number };
    try {
      credential = await this.opts.getToken!();
    } catch {
      // No token to be had (offline, or signed out): this connection cannot authenticate.
      if (this.ws === ws) this.abandon(ws);
      return;
    }
    if (this.ws !== ws || ws.readyState !== 1) return;
    ws.send(JSON.stringify({ type: "auth", token: credential.token } satisfies ClientFrame));
    const renewIn = Math.max(1000, credential.expiresAt - Date.now() - this.opts.reauthBeforeMs);
    this.reauthTimer = setTimeout(() => void this.authenticate(ws), renewIn);
  }

  private abandon(ws: WebSocket) {
    if (this.ws !== ws) return;
    this.ws = null;
    this.clearHeartbeat();
    clearTimeout(this.reauthTimer);
    ws.close();
    this.scheduleRetry();
  }

  private clearHeartbeat() {
    clearInterval(this.pingTimer);
    clearTimeout(this.pongTimer);
  }
}

/** The /ws address of the page's own origin. */
export function liveSocketUrl(location: { protocol: string; host: string }): string {
  return `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/ws`;
}
