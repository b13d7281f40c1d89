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
  /** The state the next consume would see, without consuming anything. */
  peek(key: string): Promise<RateLimitResult>;
  /**
   * Where this limit counts in a store round, on Redis (consumeInOrder); absent in process, where
   * its counters live in the limiter and there is no round trip to share.
   */
  readonly window?: { storeKey(key: string): string; points: number; durationSec: number };
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
    ...(storeKeyOf ? { window: { storeKey: storeKeyOf, points, durationSec } } : {}),
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

/**
 * One point against `first`'s limit for its key, then one against `then`'s only if `first` allowed
 * it: a request that the first limit (a client's) refuses never spends the second (its
 * organization's). On Redis both go out in one round trip (the round's windowHitAfter); in process
 * one after the other. `then` is undefined when it was not counted.
 */
export async function consumeInOrder(
  via: StoreRound,
  [firstLimiter, firstKey]: [RateLimiter, string],
  [thenLimiter, thenKey]: [RateLimiter, string],
): Promise<{ first: RateLimitResult; then?: RateLimitResult }> {
  const a = firstLimiter.window;
  const b = thenLimiter.window;
  if (a && b) {
    const [first, then] = await Promise.all([
      via.windowHit(a.storeKey(firstKey), 1, a.durationSec).then((hit) => decided(hit, a.points), storeFailure),
      via.windowHitAfter(b.storeKey(thenKey), 1, b.durationSec, a.points).then((hit) => (hit ? decided(hit, b.points) : undefined), storeFailure),
    ]);
    return then ? { first, then } : { first };
  }
  const first = await firstLimiter.consume(firstKey);
  return first.allowed ? { first, then: await thenLimiter.consume(thenKey) } : { first };
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
