import { MemoryStore } from "./memory";
import { RedisStore } from "./redis";
import type { KeyValueStore } from "./types";

export type { KeyValueStore, Lease, StoreRound } from "./types";
export { StoreUnavailableError, isStoreUnavailable, type RateLimitBackend } from "./types";
export { MemoryStore, type MemoryStoreOptions } from "./memory";
export { RedisStore, type RedisStoreOptions } from "./redis";
export {
  consumeInOrder,
  createRateLimiter,
  type RateLimiter,
  type RateLimiterOptions,
  type RateLimitResult,
} from "./rate-limit";

/** Redis when a URL is configured (shared across app instances), otherwise in-process. */
export function createStore(options: { redisUrl?: string; keyPrefix?: string }): KeyValueStore {
  // An empty REDIS_URL (a blanked-out .env line) means "not configured", not "connect to nothing".
  const redisUrl = options.redisUrl?.trim();
  if (redisUrl) {
    return new RedisStore({ url: redisUrl, keyPrefix: options.keyPrefix });
  }
  // Nothing else shares an in-process store, so the prefix has nothing to keep apart there.
  return new MemoryStore();
}
