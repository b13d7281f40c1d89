/**
 * How many payload bytes one organization's persistent sessions may have queued on the built-in
 * broker, all of them together (README "Limits": `MQTT_MAX_QUEUED_BYTES_PER_ORGANIZATION`). Each
 * session's copy of a message counts its payload; a message for a session without room is dropped
 * for that session (as one past `MQTT_MAX_QUEUED_PER_SESSION` is), never refused to its publisher:
 * connected clients still receive it live. Without this, an organization's sessions could hold
 * sessions × messages × message size (1,000 × 1,000 × 256 KiB by default) on a shared server.
 *
 * Embedded (one instance): counted exactly in memory, from the queues restored at start on.
 * With Redis: a total per organization and a hash per session of message → bytes, changed by
 * scripts, so that two instances never both take the last room and an acknowledgement gives back
 * exactly what its message took (a QoS 2 message's PUBCOMP too, whose stored PUBREL has no payload).
 */
import type { Redis } from "ioredis";

export interface QueuedBytes {
  /**
   * Which of `clientIds` (internal ids of one organization's sessions) may queue `message` (its
   * broker id and counter, `<broker>:<counter>`) of `bytes`, in order, taking each one's room as it goes.
   */
  reserve(organizationId: string, clientIds: string[], message: string, bytes: number): Promise<string[]>;
  /** `message` of `bytes` left `clientId`'s queue (acknowledged, expired, dropped). */
  release(organizationId: string, clientId: string, message: string, bytes: number): Promise<void>;
  /** `clientId`'s queue is empty or gone: whatever it still counts goes. */
  forget(organizationId: string, clientId: string): Promise<void>;
  /** The organization's queued bytes, all its sessions together. */
  usage(organizationId: string): Promise<number>;
  /** The bytes each of `clientIds` (internal ids of the organization's sessions) has queued, in order. */
  held(organizationId: string, clientIds: string[]): Promise<number[]>;
}

/** The embedded backend's count, in memory; `restored` counts a queued message read at start. */
export function memoryQueuedBytes(maxBytes: number): QueuedBytes & { restored(organizationId: string, clientId: string, bytes: number): void } {
  const totals = new Map<string, number>();
  const perClient = new Map<string, number>();
  const add = (organizationId: string, clientId: string, bytes: number) => {
    totals.set(organizationId, (totals.get(organizationId) ?? 0) + bytes);
    perClient.set(clientId, (perClient.get(clientId) ?? 0) + bytes);
  };
  const forget = (organizationId: string, clientId: string) => {
    const held = perClient.get(clientId) ?? 0;
    perClient.delete(clientId);
    const left = (totals.get(organizationId) ?? 0) - held;
    if (left > 0) totals.set(organizationId, left);
    else totals.delete(organizationId);
  };
  return {
    restored: add,
    async usage(organizationId) {
      return totals.get(organizationId) ?? 0;
    },
    async held(_organizationId, clientIds) {
      return clientIds.map((clientId) => perClient.get(clientId) ?? 0);
    },
    async reserve(organizationId, clientIds, _message, bytes) {
      const granted: string[] = [];
      for (const clientId of clientIds) {
        if ((totals.get(organizationId) ?? 0) + bytes > maxBytes) break;
        add(organizationId, clientId, bytes);
        granted.push(clientId);
      }
      return granted;
    },
    async release(organizationId, clientId, _message, bytes) {
      const held = perClient.get(clientId) ?? 0;
      if (held - bytes <= 0) forget(organizationId, clientId);
      else add(organizationId, clientId, -bytes);
    },
    async forget(organizationId, clientId) {
      forget(organizationId, clientId);
    },
  };
}

/**
 * KEYS: the organization's total, then each client's hash of message → bytes. ARGV: bytes, max
 * bytes, message, then the client ids in KEYS' order. Returns the client ids granted.
 */
const RESERVE = `
local bytes = tonumber(ARGV[1])
local total = tonumber(redis.call('GET', KEYS[1]) or '0')
local granted = {}
for i = 2, #KEYS do
  if total + bytes > tonumber(ARGV[2]) then break end
  if redis.call('HSETNX', KEYS[i], ARGV[3], bytes) == 1 then total = total + bytes end
  granted[#granted + 1] = ARGV[i + 2]
end
if total > 0 then redis.call('SET', KEYS[1], total) end
return granted
`;

/** KEYS: the organization's total, the client's hash. ARGV: the message. */
const RELEASE = `
local bytes = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
redis.call('HDEL', KEYS[2], ARGV[1])
if bytes > 0 and redis.call('DECRBY', KEYS[1], bytes) <= 0 then redis.call('DEL', KEYS[1]) end
return bytes
`;

/** KEYS: the organization's total, the client's hash. */
const FORGET = `
local held = 0
for _, bytes in ipairs(redis.call('HVALS', KEYS[2])) do held = held + tonumber(bytes) end
redis.call('DEL', KEYS[2])
if held > 0 and redis.call('DECRBY', KEYS[1], held) <= 0 then redis.call('DEL', KEYS[1]) end
return held
`;

/** KEYS: the client's hash. The bytes it holds. */
const SUM = `
local held = 0
for _, bytes in ipairs(redis.call('HVALS', KEYS[1])) do held = held + tonumber(bytes) end
return held
`;

/**
 * `redis`: the broker's data connection, whose own key prefix (the deployment's, then `mqtt:`)
 * these keys take. Each queued copy's bytes are kept under its message's id in its client's hash,
 * so a QoS 2 message's PUBCOMP (whose stored PUBREL has no payload) gives back what it took.
 */
export function redisQueuedBytes(redis: Redis, maxBytes: number): QueuedBytes {
  const total = (organizationId: string) => `queued-bytes:{${organizationId}}`;
  const client = (organizationId: string, clientId: string) => `queued-bytes:{${organizationId}}:${encodeURIComponent(clientId)}`;
  return {
    async usage(organizationId) {
      return Number((await redis.get(total(organizationId))) ?? 0);
    },
    async held(organizationId, clientIds) {
      return Promise.all(clientIds.map((clientId) => redis.eval(SUM, 1, client(organizationId, clientId)).then(Number)));
    },
    async reserve(organizationId, clientIds, message, bytes) {
      if (clientIds.length === 0) return [];
      const keys = [total(organizationId), ...clientIds.map((id) => client(organizationId, id))];
      return (await redis.eval(RESERVE, keys.length, ...keys, String(bytes), String(maxBytes), message, ...clientIds)) as string[];
    },
    async release(organizationId, clientId, message) {
      await redis.eval(RELEASE, 2, total(organizationId), client(organizationId, clientId), message);
    },
    async forget(organizationId, clientId) {
      await redis.eval(FORGET, 2, total(organizationId), client(organizationId, clientId));
    },
  };
}
