import { DASHBOARD_CLOSE, DASHBOARD_LIMITS, DASHBOARD_SOCKET_PATH, type DashboardClientFrame, type DashboardServerFrame } from "@/shared/dashboard";
import { WS_CLOSE } from "@/shared/realtime";
import { backoffDelay } from "@/features/live/live-socket";

export type DashboardConnection =
  /** `switching`: a new page's connection, after the last page's was live (not a reconnect). */
  | { status: "connecting"; attempt: number; switching?: boolean }
  | { status: "online" }
  | { status: "offline"; retryAt: number; attempt: number }
  /** The server refused the viewer (signed out, removed from the organization, share link revoked): no retries. */
  | { status: "closed"; reason: string };

export interface DashboardSocketOptions {
  org: string;
  /** The page path ("/home"). */
  path: string;
  share?: string | null;
  baseDelayMs?: number;
  maxDelayMs?: number;
  pingEveryMs?: number;
  WebSocketImpl?: typeof WebSocket;
  random?: () => number;
}

/** The socket URL of a page (src/shared/dashboard.ts, step 2). */
export function dashboardSocketUrl(location: { protocol: string; host: string }, org: string, path: string, share?: string | null, tab?: string): string {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const q = new URLSearchParams({ path });
  if (share) q.set("share", share);
  if (tab) q.set("tab", tab);
  return `${scheme}//${location.host}${DASHBOARD_SOCKET_PATH}/${encodeURIComponent(org)}?${q.toString()}`;
}

/**
 * Close codes after which a retry cannot succeed: no credentials (4401), not a member or no such
 * page (4404), the share link was revoked (4410). Anything else (a restart, 1013 busy, 4408 too
 * slow) reconnects.
 */
const FINAL_CLOSES = new Map<number, string>([
  [DASHBOARD_CLOSE.unauthenticated, "You are signed out. Sign in again to see this dashboard."],
  [WS_CLOSE.forbidden, "This dashboard is not available to you."],
  [DASHBOARD_CLOSE.notFound, "This dashboard page no longer exists or is not available to you."],
  [DASHBOARD_CLOSE.shareRevoked, "This share link was revoked."],
]);

/** Inputs and group folds kept while the socket is not online yet (or again); the oldest go first beyond this. */
export const DASHBOARD_PENDING_INPUTS = 64;

export type DashboardSendResult = "sent" | "queued" | "dropped";

/**
 * A dashboard page's one connection (SPEC §21): reconnects with exponential backoff and jitter
 * (the same curve as the editor's socket), and on every (re)connect the server sends
 * `dashboard.page` again, so a restart or failover shows the durable state without a reload.
 *
 * Frames leave only once the page has arrived on this connection: the server reads frames from
 * then on. The page is server-rendered, so widgets run before that (a ui-template's script that
 * calls `send()` on load); their inputs wait in a bounded queue and leave in order when the page
 * arrives, as Dashboard 2.0's socket.io client buffers emits until it is connected. A page change
 * empties the queue (the inputs belong to the other page's widgets), and so does a refusal.
 */
export class DashboardSocket {
  private ws: WebSocket | null = null;
  private state: DashboardConnection = { status: "connecting", attempt: 1 };
  private readonly frameListeners = new Set<(frame: DashboardServerFrame) => void>();
  private readonly stateListeners = new Set<(state: DashboardConnection) => void>();
  private failures = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private stopped = false;
  private pending: DashboardClientFrame[] = [];
  private uploads: Promise<unknown> = Promise.resolve();
  private path: string;
  /**
   * This tab's id, the same for every page it opens: messages meant for this viewer only
   * (`msg._client`) follow it to the next page, as on Dashboard 2.0's one socket per tab.
   */
  private readonly tab = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join("");
  private switching = false;
  private readonly opts: Required<Omit<DashboardSocketOptions, "share">> & { share: string | null };

  constructor(options: DashboardSocketOptions) {
    this.opts = {
      baseDelayMs: 500,
      maxDelayMs: 10_000,
      pingEveryMs: 25_000,
      random: Math.random,
      WebSocketImpl: options.WebSocketImpl ?? WebSocket,
      ...options,
      share: options.share ?? null,
    };
    this.path = options.path;
  }

  start() {
    this.stopped = false;
    window.addEventListener("online", this.retryNow);
    this.open();
  }

  stop() {
    this.stopped = true;
    window.removeEventListener("online", this.retryNow);
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    this.pending = [];
    const ws = this.ws;
    this.ws = null;
    if (ws && ws.readyState <= 1) ws.close(WS_CLOSE.normal, "page closed");
  }

  getState(): DashboardConnection {
    return this.state;
  }

  onFrame(listener: (frame: DashboardServerFrame) => void): () => void {
    this.frameListeners.add(listener);
    return () => this.frameListeners.delete(listener);
  }

  onState(listener: (state: DashboardConnection) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  /** Another page of the same dashboard: a new connection for that page's frames. */
  setPath(path: string) {
    if (path === this.path) return;
    this.path = path;
    const ws = this.ws;
    this.ws = null;
    if (ws && ws.readyState <= 1) ws.close(WS_CLOSE.normal, "page changed");
    clearTimeout(this.retryTimer);
    this.failures = 0;
    this.pending = [];
    this.switching = this.state.status === "online";
    this.open();
  }

  /**
   * Sends when online. A widget's input that cannot leave yet is queued for the page's arrival
   * (see the class comment); anything else (pings, page events) is dropped then.
   */
  send(frame: DashboardClientFrame): DashboardSendResult {
    if (this.state.status === "online" && this.ws?.readyState === 1) {
      this.ws.send(JSON.stringify(frame));
      return "sent";
    }
    // A viewer's acts (a widget's input, a group folded or opened) wait for the page; page events do not.
    if ((frame.type !== "dashboard.input" && frame.type !== "dashboard.group") || this.stopped) return "dropped";
    this.pending.push(frame);
    if (this.pending.length > DASHBOARD_PENDING_INPUTS) this.pending.shift();
    return "queued";
  }

  /**
   * Sends a file to a ui-file-input (`dashboard.upload`): in chunks, each answered before the next
   * leaves, so `onProgress` says what the server holds. Fails when not online, when the server
   * refuses (its message), when the connection is lost or changes page, or after 30 s of silence.
   */
  upload(widgetId: string, file: { name: string; size: number; type: string }, bytes: Uint8Array, onProgress?: (received: number) => void): Promise<void> {
    // One upload at a time per socket (the server's rule): two file inputs of a page take turns.
    const run = this.uploads.then(() => this.uploadNow(widgetId, file, bytes, onProgress));
    this.uploads = run.catch(() => undefined);
    return run;
  }

  private uploadNow(widgetId: string, file: { name: string; size: number; type: string }, bytes: Uint8Array, onProgress?: (received: number) => void): Promise<void> {
    return new Promise((resolve, reject) => {
      const ws = this.ws;
      if (this.state.status !== "online" || !ws || ws.readyState !== 1) {
        reject(new Error("The dashboard is not connected; try again when it is."));
        return;
      }
      const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
      const chunkBytes = (DASHBOARD_LIMITS.uploadChunkChars / 4) * 3;
      const chunks = Math.max(1, Math.ceil(bytes.length / chunkBytes));
      let seq = 0;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = (err?: Error) => {
        offFrame();
        offState();
        clearTimeout(timer);
        if (err) reject(err);
        else resolve();
      };
      const next = () => {
        if (this.ws !== ws || ws.readyState !== 1) return finish(new Error("The connection was lost; upload the file again."));
        const part = bytes.subarray(seq * chunkBytes, (seq + 1) * chunkBytes);
        const frame: DashboardClientFrame = { type: "dashboard.upload", widget_id: widgetId, upload_id: id, seq, ...(seq === 0 ? { file } : {}), data: toBase64(part), last: seq === chunks - 1 };
        ws.send(JSON.stringify(frame));
        seq++;
        clearTimeout(timer);
        timer = setTimeout(() => finish(new Error("The server did not answer; upload the file again.")), 30_000);
      };
      const offFrame = this.onFrame((f) => {
        if (f.type === "dashboard.upload" && f.upload_id === id) {
          onProgress?.(f.received);
          if (f.done) finish();
          else next();
        } else if (f.type === "dashboard.error" && f.upload_id === id) finish(new Error(f.message));
      });
      const offState = this.onState((st) => {
        if (st.status !== "online") finish(new Error("The connection was lost; upload the file again."));
      });
      next();
    });
  }

  readonly retryNow = () => {
    if (this.state.status !== "offline") return;
    clearTimeout(this.retryTimer);
    this.open();
  };

  private setState(state: DashboardConnection) {
    this.state = state;
    for (const l of this.stateListeners) l(state);
  }

  private open() {
    if (this.stopped) return;
    this.setState({ status: "connecting", attempt: this.failures + 1, ...(this.switching ? { switching: true } : {}) });
    this.switching = false;
    let ws: WebSocket;
    try {
      // A share link's visitor has no session to keep a tab's own states under (and one page).
      ws = new this.opts.WebSocketImpl(dashboardSocketUrl(window.location, this.opts.org, this.path, this.opts.share, this.opts.share ? undefined : this.tab));
    } catch {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    ws.onmessage = (e: MessageEvent) => {
      if (this.ws !== ws) return;
      let frame: DashboardServerFrame;
      try {
        frame = JSON.parse(String(e.data)) as DashboardServerFrame;
      } catch {
        return;
      }
      if (frame.type === "dashboard.page") {
        this.failures = 0;
        this.setState({ status: "online" });
        clearInterval(this.pingTimer);
        this.pingTimer = setInterval(() => this.send({ type: "ping" }), this.opts.pingEveryMs);
      }
      for (const l of this.frameListeners) l(frame);
      if (frame.type === "dashboard.page" && this.pending.length > 0 && ws.readyState === 1) {
        const queued = this.pending;
        this.pending = [];
        for (const f of queued) ws.send(JSON.stringify(f));
      }
    };
    ws.onclose = (e: CloseEvent) => {
      if (this.ws !== ws) return;
      this.ws = null;
      clearInterval(this.pingTimer);
      if (FINAL_CLOSES.has(e.code)) {
        this.stopped = true;
        this.pending = [];
        this.setState({ status: "closed", reason: FINAL_CLOSES.get(e.code)! });
        return;
      }
      this.scheduleRetry();
    };
  }

  private scheduleRetry() {
    if (this.stopped) return;
    this.failures++;
    const delay = backoffDelay(this.failures, this.opts.baseDelayMs, this.opts.maxDelayMs, this.opts.random);
    this.setState({ status: "offline", retryAt: Date.now() + delay, attempt: this.failures });
    this.retryTimer = setTimeout(() => this.open(), delay);
  }
}

function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}
