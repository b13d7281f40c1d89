import type { Message, NodeContext, NodeStatus } from "../../runtime/types";

/**
 * What websocket in/out nodes share, whichever end they use (a listener of this app or a client to
 * an outside server): the connection's events, as Node-RED's `opened` / `closed` / `erro`, and the
 * way a node attaches to it.
 */
export type EndpointEvent =
  /** `count`: clients of a listener; "" for a client connection (Node-RED's own values). */
  | { kind: "opened" | "closed"; count: number | ""; id: string }
  | { kind: "error"; id: string; error: string };

/** A websocket in/out node as the connection sees it. */
export interface EndpointPeer {
  /** A frame (text, or a Buffer for a binary one) from `session`; absent on out nodes: they receive nothing. */
  receive?(frame: { data: string | Buffer; session: string; wholemsg: boolean }): void;
  event(event: EndpointEvent): void;
  /** Whether the peer's flow is over its high-water mark (what clients send then waits). */
  busy(): boolean;
  waiting(): number;
}

export interface Endpoint {
  attach(peer: EndpointPeer): () => void;
  /** websocket-out: to one session (a listener's client), or to all (no session; a client connection: its server). */
  send(data: string | Buffer, session: string | undefined, warn: (message: string) => void): void;
}

/** Node-RED's status for a connection event (22-websocket.js: `connected N`, `disconnected`, `error`). */
export function statusOf(event: EndpointEvent): NodeStatus {
  if (event.kind === "error") return { fill: "red", shape: "ring", text: "error" };
  if (event.kind === "opened" || (typeof event.count === "number" && event.count > 0)) {
    return { fill: "green", shape: "dot", text: event.count === "" ? "connected" : `connected ${event.count}` };
  }
  return { fill: "red", shape: "ring", text: "disconnected" };
}

/**
 * The message a frame becomes (Node-RED's `handleEvent`): the payload, or with `wholemsg` the frame
 * parsed as JSON as the whole message (a value that is not an object, or text that is not JSON,
 * becomes the payload), with `_session` set.
 */
export function frameMessage(ctx: NodeContext, data: string | Buffer, wholemsg: boolean, session: string): Message {
  let msg: Record<string, unknown>;
  if (wholemsg) {
    try {
      const parsed: unknown = JSON.parse(typeof data === "string" ? data : data.toString("utf8"));
      msg = parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { payload: parsed };
    } catch {
      msg = { payload: data };
    }
  } else {
    msg = { payload: data };
  }
  msg._session = { type: "websocket", id: session };
  if (typeof msg._msgid !== "string") msg._msgid = ctx.newMessageId();
  return msg as Message;
}

/** What a websocket-out node sends for a message (Node-RED's input handler), or undefined for nothing. */
export function outgoingData(msg: Message, wholemsg: boolean): string | Buffer | undefined {
  let data: string | Buffer | undefined;
  if (wholemsg) {
    const { _session, ...rest } = msg;
    void _session;
    data = JSON.stringify(rest);
  } else if (Object.hasOwn(msg, "payload")) {
    const payload = msg.payload;
    data = Buffer.isBuffer(payload) ? payload : ensureString(payload);
  }
  // Node-RED's `if (payload)`: an empty string is not sent, an empty Buffer is.
  return data === "" ? undefined : data;
}

/** Node-RED's RED.util.ensureString: objects as JSON, everything else as String(). */
function ensureString(value: unknown): string {
  if (typeof value === "string") return value;
  if (value !== null && typeof value === "object") return JSON.stringify(value);
  return String(value);
}
