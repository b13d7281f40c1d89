import { decodeLease, encodeLease, StoreUnavailableError, type KeyValueStore, type Lease, type RateLimitBackend, type StoreRound, previousAtMostError, windowArgumentError } from "./types";

type Entry =
  | { kind: "string"; value: string; expiresAt: number | null }
  | { kind: "set"; members: Set<string>; expiresAt: number | null };

interface Subscription {
  handler: (message: string) => void;
}

export interface MemoryStoreOptions {
  /** How often expired keys nobody reads again are dropped; reads expire keys on their own. */
  sweepIntervalMs?: number;
  /** Receives errors thrown by subscription handlers; by default they become process warnings. */
  onHandlerError?: (error: unknown, channel: string) => void;
}

/**
 * The single-process store: everything lives in this instance, so it only suits one app instance.
 * It mirrors Redis semantics closely enough that both pass the same contract suite.
 */
export class MemoryStore implements KeyValueStore {
  readonly kind = "memory" as const;
  /** Nothing leaves the process. */
  readonly roundTrips = 0;

  private readonly entries = new Map<string, Entry>();
  private readonly channels = new Map<string, Set<Subscription>>();
  /** Fencing counters of leases: they outlive the grants, as in Redis. */
  private readonly fences = new Map<string, number>();
  private readonly limiters = new Map<string, unknown>();
  /** Holds nothing of its own, so every request shares it (nothing is built per request). */

  private readonly onHandlerError: (error: unknown, channel: string) => void;
  private sweepTimer: NodeJS.Timeout | null;
  private closed = false;

  constructor(options: MemoryStoreOptions = {}) {
    this.onHandlerError = options.onHandlerError ?? warnOnHandlerError;
    this.sweepTimer = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 30_000);
    // The sweep only reclaims memory; it must not keep a finished process (or test worker) alive.
    this.sweepTimer.unref();
  }

  async get(key: string): Promise<string | null> {
    this.assertOpen();
    const entry = this.live(key);
    if (!entry) return null;
    return stringValue(key, entry);
  }

  async set(key: string, value: string, options: { ttlMs?: number } = {}): Promise<void> {
    this.assertOpen();
    // Like Redis SET, a plain set drops any previous TTL.
    this.entries.set(key, { kind: "string", value, expiresAt: expiryFrom(options.ttlMs) });
  }

  async setIfAbsent(key: string, value: string, options: { ttlMs?: number } = {}): Promise<boolean> {
    this.assertOpen();
    const expiresAt = expiryFrom(options.ttlMs);
    if (this.live(key)) return false;
    this.entries.set(key, { kind: "string", value, expiresAt });
    return true;
  }

  async setIfPresent(key: string, value: string, options: { ttlMs?: number } = {}): Promise<boolean> {
    this.assertOpen();
    const expiresAt = expiryFrom(options.ttlMs);
    if (!this.live(key)) return false;
    this.entries.set(key, { kind: "string", value, expiresAt });
    return true;
  }

  async setIfAbsentOrEqual(key: string, value: string, options: { ttlMs?: number } = {}): Promise<boolean> {
    this.assertOpen();
    const expiresAt = expiryFrom(options.ttlMs);
    const entry = this.live(key);
    if (entry && stringValue(key, entry) !== value) return false;
    this.entries.set(key, { kind: "string", value, expiresAt });
    return true;
  }

  async delIfEqual(key: string, value: string): Promise<boolean> {
    this.assertOpen();
    const entry = this.live(key);
    if (!entry || stringValue(key, entry) !== value) return false;
    this.entries.delete(key);
    return true;
  }

  async del(...keys: string[]): Promise<number> {
    this.assertOpen();
    let existed = 0;
    for (const key of new Set(keys)) {
      if (this.live(key)) {
        this.entries.delete(key);
        existed += 1;
      }
    }
    return existed;
  }

  async incr(key: string, options: { by?: number; ttlMs?: number } = {}): Promise<number> {
    this.assertOpen();
    const by = toIncrement(options.by ?? 1);
    const newExpiry = expiryFrom(options.ttlMs);
    const entry = this.live(key);
    if (!entry) {
      this.entries.set(key, { kind: "string", value: String(by), expiresAt: newExpiry });
      return by;
    }
    const current = stringValue(key, entry);
    if (!/^-?\d+$/.test(current) || !Number.isSafeInteger(Number(current))) {
      throw new TypeError(`value of "${key}" is not an integer`);
    }
    const next = Number(current) + by;
    if (!Number.isSafeInteger(next)) throw new RangeError(`incr of "${key}" overflows`);
    // An existing key keeps its TTL (or lack of one), so a window is never extended by traffic.
    this.entries.set(key, { kind: "string", value: String(next), expiresAt: entry.expiresAt });
    return next;
  }

  async expire(key: string, ttlMs: number): Promise<boolean> {
    this.assertOpen();
    const expiresAt = expiryFrom(ttlMs);
    const entry = this.live(key);
    if (!entry) return false;
    entry.expiresAt = expiresAt;
    return true;
  }

  async ttl(key: string): Promise<number | null> {
    this.assertOpen();
    const entry = this.live(key);
    if (!entry || entry.expiresAt === null) return null;
    return Math.max(0, entry.expiresAt - Date.now());
  }

  async touchJson(key: string, options: { set: Record<string, string>; ttlMs: number; capAt?: string }): Promise<string | null> {
    this.assertOpen();
    expiryFrom(options.ttlMs);
    const entry = this.live(key);
    if (!entry) return null;
    const raw = stringValue(key, entry);
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      return raw;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) return raw;
    const record = value as Record<string, unknown>;
    const now = Date.now();
    let ttlMs = options.ttlMs;
    if (options.capAt !== undefined && typeof record[options.capAt] === "string") {
      const cap = Date.parse(record[options.capAt] as string);
      if (Number.isFinite(cap)) ttlMs = Math.min(ttlMs, cap - now);
    }
    if (ttlMs <= 0) return raw;
    const updated = JSON.stringify({ ...record, ...options.set });
    this.entries.set(key, { kind: "string", value: updated, expiresAt: now + Math.ceil(ttlMs) });
    return updated;
  }

  async setAdd(key: string, ...members: string[]): Promise<void> {
    this.assertOpen();
    if (members.length === 0) return;
    const entry = this.live(key);
    if (!entry) {
      this.entries.set(key, { kind: "set", members: new Set(members), expiresAt: null });
      return;
    }
    const set = setValue(key, entry);
    for (const member of members) set.add(member);
  }

  async setRemove(key: string, ...members: string[]): Promise<void> {
    this.assertOpen();
    const entry = this.live(key);
    if (!entry) return;
    const set = setValue(key, entry);
    for (const member of members) set.delete(member);
    // Redis deletes a set once it is empty; matching that keeps expire/ttl answers identical.
    if (set.size === 0) this.entries.delete(key);
  }

  async setMembers(key: string): Promise<string[]> {
    this.assertOpen();
    const entry = this.live(key);
    if (!entry) return [];
    return [...setValue(key, entry)];
  }

  async leaseAcquire(key: string, holder: string, ttlMs: number): Promise<Lease | null> {
    this.assertOpen();
    const expiresAt = expiryFrom(ttlMs);
    if (this.live(key)) return null;
    const token = (this.fences.get(key) ?? 0) + 1;
    this.fences.set(key, token);
    const lease: Lease = { holder, token, since: Date.now() };
    this.entries.set(key, { kind: "string", value: encodeLease(lease), expiresAt });
    return lease;
  }

  async leaseRenew(key: string, token: number, ttlMs: number): Promise<boolean> {
    this.assertOpen();
    const expiresAt = expiryFrom(ttlMs);
    const entry = this.live(key);
    if (!entry || decodeLease(stringValue(key, entry))?.token !== token) return false;
    entry.expiresAt = expiresAt;
    return true;
  }

  async leaseRelease(key: string, token: number): Promise<boolean> {
    this.assertOpen();
    const entry = this.live(key);
    if (!entry || decodeLease(stringValue(key, entry))?.token !== token) return false;
    this.entries.delete(key);
    return true;
  }

  async leaseGet(key: string): Promise<Lease | null> {
    this.assertOpen();
    const entry = this.live(key);
    return entry ? decodeLease(stringValue(key, entry)) : null;
  }

  async publish(channel: string, message: string): Promise<number> {
    this.assertOpen();
    const subscriptions = this.channels.get(channel);
    if (!subscriptions) return 0;
    for (const subscription of [...subscriptions]) {
      // Delivered later, as Redis would, so a handler that publishes or unsubscribes cannot
      // re-enter the publisher mid-loop; one that unsubscribed meanwhile is skipped.
      queueMicrotask(() => {
        if (this.closed || !subscriptions.has(subscription)) return;
        try {
          subscription.handler(message);
        } catch (error) {
          this.onHandlerError(error, channel);
        }
      });
    }
    return subscriptions.size;
  }

  unheard(channel: string): boolean {
    return !this.channels.has(channel);
  }

  async listeners(channels: readonly string[]): Promise<number[]> {
    this.assertOpen();
    return channels.map((channel) => this.channels.get(channel)?.size ?? 0);
  }

  async subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>> {
    this.assertOpen();
    // One record per call, so subscribing the same function twice needs two unsubscribes.
    const subscription: Subscription = { handler };
    let subscriptions = this.channels.get(channel);
    if (!subscriptions) {
      subscriptions = new Set();
      this.channels.set(channel, subscriptions);
    }
    subscriptions.add(subscription);
    const current = subscriptions;
    return async () => {
      current.delete(subscription);
      if (current.size === 0 && this.channels.get(channel) === current) this.channels.delete(channel);
    };
  }

  connectionInfo(): null {
    return null;
  }

  rateLimitBackend(): RateLimitBackend {
    return { kind: "memory", limiters: this.limiters };
  }

  /** In-process there is no round trip to save: each operation runs as the method of its name. */
  round(): StoreRound {
    return new MemoryRound(this);
  }

  async ping(): Promise<void> {
    this.assertOpen();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.sweepTimer) {
      clearInterval(this.sweepTimer);
      this.sweepTimer = null;
    }
    this.entries.clear();
    this.channels.clear();
    this.fences.clear();
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreUnavailableError("memory store is closed");
  }

  /** The entry if present and unexpired; an expired one is removed on the way. */
  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt !== null && entry.expiresAt <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt !== null && entry.expiresAt <= now) this.entries.delete(key);
    }
  }
}

function warnOnHandlerError(error: unknown, channel: string): void {
  const warning = new Error(`store subscriber for channel "${channel}" threw`, { cause: error });
  // Node ignores emitWarning's type argument for Error objects; the name is what it reports.
  warning.name = "StoreSubscriberWarning";
  process.emitWarning(warning);
}

function expiryFrom(ttlMs: number | undefined): number | null {
  if (ttlMs === undefined) return null;
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`ttlMs must be a positive number of milliseconds, got ${ttlMs}`);
  }
  return Date.now() + Math.ceil(ttlMs);
}

function toIncrement(by: number): number {
  if (!Number.isSafeInteger(by)) throw new RangeError(`incr step must be a safe integer, got ${by}`);
  return by;
}

// Type mismatches mirror Redis WRONGTYPE: a caller bug, reported as such rather than as an outage.
function stringValue(key: string, entry: Entry): string {
  if (entry.kind !== "string") throw new TypeError(`"${key}" holds a set, not a string`);
  return entry.value;
}

function setValue(key: string, entry: Entry): Set<string> {
  if (entry.kind !== "set") throw new TypeError(`"${key}" holds a string, not a set`);
  return entry.members;
}

/**
 * A round in-process: each operation is the store's method of its name, run at once; the round
 * keeps only what its last window hit counted (for windowHitAfter).
 */
class MemoryRound implements StoreRound {
  /** The previous operation's count when it was a window hit (undefined: it was not). */
  private last: Promise<number | undefined> | undefined;

  constructor(private readonly store: MemoryStore) {}

  get(key: string): Promise<string | null> {
    this.last = undefined;
    return this.store.get(key);
  }

  touchJson(key: string, options: { set: Record<string, string>; ttlMs: number; capAt?: string }): Promise<string | null> {
    this.last = undefined;
    return this.store.touchJson(key, options);
  }

  setIfAbsent(key: string, value: string, options?: { ttlMs?: number }): Promise<boolean> {
    this.last = undefined;
    return this.store.setIfAbsent(key, value, options);
  }

  windowHit(key: string, points: number, windowSec: number): Promise<{ consumed: number; msBeforeNext: number }> {
    const hit = this.hit(key, points, windowSec);
    this.last = hit.then(
      (h) => h.consumed,
      () => undefined,
    );
    return hit;
  }

  windowHitAfter(key: string, points: number, windowSec: number, previousAtMost: number): Promise<{ consumed: number; msBeforeNext: number } | null> {
    const invalid = windowArgumentError(points, windowSec) ?? previousAtMostError(previousAtMost);
    const previous = this.last;
    this.last = undefined;
    if (invalid) return Promise.reject(invalid);
    const hit = (previous ?? Promise.resolve(undefined)).then((counted) => (counted !== undefined && counted <= previousAtMost ? this.hit(key, points, windowSec) : null));
    this.last = hit.then(
      (h) => h?.consumed,
      () => undefined,
    );
    return hit;
  }

  /** What Redis runs for it: SET 0 EX NX, INCRBY, PTTL (a key without a TTL gets the window's). */
  private async hit(key: string, points: number, windowSec: number): Promise<{ consumed: number; msBeforeNext: number }> {
    const invalid = windowArgumentError(points, windowSec);
    if (invalid) throw invalid;
    await this.store.setIfAbsent(key, "0", { ttlMs: windowSec * 1000 });
    const consumed = await this.store.incr(key, { by: points });
    let msBeforeNext = await this.store.ttl(key);
    if (msBeforeNext === null) {
      await this.store.expire(key, windowSec * 1000);
      msBeforeNext = windowSec * 1000;
    }
    return { consumed, msBeforeNext };
  }
}
