import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { networkInterfaces } from "node:os";
import type { Duplex } from "node:stream";
import { createHmac, timingSafeEqual } from "node:crypto";
import type { KeyValueStore } from "../store";
import type { Logger } from "../logger";

/**
 * Requests between instances straight over a socket (issue 39): the calls ClusterBus makes (an
 * inject, a webhook, a link message forwarded to the instance running the flow) go to that instance
 * over one connection per pair of instances, instead of a PUBLISH to its Redis channel and a reply
 * PUBLISH back (four socket hops through Redis, and Redis's CPU). The connection is an HTTP upgrade
 * on the instance's own port (GET /_cluster/peer, `Upgrade: flowplane-peer/1`), then frames: a
 * 4-byte length, then for a request the HMAC of its JSON and the JSON (ClusterBus's envelope), for
 * a reply its JSON. Everything a turn of the event loop sends to one instance leaves in one write
 * (the requests of concurrent calls, the replies of concurrent handlers): on this kind of VM the
 * write system calls, not the JSON, are what a hop costs (docs/BENCHMARKS.md, "Forwarded calls").
 * Redis stays the fallback: until an instance has published where it can be reached, when the
 * connection fails, or when another process answers at that address.
 *
 * Authentication with a key all instances share (derived from ENCRYPTION_KEY): the upgrade carries
 * an HMAC over the time and the target instance (refused when older than PEER_MAX_SKEW_MS or for
 * another instance), the 101 an HMAC proving the target knows the key too, and every request frame
 * the HMAC of its body. A replayed frame carries a request id the receiver has already handled
 * (HandledRequests), so it never runs twice.
 */
export const PEER_PATH = "/_cluster/peer";
const PROTOCOL = "flowplane-peer/1";
const AUTH_HEADER = "x-flowplane-peer";
const TARGET_HEADER = "x-flowplane-peer-to";
const PROOF_HEADER = "x-flowplane-peer-proof";
/** Clocks of instances may differ by this much; a signed upgrade older than this is refused. */
export const PEER_MAX_SKEW_MS = 30_000;
/** A request to another instance is at most 16 Mi characters of JSON (ClusterBus); as UTF-8 bytes at most this. */
export const PEER_MAX_FRAME_BYTES = 64 * 1024 * 1024;
const MAC_BYTES = 32;
/** Where an instance publishes its address (it refreshes it well within the TTL). */
const peerKey = (instanceId: string) => `cluster:peer:${instanceId}`;
const PEER_KEY_TTL_MS = 10 * 60_000;
const PEER_KEY_REFRESH_MS = 2 * 60_000;
/** How long a peer's address read from the store is used before it is read again. */
const ADDRESS_FRESH_MS = 30_000;
/** After a peer could not be reached at its address (or had none), Redis carries its requests for this long. */
const UNREACHABLE_MS = 5_000;
/** A connection to a peer not upgraded within this is given up (its requests go over Redis). */
const CONNECT_TIMEOUT_MS = 3_000;

/** Why a request to a peer failed; `sent` says whether it may have reached the peer. */
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

const mac = (key: Buffer, text: string) => createHmac("sha256", key).update(text).digest("base64url");
const frameMac = (key: Buffer, body: Buffer) => createHmac("sha256", key).update(body).digest();

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The upgrade's signature header, for `target`, made at `now` (ms since the epoch). */
export function signPeerUpgrade(key: Buffer, target: string, now = Date.now()): string {
  return `${now}.${mac(key, `${now}\n${target}\n${PROTOCOL}\n`)}`;
}

/** What the target answers in its 101: proof that it holds the key too (over the caller's signature). */
const proofOf = (key: Buffer, signature: string) => mac(key, `proof\n${signature}`);

type UpgradeCheck = { ok: true; signature: string } | { ok: false; status: number; code: string; message: string };

export function checkPeerUpgrade(key: Buffer, instanceId: string, headers: IncomingMessage["headers"], now = Date.now()): UpgradeCheck {
  const auth = headers[AUTH_HEADER];
  const target = headers[TARGET_HEADER];
  if (typeof auth !== "string" || typeof target !== "string" || headers.upgrade !== PROTOCOL) {
    return { ok: false, status: 401, code: "UNAUTHENTICATED", message: "not a signed connection from another instance" };
  }
  const [at, signature] = auth.split(".");
  const time = Number(at);
  if (!at || !signature || !Number.isSafeInteger(time)) return { ok: false, status: 401, code: "UNAUTHENTICATED", message: "not a signed connection from another instance" };
  if (!sameText(mac(key, `${at}\n${target}\n${PROTOCOL}\n`), signature)) return { ok: false, status: 401, code: "UNAUTHENTICATED", message: "the connection's signature does not match" };
  if (Math.abs(now - time) > PEER_MAX_SKEW_MS) return { ok: false, status: 401, code: "UNAUTHENTICATED", message: "the signed connection is too old" };
  if (target !== instanceId) return { ok: false, status: 421, code: "MISDIRECTED", message: "this is not the instance the connection is for" };
  return { ok: true, signature: auth };
}

const STATUS_TEXT: Record<number, string> = { 401: "Unauthorized", 421: "Misdirected Request", 426: "Upgrade Required" };

function refuseUpgrade(socket: Duplex, status: number, code: string, message: string): void {
  const body = JSON.stringify({ error: { code, message } });
  socket.end(`HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? "Bad Request"}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/**
 * Reads length-prefixed frames from a socket (`head` first: what arrived with the upgrade) and hands
 * each one's bytes to `onFrame`; false from the reader for a frame over the bound ends the socket.
 */
function readFrames(socket: Duplex, head: Buffer, onFrame: (frame: Buffer) => void, onTooLarge: () => void): void {
  let buffered: Buffer = Buffer.alloc(0);
  const take = (chunk: Buffer) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    let offset = 0;
    while (buffered.length - offset >= 4) {
      const length = buffered.readUInt32BE(offset);
      if (length > PEER_MAX_FRAME_BYTES) {
        onTooLarge();
        return;
      }
      if (buffered.length - offset - 4 < length) break;
      onFrame(buffered.subarray(offset + 4, offset + 4 + length));
      offset += 4 + length;
    }
    buffered = offset === buffered.length ? Buffer.alloc(0) : buffered.subarray(offset);
  };
  if (head.length > 0) take(head);
  socket.on("data", take);
}

/** Frames queued in a turn of the event loop leave together, in one write. */
class FrameWriter {
  private frames: Buffer[] = [];
  private scheduled = false;

  constructor(private readonly socket: Duplex) {}

  /** Queues a frame of `parts` (written after a 4-byte length). */
  push(...parts: Buffer[]): void {
    let length = 0;
    for (const part of parts) length += part.length;
    const header = Buffer.allocUnsafe(4);
    header.writeUInt32BE(length);
    this.frames.push(header, ...parts);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.scheduled = false;
    if (this.frames.length === 0 || this.socket.destroyed) return;
    const frames = this.frames;
    this.frames = [];
    this.socket.write(frames.length === 1 ? frames[0]! : Buffer.concat(frames));
  }
}

/**
 * GET /_cluster/peer with `Upgrade: flowplane-peer/1` on the receiving instance: checks the
 * signature, answers 101 with its proof, then answers each request frame with `handle` (the
 * ClusterBus request's reply JSON; null for something that is not a request, which ends the
 * connection). Returns the socket so the instance can close it when it stops.
 */
export function acceptPeer(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  options: { key: Buffer; instanceId: string; handle: (text: string) => Promise<string | null>; logger: Logger },
): Duplex | null {
  if (req.method !== "GET") {
    refuseUpgrade(socket, 401, "UNAUTHENTICATED", "not a signed connection from another instance");
    return null;
  }
  const check = checkPeerUpgrade(options.key, options.instanceId, req.headers);
  if (!check.ok) {
    refuseUpgrade(socket, check.status, check.code, check.message);
    return null;
  }
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${PROTOCOL}\r\nConnection: Upgrade\r\n${PROOF_HEADER}: ${proofOf(options.key, check.signature)}\r\n\r\n`);
  (socket as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);
  const writer = new FrameWriter(socket);
  socket.on("error", () => undefined);
  readFrames(
    socket,
    head,
    (frame) => {
      if (frame.length < MAC_BYTES) {
        socket.destroy();
        return;
      }
      const body = frame.subarray(MAC_BYTES);
      const expected = frameMac(options.key, body);
      if (!timingSafeEqual(expected, frame.subarray(0, MAC_BYTES))) {
        options.logger.warn("a request frame from another instance had a wrong signature; connection closed");
        socket.destroy();
        return;
      }
      options.handle(body.toString("utf8")).then(
        (reply) => {
          if (reply === null) socket.destroy();
          else writer.push(Buffer.from(reply));
        },
        (err: unknown) => {
          options.logger.error({ err }, "a request from another instance failed");
          socket.destroy();
        },
      );
    },
    () => socket.destroy(),
  );
  return socket;
}

interface Pending {
  resolve: (envelope: unknown) => void;
  reject: (err: PeerFailure) => void;
  timer: NodeJS.Timeout;
  /** Whether its frame has been handed to the socket (it may have reached the peer). */
  written: boolean;
}

/** One connection to one peer: requests out, replies matched by their id. */
class PeerConnection {
  private socket: Duplex | null = null;
  private writer: FrameWriter | null = null;
  private readonly pending = new Map<string, Pending>();
  /** Frames waiting for the upgrade. */
  private queued: Array<{ id: string; frame: Buffer[] }> = [];
  closed = false;

  constructor(
    private readonly target: string,
    readonly url: string,
    private readonly key: Buffer,
    private readonly onClose: (connection: PeerConnection, reachable: boolean) => void,
  ) {
    const secure = url.startsWith("https:");
    const signature = signPeerUpgrade(key, target);
    const req = (secure ? https : http).request(`${url}${PEER_PATH}`, {
      agent: false,
      headers: { connection: "Upgrade", upgrade: PROTOCOL, [AUTH_HEADER]: signature, [TARGET_HEADER]: target },
    });
    const connectTimer = setTimeout(() => {
      req.destroy();
      this.fail(`no connection to instance ${target} at ${url} within ${CONNECT_TIMEOUT_MS} ms`, false);
    }, CONNECT_TIMEOUT_MS);
    req.on("error", (err) => {
      clearTimeout(connectTimer);
      this.fail(`instance ${target} at ${url}: ${err.message}`, false);
    });
    req.on("response", (res) => {
      clearTimeout(connectTimer);
      res.resume();
      // 421: another instance listens there now; 401/404: not an instance of this cluster.
      this.fail(`instance ${target} at ${url} refused the connection (${res.statusCode})`, false);
    });
    req.on("upgrade", (res, socket, head) => {
      clearTimeout(connectTimer);
      const proof = res.headers[PROOF_HEADER];
      if (typeof proof !== "string" || !sameText(proof, proofOf(key, signature))) {
        socket.destroy();
        this.fail(`instance ${target} at ${url} could not prove it belongs to this cluster`, false);
        return;
      }
      this.open(socket, head);
    });
    req.end();
  }

  private open(socket: Duplex, head: Buffer): void {
    if (this.closed) {
      socket.destroy();
      return;
    }
    this.socket = socket;
    (socket as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);
    (socket as { unref?: () => void }).unref?.();
    this.writer = new FrameWriter(socket);
    socket.on("error", () => undefined);
    socket.on("close", () => this.fail(`the connection to instance ${this.target} closed`, true));
    readFrames(
      socket,
      head,
      (frame) => {
        let envelope: { id?: unknown };
        try {
          envelope = JSON.parse(frame.toString("utf8")) as { id?: unknown };
        } catch {
          socket.destroy();
          return;
        }
        const waiting = typeof envelope.id === "string" ? this.pending.get(envelope.id) : undefined;
        if (!waiting) return;
        this.pending.delete(envelope.id as string);
        clearTimeout(waiting.timer);
        waiting.resolve(envelope);
      },
      () => socket.destroy(),
    );
    for (const { id, frame } of this.queued.splice(0)) this.write(id, frame);
  }

  private write(id: string, frame: Buffer[]): void {
    const waiting = this.pending.get(id);
    if (!waiting) return;
    waiting.written = true;
    this.writer!.push(...frame);
  }

  request(id: string, body: Buffer, timeoutMs: number): Promise<unknown> {
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        const waiting = this.pending.get(id);
        this.pending.delete(id);
        reject(new PeerFailure(`instance ${this.target} did not answer within ${timeoutMs} ms`, waiting?.written ?? false, waiting?.written ?? false));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer, written: false });
      const frame = [frameMac(this.key, body), body];
      if (this.writer) this.write(id, frame);
      else this.queued.push({ id, frame });
    });
  }

  /** Fails every request still waiting; `opened`: the connection had been up (its written requests may have run). */
  private fail(message: string, opened: boolean): void {
    if (this.closed) return;
    this.closed = true;
    this.socket?.destroy();
    for (const [id, waiting] of this.pending) {
      this.pending.delete(id);
      clearTimeout(waiting.timer);
      waiting.reject(new PeerFailure(message, opened && waiting.written));
    }
    this.queued = [];
    this.onClose(this, opened);
  }

  close(): void {
    this.fail("this instance is shutting down", this.socket !== null);
  }
}

interface Address {
  url: string | null;
  /** performance.now() until which `url` is used as it is (or, null, Redis is used). */
  until: number;
}

/**
 * The sending side: where each peer is reached (read from the store, remembered a while) and one
 * connection to each.
 */
export class PeerLink {
  private readonly addresses = new Map<string, Address>();
  private readonly reading = new Map<string, Promise<void>>();
  private readonly connections = new Map<string, PeerConnection>();
  private publishedAt = -Infinity;
  private closed = false;

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
    if (known && performance.now() < known.until) return known.url;
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

  /** Sends the request `body` (a ClusterBus envelope with id `id`) to `target` at `url`; resolves with the reply's envelope. */
  send(target: string, url: string, id: string, body: Buffer, timeoutMs: number): Promise<unknown> {
    if (this.closed) return Promise.reject(new PeerFailure("this instance is shutting down", false));
    let connection = this.connections.get(target);
    if (connection && (connection.closed || connection.url !== url)) {
      connection.close();
      connection = undefined;
    }
    if (!connection) {
      connection = new PeerConnection(target, url, this.key, (closed, reachable) => {
        if (this.connections.get(target) === closed) this.connections.delete(target);
        if (!reachable && !this.closed) {
          this.logger.warn({ target, url }, "another instance could not be reached directly; using Redis for it a while");
          this.unreachable(target);
        }
      });
      this.connections.set(target, connection);
    }
    return connection.request(id, body, timeoutMs);
  }

  close(): void {
    this.closed = true;
    for (const connection of this.connections.values()) connection.close();
    this.connections.clear();
  }
}
