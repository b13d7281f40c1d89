import { createRequire } from "node:module";
import type { Redis, RedisOptions } from "ioredis";
import { decodeLease, isStoreUnavailable, StoreUnavailableError, type KeyValueStore, type Lease, type RateLimitBackend, type StoreRound, previousAtMostError, windowArgumentError } from "./types";

export interface RedisStoreOptions {
  url: string;
  /** Prepended to every key and channel so several apps can share one Redis. */
  keyPrefix?: string;
  /** Receives errors thrown by subscription handlers; by default they become process warnings. */
  onHandlerError?: (error: unknown, channel: string) => void;
}

const CONNECT_TIMEOUT_MS = 2_000;
const COMMAND_TIMEOUT_MS = 2_000;
/** How long a PING that Redis answered shows it answering (RedisStore.answering). */
const LIVENESS_WINDOW_MS = 5;
const SOCKET_TIMEOUT_MS = 2_500;
const MAX_RECONNECT_DELAY_MS = 2_000;

// INCRBY and the TTL in one script so no other client can observe (or race) the key in between.
// EXISTS rather than PEXPIRE NX: NX would also arm a TTL on an existing key that has none, while
// the contract is that ttlMs only applies to a key this call creates.
const INCR_SCRIPT = `
local created = redis.call('EXISTS', KEYS[1]) == 0
local value = redis.call('INCRBY', KEYS[1], ARGV[1])
local ttl = tonumber(ARGV[2])
if created and ttl > 0 then
  redis.call('PEXPIRE', KEYS[1], ttl)
end
return value
`;

/**
 * touchJson: GET, rewrite some fields, SET with the new TTL, in one atomic step; a missing key is
 * left missing. The fields come from ARGV, `count` pairs from index `first`. The cap is an
 * ISO-8601 UTC instant (what Date#toISOString writes), converted with the days-from-civil algorithm
 * (Lua in Redis has no date functions). Shared by the touchJson script and the round script.
 */
const TOUCH_JSON_FUNCTION = `
local function touchJson(key, ttl, now, capField, first, count)
  local raw = redis.call('GET', key)
  if not raw then return false end
  local ok, obj = pcall(cjson.decode, raw)
  if not ok or type(obj) ~= 'table' then return raw end
  if capField ~= '' and type(obj[capField]) == 'string' then
    local y, mo, d, h, mi, se, frac = string.match(obj[capField], '^(%d+)-(%d+)-(%d+)T(%d+):(%d+):(%d+)%.?(%d*)Z$')
    if y then
      y = tonumber(y); mo = tonumber(mo); d = tonumber(d)
      if mo <= 2 then y = y - 1 end
      local era = math.floor(y / 400)
      local yoe = y - era * 400
      local mp = (mo + 9) % 12
      local doy = math.floor((153 * mp + 2) / 5) + d - 1
      local doe = yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy
      local days = era * 146097 + doe - 719468
      local ms = 0
      if frac ~= '' then ms = tonumber(string.sub(frac .. '000', 1, 3)) end
      local cap = ((days * 24 + tonumber(h)) * 60 + tonumber(mi)) * 60000 + tonumber(se) * 1000 + ms
      if cap - now < ttl then ttl = cap - now end
    end
  end
  if ttl <= 0 then return raw end
  for i = first, first + 2 * count - 1, 2 do obj[ARGV[i]] = ARGV[i + 1] end
  local updated = cjson.encode(obj)
  redis.call('SET', key, updated, 'PX', math.ceil(ttl))
  return updated
end
`;

/** ARGV: ttlMs, now (ms since the epoch), capAt field ('' for none), then field/value pairs. */
const TOUCH_JSON_SCRIPT = `${TOUCH_JSON_FUNCTION}
return touchJson(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], 4, (#ARGV - 3) / 2)
`;

/**
 * A round (KeyValueStore.round): one key per operation; ARGV[1] is now (ms since the epoch), then
 * each operation's code and arguments in KEYS order:
 *   g                                    get
 *   n value ttlMs|''                     setIfAbsent (1 when set, else 0)
 *   w points windowSec                   windowHit: rate-limiter-flexible's own script (SET 0 EX NX,
 *                                        INCRBY, PTTL), so its counters and ours are one
 *   W points windowSec previousAtMost    windowHitAfter: the same, only if the operation before it was
 *                                        a windowHit that counted at most previousAtMost (else false)
 *   t ttlMs capField count field value…  touchJson
 */
const ROUND_SCRIPT = `${TOUCH_JSON_FUNCTION}
local now = tonumber(ARGV[1])
local a = 2
local out = {}
local function hit(key, points, windowSec)
  redis.call('SET', key, 0, 'EX', windowSec, 'NX')
  local consumed = redis.call('INCRBY', key, points)
  local ttl = redis.call('PTTL', key)
  if ttl == -1 then
    redis.call('EXPIRE', key, windowSec)
    ttl = 1000 * windowSec
  end
  return {consumed, ttl}
end
-- What the previous operation counted, when it was a window hit.
local last = nil
for i = 1, #KEYS do
  local key = KEYS[i]
  local op = ARGV[a]
  local counted = nil
  if op == 'g' then
    out[i] = redis.call('GET', key)
    a = a + 1
  elseif op == 'n' then
    local set
    if ARGV[a + 2] == '' then set = redis.call('SET', key, ARGV[a + 1], 'NX')
    else set = redis.call('SET', key, ARGV[a + 1], 'PX', ARGV[a + 2], 'NX') end
    if set then out[i] = 1 else out[i] = 0 end
    a = a + 3
  elseif op == 'w' then
    out[i] = hit(key, ARGV[a + 1], ARGV[a + 2])
    counted = out[i][1]
    a = a + 3
  elseif op == 'W' then
    if last ~= nil and last <= tonumber(ARGV[a + 3]) then
      out[i] = hit(key, ARGV[a + 1], ARGV[a + 2])
      counted = out[i][1]
    else
      out[i] = false
    end
    a = a + 4
  elseif op == 't' then
    local count = tonumber(ARGV[a + 3])
    out[i] = touchJson(key, tonumber(ARGV[a + 1]), now, ARGV[a + 2], a + 4, count)
    a = a + 4 + 2 * count
  else
    return redis.error_reply('unknown round operation ' .. tostring(op))
  end
  last = counted
end
return out
`;

// Leases: "token|since|holder" under the key, the fencing counter under key + ":fence" (no TTL, so
// tokens keep growing across grants). Renew and release act only on the grant with that token.
const LEASE_ACQUIRE_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return nil end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], token .. '|' .. ARGV[3] .. '|' .. ARGV[1], 'PX', ARGV[2])
return token
`;
export const LEASE_RENEW_SCRIPT = `
local value = redis.call('GET', KEYS[1])
if not value or string.match(value, '^(%d+)|') ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;
const LEASE_RELEASE_SCRIPT = `
local value = redis.call('GET', KEYS[1])
if not value or string.match(value, '^(%d+)|') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
`;

// Compare-and-set and compare-and-delete on a plain value (webhook routes): GET and the write in
// one script, so no other client's write can fall in between.
const SET_IF_ABSENT_OR_EQUAL_SCRIPT = `
local value = redis.call('GET', KEYS[1])
if value and value ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('SET', KEYS[1], ARGV[1])
else redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return 1
`;
const DEL_IF_EQUAL_SCRIPT = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
`;

type ScriptedRedis = Redis & {
  fpSetIfAbsentOrEqual(key: string, value: string, ttlMs: number | ""): Promise<number>;
  fpDelIfEqual(key: string, value: string): Promise<number>;
  fpIncr(key: string, by: number, ttlMs: number): Promise<number>;
  fpTouchJson(key: string, ...args: Array<string | number>): Promise<string | null>;
  fpRound(keyCount: number, ...keysAndArgs: Array<string | number>): Promise<unknown[]>;
  fpLeaseAcquire(key: string, fenceKey: string, holder: string, ttlMs: number, now: number): Promise<number | null>;
  fpLeaseRenew(key: string, token: string, ttlMs: number): Promise<number>;
  fpLeaseRelease(key: string, token: string): Promise<number>;
};

interface Subscription {
  handler: (message: string) => void;
}

interface ChannelState {
  subscriptions: Set<Subscription>;
  /** Settles when the SUBSCRIBE for this channel has been acknowledged (or failed). */
  active: Promise<void>;
}

/**
 * The shared store. It fails fast instead of queueing: with Redis down every call rejects with
 * StoreUnavailableError within about two seconds, while the client keeps reconnecting in the
 * background and picks up again on its own once Redis is back.
 */
export class RedisStore implements KeyValueStore {
  readonly kind = "redis" as const;
  /** Exposed for rate-limiter-flexible, which talks to Redis itself. Keys must use keyPrefix. */
  readonly client: Redis;
  readonly keyPrefix: string;
  /** Commands (and batched rounds) sent through run(), the one door to the main connection. */
  roundTrips = 0;
  /** The PINGs of answering(), which are not counted in roundTrips. */
  livenessPings = 0;

  private subscriber: Redis | null = null;
  private readonly channels = new Map<string, ChannelState>();
  private readonly readyWaits = new Map<Redis, Promise<void>>();
  private readonly onHandlerError: (error: unknown, channel: string) => void;
  private lastError: Error | undefined;
  private closed = false;

  private readonly url: string;

  constructor(options: RedisStoreOptions) {
    this.url = options.url;
    this.keyPrefix = options.keyPrefix ?? "fp:";
    this.onHandlerError = options.onHandlerError ?? warnOnHandlerError;
    const redisOptions: RedisOptions = {
      // Commands issued while disconnected are rejected at once instead of piling up in memory
      // and hanging their callers until Redis returns.
      enableOfflineQueue: false,
      // Each command is written at once. A request's session, access generation, rate limit and
      // flows generation are one command already (round()); ioredis's auto-pipelining, which sends
      // a turn's commands together, then only wrapped that one command in a pipeline of its own
      // and held it until the turn ended: without it GET /flows went from 10.2-10.9k to
      // 12.8-13.9k req/s and inject from 6.1-6.4k to 6.9-7.3k (docs/BENCHMARKS.md, round 16).
      // Holding a turn's commands with cork() instead was slower still (inject 6.0-6.1k).
      enableAutoPipelining: false,
      maxRetriesPerRequest: 1,
      connectTimeout: CONNECT_TIMEOUT_MS,
      commandTimeout: COMMAND_TIMEOUT_MS,
      // commandTimeout only rejects the caller; on a connection that died silently (no FIN/RST,
      // e.g. the host vanished) every later command would time out too, for as long as the kernel
      // keeps the socket. Dropping a socket that owes replies makes the client reconnect instead.
      socketTimeout: SOCKET_TIMEOUT_MS,
      // Never give up: an outage of any length must heal without restarting the app.
      retryStrategy: (attempt) => Math.min(attempt * 100, MAX_RECONNECT_DELAY_MS),
      scripts: {
        fpIncr: { lua: INCR_SCRIPT, numberOfKeys: 1 },
        fpTouchJson: { lua: TOUCH_JSON_SCRIPT, numberOfKeys: 1 },
        // The number of keys comes first in each call: a round has one per operation.
        fpRound: { lua: ROUND_SCRIPT },
        fpLeaseAcquire: { lua: LEASE_ACQUIRE_SCRIPT, numberOfKeys: 2 },
        fpLeaseRenew: { lua: LEASE_RENEW_SCRIPT, numberOfKeys: 1 },
        fpLeaseRelease: { lua: LEASE_RELEASE_SCRIPT, numberOfKeys: 1 },
        fpSetIfAbsentOrEqual: { lua: SET_IF_ABSENT_OR_EQUAL_SCRIPT, numberOfKeys: 1 },
        fpDelIfEqual: { lua: DEL_IF_EQUAL_SCRIPT, numberOfKeys: 1 },
      },
    };
    // ioredis is loaded by the first RedisStore: the embedded defaults (in-process store) never load it.
    const { Redis: RedisClient } = createRequire(import.meta.url)("ioredis") as typeof import("ioredis");
    this.client = new RedisClient(options.url, redisOptions);
    this.watch(this.client);
  }

  async get(key: string): Promise<string | null> {
    return this.run(() => this.client.get(this.k(key)));
  }

  async set(key: string, value: string, options: { ttlMs?: number } = {}): Promise<void> {
    const ttlMs = options.ttlMs === undefined ? undefined : toTtlMs(options.ttlMs);
    await this.run(() =>
      ttlMs === undefined
        ? this.client.set(this.k(key), value)
        : this.client.set(this.k(key), value, "PX", ttlMs),
    );
  }

  async setIfAbsent(key: string, value: string, options: { ttlMs?: number } = {}): Promise<boolean> {
    const ttlMs = options.ttlMs === undefined ? undefined : toTtlMs(options.ttlMs);
    const reply = await this.run(() =>
      ttlMs === undefined
        ? this.client.set(this.k(key), value, "NX")
        : this.client.set(this.k(key), value, "PX", ttlMs, "NX"),
    );
    return reply === "OK";
  }

  async setIfPresent(key: string, value: string, options: { ttlMs?: number } = {}): Promise<boolean> {
    const ttlMs = options.ttlMs === undefined ? undefined : toTtlMs(options.ttlMs);
    const reply = await this.run(() =>
      ttlMs === undefined
        ? this.client.set(this.k(key), value, "XX")
        : this.client.set(this.k(key), value, "PX", ttlMs, "XX"),
    );
    return reply === "OK";
  }

  async setIfAbsentOrEqual(key: string, value: string, options: { ttlMs?: number } = {}): Promise<boolean> {
    const ttlMs = options.ttlMs === undefined ? "" : toTtlMs(options.ttlMs);
    return (await this.run(() => (this.client as ScriptedRedis).fpSetIfAbsentOrEqual(this.k(key), value, ttlMs))) === 1;
  }

  async delIfEqual(key: string, value: string): Promise<boolean> {
    return (await this.run(() => (this.client as ScriptedRedis).fpDelIfEqual(this.k(key), value))) === 1;
  }

  async del(...keys: string[]): Promise<number> {
    if (keys.length === 0) {
      await this.run(async () => undefined);
      return 0;
    }
    // DEL counts a key named twice only once, like MemoryStore.
    return this.run(() => this.client.del(...keys.map((key) => this.k(key))));
  }

  async incr(key: string, options: { by?: number; ttlMs?: number } = {}): Promise<number> {
    const by = options.by ?? 1;
    if (!Number.isSafeInteger(by)) throw new RangeError(`incr step must be a safe integer, got ${by}`);
    const ttlMs = options.ttlMs === undefined ? 0 : toTtlMs(options.ttlMs);
    return this.run(() => (this.client as ScriptedRedis).fpIncr(this.k(key), by, ttlMs));
  }

  async expire(key: string, ttlMs: number): Promise<boolean> {
    const ms = toTtlMs(ttlMs);
    const reply = await this.run(() => this.client.pexpire(this.k(key), ms));
    return reply === 1;
  }

  async ttl(key: string): Promise<number | null> {
    const reply = await this.run(() => this.client.pttl(this.k(key)));
    // -2: no such key, -1: no TTL.
    return reply < 0 ? null : reply;
  }

  async touchJson(key: string, options: { set: Record<string, string>; ttlMs: number; capAt?: string }): Promise<string | null> {
    const ttlMs = toTtlMs(options.ttlMs);
    const pairs = Object.entries(options.set).flat();
    return this.run(() => (this.client as ScriptedRedis).fpTouchJson(this.k(key), ttlMs, Date.now(), options.capAt ?? "", ...pairs));
  }

  async setAdd(key: string, ...members: string[]): Promise<void> {
    if (members.length === 0) {
      await this.run(async () => undefined);
      return;
    }
    await this.run(() => this.client.sadd(this.k(key), ...members));
  }

  async setRemove(key: string, ...members: string[]): Promise<void> {
    if (members.length === 0) {
      await this.run(async () => undefined);
      return;
    }
    await this.run(() => this.client.srem(this.k(key), ...members));
  }

  async setMembers(key: string): Promise<string[]> {
    return this.run(() => this.client.smembers(this.k(key)));
  }

  async leaseAcquire(key: string, holder: string, ttlMs: number): Promise<Lease | null> {
    const ms = toTtlMs(ttlMs);
    const since = Date.now();
    const token = await this.run(() => (this.client as ScriptedRedis).fpLeaseAcquire(this.k(key), this.k(`${key}:fence`), holder, ms, since));
    return token === null ? null : { holder, token: Number(token), since };
  }

  async leaseRenew(key: string, token: number, ttlMs: number): Promise<boolean> {
    const ms = toTtlMs(ttlMs);
    return (await this.run(() => (this.client as ScriptedRedis).fpLeaseRenew(this.k(key), String(token), ms))) === 1;
  }

  async leaseRelease(key: string, token: number): Promise<boolean> {
    return (await this.run(() => (this.client as ScriptedRedis).fpLeaseRelease(this.k(key), String(token)))) === 1;
  }

  async leaseGet(key: string): Promise<Lease | null> {
    return decodeLease(await this.run(() => this.client.get(this.k(key))));
  }

  async publish(channel: string, message: string): Promise<number> {
    return this.run(() => this.client.publish(this.k(channel), message));
  }

  async listeners(channels: readonly string[]): Promise<number[]> {
    if (channels.length === 0) {
      this.assertOpen();
      return [];
    }
    // PUBSUB NUMSUB answers name, count, name, count, ... in the order asked.
    const reply = (await this.run(() => this.client.call("PUBSUB", "NUMSUB", ...channels.map((c) => this.k(c))))) as Array<string | number>;
    return channels.map((_, i) => Number(reply[2 * i + 1] ?? 0));
  }

  async subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>> {
    this.assertOpen();
    const name = this.k(channel);
    const subscriber = this.getSubscriber();
    let state = this.channels.get(name);
    if (!state) {
      const active = this.whenReady(subscriber).then(async () => {
        try {
          await subscriber.subscribe(name);
        } catch (error) {
          throw unavailable(error);
        }
      });
      state = { subscriptions: new Set(), active };
      this.channels.set(name, state);
    }
    // One record per call, so subscribing the same function twice needs two unsubscribes.
    const subscription: Subscription = { handler };
    const current = state;
    current.subscriptions.add(subscription);
    try {
      await current.active;
    } catch (error) {
      this.release(name, current, subscription);
      throw error;
    }
    let ended = false;
    return async () => {
      if (ended) return;
      ended = true;
      if (!this.release(name, current, subscription) || this.closed) return;
      // Delivery has already stopped locally. If UNSUBSCRIBE cannot reach Redis, the leftover
      // server-side subscription only yields messages that find no handler and are dropped.
      if (subscriber.status === "ready") await subscriber.unsubscribe(name).catch(() => undefined);
    };
  }

  connectionInfo(): { url: string; keyPrefix: string } {
    return { url: this.url, keyPrefix: this.keyPrefix };
  }

  rateLimitBackend(): RateLimitBackend {
    return { kind: "redis", client: this.client, keyPrefix: this.keyPrefix, ready: () => this.ready(), answering: () => this.answering() };
  }

  /** The liveness PING in flight (answering()), which every caller that comes meanwhile joins. */
  private answerPing: Promise<void> | undefined;
  private answerPingSentAt = -Infinity;
  /** When the last PING that Redis answered was sent: Redis answered at or after it. */
  private answeredSince = -Infinity;

  /**
   * Whether Redis is answering: undefined when a PING sent within the last LIVENESS_WINDOW_MS was
   * answered (nothing to wait for); else a promise that resolves once a PING sent now or in flight
   * is answered, and rejects (StoreUnavailableError) when Redis cannot be reached or does not
   * answer within the command timeout. Within the window a PING is sent again after half of it, so
   * a steady load never waits and costs at most one PING per half window. What lets points an
   * instance holds (rate-limit.ts) be used only while Redis answers: a Redis that stops answering
   * (or is gone) stops them within the window.
   */
  answering(): Promise<void> | undefined {
    const now = performance.now();
    if (this.client.status === "ready" && !this.closed && now - this.answeredSince < LIVENESS_WINDOW_MS) {
      if (!this.answerPing && now - this.answerPingSentAt >= LIVENESS_WINDOW_MS / 2) this.sendAnswerPing(now).catch(() => undefined);
      return undefined;
    }
    return this.answerPing ?? this.sendAnswerPing(now);
  }

  private sendAnswerPing(now: number): Promise<void> {
    this.livenessPings++;
    this.answerPingSentAt = now;
    const ping = this.run(() => this.client.ping(), false).then(
      () => {
        this.answerPing = undefined;
        this.answeredSince = Math.max(this.answeredSince, now);
      },
      (error: unknown) => {
        this.answerPing = undefined;
        throw error;
      },
    );
    this.answerPing = ping;
    return ping;
  }

  round(): StoreRound {
    return new RedisRound((keys, args) =>
      this.run(() => (this.client as ScriptedRedis).fpRound(keys.length, ...keys.map((key) => this.k(key)), Date.now(), ...args)),
    );
  }

  async ping(): Promise<void> {
    await this.run(() => this.client.ping());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.channels.clear();
    const connections = [this.client, this.subscriber].filter((c): c is Redis => c !== null);
    await Promise.all(connections.map(closeConnection));
  }

  /**
   * Resolves once the main connection is usable, waiting only while a connection attempt is
   * under way (start-up, or a reconnect in progress) and never longer than the connect timeout.
   * Rejects with StoreUnavailableError otherwise. rate-limiter-flexible bypasses this class, so
   * the rate limiter calls this first to get the same start-up and fail-fast behaviour.
   */
  async ready(): Promise<void> {
    await this.whenReady(this.client);
  }

  private k(name: string): string {
    return this.keyPrefix + name;
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreUnavailableError("redis store is closed");
  }

  private run<T>(command: () => Promise<T>, counted = true): Promise<T> {
    if (counted) this.roundTrips++;
    // The usual case without an extra await: every promise costs on the request path (Next turns
    // on async hooks, which run for each one).
    if (this.client.status === "ready" && !this.closed) {
      try {
        return command().catch(rethrowUnavailable);
      } catch (error) {
        return Promise.reject(unavailable(error));
      }
    }
    return this.whenReady(this.client).then(command).catch(rethrowUnavailable);
  }

  private whenReady(connection: Redis): Promise<void> {
    if (this.closed) return Promise.reject(new StoreUnavailableError("redis store is closed"));
    switch (connection.status) {
      case "ready":
        return Promise.resolve();
      case "wait":
        // A lazily created connection (the subscriber) starts on first use.
        connection.connect().catch(() => undefined);
        break;
      case "connecting":
      case "connect":
        break;
      default:
        // Between attempts ("reconnecting") or closed: answer now rather than wait out a backoff.
        return Promise.reject(
          new StoreUnavailableError(`redis store unavailable (${connection.status})`, {
            cause: this.lastError,
          }),
        );
    }
    // One shared waiter per connection: hundreds of concurrent calls during start-up must not
    // each add their own listeners.
    let wait = this.readyWaits.get(connection);
    if (!wait) {
      wait = waitForReady(connection, CONNECT_TIMEOUT_MS + 500, () => this.lastError).finally(() => {
        this.readyWaits.delete(connection);
      });
      this.readyWaits.set(connection, wait);
    }
    return wait;
  }

  private getSubscriber(): Redis {
    if (!this.subscriber) {
      // Subscriptions get a connection of their own: under RESP2 a subscribed connection can run
      // nothing else, and a burst of messages must not queue ahead of ordinary replies. It is only
      // opened by the first subscribe, as most processes never subscribe.
      this.subscriber = this.client.duplicate({ lazyConnect: true });
      this.watch(this.subscriber);
      this.subscriber.on("message", (name: string, message: string) => this.dispatch(name, message));
    }
    return this.subscriber;
  }

  private dispatch(name: string, message: string): void {
    const state = this.channels.get(name);
    if (!state) return;
    const channel = name.slice(this.keyPrefix.length);
    for (const subscription of [...state.subscriptions]) {
      // A handler may unsubscribe another one; that one must not receive this message.
      if (!state.subscriptions.has(subscription)) continue;
      try {
        subscription.handler(message);
      } catch (error) {
        this.onHandlerError(error, channel);
      }
    }
  }

  /** Drops a subscription; true when it was the channel's last, so the channel can be released. */
  private release(name: string, state: ChannelState, subscription: Subscription): boolean {
    state.subscriptions.delete(subscription);
    if (state.subscriptions.size > 0 || this.channels.get(name) !== state) return false;
    this.channels.delete(name);
    return true;
  }

  private watch(connection: Redis): void {
    // Without a listener ioredis logs every failed reconnect attempt; callers learn about outages
    // from rejected calls instead, and the last error is kept as their cause.
    connection.on("error", (error: Error) => {
      this.lastError = error;
    });
  }
}

function waitForReady(
  connection: Redis,
  timeoutMs: number,
  lastError: () => Error | undefined,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const cleanup = () => {
      clearTimeout(timer);
      connection.off("ready", onReady);
      connection.off("close", onClose);
      connection.off("end", onClose);
    };
    const onReady = () => {
      cleanup();
      resolve();
    };
    const fail = (reason: string) => {
      cleanup();
      reject(new StoreUnavailableError(`redis store unavailable (${reason})`, { cause: lastError() }));
    };
    const onClose = () => fail("connection failed");
    const timer = setTimeout(() => fail("connect timed out"), timeoutMs);
    connection.once("ready", onReady);
    connection.once("close", onClose);
    connection.once("end", onClose);
  });
}

async function closeConnection(connection: Redis): Promise<void> {
  if (connection.status === "end") return;
  if (connection.status === "ready") {
    try {
      // QUIT lets in-flight replies arrive; commandTimeout bounds it if the server is gone.
      await connection.quit();
      return;
    } catch {
      // Fall through to a hard disconnect.
    }
  }
  connection.disconnect();
}

function rethrowUnavailable(error: unknown): never {
  throw unavailable(error);
}

const readString = (reply: unknown): string | null => (reply === null ? null : String(reply));
const readFlag = (reply: unknown): boolean => reply === 1;
const readWindow = (reply: unknown): { consumed: number; msBeforeNext: number } => {
  const [consumed, ttl] = reply as [number, number];
  return { consumed: Number(consumed), msBeforeNext: Number(ttl) };
};
/** A skipped windowHitAfter is Lua's false: null here. */
const readWindowOrSkipped = (reply: unknown): { consumed: number; msBeforeNext: number } | null => (Array.isArray(reply) ? readWindow(reply) : null);

/**
 * A round on Redis: the operations are gathered into one call of the round script, sent at the end
 * of the synchronous run that added them (a microtask). Each operation's promise is the round's
 * reply read at its own place: every promise costs on the request path (Next turns on async hooks,
 * which run for each one), so there is one per operation and one for the round.
 */
class RedisRound implements StoreRound {
  private readonly keys: string[] = [];
  private readonly args: Array<string | number> = [];
  private replies: Promise<unknown[]> | undefined;
  private sent = false;

  constructor(private readonly send: (keys: string[], args: Array<string | number>) => Promise<unknown[]>) {}

  get(key: string): Promise<string | null> {
    return this.add(key, readString, "g");
  }

  touchJson(key: string, options: { set: Record<string, string>; ttlMs: number; capAt?: string }): Promise<string | null> {
    if (!validTtl(options.ttlMs)) return Promise.reject(ttlError(options.ttlMs));
    const fields = Object.entries(options.set);
    return this.add(key, readString, "t", toTtlMs(options.ttlMs), options.capAt ?? "", fields.length, ...fields.flat());
  }

  setIfAbsent(key: string, value: string, options: { ttlMs?: number } = {}): Promise<boolean> {
    if (options.ttlMs !== undefined && !validTtl(options.ttlMs)) return Promise.reject(ttlError(options.ttlMs));
    return this.add(key, readFlag, "n", value, options.ttlMs === undefined ? "" : toTtlMs(options.ttlMs));
  }

  windowHit(key: string, points: number, windowSec: number): Promise<{ consumed: number; msBeforeNext: number }> {
    const invalid = windowArgumentError(points, windowSec);
    if (invalid) return Promise.reject(invalid);
    return this.add(key, readWindow, "w", points, windowSec);
  }

  windowHitAfter(key: string, points: number, windowSec: number, previousAtMost: number): Promise<{ consumed: number; msBeforeNext: number } | null> {
    const invalid = windowArgumentError(points, windowSec) ?? previousAtMostError(previousAtMost);
    if (invalid) return Promise.reject(invalid);
    return this.add(key, readWindowOrSkipped, "W", points, windowSec, previousAtMost);
  }

  /**
   * Every mistake is a rejected promise, never a throw (as in MemoryStore): a throw part-way through
   * a round would leave the operations added before it unobserved.
   */
  private add<T>(key: string, read: (reply: unknown) => T, ...args: Array<string | number>): Promise<T> {
    if (this.sent) return Promise.reject(new Error("a store round has been sent: add its operations in one synchronous run"));
    // The first operation schedules the round: it goes out once the current run of code ends.
    this.replies ??= Promise.resolve().then(() => {
      this.sent = true;
      return this.send(this.keys, this.args);
    });
    const index = this.keys.push(key) - 1;
    for (const arg of args) this.args.push(arg);
    return this.replies.then((replies) => read(replies[index] ?? null));
  }
}

function unavailable(error: unknown): StoreUnavailableError {
  if (isStoreUnavailable(error)) return error as StoreUnavailableError;
  const detail = error instanceof Error ? error.message : String(error);
  return new StoreUnavailableError(`redis store unavailable: ${detail}`, { cause: error });
}

const validTtl = (ttlMs: number) => Number.isFinite(ttlMs) && ttlMs > 0;
const ttlError = (ttlMs: number) => new RangeError(`ttlMs must be a positive number of milliseconds, got ${ttlMs}`);

function toTtlMs(ttlMs: number): number {
  if (!validTtl(ttlMs)) throw ttlError(ttlMs);
  // Redis takes whole milliseconds; rounding up never shortens a TTL.
  return Math.ceil(ttlMs);
}

function warnOnHandlerError(error: unknown, channel: string): void {
  const warning = new Error(`store subscriber for channel "${channel}" threw`, { cause: error });
  // Node ignores emitWarning's type argument for Error objects; the name is what it reports.
  warning.name = "StoreSubscriberWarning";
  process.emitWarning(warning);
}
