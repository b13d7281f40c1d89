import { randomHex } from "../ids";
import type { KeyValueStore } from "../store";
import type { Logger } from "../logger";
import { boundedJson } from "../runtime/bounded-json";
import { PeerFailure, type PeerLink } from "./peer-link";

/** The channel an instance listens on for requests and replies. */
export const nodeChannel = (instanceId: string) => `cluster:node:${instanceId}`;
const EVENTS_CHANNEL = "cluster:events";
/** A request to another instance (a link message, an inject, a replay) is at most this much JSON. */
const MAX_REQUEST_CHARS = 16 * 1024 * 1024;

type Envelope =
  | { k: "req"; id: string; from: string; op: string; args: unknown }
  | { k: "res"; id: string; ok: true; value: unknown }
  | { k: "res"; id: string; ok: false; error: string };

export class RpcTimeout extends Error {
  override name = "RpcTimeout";
  /** Nobody listened on the target's channel: the request reached no one (so it never ran). */
  readonly notListening: boolean;
  /** The target stopped listening while the request waited: it may have run there, or not. */
  readonly targetGone: boolean;
  constructor(message: string, options: { notListening?: boolean; targetGone?: boolean } = {}) {
    super(message);
    this.notListening = options.notListening ?? false;
    this.targetGone = options.targetGone ?? false;
  }
}

/**
 * A request still unanswered after this long has its target's channel checked (every such period):
 * a target nobody listens for any more (killed) fails its requests at once instead of at their
 * timeout, which is 5 s for an inject and 32 s for a webhook.
 */
export const GONE_CHECK_MS = 250;

interface Waiting {
  target: string;
  sentAt: number;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

/** Answers a request; `via` says how it came: straight from the sender (PeerLink) or the target's Redis channel. */
export type RequestHandler = (args: unknown, via: "direct" | "bus") => Promise<unknown>;

export type ClusterEvent = { type: "released"; from: string; flowIds: string[] } | { type: "joined"; from: string } | { type: "left"; from: string };

export interface HandledRequestLimits {
  /** How long a handled request's id is remembered: longer than any request's timeout (the longest, a webhook's, is 32 s). */
  ttlMs: number;
  /** At most this many ids (the oldest are forgotten first). */
  maxIds: number;
  /** A reply longer than this (JSON characters) is not kept: a duplicate of its request is ignored instead of answered again. */
  maxReplyChars: number;
  /** All kept replies together stay under this many characters. */
  maxKeptChars: number;
}

export const DEFAULT_HANDLED_REQUEST_LIMITS: HandledRequestLimits = { ttlMs: 60_000, maxIds: 100_000, maxReplyChars: 4_096, maxKeptChars: 8 * 1024 * 1024 };

interface Handled {
  /** performance.now() when the request was first received. */
  at: number;
  /** The reply sent, as published, once there is one (and it was small enough to keep). */
  reply: string | null;
  /** A second delivery came over Redis while the first (straight from the sender) ran: the reply goes over Redis too. */
  busWaiting?: boolean;
}

/**
 * The requests this instance has handled, by sender and id, so a second delivery of the same
 * envelope (two subscriptions to the channel, a publish made again) never runs its operation
 * twice. Bounded: ids are kept in arrival order and forgotten after `ttlMs`, or earlier when more
 * than `maxIds` are held or the kept replies grow past `maxKeptChars`.
 */
export class HandledRequests {
  private readonly entries = new Map<string, Handled>();
  private keptChars = 0;

  constructor(
    private readonly limits: HandledRequestLimits = DEFAULT_HANDLED_REQUEST_LIMITS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The first handling of the request, if it was seen before; otherwise undefined, and it is recorded as seen now. */
  firstSeen(key: string): Handled | undefined {
    this.prune();
    const seen = this.entries.get(key);
    if (seen) return seen;
    this.entries.set(key, { at: this.now(), reply: null });
    if (this.entries.size > this.limits.maxIds) this.prune();
    return undefined;
  }

  /** Keeps the reply sent for the request, to answer a duplicate with it; true when a duplicate waits for it on the bus. */
  answered(key: string, reply: string): boolean {
    const entry = this.entries.get(key);
    const busWaiting = entry?.busWaiting === true;
    if (!entry || reply.length > this.limits.maxReplyChars) return busWaiting;
    entry.reply = reply;
    this.keptChars += reply.length;
    this.prune();
    return busWaiting;
  }

  private prune(): void {
    const cutoff = this.now() - this.limits.ttlMs;
    // Oldest first (a Map iterates in insertion order, which is arrival order).
    for (const [key, entry] of this.entries) {
      if (entry.at > cutoff && this.entries.size <= this.limits.maxIds && this.keptChars <= this.limits.maxKeptChars) break;
      this.entries.delete(key);
      if (entry.reply !== null) this.keptChars -= entry.reply.length;
    }
  }
}

/**
 * Request/reply between instances over the store's pub/sub: every instance listens on a channel of
 * its own for requests and replies, and on one shared channel for cluster events. A request that
 * gets no reply within its timeout rejects with RpcTimeout; its reply, if it comes later, is dropped.
 *
 * Each request carries an id (unique per sender); the receiver handles an id once: a second delivery
 * of the same request is answered with the first handling's reply (or ignored while that one runs),
 * never run again. And there is one subscription per channel whatever the timing: start() calls
 * made while a subscription is pending share it (each subscription would deliver every request once
 * more), a failed one can be tried again, and close() leaves nothing subscribed.
 */
export class ClusterBus {
  private readonly handlers = new Map<string, RequestHandler>();
  private readonly waiting = new Map<string, Waiting>();
  private goneCheck: NodeJS.Timeout | null = null;
  private checkingGone = false;
  private readonly handled: HandledRequests;
  private nodeSubscription: (() => Promise<void>) | null = null;
  private eventsSubscription: (() => Promise<void>) | null = null;
  /** The subscribing under way, shared by every start() call made meanwhile. */
  private starting: Promise<void> | null = null;
  private closed = false;
  private counter = 0;
  private readonly idPrefix = randomHex(8);

  constructor(
    private readonly store: KeyValueStore,
    private readonly instanceId: string,
    private readonly logger: Logger,
    private readonly onEvent: (event: ClusterEvent) => void,
    limits: HandledRequestLimits = DEFAULT_HANDLED_REQUEST_LIMITS,
    /** Requests straight to the target over its own connection when its address is known (null: Redis only). */
    private readonly peers: PeerLink | null = null,
  ) {
    this.handled = new HandledRequests(limits);
  }

  handle(op: string, handler: RequestHandler): void {
    this.handlers.set(op, handler);
  }

  /** Whether both subscriptions are active (start() resolved once). */
  get ready(): boolean {
    return this.nodeSubscription !== null && this.eventsSubscription !== null;
  }

  /**
   * Subscribes to this instance's channel and the events channel. Calls made while it is under way
   * wait for the same attempt; after a failure the next call tries again (what succeeded stays).
   */
  start(): Promise<void> {
    if (this.closed) return Promise.reject(new Error("the cluster bus is closed"));
    if (this.ready) return Promise.resolve();
    this.starting ??= this.subscribe().finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private async subscribe(): Promise<void> {
    if (!this.nodeSubscription) {
      this.nodeSubscription = await this.subscribeUnlessClosed(nodeChannel(this.instanceId), (raw) => this.receive(raw));
    }
    if (!this.eventsSubscription) {
      this.eventsSubscription = await this.subscribeUnlessClosed(EVENTS_CHANNEL, (raw) => {
        const event = JSON.parse(raw) as ClusterEvent;
        if (event.from !== this.instanceId) this.onEvent(event);
      });
    }
  }

  /** A subscription that completes after close() is ended at once. */
  private async subscribeUnlessClosed(channel: string, handler: (raw: string) => void): Promise<() => Promise<void>> {
    const end = await this.store.subscribe(channel, handler);
    if (this.closed) {
      await end().catch(() => undefined);
      throw new Error("the cluster bus is closed");
    }
    return end;
  }

  /**
   * Sends `op` to the instance `target` and resolves with its handler's value. Straight to it over
   * its own connection (PeerLink) when its address is known; otherwise, or when that connection fails, over its
   * Redis channel, with the same request id, so a request that reached it both ways still runs once.
   */
  request<T>(target: string, op: string, args: unknown, timeoutMs: number): Promise<T> {
    const id = `${this.idPrefix}-${++this.counter}`;
    const envelope: Envelope = { k: "req", id, from: this.instanceId, op, args };
    // Bounded (runtime/bounded-json.ts): a link message repeating one object is refused, never expanded in full here.
    let text: string;
    try {
      const json = boundedJson(envelope, { maxChars: MAX_REQUEST_CHARS, cut: false });
      if (json.truncated) throw new Error(`message too large to send to another instance (more than ${MAX_REQUEST_CHARS} characters as JSON)`);
      text = json.text!;
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    const peers = this.peers;
    const url = peers?.urlOf(target) ?? null;
    if (!peers || !url || this.closed) return this.requestOverBus<T>(target, op, id, text, timeoutMs, false);
    const startedAt = performance.now();
    return peers.send(target, url, id, Buffer.from(text), timeoutMs).then(
      (reply) => {
        const answer = reply as Envelope | { k: "busy"; id: string };
        // A second delivery whose first handling still runs there: its reply comes over Redis.
        if (answer.k === "busy") throw new PeerFailure(`instance ${target} is handling ${op} already`, true);
        if (answer.k !== "res") throw new Error(`instance ${target} answered ${op} with something else than a reply`);
        if (!answer.ok) throw new Error(answer.error);
        return answer.value as T;
      },
      (err: unknown) => {
        if (!(err instanceof PeerFailure)) throw err;
        if (err.timedOut) throw new RpcTimeout(`instance ${target} did not answer ${op} within ${timeoutMs} ms`);
        this.logger.debug({ err, target, op }, "request to another instance over its connection failed; sent over Redis");
        const left = Math.max(1, timeoutMs - (performance.now() - startedAt));
        return this.requestOverBus<T>(target, op, id, text, left, err.sent);
      },
    );
  }

  /**
   * The request over the target's Redis channel. `maybeRan`: it may have reached the target
   * already (over its connection), so finding nobody listening there now does not prove it never ran.
   */
  private requestOverBus<T>(target: string, op: string, id: string, text: string, timeoutMs: number, maybeRan: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new RpcTimeout(`instance ${target} did not answer ${op} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(id, { target, sentAt: performance.now(), resolve: resolve as (v: unknown) => void, reject, timer });
      if (!this.goneCheck) {
        this.goneCheck = setInterval(() => void this.failRequestsToGone(), GONE_CHECK_MS);
        this.goneCheck.unref();
      }
      this.store.publish(nodeChannel(target), text).then(
        (listeners) => {
          // Nobody listens on the target's channel: it is gone (its connection to Redis closed), do not wait.
          if (listeners === 0 && this.waiting.delete(id)) {
            clearTimeout(timer);
            reject(maybeRan ? new RpcTimeout(`instance ${target} went away before it answered`, { targetGone: true }) : new RpcTimeout(`instance ${target} is not listening`, { notListening: true }));
          }
        },
        (err: unknown) => {
          clearTimeout(timer);
          this.waiting.delete(id);
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
  }

  /** Fails the requests waiting on an instance that nobody listens for any more (see GONE_CHECK_MS). */
  private async failRequestsToGone(): Promise<void> {
    if (this.waiting.size === 0 || this.closed) {
      if (this.goneCheck) clearInterval(this.goneCheck);
      this.goneCheck = null;
      return;
    }
    if (this.checkingGone) return;
    const due = performance.now() - GONE_CHECK_MS;
    const targets = [...new Set([...this.waiting.values()].filter((w) => w.sentAt <= due).map((w) => w.target))];
    if (targets.length === 0) return;
    this.checkingGone = true;
    try {
      const counts = await this.store.listeners(targets.map(nodeChannel));
      const gone = new Set(targets.filter((_, i) => counts[i] === 0));
      for (const [id, w] of this.waiting) {
        if (!gone.has(w.target) || w.sentAt > due) continue;
        this.waiting.delete(id);
        clearTimeout(w.timer);
        w.reject(new RpcTimeout(`instance ${w.target} went away before it answered`, { targetGone: true }));
      }
    } catch {
      // The store is unreachable: the requests time out as they would have.
    } finally {
      this.checkingGone = false;
    }
  }

  async broadcast(event: ClusterEvent): Promise<void> {
    await this.store.publish(EVENTS_CHANNEL, JSON.stringify(event));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.goneCheck) clearInterval(this.goneCheck);
    this.goneCheck = null;
    for (const [id, w] of this.waiting) {
      clearTimeout(w.timer);
      w.reject(new RpcTimeout("the instance is shutting down"));
      this.waiting.delete(id);
    }
    // A subscription still pending ends itself when it completes (subscribeUnlessClosed).
    await this.starting?.catch(() => undefined);
    const ends = [this.nodeSubscription, this.eventsSubscription].filter((end) => end !== null);
    this.nodeSubscription = null;
    this.eventsSubscription = null;
    await Promise.all(ends.map((end) => end().catch(() => undefined)));
  }

  private receive(raw: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(raw) as Envelope;
    } catch {
      return;
    }
    if (envelope.k === "res") {
      // A reply delivered twice finds nobody waiting the second time.
      const w = this.waiting.get(envelope.id);
      if (!w) return;
      this.waiting.delete(envelope.id);
      clearTimeout(w.timer);
      if (envelope.ok) w.resolve(envelope.value);
      else w.reject(new Error(envelope.error));
      return;
    }
    void this.answer(envelope, "bus");
  }

  /**
   * A request that came straight from its sender (PeerLink): resolves with the reply's JSON (for a
   * second delivery whose first handling still runs, `{"k":"busy"}`), or null when it is not a request.
   */
  async receiveDirect(raw: string): Promise<string | null> {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(raw) as Envelope;
    } catch {
      return null;
    }
    if (envelope.k !== "req" || typeof envelope.id !== "string" || typeof envelope.from !== "string") return null;
    return (await this.answer(envelope, "direct")) ?? JSON.stringify({ k: "busy", id: envelope.id });
  }

  /** Runs a request once, whichever way (and however often) it arrived; the reply goes back the way it came. */
  private async answer(envelope: Extract<Envelope, { k: "req" }>, via: "direct" | "bus"): Promise<string | null> {
    const from = envelope.from;
    const key = `${from} ${envelope.id}`;
    const first = this.handled.firstSeen(key);
    if (first) {
      // The same request again: answered from its first handling, or (while that one runs, or its
      // reply was too large to keep) left to that handling's reply. Never run twice.
      if (first.reply !== null) {
        if (via === "bus") this.send(from, envelope.op, first.reply);
        return first.reply;
      }
      // The first came straight and its sender gave up on that connection: it waits on the bus.
      if (via === "bus") first.busWaiting = true;
      return null;
    }
    const handler = this.handlers.get(envelope.op);
    let body: Envelope;
    if (!handler) body = { k: "res", id: envelope.id, ok: false, error: `unknown operation ${envelope.op}` };
    else {
      try {
        body = { k: "res", id: envelope.id, ok: true, value: (await handler(envelope.args, via)) ?? null };
      } catch (err) {
        this.logger.error({ err, op: envelope.op }, "cluster request failed");
        body = { k: "res", id: envelope.id, ok: false, error: err instanceof Error ? err.message : String(err) };
      }
    }
    const text = JSON.stringify(body);
    const busWaiting = this.handled.answered(key, text);
    if (via === "bus" || busWaiting) this.send(from, envelope.op, text);
    return text;
  }

  private send(target: string, op: string, text: string): void {
    this.store.publish(nodeChannel(target), text).catch((err: unknown) => {
      this.logger.warn({ err, op }, "cluster reply could not be sent");
    });
  }
}
