/**
 * The key-value store behind sessions, rate limits and events. In-process by default; Redis when
 * REDIS_URL is set, so several app instances share sessions, counters and pub/sub. Both
 * implementations pass the same contract suite (store.contract.ts).
 *
 * Every method rejects with a StoreUnavailableError when the backend cannot be reached, so callers
 * fail closed (503) instead of hanging.
 */
export interface KeyValueStore {
  readonly kind: "memory" | "redis";
  /**
   * Commands sent to the store server through this object since it was built (GET /metrics): one
   * per call or batched round. Always 0 in process (nothing travels). rate-limiter-flexible talks to
   * Redis itself (rateLimitBackend) and is not counted.
   */
  readonly roundTrips: number;
  get(key: string): Promise<string | null>;
  /** Sets a value; with ttlMs it expires after that many milliseconds. */
  set(key: string, value: string, options?: { ttlMs?: number }): Promise<void>;
  /** Sets only if the key does not exist; true when it was set. */
  setIfAbsent(key: string, value: string, options?: { ttlMs?: number }): Promise<boolean>;
  /**
   * Replaces the value only if the key exists (and has not expired); true when it was set. The
   * check and the write are one atomic step (Redis `SET … XX`): a renewal can never bring back a
   * key that was deleted meanwhile (a revoked session).
   */
  setIfPresent(key: string, value: string, options?: { ttlMs?: number }): Promise<boolean>;
  /**
   * Sets the value (and its TTL, or none) when the key is missing or already holds this very value;
   * a key holding another value is left as it is. True when the key holds `value` afterwards. One
   * atomic step: a renewal that never takes a key someone else has since written (a webhook route
   * another flow now serves).
   */
  setIfAbsentOrEqual(key: string, value: string, options?: { ttlMs?: number }): Promise<boolean>;
  /**
   * Deletes the key only if it holds this value (compare-and-delete, one atomic step); true when it
   * was deleted. A key someone else has since written is left alone.
   */
  delIfEqual(key: string, value: string): Promise<boolean>;
  /** Deletes keys; resolves to how many existed. */
  del(...keys: string[]): Promise<number>;
  /** Atomically adds `by` (default 1) and returns the new value; ttlMs applies when the key is new. */
  incr(key: string, options?: { by?: number; ttlMs?: number }): Promise<number>;
  /** Re-arms the key's time to live; false when the key does not exist. */
  expire(key: string, ttlMs: number): Promise<boolean>;
  /** Remaining time to live in ms; null when the key is missing or has none. */
  ttl(key: string): Promise<number | null>;
  setAdd(key: string, ...members: string[]): Promise<void>;
  setRemove(key: string, ...members: string[]): Promise<void>;
  setMembers(key: string): Promise<string[]>;
  /**
   * Leases: a key held by one holder until its TTL runs out. Each grant carries a fencing token,
   * larger than every earlier grant of the same key (expired or released ones included), and renew
   * and release only act on the grant whose token they name, so a holder that lost its lease (it
   * expired while the holder was paused, and someone else took it) can neither extend nor drop the
   * new holder's.
   */
  /** Grants the lease when nobody holds it; null when someone (this holder included) does. */
  leaseAcquire(key: string, holder: string, ttlMs: number): Promise<Lease | null>;
  /** Re-arms the TTL of the grant with this token; false when it expired or another grant holds the key. */
  leaseRenew(key: string, token: number, ttlMs: number): Promise<boolean>;
  /** Gives up the grant with this token; false when it was no longer held. */
  leaseRelease(key: string, token: number): Promise<boolean>;
  /** The current grant of the key, or null. */
  leaseGet(key: string): Promise<Lease | null>;
  /**
   * Publishes to a channel; resolves to how many listeners it reached (Redis: subscribed clients,
   * memory: subscriptions), so 0 means nobody listens there now.
   */
  publish(channel: string, message: string): Promise<number>;
  /**
   * How many listeners each channel has now, in the order given (what a publish to it would reach:
   * Redis, subscribed clients; memory, subscriptions). A process killed outright drops to 0 at once
   * on Redis (its connection closes): the cluster's hint that an instance died. Only a hint: a live
   * instance cut off from Redis shows 0 too.
   */
  listeners(channels: readonly string[]): Promise<number[]>;
  /**
   * True when a message published to the channel now would reach nobody, and the store knows it
   * without asking anyone: the in-process store, which holds every subscription there is. Absent
   * where listeners live elsewhere (Redis: other instances), so a caller always publishes there.
   * A publisher skips making a message nobody would receive.
   */
  unheard?(channel: string): boolean;
  /** Subscribes to a channel; resolves once the subscription is active, to a function that ends it. */
  subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>>;
  /**
   * One atomic round trip on a value holding a JSON object (a session): when the key exists, sets
   * the given top-level string fields and re-arms its TTL to min(ttlMs, the time until the ISO
   * instant in field `capAt`), resolving to the updated JSON; when it does not exist, resolves to
   * null and writes nothing, so a key deleted meanwhile (a revoked session) is never re-created.
   * When the cap has passed, nothing is written and the stored value is returned as it was.
   */
  touchJson(key: string, options: { set: Record<string, string>; ttlMs: number; capAt?: string }): Promise<string | null>;
  /**
   * Several operations in one round trip: what every authenticated request asks of the store (its
   * session, two generations, its rate limit) as one Redis command instead of four. Add the
   * operations in the same synchronous run of code; the round goes out at the end of it (a
   * microtask), and each operation's promise settles with the reply. Each operation means what the
   * store's method of the same name means; the round as a whole is atomic on Redis (one script).
   */
  round(): StoreRound;
  /** Resolves when the backend answers; rejects with StoreUnavailableError otherwise. */
  ping(): Promise<void>;
  /**
   * What the rate limiter builds on. A method of the store, not a class check: Next bundles its
   * own copy of our store classes, so `instanceof` fails for a store the custom server built, and
   * the in-process counters must live on this instance to be shared by every copy of the code.
   */
  rateLimitBackend(): RateLimitBackend;
  /**
   * Where a second connection to the same store would go, for work that must not share this
   * process's main thread (the cluster's lease renewals, flow-runtime/lease-keeper.ts); null in
   * process (nothing to connect to).
   */
  connectionInfo(): { url: string; keyPrefix: string } | null;
  close(): Promise<void>;
}

/** Operations gathered into one round trip (KeyValueStore.round). */
export interface StoreRound {
  get(key: string): Promise<string | null>;
  touchJson(key: string, options: { set: Record<string, string>; ttlMs: number; capAt?: string }): Promise<string | null>;
  setIfAbsent(key: string, value: string, options?: { ttlMs?: number }): Promise<boolean>;
  /**
   * A fixed-window counter exactly as rate-limiter-flexible's RateLimiterRedis keeps it (SET 0 EX
   * NX, INCRBY, PTTL), so the rate limiter can count in a round on the same key its own calls use.
   */
  windowHit(key: string, points: number, windowSec: number): Promise<{ consumed: number; msBeforeNext: number }>;
  /**
   * windowHit, counted only when the round's operation just before it is a windowHit that counted
   * at most `previousAtMost` (a request that limit allowed); else nothing is counted and it answers
   * null. Two limits in order (a client's, then its organization's) in one round trip, and a
   * request the first refuses never spends the second.
   */
  windowHitAfter(key: string, points: number, windowSec: number, previousAtMost: number): Promise<{ consumed: number; msBeforeNext: number } | null>;
}

/** What is wrong with a windowHitAfter's bound, if anything. */
export function previousAtMostError(previousAtMost: number): RangeError | undefined {
  return Number.isSafeInteger(previousAtMost) && previousAtMost >= 0 ? undefined : new RangeError(`previousAtMost must be a non-negative integer, got ${previousAtMost}`);
}

/** What is wrong with a windowHit's arguments, if anything (both stores check the same). */
export function windowArgumentError(points: number, windowSec: number): RangeError | undefined {
  if (!Number.isSafeInteger(points) || points < 1) return new RangeError(`points must be a positive integer, got ${points}`);
  if (!Number.isSafeInteger(windowSec) || windowSec < 1) return new RangeError(`windowSec must be a positive integer, got ${windowSec}`);
  return undefined;
}

export interface Lease {
  holder: string;
  /** The fencing token of this grant. */
  token: number;
  /** When it was granted (epoch milliseconds, the granting client's clock). */
  since: number;
}

/** How a lease is stored: "token|since|holder" (holders may contain "|"; the first two fields never do). */
export function encodeLease(lease: Lease): string {
  return `${lease.token}|${lease.since}|${lease.holder}`;
}

export function decodeLease(value: string | null): Lease | null {
  if (value === null) return null;
  const match = /^(\d+)\|(\d+)\|(.*)$/s.exec(value);
  if (!match) return null;
  return { token: Number(match[1]), since: Number(match[2]), holder: match[3]! };
}

export type RateLimitBackend =
  | {
      kind: "redis";
      /** The ioredis client; keys must start with keyPrefix. */
      client: unknown;
      keyPrefix: string;
      /** Waits for the connection on start-up and fails fast while Redis is down. */
      ready(): Promise<void>;
      /**
       * Whether Redis is answering: undefined when it answered a PING sent within the last few
       * milliseconds, else a promise of the next answer, rejected with StoreUnavailableError when
       * it is down or does not answer. Points an instance holds (rate-limit.ts WindowHoldings) are
       * used only then, so a store that is gone or frozen still fails the limits closed.
       */
      answering(): Promise<void> | undefined;
    }
  | {
      kind: "memory";
      /** Limiters by their settings, one map per store, so equal limiters share their counters. */
      limiters: Map<string, unknown>;
    };

export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";
  constructor(message = "session store unavailable", options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** By name, not class: the error may come from another bundle's copy of this module. */
export function isStoreUnavailable(value: unknown): boolean {
  return typeof value === "object" && value !== null && (value as { name?: unknown }).name === "StoreUnavailableError";
}
