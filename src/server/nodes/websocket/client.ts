import WebSocket, { type ClientOptions } from "ws";
import { randomBytes } from "node:crypto";
import type { OutboundRules } from "../../runtime/outbound";
import type { Endpoint, EndpointEvent, EndpointPeer } from "./endpoint";

/** Node-RED's reconnect delay after a close or an error (22-websocket.js: "try to reconnect every 3 secs"). */
export const RECONNECT_MS = 3000;
/** The largest frame a client connection accepts from its server (the listener's bound). */
const MAX_FRAME_BYTES = 1024 * 1024;
/** How long the opening handshake may take. */
const HANDSHAKE_TIMEOUT_MS = 10_000;

export interface ClientSettings {
  url: string;
  protocols: string[];
  headers: Record<string, string>;
  /** Heartbeat in ms (0: none). */
  heartbeatMs: number;
  wholemsg: boolean;
  tls?: import("node:tls").ConnectionOptions;
}

/**
 * A websocket-client's connection on this instance: Node-RED's WebSocketListenerNode in client
 * mode. Connects at once and again 3 s after every close or error until closed; every connection
 * goes through the outbound rules (a literal address checked before, a name resolved by the rules'
 * lookup, so the address checked is the one connected to). Shared by every node of every flow here
 * using the same deployed revision (ConnectionPool).
 */
export class ClientConnection implements Endpoint {
  private readonly peers = new Set<EndpointPeer>();
  private socket: WebSocket | undefined;
  private reconnect: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private closing = false;
  private lastEvent: EndpointEvent | undefined;

  constructor(
    private readonly settings: ClientSettings,
    private readonly outbound: OutboundRules | undefined,
  ) {}

  open(): this {
    this.connect();
    return this;
  }

  attach(peer: EndpointPeer): () => void {
    this.peers.add(peer);
    // A node attached after the connection's last event (it connects as soon as it opens) sees it now.
    if (this.lastEvent) peer.event(this.lastEvent);
    return () => this.peers.delete(peer);
  }

  /** Whether the connection is open now. */
  get connected(): boolean {
    return this.socket?.readyState === WebSocket.OPEN;
  }

  send(data: string | Buffer, _session: string | undefined, warn: (message: string) => void): void {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      warn("websocket send error: not connected");
      return;
    }
    socket.send(data, (err) => {
      if (err) warn(`websocket send error: ${err.message}`);
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.reconnect);
    clearInterval(this.heartbeat);
    const socket = this.socket;
    this.socket = undefined;
    if (!socket || socket.readyState === WebSocket.CLOSED) return;
    // Node-RED waits up to a second for the close handshake; then the socket is cut.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        socket.terminate();
        resolve();
      }, 1000);
      socket.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
      if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
      else socket.close();
    });
    this.peers.clear();
  }

  private emit(event: EndpointEvent) {
    this.lastEvent = event;
    for (const peer of this.peers) peer.event(event);
  }

  private later() {
    if (this.closing) return;
    clearTimeout(this.reconnect);
    this.reconnect = setTimeout(() => this.connect(), RECONNECT_MS);
  }

  private connect() {
    if (this.closing) return;
    const id = randomBytes(8).toString("hex");
    const { url, protocols, headers, tls } = this.settings;
    let socket: WebSocket;
    try {
      const host = new URL(url).hostname;
      this.outbound?.checkHost(host);
      const options: ClientOptions = {
        headers,
        handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
        maxPayload: MAX_FRAME_BYTES,
        followRedirects: false,
        ...(this.outbound ? { lookup: this.outbound.lookup } : {}),
        ...((tls ?? {}) as ClientOptions),
      };
      socket = new WebSocket(url, protocols, options);
    } catch (err) {
      this.emit({ kind: "error", id, error: (err as Error).message });
      this.later();
      return;
    }
    this.socket = socket;
    let pendingHeartbeat = false;
    socket.on("open", () => {
      if (this.settings.heartbeatMs > 0) {
        clearInterval(this.heartbeat);
        this.heartbeat = setInterval(() => {
          if (pendingHeartbeat) {
            socket.terminate();
            failed(new Error("timeout"));
            return;
          }
          pendingHeartbeat = true;
          try {
            socket.ping();
          } catch {
            // Closed meanwhile: the close handler reconnects.
          }
        }, this.settings.heartbeatMs);
      }
      this.emit({ kind: "opened", count: "", id });
    });
    socket.on("pong", () => (pendingHeartbeat = false));
    socket.on("ping", () => (pendingHeartbeat = false));
    socket.on("message", (data, isBinary) => {
      const frame = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
      // ws 7 (Node-RED's) gives text frames as strings and binary ones as Buffers.
      const value = isBinary ? frame : frame.toString("utf8");
      for (const peer of this.peers) peer.receive?.({ data: value, session: id, wholemsg: this.settings.wholemsg });
    });
    const failed = (err: Error) => {
      clearInterval(this.heartbeat);
      this.emit({ kind: "error", id, error: err.message });
      this.later();
    };
    socket.on("error", failed);
    socket.on("close", () => {
      clearInterval(this.heartbeat);
      if (this.socket === socket) this.emit({ kind: "closed", count: "", id });
      this.later();
    });
  }
}
