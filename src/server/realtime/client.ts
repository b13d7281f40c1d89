import type { WebSocket } from "ws";
import type { ApiKeyPrincipal, Principal } from "../auth/principal";
import type { ClientOutbox } from "./outbox";
import type { SocketCredentials } from "./admission";

/** One /ws connection as the hub holds it. */
export interface Client {
  ws: WebSocket;
  /** Answered the last heartbeat ping (heartbeat.ts). */
  alive: boolean;
  principal?: Principal;
  topics: Set<string> | null;
  flowId: string | null;
  /** Every frame to this connection goes through it: ordering, drop counting, debug batches. */
  out: ClientOutbox;
  expiryTimer?: NodeJS.Timeout;
  /** What the connection authenticated with, to check it again when access changes or runs out. */
  credentials?: SocketCredentials;
  /** The next time its access runs out by itself (a key's expiry, a session's idle or absolute limit). */
  recheckTimer?: NodeJS.Timeout;
  /** Closes a socket that has not authenticated in time; cleared by its first `auth` frame. */
  authTimer?: NodeJS.Timeout;
  /** The client IP while the socket is not authenticated yet (counted in pendingPerIp). */
  pendingIp?: string;
  /** The flow this connection has open (presence), and the name shown for its user. */
  presenceFlowId: string | null;
  displayName?: string;
}

/** A `device_` key's connection: no org events, no presence, but device messages both ways. */
export const isDeviceKey = (principal: Principal | undefined): principal is ApiKeyPrincipal & { keyKind: "device" } =>
  principal?.kind === "api_key" && principal.keyKind === "device";
