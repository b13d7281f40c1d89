import { SOCKET_ROUTE_METHOD, webhookRouteKey } from "./webhooks";

/**
 * WebSocket listeners of flows (SPEC §23: websocket-listener, served at `/ws/hooks/{org-slug}/{path}`
 * on every instance). Two halves meet here:
 *
 * - **Edge**: the instance whose HTTP server took the socket (`src/server/http/socket-hooks.ts`). It
 *   keeps the socket and its session id, and hands each event of it (open, message, close) to the
 *   flow runtime as a request on the listener's route: `FlowRuntime.handleWebhook(slug, {method:
 *   SOCKET_ROUTE_METHOD, path, body: SocketEvent})`. So an event reaches the instance running the
 *   flow exactly as a webhook does (locally, or over the cluster bus with its once-only delivery),
 *   and the route is published and looked up with the webhooks' own keys.
 * - **Listener**: the websocket-listener's run-time object on the instance running the flow
 *   (`nodes/websocket/listener.ts`). It registers the route in the WebhookRegistry, gives events to
 *   the websocket-in nodes, and sends what websocket-out nodes send through
 *   `RuntimeServices.socketHooks.publish`: the store's pub/sub channel of the route, which every
 *   edge holding a socket of that route listens to, so a `_session` reply reaches its client on
 *   whichever instance it is connected, and a broadcast every client of the listener.
 */

/** The "method" of a listener's route in the webhook registry and its cluster keys (defined beside the registry). */
export { SOCKET_ROUTE_METHOD } from "./webhooks";

/**
 * What an edge hands to the listener: one event of one socket (`session`). `edge` is the instance
 * holding the socket (its clients are forgotten when it dies: SocketHooks.edgesAlive) and `seq`
 * the event's number among the socket's, from 1: an event sent again (to every instance running a
 * flow on the listener, after one of them was busy) is taken once by each. Both are absent from an
 * edge of an older version.
 */
export type SocketEvent = { session: string; edge?: string; seq?: number } & (
  | { event: "open" }
  | { event: "close" }
  /** `data`: the text of a text frame, or base64 of a binary frame (`binary: true`). */
  | { event: "message"; data: string; binary: boolean }
);

/** What a listener sends to its edges. */
export type SocketOut =
  /** To one session (a `_session` reply), or to every client of the route (`session` absent). */
  | { kind: "send"; session?: string; data: string; binary: boolean }
  /** The listener stopped (its flow stopped or was redeployed): edges close the route's sockets, as Node-RED's server closes its clients. */
  | { kind: "close" };

/** The pub/sub channel of a listener's route: slug and path escaped as webhook route keys are. */
export function socketRouteChannel(slug: string, path: string): string {
  return `wshook:${webhookRouteKey(slug, SOCKET_ROUTE_METHOD, path)}`;
}

/** The path a listener serves, as Node-RED writes it (`/ws1`, `ws1`): with one leading slash, without trailing ones. */
export function socketListenerPath(path: string): string {
  const trimmed = path.trim().replace(/\/+$/, "");
  return trimmed.startsWith("/") ? trimmed || "/" : `/${trimmed}`;
}

/** Host side of the listeners (RuntimeServices.socketHooks): where a listener's frames go out. */
export interface SocketHooks {
  publish(slug: string, path: string, out: SocketOut): void;
  /** Which of these edges (instance ids) are alive; absent: all are. */
  edgesAlive?(ids: string[]): Promise<Set<string>>;
}
