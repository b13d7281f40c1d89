/**
 * What one organization may keep retained on the built-in broker (README "Limits"): at most
 * `maxCount` retained messages and `maxBytes` of their payloads, all instances together. A retained
 * message kept costs its payload's bytes; replacing one costs the difference, clearing one (an
 * empty retained payload) gives its room back and is always allowed.
 *
 * Embedded (one instance): counted in memory, from the retained messages restored at start on.
 * With Redis: one hash of topic → bytes and one byte total per organization, changed together by
 * a script, so that two instances never both take the last room.
 */
import type { Redis } from "ioredis";

export interface RetainedLimits {
  maxCount: number;
  maxBytes: number;
}

export interface RetainedQuota {
  /**
   * Whether the organization may keep `bytes` retained at `topic` (its own topic, without the
   * organization's prefix); when it may, the room is taken (0 bytes: the topic's room is given back).
   */
  reserve(organizationId: string, topic: string, bytes: number): Promise<boolean>;
}

interface Usage {
  bytes: number;
  sizes: Map<string, number>;
}

export function memoryRetainedQuota(limits: RetainedLimits): RetainedQuota & { restored(organizationId: string, topic: string, bytes: number): void } {
  const usage = new Map<string, Usage>();
  const of = (organizationId: string) => {
    let u = usage.get(organizationId);
    if (!u) usage.set(organizationId, (u = { bytes: 0, sizes: new Map() }));
    return u;
  };
  const put = (u: Usage, topic: string, bytes: number) => {
    const old = u.sizes.get(topic) ?? 0;
    u.bytes += bytes - old;
    if (bytes === 0) u.sizes.delete(topic);
    else u.sizes.set(topic, bytes);
  };
  return {
    restored(organizationId, topic, bytes) {
      if (bytes > 0) put(of(organizationId), topic, bytes);
    },
    async reserve(organizationId, topic, bytes) {
      const u = of(organizationId);
      const old = u.sizes.get(topic);
      // A replacement no larger than what it replaces always fits (limits lowered below the usage).
      if (bytes > 0 && !(old !== undefined && bytes <= old)) {
        const count = u.sizes.size + (old === undefined ? 1 : 0);
        if (count > limits.maxCount || u.bytes - (old ?? 0) + bytes > limits.maxBytes) return false;
      }
      put(u, topic, bytes);
      if (u.sizes.size === 0) usage.delete(organizationId);
      return true;
    },
  };
}

/** KEYS: the organization's sizes hash, its byte total. ARGV: topic, bytes, max count, max bytes. 1: taken, 0: refused. */
const RESERVE = `
local old = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
local size = tonumber(ARGV[2])
if size == 0 then
  if old > 0 then
    redis.call('HDEL', KEYS[1], ARGV[1])
    redis.call('DECRBY', KEYS[2], old)
  end
  return 1
end
local count = redis.call('HLEN', KEYS[1])
if old == 0 then count = count + 1 end
local total = tonumber(redis.call('GET', KEYS[2]) or '0') - old + size
if not (old > 0 and size <= old) and (count > tonumber(ARGV[3]) or total > tonumber(ARGV[4])) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], size)
redis.call('INCRBY', KEYS[2], size - old)
return 1
`;

/** `redis`: the broker's data connection, whose own key prefix (the deployment's, then `mqtt:`) these keys take. */
export function redisRetainedQuota(redis: Redis, limits: RetainedLimits): RetainedQuota {
  return {
    async reserve(organizationId, topic, bytes) {
      const base = `retained:{${organizationId}}`;
      const taken = await redis.eval(RESERVE, 2, `${base}:sizes`, `${base}:bytes`, topic, String(bytes), String(limits.maxCount), String(limits.maxBytes));
      return taken === 1;
    },
  };
}
