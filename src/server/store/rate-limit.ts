import {
  RateLimiterMemory,
  RateLimiterRedis,
  type RateLimiterAbstract,
  type RateLimiterRes,
} from "rate-limiter-flexible";
import type { Redis } from "ioredis";
import { isStoreUnavailable, StoreUnavailableError, type KeyValueStore, type StoreRound } from "./types";

export interface RateLimitResult {
  allowed: boolean;
  remaining: number;
  /** Seconds until another attempt can succeed; 0 when allowed. */
  retryAfterSec: number;
}

export interface RateLimiter {
  /**
   * Counts `points` (default 1) against the key. With `via`, on Redis the count goes out in that
   * round (one round trip with the request's other store work) on the very key the limiter's own
   * calls use; in-process there is no round trip to share and `via` is not needed.
   */
  consume(key: string, points?: number, via?: StoreRound): Promise<RateLimitResult>;
  /**
   * Counts `count` requests of one point each against the key at once (in `via`'s round on Redis)
   * and answers each as if it had come alone, in order: with 2 points left, three requests get
   * allowed, allowed, refused. What a round shared by a credential's requests uses (shared-rounds.ts).
   */
  consumeEach(key: string, count: number, via?: StoreRound): Promise<RateLimitResult[]>;
  /** The state the next consume would see, without consuming anything. */
  peek(key: string): Promise<RateLimitResult>;
  /**
   * Where this limit counts in a store round, on Redis (consumeInOrder); absent in process, where
   * its counters live in the limiter and there is no round trip to share.
   */
  readonly window?: { storeKey(key: string): string; points: number; durationSec: number; held: WindowHoldings; answering(): Promise<void> | undefined };
  reset(key: string): Promise<void>;
}

export interface RateLimiterOptions {
  /** Names the limit ("login", "signup-ip"); limiters sharing a prefix share their counters. */
  keyPrefix: string;
  points: number;
  durationSec: number;
}

/**
 * A fixed-window limiter on top of the configured store: in-process for MemoryStore, shared
 * through Redis for RedisStore. Store failures reject with StoreUnavailableError, so callers fail
 * closed exactly as they do for the store itself.
 */
export function createRateLimiter(store: KeyValueStore, options: RateLimiterOptions): RateLimiter {
  const { keyPrefix, points, durationSec } = options;
  if (!Number.isSafeInteger(points) || points < 1) {
    throw new RangeError(`points must be a positive integer, got ${points}`);
  }
  // rate-limiter-flexible hands Redis whole seconds (floor), so a fractional window would shrink.
  if (!Number.isSafeInteger(durationSec) || durationSec < 1) {
    throw new RangeError(`durationSec must be a positive integer, got ${durationSec}`);
  }
  if (keyPrefix === "") throw new RangeError("keyPrefix must not be empty");

  let limiter: RateLimiterAbstract;
  let ensureAvailable: () => Promise<void>;
  /** The limiter's key as a store key (without the store's prefix), where a round can count it. */
  let storeKeyOf: ((key: string) => string) | undefined;
  /** On Redis: resolves once it has answered a command sent after the call (held points are used only then). */
  let answering: (() => Promise<void> | undefined) | undefined;
  const backend = store.rateLimitBackend();
  if (backend.kind === "redis") {
    limiter = new RateLimiterRedis({
      storeClient: backend.client as Redis,
      // ioredis, not node-redis: the library then uses ioredis' call style and reply shapes.
      useRedisPackage: false,
      // Under the store's prefix, so apps sharing a Redis keep their counters apart.
      keyPrefix: `${backend.keyPrefix}rl:${keyPrefix}`,
      points,
      duration: durationSec,
      // inMemoryBlockOnConsumed stays off: a block remembered by one instance would outlive a
      // reset() issued through another, and Redis is the single source of truth.
    });
    // The library would send commands straight into a connection that may still be starting, or
    // be down; the store's own readiness check gives the same wait-on-start-up and fail-fast.
    ensureAvailable = backend.ready;
    // rate-limiter-flexible's key: its keyPrefix and the key joined by ":".
    storeKeyOf = (key) => `rl:${keyPrefix}:${key}`;
    answering = backend.answering;
  } else {
    // Limiters with the same settings on the same store share their counters, the way they would
    // in Redis, while separate stores (tests, other instances) never do.
    const cacheKey = `${keyPrefix}\u0000${points}\u0000${durationSec}`;
    let memoryLimiter = backend.limiters.get(cacheKey) as RateLimiterMemory | undefined;
    if (!memoryLimiter) {
      memoryLimiter = new RateLimiterMemory({ keyPrefix, points, duration: durationSec });
      backend.limiters.set(cacheKey, memoryLimiter);
    }
    limiter = memoryLimiter;
    // Counters live in the limiter, not the store, so a closed store must be checked explicitly.
    ensureAvailable = () => store.ping();
  }

  const translateFailure = (error: unknown): never => {
    if (isStoreUnavailable(error)) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    throw new StoreUnavailableError(`rate limiter store unavailable: ${detail}`, { cause: error });
  };

  async function consumeAlone(key: string, cost: number): Promise<RateLimitResult> {
    await ensureAvailable();
    try {
      const res = await limiter.consume(key, cost);
      return { allowed: true, remaining: res.remainingPoints, retryAfterSec: 0 };
    } catch (error) {
      // Over the limit is an answer, not a failure: the library rejects with the counter state.
      if (isRateLimiterRes(error)) {
        return { allowed: false, remaining: error.remainingPoints, retryAfterSec: retryAfter(error) };
      }
      return translateFailure(error);
    }
  }

  return {
    ...(storeKeyOf && answering ? { window: { storeKey: storeKeyOf, points, durationSec, held: new WindowHoldings(points), answering } } : {}),
    consume(key, cost = 1, via) {
      if (!Number.isSafeInteger(cost) || cost < 1) {
        return Promise.reject(new RangeError(`points to consume must be a positive integer, got ${cost}`));
      }
      // Added to the round synchronously (a round takes operations until the current run ends).
      if (via && storeKeyOf) {
        return via.windowHit(storeKeyOf(key), cost, durationSec).then((hit) => decided(hit, points), translateFailure);
      }
      return consumeAlone(key, cost);
    },

    consumeEach(key, count, via) {
      if (!Number.isSafeInteger(count) || count < 1) {
        return Promise.reject(new RangeError(`requests to count must be a positive integer, got ${count}`));
      }
      if (via && storeKeyOf) {
        // One INCRBY of `count`: the i-th request's count is what the window held before plus i + 1.
        return via.windowHit(storeKeyOf(key), count, durationSec).then(
          ({ consumed, msBeforeNext }) => Array.from({ length: count }, (_, i) => decided({ consumed: consumed - count + 1 + i, msBeforeNext }, points)),
          translateFailure,
        );
      }
      const each: Array<Promise<RateLimitResult>> = [];
      for (let i = 0; i < count; i++) each.push(consumeAlone(key, 1));
      return Promise.all(each);
    },

    async peek(key) {
      await ensureAvailable();
      let res: RateLimiterRes | null;
      try {
        res = await limiter.get(key);
      } catch (error) {
        return translateFailure(error);
      }
      if (!res || res.consumedPoints < points) {
        return { allowed: true, remaining: res ? res.remainingPoints : points, retryAfterSec: 0 };
      }
      return { allowed: false, remaining: 0, retryAfterSec: retryAfter(res) };
    },

    async reset(key) {
      await ensureAvailable();
      try {
        await limiter.delete(key);
      } catch (error) {
        translateFailure(error);
      }
    },
  };
}

/** What RateLimiterRedis decides from a window hit's two numbers. */
function decided({ consumed, msBeforeNext }: { consumed: number; msBeforeNext: number }, points: number): RateLimitResult {
  if (consumed > points) return { allowed: false, remaining: 0, retryAfterSec: Math.max(1, Math.ceil(msBeforeNext / 1000)) };
  return { allowed: true, remaining: points - consumed, retryAfterSec: 0 };
}

function storeFailure(error: unknown): never {
  if (isStoreUnavailable(error)) throw error;
  throw new StoreUnavailableError(`rate limiter store unavailable: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}

/** A block is at most this many points, and at most this share (1/n) of what the window has left. */
const MAX_BLOCK = 64;
const BLOCK_SHARE = 16;
/** Keys an instance holds points for, per limiter (the least recently counted are dropped first). */
const MAX_HELD_KEYS = 10_000;

interface Held {
  /** When the points stop being usable: the window's end as the instance saw it (the hit's send time + its TTL). */
  until: number;
  /** Points counted in Redis for this instance and not used yet. */
  reserved: number;
  /** The window's count in Redis at the last hit. */
  seen: number;
}

/**
 * Points of a limit's current window that this instance has already counted in Redis and not
 * used yet, per key (consumeInOrder). A request that finds one uses it without a round trip; one
 * that finds none counts a block at once: at most 64 points and a sixteenth of what the window has
 * left (so 1 near the limit, and for limits under 32 always 1, one round trip per request as
 * before). What a block brings past the limit is never granted, so the instances together never
 * admit more than the limit; what an instance holds unused when its window ends is simply
 * counted, which can only refuse early, by at most a block per instance and key. A reservation is
 * never used past the end of the window it was counted in, measured from before the hit was sent.
 */
export class WindowHoldings {
  private readonly held = new Map<string, Held>();
  private readonly inFlight = new Map<string, Promise<RateLimitResult | undefined>>();

  constructor(private readonly points: number) {}

  /**
   * The key's hit in flight that may bring points beyond its own request's (a block of more than
   * one), if any: what a request finding no point waits for. A hit of one point serves only its
   * own request, so a request does not queue behind it (small limits stay one round trip each).
   */
  pending(key: string): Promise<RateLimitResult | undefined> | undefined {
    return this.inFlight.get(key);
  }

  /** Marks a hit of `size` points of the key as in flight until it settles (undefined: it was not counted). */
  track(key: string, size: number, hit: Promise<RateLimitResult | undefined>): void {
    if (size <= 1) return;
    this.inFlight.set(key, hit);
    // Registered before any waiter's: a waiter that wakes finds it gone.
    const clear = () => {
      if (this.inFlight.get(key) === hit) this.inFlight.delete(key);
    };
    hit.then(clear, clear);
  }

  /** One point held for the key, if the instance holds any of the window still running. */
  take(key: string, now: number): RateLimitResult | undefined {
    const held = this.held.get(key);
    if (!held || held.reserved <= 0 || now >= held.until) return undefined;
    held.reserved--;
    return { allowed: true, remaining: Math.max(0, this.points - held.seen) + held.reserved, retryAfterSec: 0 };
  }

  /** Whether the instance holds a point for the key, without taking it. */
  holds(key: string, now: number): boolean {
    const held = this.held.get(key);
    return held !== undefined && held.reserved > 0 && now < held.until;
  }

  /** How many points the next hit for the key counts. */
  block(key: string, now: number): number {
    const held = this.held.get(key);
    const seen = held && now < held.until ? held.seen : 0;
    return Math.min(MAX_BLOCK, Math.max(1, Math.floor((this.points - seen) / BLOCK_SHARE)));
  }

  /** A hit of `block` points came back: one of the points it brought within the limit for this request, the rest held. */
  counted(key: string, block: number, hit: { consumed: number; msBeforeNext: number }, sentAt: number): RateLimitResult {
    const granted = Math.min(block, Math.max(0, this.points - (hit.consumed - block)));
    const until = sentAt + hit.msBeforeNext;
    const before = this.held.get(key);
    // Another hit's block of the same window (concurrent requests) stays usable beside this one's.
    const kept = before && before.until > sentAt ? before.reserved : 0;
    this.held.delete(key);
    this.held.set(key, { until: Math.min(until, before && kept > 0 ? before.until : until), reserved: kept + Math.max(0, granted - 1), seen: Math.max(hit.consumed, kept > 0 ? before!.seen : 0) });
    if (this.held.size > MAX_HELD_KEYS) this.held.delete(this.held.keys().next().value!);
    if (granted < 1) return { allowed: false, remaining: 0, retryAfterSec: Math.max(1, Math.ceil(hit.msBeforeNext / 1000)) };
    return { allowed: true, remaining: Math.max(0, this.points - hit.consumed) + granted - 1, retryAfterSec: 0 };
  }
}

/**
 * How many times a request waits for another's hit of the same key before it counts its own. Each
 * wait ends with a hit that brought points or was refused, so this only bounds a request's wait in
 * a long burst; a low bound let the burst's late requests each count a block (a sixth of a limit
 * left held and unused in the holdings test).
 */
const MAX_WAITS = 64;

/**
 * One point of the limit for the key: one the instance holds; else, when a hit for the key is in
 * flight, what it brings (a burst of requests at a window's start waits for one block instead of
 * each counting its own, which would leave most of the limit held and unused); else a hit of its own.
 */
async function admitOne(store: Pick<KeyValueStore, "round">, window: NonNullable<RateLimiter["window"]>, key: string): Promise<RateLimitResult> {
  for (let waits = 0; ; waits++) {
    const held = window.held.take(key, Date.now());
    if (held) return held;
    const pending = window.held.pending(key);
    if (!pending || waits >= MAX_WAITS) return hitAlone(store, window, key);
    const outcome = await pending.catch(() => undefined);
    // The hit it waited for was refused: so is this request, unless a point is held after all.
    if (outcome && !outcome.allowed) return window.held.take(key, Date.now()) ?? { allowed: false, remaining: 0, retryAfterSec: outcome.retryAfterSec };
  }
}

/** A block of the limit's window counted in the store for the key, one of its points for this request. */
function hitAlone(store: Pick<KeyValueStore, "round">, window: NonNullable<RateLimiter["window"]>, key: string): Promise<RateLimitResult> {
  const now = Date.now();
  const size = window.held.block(key, now);
  const hit = store
    .round()
    .windowHit(window.storeKey(key), size, window.durationSec)
    .then((counted) => window.held.counted(key, size, counted, now), storeFailure);
  window.held.track(key, size, hit);
  return hit;
}

/**
 * One point against `first`'s limit for its key, then one against `then`'s only if `first` allowed
 * it: a request that the first limit (a client's) refuses never spends the second (its
 * organization's). On Redis both go out in one round trip (the round's windowHitAfter), counting
 * blocks that the instance then holds (WindowHoldings): a request for which both limits hold a
 * point makes no round trip at all. In process one after the other. `then` is undefined when it
 * was not counted.
 */
export async function consumeInOrder(
  store: Pick<KeyValueStore, "round">,
  [firstLimiter, firstKey]: [RateLimiter, string],
  [thenLimiter, thenKey]: [RateLimiter, string],
): Promise<{ first: RateLimitResult; then?: RateLimitResult }> {
  const a = firstLimiter.window;
  const b = thenLimiter.window;
  if (a && b) {
    const now = Date.now();
    if (!a.held.holds(firstKey, now) && !a.held.pending(firstKey) && !b.held.holds(thenKey, now) && !b.held.pending(thenKey)) {
      // Neither holds a point nor waits for a hit: both counted in one round trip.
      const round = store.round();
      const firstSize = a.held.block(firstKey, now);
      const thenSize = b.held.block(thenKey, now);
      const firstHit = round.windowHit(a.storeKey(firstKey), firstSize, a.durationSec).then((hit) => a.held.counted(firstKey, firstSize, hit, now), storeFailure);
      // Counted only when the first hit brought a point within its limit (its count before the
      // hit was under the limit).
      const thenHit = round
        .windowHitAfter(b.storeKey(thenKey), thenSize, b.durationSec, a.points + firstSize - 1)
        .then((hit) => (hit ? b.held.counted(thenKey, thenSize, hit, now) : undefined), storeFailure);
      a.held.track(firstKey, firstSize, firstHit);
      b.held.track(thenKey, thenSize, thenHit);
      const [first, then] = await Promise.all([firstHit, thenHit]);
      return then ? { first, then } : { first };
    }
    // What the instance holds is used only while Redis answers (it answered a PING sent within
    // the last few milliseconds, else the request waits for one), so a store that is gone or
    // frozen still fails the limits closed, as a round of its own would.
    const answering = a.answering();
    if (!answering) return admitBoth(store, a, firstKey, b, thenKey);
    const [, admitted] = await Promise.all([answering.catch(storeFailure), admitBoth(store, a, firstKey, b, thenKey)]);
    return admitted;
  }
  const first = await firstLimiter.consume(firstKey);
  return first.allowed ? { first, then: await thenLimiter.consume(thenKey) } : { first };
}

async function admitBoth(
  store: Pick<KeyValueStore, "round">,
  a: NonNullable<RateLimiter["window"]>,
  firstKey: string,
  b: NonNullable<RateLimiter["window"]>,
  thenKey: string,
): Promise<{ first: RateLimitResult; then?: RateLimitResult }> {
  const first = await admitOne(store, a, firstKey);
  if (!first.allowed) return { first };
  return { first, then: await admitOne(store, b, thenKey) };
}

// By shape, not class: a memory limiter lives on the store and may have been created by another
// bundle's copy of rate-limiter-flexible.
function isRateLimiterRes(value: unknown): value is RateLimiterRes {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as RateLimiterRes).msBeforeNext === "number" &&
    typeof (value as RateLimiterRes).remainingPoints === "number"
  );
}

function retryAfter(res: RateLimiterRes): number {
  // Never 0 while refused: "Retry-After: 0" invites an immediate retry that is refused again.
  return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
}
