/**
 * The write-behind journal of flow and global context (SPEC §13's durability rule): scopes record
 * their writes here synchronously; a flush loop stores everything recorded so far in ONE
 * transaction of the backend, then the next batch, and so on. Writes to one key between two
 * flushes are merged (the last value wins; additions add up), so a chain doing `flow.set` on every
 * message costs one row per key per flush, not one statement per message.
 *
 * The engine asks `written()` when a node sends and holds the messages until `stored()` has caught
 * up with it (whenStored), so a message that follows a write is never delivered before the write
 * is in the database. A flush the store could not take (an outage) is retried (with a growing
 * pause, up to 2 s) and holds the messages meanwhile: the rule is kept by waiting, never by
 * breaking it. A batch the store refuses for its data is split, one organization at a time and
 * then in halves, until each refused write is alone: the others are stored, and a refused write is
 * given up (reported to the scope and to `onRefused`, counted), never retried forever, so one
 * tenant's write cannot stop the others'.
 */
import type { ContextScope } from "./context-scope";

export interface ContextWrite {
  organizationId: string;
  scope: string;
  key: string;
  /** JSON text; null deletes. For an addition: the value this instance computed (used by no store). */
  json: string | null;
  /** Present for an addition the store applies to what it holds (`value + increment`). */
  increment?: number;
}

export interface StoredWrite {
  organizationId: string;
  scope: string;
  key: string;
  json: string | null;
  version: number;
}

/** Where the journal stores writes: one transaction per call, answering each row as stored. */
export interface ContextBackend {
  commit(writes: ContextWrite[]): Promise<StoredWrite[]>;
  /**
   * Whether a failure is the store being away (retry the same writes later) rather than a refusal
   * of their data; absent: every failure is retried.
   */
  isOutage?(err: unknown): boolean;
}

interface Pending extends ContextWrite {
  target: ContextScope;
  /** The node whose code made the write, when known (a refusal is that node's error). */
  nodeId?: string;
}

/** A write the store refused, given up. */
export interface RefusedWrite extends ContextWrite {
  nodeId?: string;
  error: unknown;
}

export interface JournalOptions {
  backend: ContextBackend;
  /** Told about every batch once it is stored (other instances' caches, the editor). */
  onStored?: (writes: StoredWrite[]) => void;
  onError?: (err: unknown) => void;
  /** Told about each write the store refused (after the split found it alone): it is not retried. */
  onRefused?: (write: RefusedWrite) => void;
}

/** What one flush managed: stored rows, refused writes, and the writes left for a retry (an outage). */
interface Outcome {
  stored: StoredWrite[];
  refused: Array<{ id: string; error: unknown }>;
  retry: Set<string>;
  error?: unknown;
}

function keyOf(scope: { organizationId: string; scope: string }, key: string): string {
  return `${scope.organizationId}\u0000${scope.scope}\u0000${key}`;
}

export class ContextJournal {
  private pending = new Map<string, Pending>();
  private inFlight = new Map<string, Pending>();
  private seq = 0;
  private storedSeq = 0;
  private flushing = false;
  private scheduled = false;
  private failures = 0;
  private waiters: Array<{ seq: number; fn: () => void }> = [];
  private closed = false;
  /** Flushes done, rows written, and writes refused (given up) since start (metrics, bench). */
  readonly counters = { flushes: 0, rows: 0, refused: 0 };
  /** When the oldest failing flush began failing (Date.now()); null while flushes succeed. */
  private failingSince: number | null = null;

  constructor(private readonly options: JournalOptions) {}

  /**
   * Sequence number of the last write recorded; with a flow, of the last write of that flow's
   * scope or of its organization's global scope (what its messages may depend on).
   */
  written(flow?: { organizationId: string; flowId: string }): number {
    if (!flow) return this.seq;
    const own = this.lastWrite.get(`${flow.organizationId}\u0000${flow.flowId}`) ?? 0;
    const global = this.lastWrite.get(`${flow.organizationId}\u0000global`) ?? 0;
    return own > global ? own : global;
  }

  /** Per scope (organization + scope id): the sequence number of its last write not yet stored. */
  private readonly lastWrite = new Map<string, number>();

  /** Sequence number up to which every write is stored. */
  stored(): number {
    return this.storedSeq;
  }

  /** Runs `fn` once every write up to `seq` is stored (at once, synchronously, if it is). */
  whenStored(seq: number, fn: () => void): void {
    if (seq <= this.storedSeq) {
      fn();
      return;
    }
    this.waiters.push({ seq, fn });
    this.schedule();
  }

  /** Resolves once everything recorded so far is stored. */
  flushed(): Promise<void> {
    return new Promise((resolve) => this.whenStored(this.seq, resolve));
  }

  record(target: ContextScope, key: string, json: string | null, increment?: number, nodeId?: string): void {
    const id = keyOf(target, key);
    const before = this.pending.get(id);
    let add = increment;
    // An addition after an addition adds up; after a value (or a deletion) it is that value.
    if (add !== undefined && before && before.increment === undefined) add = undefined;
    else if (add !== undefined && before?.increment !== undefined) add += before.increment;
    this.pending.delete(id);
    this.pending.set(id, { organizationId: target.organizationId, scope: target.scope, key, json, increment: add, target, nodeId });
    this.seq++;
    this.lastWrite.set(`${target.organizationId}\u0000${target.scope}`, this.seq);
    this.schedule();
  }

  /** Whether a write of this key is recorded and not yet stored. */
  hasUnstored(target: ContextScope, key: string): boolean {
    const id = keyOf(target, key);
    return this.pending.has(id) || this.inFlight.has(id);
  }

  /**
   * Stores everything recorded so far; resolves to the value `key` had right after the caller's
   * write, in the store: for an addition just recorded, the store's sum less the additions recorded
   * after it in the same batch (additions to one key are merged per flush), so each caller gets its
   * own number.
   */
  async commitNow(target: ContextScope, key: string): Promise<unknown> {
    const seq = this.seq;
    const id = keyOf(target, key);
    const batch = this.batchNo;
    const mine = this.pending.get(id)?.increment;
    let answer: unknown;
    const capture = (writes: StoredWrite[], flushed: number, merged: Map<string, Pending>) => {
      if (flushed !== batch) return;
      const w = writes.find((x) => keyOf(x, x.key) === id);
      if (!w || w.json === null) return;
      const value: unknown = JSON.parse(w.json);
      const total = merged.get(id)?.increment;
      answer = mine !== undefined && total !== undefined && typeof value === "number" ? value - total + mine : value;
    };
    this.listeners.add(capture);
    try {
      await new Promise<void>((resolve) => this.whenStored(seq, resolve));
    } finally {
      this.listeners.delete(capture);
    }
    return answer;
  }

  private readonly listeners = new Set<(writes: StoredWrite[], batch: number, merged: Map<string, Pending>) => void>();
  /** Number of the batch now being recorded (the pending one). */
  private batchNo = 0;

  private schedule(): void {
    if (this.scheduled || this.flushing || this.closed) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.flushing || this.pending.size === 0) {
      this.release();
      return;
    }
    this.flushing = true;
    const upTo = this.seq;
    const batch = this.pending;
    const batchNo = this.batchNo++;
    this.pending = new Map();
    this.inFlight = batch;
    const outcome = await this.commitIsolated([...batch.keys()], batch);
    this.counters.flushes++;
    this.counters.rows += batch.size - outcome.retry.size - outcome.refused.length;
    if (outcome.retry.size > 0) {
      this.options.onError?.(outcome.error);
      // Back in front of what was recorded since: newer writes of the same key stay newer.
      const again = new Map<string, Pending>();
      for (const id of outcome.retry) {
        const p = batch.get(id)!;
        const newer = this.pending.get(id);
        if (!newer) {
          again.set(id, p);
          continue;
        }
        if (newer.increment !== undefined && p.increment !== undefined) newer.increment += p.increment;
        else if (newer.increment !== undefined) {
          newer.increment = undefined;
        }
      }
      this.pending = new Map([...again, ...this.pending]);
    }
    this.inFlight = new Map();
    this.flushing = false;
    const byId = new Map<string, StoredWrite>();
    for (const w of outcome.stored) byId.set(keyOf(w, w.key), w);
    for (const [id, p] of batch) {
      const w = byId.get(id);
      if (!w) continue;
      // An addition: the store's sum is the value (unless a newer write of ours is on its way).
      p.target.stored(p.key, w.version, p.increment !== undefined && !this.pending.has(id) ? w.json : undefined);
    }
    for (const { id, error } of outcome.refused) {
      const p = batch.get(id)!;
      this.counters.refused++;
      if (!this.pending.has(id)) p.target.refused(p.key);
      this.options.onRefused?.({ organizationId: p.organizationId, scope: p.scope, key: p.key, json: p.json, increment: p.increment, nodeId: p.nodeId, error });
    }
    if (outcome.stored.length > 0) this.options.onStored?.(outcome.stored);
    if (outcome.retry.size === 0) {
      this.failures = 0;
      this.failingSince = null;
      this.storedSeq = Math.max(this.storedSeq, upTo);
      for (const [scope, seq] of this.lastWrite) if (seq <= this.storedSeq) this.lastWrite.delete(scope);
      for (const listener of this.listeners) listener(outcome.stored, batchNo, batch);
      this.release();
      if (this.pending.size > 0) this.schedule();
      else if (this.closed) this.release();
    } else {
      this.failures++;
      this.failingSince ??= Date.now();
      const pause = Math.min(2000, 50 * 2 ** Math.min(this.failures, 6));
      setTimeout(() => void this.flush(), pause).unref();
    }
  }

  /**
   * Commits the writes `ids` of `batch`: all in one transaction when the store takes them; when it
   * refuses them for their data, each organization's apart, then halves, down to the refused write
   * alone. An outage stops the split: what is not stored yet is left for the retry.
   */
  private async commitIsolated(ids: string[], batch: Map<string, Pending>): Promise<Outcome> {
    const outcome: Outcome = { stored: [], refused: [], retry: new Set() };
    const write = (id: string): ContextWrite => {
      const p = batch.get(id)!;
      return { organizationId: p.organizationId, scope: p.scope, key: p.key, json: p.json, increment: p.increment };
    };
    const attempt = async (group: string[], byOrganization: boolean): Promise<void> => {
      if (group.length === 0) return;
      if (outcome.retry.size > 0) {
        for (const id of group) outcome.retry.add(id);
        return;
      }
      try {
        outcome.stored.push(...(await this.options.backend.commit(group.map(write))));
        return;
      } catch (err) {
        if (this.options.backend.isOutage?.(err) ?? true) {
          outcome.error = err;
          for (const id of group) outcome.retry.add(id);
          return;
        }
        if (group.length === 1) {
          outcome.refused.push({ id: group[0]!, error: err });
          return;
        }
        if (byOrganization) {
          const organizations = new Map<string, string[]>();
          for (const id of group) {
            const organizationId = batch.get(id)!.organizationId;
            const own = organizations.get(organizationId);
            if (own) own.push(id);
            else organizations.set(organizationId, [id]);
          }
          if (organizations.size > 1) {
            for (const own of organizations.values()) await attempt(own, false);
            return;
          }
        }
        const half = group.length >> 1;
        await attempt(group.slice(0, half), false);
        await attempt(group.slice(half), false);
      }
    };
    await attempt(ids, true);
    return outcome;
  }

  /** A write refused before it was recorded (the organization's key bound, for a sandbox's write): reported and counted as the store's refusals are. */
  refuse(write: RefusedWrite): void {
    this.counters.refused++;
    this.options.onRefused?.(write);
  }

  /** Since when flushes have been failing (ms since the epoch), or null: `/ready` reports a journal that cannot drain. */
  stalledSince(): number | null {
    return this.failingSince;
  }

  /** Writes recorded and not yet stored. */
  backlog(): number {
    return this.pending.size + this.inFlight.size;
  }

  private release(): void {
    if (this.waiters.length === 0) return;
    const ready = this.waiters.filter((w) => w.seq <= this.storedSeq);
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.seq > this.storedSeq);
    for (const w of ready) {
      try {
        w.fn();
      } catch {
        // A waiter's failure is its own.
      }
    }
  }

  /** Stores what is recorded (retrying until `timeoutMs`), then refuses nothing but flushes no more. */
  async close(timeoutMs = 5000): Promise<void> {
    const done = this.flushed();
    await Promise.race([done, new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
    this.closed = true;
  }
}
