import { randomToken } from "../ids";
import { z } from "zod";
import type { KeyValueStore, StoreRound } from "../store";
import { tokenPolicy } from "../../shared/policy";

/**
 * Sessions live in the key-value store (Redis when configured), not the database: every
 * authenticated request reads and renews one, and revocation is a delete that every instance sees
 * at once. A session ends after 24 h without use or 7 days after login, whichever comes first.
 */
const sessionSchema = z.object({
  id: z.string(),
  user_id: z.string(),
  organization_id: z.string(),
  role: z.string(),
  ip_address: z.string(),
  user_agent: z.string(),
  created_at: z.string(),
  last_accessed_at: z.string(),
  absolute_expires_at: z.string(),
});

export type SessionRecord = z.infer<typeof sessionSchema>;

const sessionKey = (id: string) => `session:${id}`;
const userIndexKey = (userId: string) => `user-sessions:${userId}`;

/** Channel on which revocations are announced, so open WebSockets for the session close. */
export const SESSION_REVOKED_CHANNEL = "sessions.revoked";

export function newSessionId(): string {
  return `ses_${randomToken(32)}`;
}

function ttlFor(record: SessionRecord, now: number): number {
  const absoluteLeft = Date.parse(record.absolute_expires_at) - now;
  return Math.min(tokenPolicy.sessionIdleTtlSec * 1000, absoluteLeft);
}

export class SessionStore {
  constructor(private readonly store: KeyValueStore) {}

  async create(input: { userId: string; organizationId: string; role: string; ip: string; userAgent: string }, now = Date.now()): Promise<SessionRecord> {
    const record: SessionRecord = {
      id: newSessionId(),
      user_id: input.userId,
      organization_id: input.organizationId,
      role: input.role,
      ip_address: input.ip,
      user_agent: input.userAgent.slice(0, 512),
      created_at: new Date(now).toISOString(),
      last_accessed_at: new Date(now).toISOString(),
      absolute_expires_at: new Date(now + tokenPolicy.sessionAbsoluteTtlSec * 1000).toISOString(),
    };
    await this.store.set(sessionKey(record.id), JSON.stringify(record), { ttlMs: ttlFor(record, now) });
    await this.store.setAdd(userIndexKey(input.userId), record.id);
    return record;
  }

  /** The session as stored (read in `via`'s round when given). */
  get(id: string, now = Date.now(), via?: StoreRound): Promise<SessionRecord | null> {
    if (!/^ses_[\w-]{43}$/.test(id)) return Promise.resolve(null);
    return (via ?? this.store).get(sessionKey(id)).then((raw) => this.live(raw, now));
  }

  /**
   * The request path's read: the session, with last_accessed_at set to now and its idle timer
   * renewed (never past the absolute limit), in one atomic store round trip. A session revoked
   * meanwhile stays revoked: the store writes only to a key that still exists. With `via`, the
   * touch goes out in that round.
   */
  getAndTouch(id: string, now = Date.now(), via?: StoreRound): Promise<SessionRecord | null> {
    if (!/^ses_[\w-]{43}$/.test(id)) return Promise.resolve(null);
    const touched = (via ?? this.store).touchJson(sessionKey(id), {
      set: { last_accessed_at: new Date(now).toISOString() },
      ttlMs: tokenPolicy.sessionIdleTtlSec * 1000,
      capAt: "absolute_expires_at",
    });
    return touched.then((raw) => this.live(raw, now));
  }

  /**
   * Records a use: last_accessed_at now, idle timer renewed (never past the absolute limit).
   * Compare-and-set: the record is rewritten only if it still exists, so a request in flight while
   * the session is revoked can never bring it back; null then (the session has ended).
   */
  async touch(record: SessionRecord, now = Date.now()): Promise<SessionRecord | null> {
    const updated = { ...record, last_accessed_at: new Date(now).toISOString() };
    const ttlMs = ttlFor(updated, now);
    if (ttlMs <= 0) {
      await this.revoke(record);
      return null;
    }
    const renewed = await this.store.setIfPresent(sessionKey(record.id), JSON.stringify(updated), { ttlMs });
    return renewed ? updated : null;
  }

  async listForUser(userId: string, now = Date.now()): Promise<SessionRecord[]> {
    const ids = await this.store.setMembers(userIndexKey(userId));
    const sessions: SessionRecord[] = [];
    const stale: string[] = [];
    for (const id of ids) {
      const record = await this.get(id, now);
      if (record && record.user_id === userId) sessions.push(record);
      else stale.push(id);
    }
    if (stale.length > 0) await this.store.setRemove(userIndexKey(userId), ...stale);
    return sessions.sort((a, b) => b.last_accessed_at.localeCompare(a.last_accessed_at));
  }

  async revoke(record: Pick<SessionRecord, "id" | "user_id">): Promise<void> {
    await this.store.del(sessionKey(record.id));
    await this.store.setRemove(userIndexKey(record.user_id), record.id);
    await this.store.publish(SESSION_REVOKED_CHANNEL, JSON.stringify({ session_id: record.id, user_id: record.user_id }));
  }

  /** A stored record, or null when it is missing, malformed or past its absolute limit (then it is revoked). */
  private live(raw: string | null, now: number): SessionRecord | null | Promise<null> {
    if (!raw) return null;
    const parsed = sessionSchema.safeParse(JSON.parse(raw));
    if (!parsed.success) return null;
    if (Date.parse(parsed.data.absolute_expires_at) <= now) return this.revoke(parsed.data).then(() => null);
    return parsed.data;
  }

  /** Revokes every session of the user except `keep`; resolves to the revoked ids. */
  async revokeAllForUser(userId: string, options: { except?: string } = {}): Promise<string[]> {
    const ids = await this.store.setMembers(userIndexKey(userId));
    const revoked: string[] = [];
    for (const id of ids) {
      if (id === options.except) continue;
      await this.revoke({ id, user_id: userId });
      revoked.push(id);
    }
    return revoked;
  }
}
