import type { Duplex } from "node:stream";
import type { AppServices } from "../app-services";
import { resolvePrincipal, type Principal } from "../auth/principal";
import { browserSessionId } from "../auth/browser-session";
import { assertPermission } from "../permissions";
import { AppError } from "../errors";
import { WS_LIMITS } from "../../shared/realtime";
import { authLimiters } from "../auth/limits";

/** What a connection may authenticate with: upgrade headers, the UI's cookie, or an `auth` frame's token. */
export interface SocketCredentials {
  authorization?: string;
  apiKey?: string;
  cookie?: string;
  origin?: string;
}

/** Refuses an upgrade with a plain HTTP answer on the raw socket. */
export function refuseUpgrade(socket: Duplex, status: 429 | 503, retryAfterSec: number) {
  const text = status === 429 ? "Too Many Requests" : "Service Unavailable";
  // The HTTP server has let go of an upgrade's socket: a reset from the peer would be an uncaught
  // error, and a peer that keeps its side open would hold it for good (as ws's abortHandshake).
  socket.on("error", () => socket.destroy());
  socket.once("finish", () => socket.destroy());
  socket.end(`HTTP/1.1 ${status} ${text}\r\nRetry-After: ${retryAfterSec}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/** Sockets open but not authenticated yet, per client IP: each holds a slot until its `auth` frame or timeout. */
export class PendingPerIp {
  private readonly counts = new Map<string, number>();

  constructor(private readonly bound: number = WS_LIMITS.maxUnauthenticatedPerIp) {}

  /** At the bound (WS_LIMITS.maxUnauthenticatedPerIp unless given): the next upgrade from `ip` is refused. */
  crowded(ip: string): boolean {
    return (this.counts.get(ip) ?? 0) >= this.bound;
  }

  add(ip: string) {
    this.counts.set(ip, (this.counts.get(ip) ?? 0) + 1);
  }

  remove(ip: string) {
    const n = (this.counts.get(ip) ?? 0) - 1;
    if (n > 0) this.counts.set(ip, n);
    else this.counts.delete(ip);
  }
}

/** An `auth` frame's token: service and device API keys by their prefix, anything else an access token. */
export function tokenCredentials(token: string): SocketCredentials {
  return isApiKey(token) ? { apiKey: token } : { authorization: `Bearer ${token}` };
}

export function isApiKey(token: string): boolean {
  return /^(service|device)_/.test(token);
}

/**
 * Who the credentials belong to, as REST would resolve them (device keys allowed: they get the
 * device channel). Everyone else needs `events:read`; throws the AppError to close with (401/403).
 * A connection's own authentication (upgrade, `auth` frame) counts against the credential's rate
 * limit like a request; `recheck` (the hub checking an open socket again after an access change)
 * neither counts nor renews the session's idle timer, so an open socket never keeps a session alive.
 */
export async function authenticateSocket(app: AppServices, credentials: SocketCredentials, options: { recheck?: boolean } = {}): Promise<Principal> {
  const sessionId = credentials.cookie ? await browserSessionId(app, { cookie: credentials.cookie, origin: credentials.origin ?? null }) : undefined;
  if (!credentials.authorization && !credentials.apiKey && !sessionId) throw new AppError("UNAUTHENTICATED", "authentication required");
  const principal = await resolvePrincipal(
    app,
    { authorization: credentials.authorization, apiKey: credentials.apiKey, browserSessionId: credentials.authorization || credentials.apiKey ? undefined : sessionId },
    options.recheck ? { allowDeviceKeys: true, touch: false } : { allowDeviceKeys: true, limit: authLimiters(app).apiPerCredential },
  );
  if (!(principal.kind === "api_key" && principal.keyKind === "device")) {
    assertPermission({ role: principal.role, kind: principal.kind, scopes: principal.kind === "api_key" ? principal.scopes : undefined }, "events:read");
  }
  // The socket keeps its principal for its whole life; a generation is only good for one request.
  delete principal.flowsGeneration;
  return principal;
}
