import http, { type IncomingMessage, type ServerResponse } from "node:http";
import https from "node:https";
import { networkInterfaces } from "node:os";
import { createHmac, timingSafeEqual } from "node:crypto";
import type { KeyValueStore } from "../store";
import type { Logger } from "../logger";

/**
 * Requests between instances over HTTP (issue 39): the calls ClusterBus makes (an inject, a webhook,
 * a link message forwarded to the instance running the flow) go straight to that instance on a
 * kept-alive connection, one round trip, instead of a PUBLISH to its Redis channel and a reply
 * PUBLISH back (two hops through Redis each way, and Redis's CPU on the same machine). Redis stays
 * the fallback: until an instance has published where it can be reached, when the connection fails,
 * or when another process answers at that address.
 *
 * Every request is signed with a key all instances share (derived from ENCRYPTION_KEY): an HMAC over
 * the time, the target instance and the body's length, checked before the body is read, and one
 * over the whole body, checked before it is parsed. A request older than PEER_MAX_SKEW_MS, or for
 * another instance, is refused; a replay within that window carries a request id the receiver has
 * already handled (HandledRequests), so it never runs twice.
 */
export const PEER_PATH = "/_cluster/rpc";
const AUTH_HEADER = "x-flowplane-peer";
const TARGET_HEADER = "x-flowplane-peer-to";
/** Clocks of instances may differ by this much; a signed request older than this is refused. */
export const PEER_MAX_SKEW_MS = 30_000;
/** A request to another instance is at most 16 Mi characters of JSON (ClusterBus); as UTF-8 bytes at most this. */
export const PEER_MAX_BODY_BYTES = 64 * 1024 * 1024;
/** Where an instance publishes its address (it refreshes it well within the TTL). */
const peerKey = (instanceId: string) => `cluster:peer:${instanceId}`;
const PEER_KEY_TTL_MS = 10 * 60_000;
const PEER_KEY_REFRESH_MS = 2 * 60_000;
/** How long a peer's address read from the store is used before it is read again. */
const ADDRESS_FRESH_MS = 30_000;
/** After a peer could not be reached at its address (or had none), Redis carries its requests for this long. */
const UNREACHABLE_MS = 5_000;
/** A connection to a peer that is not established within this is given up (the request goes over Redis). */
const CONNECT_TIMEOUT_MS = 1_000;

/** Why an HTTP request to a peer failed; `sent` says whether it may have reached the peer. */
export class PeerFailure extends Error {
  override name = "PeerFailure";
  constructor(
    message: string,
    /** False: nothing reached the peer (no connection, or another instance answered and refused it), so nothing ran. */
    readonly sent: boolean,
    /** The peer took the request and did not answer within the request's timeout (it is not tried again). */
    readonly timedOut = false,
  ) {
    super(message);
  }
}

/**
 * The URL other instances reach this one at: CLUSTER_URL when set ("none": not reachable, requests
 * to it go over Redis), else http on the address it listens on (HOST; for 0.0.0.0 or ::, its first
 * non-internal IPv4 address) and PORT. Null when there is nothing to advertise (PORT 0).
 */
export function advertisedPeerUrl(env: { CLUSTER_URL?: string; HOST: string; PORT: number }): string | null {
  if (env.CLUSTER_URL) return env.CLUSTER_URL === "none" ? null : env.CLUSTER_URL.replace(/\/$/, "");
  if (env.PORT === 0) return null;
  let host = env.HOST;
  if (host === "0.0.0.0" || host === "::") {
    const external = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === "IPv4" && !a.internal);
    host = external?.address ?? "127.0.0.1";
  }
  return `http://${host.includes(":") ? `[${host}]` : host}:${env.PORT}`;
}

const mac = (key: Buffer, text: string | Buffer, prefix: string) => createHmac("sha256", key).update(prefix).update(text).digest("base64url");

function sameMac(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The signature header of a request of `body` to `target` made at `now` (ms since the epoch). */
export function signPeerRequest(key: Buffer, target: string, body: Buffer, now = Date.now()): string {
  const head = `${now}\n${target}\n${body.length}\n`;
  return `${now}.${mac(key, "", head)}.${mac(key, body, head)}`;
}

type HeadCheck = { ok: true; bodyMac: string; head: string; length: number } | { ok: false; status: number; message: string };

/** Checks what can be checked before the body is read: the time, the target and the head's MAC. */
export function checkPeerHead(key: Buffer, instanceId: string, headers: IncomingMessage["headers"], now = Date.now()): HeadCheck {
  const auth = headers[AUTH_HEADER];
  const target = headers[TARGET_HEADER];
  const length = Number(headers["content-length"]);
  if (typeof auth !== "string" || typeof target !== "string" || !Number.isSafeInteger(length) || length < 0) {
    return { ok: false, status: 401, message: "not a signed request from another instance" };
  }
  const [at, headMac, bodyMac] = auth.split(".");
  const time = Number(at);
  if (!at || !headMac || !bodyMac || !Number.isSafeInteger(time)) return { ok: false, status: 401, message: "not a signed request from another instance" };
  const head = `${at}\n${target}\n${length}\n`;
  if (!sameMac(mac(key, "", head), headMac)) return { ok: false, status: 401, message: "the request's signature does not match" };
  if (Math.abs(now - time) > PEER_MAX_SKEW_MS) return { ok: false, status: 401, message: "the signed request is too old" };
  if (target !== instanceId) return { ok: false, status: 421, message: "this is not the instance the request is for" };
  if (length > PEER_MAX_BODY_BYTES) return { ok: false, status: 413, message: `request body exceeds ${PEER_MAX_BODY_BYTES} bytes` };
  return { ok: true, bodyMac, head, length };
}

export function checkPeerBody(key: Buffer, check: { bodyMac: string; head: string }, body: Buffer): boolean {
  return sameMac(mac(key, body, check.head), check.bodyMac);
}

function refuse(res: ServerResponse, status: number, code: string, message: string): void {
  res.statusCode = status;
  res.setHeader("content-type", "application/json; charset=utf-8");
  res.end(JSON.stringify({ error: { code, message } }));
}

const CODES: Record<number, string> = { 401: "UNAUTHENTICATED", 413: "PAYLOAD_TOO_LARGE", 421: "MISDIRECTED", 400: "VALIDATION_FAILED" };

/**
 * POST /_cluster/rpc on the receiving instance: the signed body is a ClusterBus request envelope,
 * `handle` answers it with the reply envelope's JSON.
 */
export async function servePeerRequest(
  req: IncomingMessage,
  res: ServerResponse,
  options: { key: Buffer; instanceId: string; handle: (text: string) => Promise<string | null> },
): Promise<void> {
  if (req.method !== "POST") {
    res.setHeader("allow", "POST");
    refuse(res, 405, "METHOD_NOT_ALLOWED", "use POST");
    return;
  }
  const head = checkPeerHead(options.key, options.instanceId, req.headers);
  if (!head.ok) {
    // The connection is not kept for a refused body: it is not read.
    res.setHeader("connection", "close");
    refuse(res, head.status, CODES[head.status] ?? "VALIDATION_FAILED", head.message);
    req.resume();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > head.length) break;
    chunks.push(chunk);
  }
  const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  if (size !== head.length || !checkPeerBody(options.key, head, body)) {
    res.setHeader("connection", "close");
    refuse(res, 401, "UNAUTHENTICATED", "the request's signature does not match");
    return;
  }
  const reply = await options.handle(body.toString("utf8"));
  if (reply === null) {
    // A duplicate still being handled (its first delivery answers) or a malformed envelope.
    refuse(res, 409, "CONFLICT", "this request is being handled already");
    return;
  }
  res.statusCode = 200;
  res.setHeader("content-type", "application/json");
  res.setHeader("content-length", Buffer.byteLength(reply));
  res.end(reply);
}

interface Address {
  url: string | null;
  /** performance.now() until which `url` is used as it is (or, null, Redis is used). */
  until: number;
}

/**
 * The sending side: where each peer is reached (read from the store, remembered a while), one pool
 * of kept-alive connections, and the signed POST.
 */
export class PeerLink {
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 64, scheduling: "lifo", timeout: 4_000 });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 64, scheduling: "lifo", timeout: 4_000 });
  private readonly addresses = new Map<string, Address>();
  private readonly reading = new Map<string, Promise<void>>();
  private publishedAt = -Infinity;

  constructor(
    private readonly store: KeyValueStore,
    private readonly instanceId: string,
    /** This instance's own URL, or null when it cannot be reached (then it only sends). */
    readonly selfUrl: string | null,
    private readonly key: Buffer,
    private readonly logger: Logger,
  ) {}

  /** Publishes (again, when due) where this instance is reached. */
  async advertise(force = false): Promise<void> {
    if (!this.selfUrl || (!force && performance.now() - this.publishedAt < PEER_KEY_REFRESH_MS)) return;
    await this.store.set(peerKey(this.instanceId), this.selfUrl, { ttlMs: PEER_KEY_TTL_MS });
    this.publishedAt = performance.now();
  }

  async withdraw(): Promise<void> {
    if (this.selfUrl) await this.store.del(peerKey(this.instanceId)).catch(() => undefined);
  }

  /**
   * The peer's URL if it is known now; otherwise null, and (unless a read is under way) it is read
   * from the store for the next request: the caller never waits for that read, it uses Redis.
   */
  urlOf(target: string): string | null {
    const known = this.addresses.get(target);
    const now = performance.now();
    if (known && now < known.until) return known.url;
    if (!this.reading.has(target)) {
      const read = this.store
        .get(peerKey(target))
        .then(
          (url) => this.remember(target, url, url ? ADDRESS_FRESH_MS : UNREACHABLE_MS),
          () => this.remember(target, null, UNREACHABLE_MS),
        )
        .finally(() => this.reading.delete(target));
      this.reading.set(target, read);
    }
    // A known address past its freshness is still used while it is read again.
    return known?.url ?? null;
  }

  private remember(target: string, url: string | null, forMs: number): void {
    if (this.addresses.size > 10_000 && !this.addresses.has(target)) this.addresses.delete(this.addresses.keys().next().value!);
    this.addresses.set(target, { url, until: performance.now() + forMs });
  }

  /** The peer could not be reached at its address (or someone else answered there): Redis for a while. */
  unreachable(target: string): void {
    this.remember(target, null, UNREACHABLE_MS);
  }

  /** A signed POST of `body` to `target` at `url`; resolves with the reply's text. */
  send(target: string, url: string, body: Buffer, timeoutMs: number): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const secure = url.startsWith("https:");
      let connected = false;
      let settled = false;
      const fail = (err: PeerFailure) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(err);
      };
      const req = (secure ? https : http).request(`${url}${PEER_PATH}`, {
        method: "POST",
        agent: secure ? this.httpsAgent : this.httpAgent,
        headers: {
          "content-type": "application/json",
          "content-length": body.length,
          [AUTH_HEADER]: signPeerRequest(this.key, target, body),
          [TARGET_HEADER]: target,
        },
      });
      const timer = setTimeout(() => {
        fail(new PeerFailure(`instance ${target} did not answer within ${timeoutMs} ms`, connected, connected));
        req.destroy();
      }, timeoutMs);
      req.on("socket", (socket) => {
        // A kept-alive socket is connected already; a new one must connect within CONNECT_TIMEOUT_MS.
        if (!socket.connecting) {
          connected = true;
          return;
        }
        const connectTimer = setTimeout(() => {
          fail(new PeerFailure(`no connection to instance ${target} at ${url} within ${CONNECT_TIMEOUT_MS} ms`, false));
          req.destroy();
        }, CONNECT_TIMEOUT_MS);
        socket.once(secure ? "secureConnect" : "connect", () => {
          connected = true;
          clearTimeout(connectTimer);
        });
        socket.once("close", () => clearTimeout(connectTimer));
      });
      req.on("error", (err: NodeJS.ErrnoException) => {
        // Refused or unreachable before any byte left: nothing ran there.
        fail(new PeerFailure(`instance ${target} at ${url}: ${err.message}`, connected && err.code !== "ECONNREFUSED"));
      });
      req.on("response", (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", (err) => fail(new PeerFailure(`instance ${target}: ${err.message}`, true)));
        res.on("end", () => {
          if (settled) return;
          const text = Buffer.concat(chunks).toString("utf8");
          if (res.statusCode === 200) {
            settled = true;
            clearTimeout(timer);
            resolve(text);
            return;
          }
          // 421: another instance listens there now; 401/404/405: not an instance of this cluster
          // (another key, or not clustered). The request was refused before it was handled.
          // 409: a duplicate still being handled (it was sent before: the bus waits for its reply).
          if (res.statusCode !== 409) this.logger.warn({ target, url, status: res.statusCode }, "another instance refused a request; using Redis for it");
          fail(new PeerFailure(`instance ${target} at ${url} answered ${res.statusCode}`, res.statusCode === 409));
        });
      });
      req.end(body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
