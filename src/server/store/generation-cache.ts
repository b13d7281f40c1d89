import { randomToken } from "../ids";
import type { KeyValueStore, StoreRound } from "./types";

export interface GenerationCacheOptions<T> {
  /** The store key holding a scope's generation (under the store's prefix, shared by every instance). */
  keyOf(scope: string): string;
  /** A backstop: an entry is used for at most this long even if its generation never moves. */
  maxAgeMs: number;
  /** What this instance keeps at most, in weight units (entries weigh 1 unless `weigh` says more). */
  maxWeight: number;
  weigh?(value: T): number;
}

interface Entry<T> {
  value: T;
  at: number;
  weight: number;
}

interface Scope<T> {
  generation: string;
  entries: Map<string, Entry<T>>;
  weight: number;
}

/**
 * Reads that every request makes and that change rarely, kept in this instance's memory and valid
 * for one *generation* of their scope: a random token in the store that every change to what they
 * were read from replaces (`changed(scope)`, awaited after the change is committed and before it is
 * answered or announced). A request reads the scope's generation from the store first (one small
 * round trip, or none in-process) and uses only entries kept under that very token, so a change made
 * on any instance is seen by the very next request on every instance, with no pub/sub window.
 *
 * Why this is exact: a request that reads the generation after `changed()` resolved sees a new
 * token, finds no entry for it and reads the database, which already holds the change. An entry
 * filled from a read that raced a change is kept under the token read *before* that database read,
 * which the change has replaced. A token (not a counter) cannot come back, and a lost key is
 * replaced by a fresh token before anyone reads it, so losing it (a Redis restart) only empties the
 * caches.
 *
 * Memory is bounded: scopes are dropped least recently used first once the weights pass
 * `maxWeight`, and an entry older than `maxAgeMs` is read again.
 */
export class GenerationCache<T> {
  /** In least-recently-used order: a scope that is read moves to the end. */
  private readonly scopes = new Map<string, Scope<T>>();
  /** The scope last in `scopes` (the most recently used): read again, it need not move. */
  private newest: string | undefined;
  private weight = 0;

  constructor(
    private readonly store: KeyValueStore,
    private readonly options: GenerationCacheOptions<T>,
  ) {}

  /**
   * The scope's current generation: one store read. A missing key (never written, or lost with
   * Redis) is replaced by a fresh token first: reading it as "none" could match what an instance
   * saw before the loss and bring back entries older than a change. With `via`, the read goes out
   * in that round.
   */
  current(scope: string, via?: StoreRound): Promise<string> {
    const key = this.options.keyOf(scope);
    return (via ?? this.store).get(key).then((generation) => generation ?? this.replaceLost(key));
  }

  private async replaceLost(key: string): Promise<string> {
    await this.store.setIfAbsent(key, randomToken(12));
    return (await this.store.get(key)) ?? randomToken(12);
  }

  /** Invalidates the scope on every instance. Await it after the change is committed, before answering. */
  async changed(scope: string): Promise<void> {
    const generation = randomToken(12);
    // This instance stops trusting what it read before, at once (a read racing this change would
    // otherwise be kept under the old token until the next request).
    this.sync(scope, generation);
    const key = this.options.keyOf(scope);
    // A short retry rides out a blip; past it the caller's request fails (the change is committed,
    // and entries on other instances expire within maxAgeMs at the latest).
    for (let attempt = 0; ; attempt++) {
      try {
        await this.store.set(key, generation);
        return;
      } catch (err) {
        if (attempt >= 2) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100 * (attempt + 1)));
      }
    }
  }

  get(scope: string, generation: string, id: string): T | undefined {
    const entries = this.sync(scope, generation);
    const entry = entries.entries.get(id);
    if (!entry) return undefined;
    if (Date.now() - entry.at > this.options.maxAgeMs) {
      this.remove(entries, id, entry);
      return undefined;
    }
    return entry.value;
  }

  /** Keeps a value read under `generation` (the token read before the value was read). */
  set(scope: string, generation: string, id: string, value: T): void {
    const current = this.scopes.get(scope);
    // Read under an older generation than the one seen since: possibly stale, so not kept.
    if (current && current.generation !== generation) return;
    const entries = current ?? this.sync(scope, generation);
    const previous = entries.entries.get(id);
    if (previous) this.remove(entries, id, previous);
    const weight = Math.max(1, this.options.weigh?.(value) ?? 1);
    if (weight > this.options.maxWeight) return;
    entries.entries.set(id, { value, at: Date.now(), weight });
    entries.weight += weight;
    this.weight += weight;
    this.evict(scope);
  }

  /**
   * The scope's entries for `generation`, emptied when the generation moved; marked as just used.
   * A scope weighs 1 itself, so organizations that only read generations are evicted too.
   */
  private sync(scope: string, generation: string): Scope<T> {
    let entries = this.scopes.get(scope);
    // The usual case, one organization's requests in a row: already the most recent, nothing moves
    // (a Map's delete and set on every read cost more than the rest of the lookup).
    if (entries && scope === this.newest && entries.generation === generation) return entries;
    if (entries) this.scopes.delete(scope);
    if (entries && entries.generation !== generation) {
      this.weight -= entries.weight;
      entries = undefined;
    }
    if (!entries) {
      entries = { generation, entries: new Map(), weight: 1 };
      this.weight += 1;
      this.scopes.set(scope, entries);
      this.newest = scope;
      this.evict(scope);
      return entries;
    }
    this.scopes.set(scope, entries);
    this.newest = scope;
    return entries;
  }

  private remove(scope: Scope<T>, id: string, entry: Entry<T>): void {
    scope.entries.delete(id);
    scope.weight -= entry.weight;
    this.weight -= entry.weight;
  }

  private evict(keep: string): void {
    for (const [scope, entries] of this.scopes) {
      if (this.weight <= this.options.maxWeight) return;
      if (scope === keep) continue;
      this.scopes.delete(scope);
      if (scope === this.newest) this.newest = undefined;
      this.weight -= entries.weight;
    }
    // Only the scope just written is left over the budget: drop its oldest entries.
    const entries = this.scopes.get(keep);
    if (!entries) return;
    for (const [id, entry] of entries.entries) {
      if (this.weight <= this.options.maxWeight) return;
      this.remove(entries, id, entry);
    }
  }
}
