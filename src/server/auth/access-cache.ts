import type { KeyValueStore, StoreRound } from "../store";
import { ACCESS_CHANGED_CHANNEL } from "./revocation-channels";
import { GenerationCache } from "../store/generation-cache";
import type { ApiKeyScope, Role } from "../permissions";
import { SharedRounds } from "./shared-rounds";

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

/** What a key's secret names for good. */
export interface KeyIdentity {
  keyId: string;
  organizationId: string;
}

/** The store key holding the access generation (under the store's prefix, shared by every instance). */
export const ACCESS_GENERATION_KEY = "access:generation";

/**
 * Who may do what (a user's membership and role, an API key's row and its creator's role) is read
 * on every request and changes rarely. This cache keeps those reads in memory, valid for one
 * *access generation* (store/generation-cache.ts): a token in the store that every change to
 * memberships, roles, users, organizations or API keys replaces (`changed()`, awaited after the
 * change is committed). Each request reads the generation in the same store round trip as its
 * session, so a change made on any instance is seen by the very next request on every instance.
 */
/** Whose access changed: sockets of that organization, or of that user in any organization. */
export interface AccessChangeScope {
  organizationId?: string;
  userId?: string;
}

/** What ACCESS_CHANGED_CHANNEL carries (null: not narrowed by that field; both null: everyone). */
export interface AccessChangedMessage {
  organization_id: string | null;
  user_id: string | null;
}

export class AccessCache {
  private readonly cache: GenerationCache<MemberAccess | KeyAccess>;
  /**
   * Which organization a session belongs to: fixed for the session's life, so it needs no
   * generation. Only a hint (the request checks it against the session it reads), bounded.
   */
  private readonly sessionOrganizations = new Map<string, string>();
  private readonly keyIdentities = new Map<string, KeyIdentity>();

  /**
   * On Redis, where a credential's store round is a network trip: its requests in flight together
   * share one (shared-rounds.ts). Null in process.
   */
  readonly rounds: SharedRounds | null;

  constructor(private readonly store: KeyValueStore) {
    this.rounds = store.kind === "redis" ? new SharedRounds() : null;
    // One scope for everything: any access change invalidates every entry on every instance.
    this.cache = new GenerationCache(store, { keyOf: () => ACCESS_GENERATION_KEY, maxAgeMs: 60_000, maxWeight: 10_000 });
  }

  /** The current generation: one store read (in `via`'s round when given). */
  current(via?: StoreRound): Promise<string> {
    return this.cache.current("", via);
  }

  /**
   * Invalidates every instance's cache. Await it after the change is committed, before answering.
   * Then tells every instance (ACCESS_CHANGED_CHANNEL) so that open WebSockets are checked again:
   * requests see the change through the generation, sockets through this message. `scope` names
   * whose access changed (an organization, a user), so that only their sockets are checked; without
   * it, every socket is.
   */
  async changed(scope: AccessChangeScope = {}): Promise<void> {
    try {
      await this.cache.changed("");
    } finally {
      const message: AccessChangedMessage = { organization_id: scope.organizationId ?? null, user_id: scope.userId ?? null };
      await this.store.publish(ACCESS_CHANGED_CHANNEL, JSON.stringify(message)).catch(() => undefined);
    }
  }

  member(generation: string, userId: string, organizationId: string): MemberAccess | undefined {
    return this.cache.get("", generation, `member\u0000${userId}\u0000${organizationId}`) as MemberAccess | undefined;
  }

  rememberMember(generation: string, userId: string, organizationId: string, value: MemberAccess): void {
    this.cache.set("", generation, `member\u0000${userId}\u0000${organizationId}`, value);
  }

  sessionOrganization(sessionId: string): string | undefined {
    return this.sessionOrganizations.get(sessionId);
  }

  rememberSessionOrganization(sessionId: string, organizationId: string): void {
    if (this.sessionOrganizations.get(sessionId) === organizationId) return;
    if (this.sessionOrganizations.size >= 10_000) this.sessionOrganizations.clear();
    this.sessionOrganizations.set(sessionId, organizationId);
  }

  /**
   * What a key's secret names for good, its id and organization, by the secret's hash: known
   * before the request's store round, so the round can carry the key's rate limit, its last-used
   * flag and its organization's flows generation. Only a hint, checked against the key itself.
   */
  keyIdentity(secretHash: string): KeyIdentity | undefined {
    return this.keyIdentities.get(secretHash);
  }

  rememberKeyIdentity(secretHash: string, identity: KeyIdentity): void {
    const known = this.keyIdentities.get(secretHash);
    if (known && known.keyId === identity.keyId && known.organizationId === identity.organizationId) return;
    if (this.keyIdentities.size >= 10_000) this.keyIdentities.clear();
    this.keyIdentities.set(secretHash, { keyId: identity.keyId, organizationId: identity.organizationId });
  }

  /** By the key's secret hash. */
  key(generation: string, secretHash: string): KeyAccess | undefined {
    return this.cache.get("", generation, `key\u0000${secretHash}`) as KeyAccess | undefined;
  }

  rememberKey(generation: string, secretHash: string, value: KeyAccess): void {
    this.cache.set("", generation, `key\u0000${secretHash}`, value);
  }
}
