import { randomToken } from "../ids";
import type { KeyValueStore } from "../store";
import type { ApiKeyScope, Role } from "../permissions";

/** A user's standing in one organization. */
export interface MemberAccess {
  email: string;
  role: Role;
}

/** What authenticating an API key needs of its row and of its creator's membership (null: gone). */
export interface KeyAccess {
  id: string;
  organizationId: string;
  createdById: string;
  kind: "user" | "device";
  /** The scopes the key was given (all of them when `allScopes`). */
  scopes: ApiKeyScope[];
  allScopes: boolean;
  /** Epoch milliseconds; null when it never expires. */
  expiresAt: number | null;
  creator: MemberAccess | null;
}

/** The store key holding the access generation (under the store's prefix, shared by every instance). */
export const ACCESS_GENERATION_KEY = "access:generation";

/** A backstop: an entry is used for at most this long even if the generation never moves. */
const MAX_AGE_MS = 60_000;
const MAX_ENTRIES = 10_000;

interface Entry<T> {
  value: T;
  at: number;
}

/**
 * Who may do what (a user's membership and role, an API key's row and its creator's role) is read
 * on every request and changes rarely. This cache keeps those reads in memory, valid for one
 * *access generation*: a random token in the store that every change to memberships, roles, users,
 * organizations or API keys replaces (`changed()`, awaited after the change is committed). Each
 * request reads the generation in the same store round trip as its session, so a change made on
 * any instance is seen by the very next request on every instance, with no pub/sub window.
 *
 * Why this is exact: a request that reads the generation after `changed()` resolved sees a new
 * token, finds no entry for it and reads the database, which already holds the change. An entry
 * filled from a read that raced a change is stored under the token read *before* that database
 * read, which the change has replaced. A token (not a counter) cannot come back, and a lost key
 * is replaced by a fresh token before anyone reads it, so losing it (a Redis restart) only empties
 * the caches.
 */
export class AccessCache {
  private generation: string | undefined;
  private readonly members = new Map<string, Entry<MemberAccess>>();
  private readonly keys = new Map<string, Entry<KeyAccess>>();

  constructor(private readonly store: KeyValueStore) {}

  /**
   * The current generation: one store read. A missing key (never written, or lost with Redis) is
   * replaced by a fresh token first: reading it as "none" could match what an instance saw before
   * the loss and bring back entries older than a change.
   */
  async current(): Promise<string> {
    const generation = await this.store.get(ACCESS_GENERATION_KEY);
    if (generation !== null) return generation;
    await this.store.setIfAbsent(ACCESS_GENERATION_KEY, randomToken(12));
    return (await this.store.get(ACCESS_GENERATION_KEY)) ?? randomToken(12);
  }

  /** Invalidates every instance's cache. Await it after the change is committed, before answering. */
  async changed(): Promise<void> {
    const generation = randomToken(12);
    // This instance stops trusting what it read before, at once (a read racing this change would
    // otherwise be kept under the old token until the next request).
    this.sync(generation);
    // A short retry rides out a blip; past it the caller's request fails (the change is committed,
    // and entries on other instances expire within MAX_AGE_MS at the latest).
    for (let attempt = 0; ; attempt++) {
      try {
        await this.store.set(ACCESS_GENERATION_KEY, generation);
        return;
      } catch (err) {
        if (attempt >= 2) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100 * (attempt + 1)));
      }
    }
  }

  member(generation: string, userId: string, organizationId: string): MemberAccess | undefined {
    return this.read(this.members, generation, `${userId}\u0000${organizationId}`);
  }

  rememberMember(generation: string, userId: string, organizationId: string, value: MemberAccess): void {
    this.write(this.members, generation, `${userId}\u0000${organizationId}`, value);
  }

  /** By the key's secret hash. */
  key(generation: string, secretHash: string): KeyAccess | undefined {
    return this.read(this.keys, generation, secretHash);
  }

  rememberKey(generation: string, secretHash: string, value: KeyAccess): void {
    this.write(this.keys, generation, secretHash, value);
  }

  private sync(generation: string): void {
    if (generation !== this.generation) {
      this.members.clear();
      this.keys.clear();
      this.generation = generation;
    }
  }

  private read<T>(map: Map<string, Entry<T>>, generation: string, id: string): T | undefined {
    this.sync(generation);
    const entry = map.get(id);
    if (!entry) return undefined;
    if (Date.now() - entry.at > MAX_AGE_MS) {
      map.delete(id);
      return undefined;
    }
    return entry.value;
  }

  private write<T>(map: Map<string, Entry<T>>, generation: string, id: string, value: T): void {
    // Read under an older generation than the one seen since: possibly stale, so not kept.
    if (generation !== this.generation) return;
    if (map.size >= MAX_ENTRIES) map.clear();
    map.set(id, { value, at: Date.now() });
  }
}
