/**
 * Flow and global context on this instance (SPEC §13): the scopes of the flows running here and the
 * global scopes of their organizations, one write-behind journal for all of them (the engine's
 * durability gate), and the channel through which instances tell each other what was stored.
 *
 * - A flow's scope is loaded from the database when the flow starts here and stored (flushed) when
 *   it stops, before its lease is released: the next holder (a redeploy, a restart, a failover)
 *   loads everything a delivered message could have depended on.
 * - An organization's global scope is loaded at its first flow here and kept; writes stored by other
 *   instances (their flushes, REST) reach it over the store's pub/sub (`context:changes`) with their
 *   versions, and apply when newer than what it has seen.
 * - A paused holder that lost its lease stores none of its flow's writes any more (the fence).
 */
import type { PrismaClient } from "../../generated/prisma/client";
import type { KeyValueStore } from "../store";
import type { Logger } from "../logger";
import { isDatabaseUnavailable } from "../errors";
import { ContextJournal, type ContextWrite, type RefusedWrite, type StoredWrite } from "../runtime/context/context-journal";
import { ContextScope, type OrgUsage } from "../runtime/context/context-scope";
import type { FlowContextStores, FlowSpec } from "../runtime/engine";
import { commitContextWrites, contextRowCount, contextUsage, GLOBAL_SCOPE, loadContextEntry, loadContextScope, sweepContextTombstones } from "../persistence/context-store";

export const CONTEXT_CHANNEL = "context:changes";
/** How long a stopping flow waits for its context writes to be stored. */
const FLUSH_ON_STOP_MS = 10_000;

/** What an instance publishes after storing context writes (compact field names: it is frequent). */
export interface ContextChange {
  from: string;
  w: Array<{ o: string; s: string; k: string; v: string | null; n: number }>;
}

/** A context write the database refused, for the flow runtime to report. */
export interface ContextRefusal {
  organizationId: string;
  /** The flow whose scope it was written to (absent for global context: then nodeId's flow, if known). */
  flowId?: string;
  nodeId?: string;
  key: string;
  error: string;
}

export interface ContextHubDeps {
  prisma: PrismaClient;
  store: KeyValueStore;
  logger: Logger;
  instanceId: string;
  /** CONTEXT_MAX_BYTES: what one organization's context may hold. */
  maxBytes: number;
  /** CONTEXT_MAX_KEYS: rows (keys, deleted ones until swept) one organization's context may hold; absent: unbounded. */
  maxKeys?: number;
  /** How often deleted keys' rows are swept (ms; default a minute), and how old they must be. */
  sweepMs?: number;
}

/** Tombstones swept per statement, and statements per sweep. */
const SWEEP_BATCH = 1000;
const SWEEP_MAX_BATCHES = 20;

export class ContextHub {
  readonly journal: ContextJournal;
  private readonly usages = new Map<string, OrgUsage>();
  private readonly globals = new Map<string, Promise<ContextScope>>();
  private readonly flows = new Map<string, ContextScope>();
  private unsubscribe: Promise<() => Promise<void>> | undefined;
  /** Whether this instance may still write the flow's state (its cluster lease); absent: always. */
  private fence: ((flowId: string) => boolean) | undefined;

  constructor(private readonly deps: ContextHubDeps) {
    this.journal = new ContextJournal({
      backend: { commit: (writes) => this.commit(writes), isOutage: (err) => isDatabaseUnavailable(err) },
      onStored: (writes) => this.published(writes),
      onError: (err) => deps.logger.error({ err }, "context writes could not be stored; messages after them are held and the writes retried"),
      onRefused: (write) => this.refused(write),
    });
  }

  private commit(writes: ContextWrite[]): Promise<StoredWrite[]> {
    const fence = this.fence;
    const allowed = fence ? writes.filter((w) => w.scope === GLOBAL_SCOPE || fence(w.scope)) : writes;
    return allowed.length === 0 ? Promise.resolve([]) : commitContextWrites(this.deps.prisma, allowed);
  }

  /**
   * A write the database refused for its data, given up (never retried): logged, counted
   * (journal.counters.refused, GET /metrics) and reported to the flow that made it (refusals).
   */
  private refused(write: RefusedWrite): void {
    const raw = write.error instanceof Error ? write.error.message : String(write.error);
    // Prisma wraps the database's words in its own ("Invalid `prisma.$queryRawUnsafe()` invocation: ..."): the flow gets the database's.
    const reason = /Message: `([^`]*)`/.exec(raw)?.[1] ?? raw.trim().split("\n").pop();
    const error = `context write refused by the database: ${write.scope === GLOBAL_SCOPE ? "global" : "flow"} key ${JSON.stringify(write.key.slice(0, 64))}${write.key.length > 64 ? "…" : ""} (${reason})`;
    this.deps.logger.error({ err: write.error, organizationId: write.organizationId, scope: write.scope, nodeId: write.nodeId }, "context write refused by the database; not retried");
    this.onRefused?.({ organizationId: write.organizationId, flowId: write.scope === GLOBAL_SCOPE ? undefined : write.scope, nodeId: write.nodeId, key: write.key, error });
    void this.restore(write).catch((err: unknown) => this.deps.logger.warn({ err }, "context key could not be read back after a refused write"));
  }

  /** The cache holds what the store holds for a refused write's key again (its older value, if any). */
  private async restore(write: RefusedWrite): Promise<void> {
    const scope = write.scope === GLOBAL_SCOPE ? await this.globals.get(write.organizationId) : this.flows.get(write.scope);
    if (!scope || scope.organizationId !== write.organizationId) return;
    const { json, version } = await loadContextEntry(this.deps.prisma, write.organizationId, write.scope, write.key);
    scope.restore(write.key, json, version);
  }

  /** Set by the flow runtime: tells a flow that one of its writes was refused (its node's error, through catch). */
  onRefused: ((refusal: ContextRefusal) => void) | undefined;

  /** Other instances hear of global writes (a flow's scope lives only where the flow runs). */
  private published(writes: StoredWrite[]): void {
    const global = writes.filter((w) => w.scope === GLOBAL_SCOPE);
    if (global.length === 0) return;
    void this.publish(global);
  }

  /** Set by the flow runtime: in a cluster, flow writes are stored only while the lease is proven. */
  useFence(fence: ((flowId: string) => boolean) | undefined): void {
    this.fence = fence;
  }

  /**
   * Tells every instance (this one included, which ignores its own) what was stored. Resolves once
   * the store has taken the message (never rejects: the write itself is stored already).
   */
  publish(writes: StoredWrite[]): Promise<void> {
    const change: ContextChange = { from: this.deps.instanceId, w: writes.map((w) => ({ o: w.organizationId, s: w.scope, k: w.key, v: w.json, n: w.version })) };
    return this.deps.store.publish(CONTEXT_CHANNEL, JSON.stringify(change)).then(
      () => undefined,
      (err: unknown) => {
        this.deps.logger.warn({ err }, "context change could not be published");
      },
    );
  }

  /**
   * A write stored by REST on this instance: applied here at once, and told to the others. The REST
   * answer waits for the store to take the message, so a request that follows the answer, on any
   * instance, is handled after the instance running the flow was told (read your writes).
   */
  stored(write: StoredWrite): Promise<void> {
    this.apply(write);
    return this.publish([write]);
  }

  async start(): Promise<void> {
    if (!this.sweepTimer) {
      this.sweepTimer = setInterval(() => {
        this.sweep().catch((err: unknown) => this.deps.logger.warn({ err }, "context tombstone sweep failed"));
      }, this.deps.sweepMs ?? 60_000);
      this.sweepTimer.unref();
    }
    this.unsubscribe ??= this.deps.store.subscribe(CONTEXT_CHANNEL, (message) => {
      let change: ContextChange;
      try {
        change = JSON.parse(message) as ContextChange;
      } catch {
        return;
      }
      if (change.from === this.deps.instanceId) return;
      for (const w of change.w) this.apply({ organizationId: w.o, scope: w.s, key: w.k, json: w.v, version: w.n });
    });
    const subscribing = this.unsubscribe;
    try {
      await subscribing;
    } catch (err) {
      // Tried again at the next flow start (the store may be back by then).
      if (this.unsubscribe === subscribing) this.unsubscribe = undefined;
      throw err;
    }
  }

  private apply(write: StoredWrite): void {
    if (write.scope === GLOBAL_SCOPE) {
      void this.globals.get(write.organizationId)?.then((scope) => scope.applyStored(write.key, write.json, write.version));
      return;
    }
    const scope = this.flows.get(write.scope);
    if (scope && scope.organizationId === write.organizationId) scope.applyStored(write.key, write.json, write.version);
  }

  private async usageOf(organizationId: string): Promise<OrgUsage> {
    const [bytes, keys] = await Promise.all([contextUsage(this.deps.prisma, organizationId), contextRowCount(this.deps.prisma, organizationId)]);
    let usage = this.usages.get(organizationId);
    if (!usage) this.usages.set(organizationId, (usage = { bytes, limit: this.deps.maxBytes, keys, maxKeys: this.deps.maxKeys }));
    // Re-read at each flow start: writes other instances made to scopes not held here count too
    // (and sweeps: a deleted key stops counting once its row is swept).
    else if (this.journal.written() === this.journal.stored()) {
      usage.bytes = bytes;
      usage.keys = keys;
    }
    return usage;
  }

  /** Removes deleted keys' rows older than a sweep period (each instance sweeps; they never conflict). */
  async sweep(): Promise<number> {
    let swept = 0;
    const organizations = new Set<string>();
    for (let i = 0; i < SWEEP_MAX_BATCHES; i++) {
      const batch = await sweepContextTombstones(this.deps.prisma, { olderThanMs: this.deps.sweepMs ?? 60_000, limit: SWEEP_BATCH });
      let n = 0;
      for (const [id, count] of batch) {
        organizations.add(id);
        n += count;
      }
      swept += n;
      if (n < SWEEP_BATCH) break;
    }
    this.counters.tombstonesSwept += swept;
    // A flow that keeps creating and deleting keys must not meet CONTEXT_MAX_KEYS for rows already
    // swept: the organizations held here count again from the database.
    for (const id of organizations) if (this.usages.has(id)) await this.usageOf(id);
    return swept;
  }

  /** Deleted keys' rows swept since start. */
  readonly counters = { tombstonesSwept: 0 };
  private sweepTimer: NodeJS.Timeout | undefined;

  private globalOf(organizationId: string, usage: OrgUsage): Promise<ContextScope> {
    let global = this.globals.get(organizationId);
    if (!global) {
      global = loadContextScope(this.deps.prisma, organizationId, GLOBAL_SCOPE).then(
        (entries) => new ContextScope(organizationId, GLOBAL_SCOPE, usage, this.journal, entries),
      );
      this.globals.set(organizationId, global);
      global.catch(() => this.globals.delete(organizationId));
    }
    return global;
  }

  /** The engine's contextStores: the flow's scope loaded afresh, and its organization's global scope. */
  async storesFor(spec: FlowSpec): Promise<FlowContextStores> {
    await this.start();
    const usage = await this.usageOf(spec.organizationId);
    const global = await this.globalOf(spec.organizationId, usage);
    const entries = await loadContextScope(this.deps.prisma, spec.organizationId, spec.flowId);
    const flow = new ContextScope(spec.organizationId, spec.flowId, usage, this.journal, entries);
    this.flows.set(spec.flowId, flow);
    return {
      flow,
      global,
      close: async () => {
        // A database that does not answer must not hang a redeploy or a stop forever: the writes
        // stay in the journal (retried), and their messages stay held.
        let timer: NodeJS.Timeout | undefined;
        const stored = await Promise.race([
          this.journal.flushed().then(() => true),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(false), FLUSH_ON_STOP_MS);
          }),
        ]);
        clearTimeout(timer);
        if (this.flows.get(spec.flowId) === flow) this.flows.delete(spec.flowId);
        if (!stored) throw new Error(`its context writes were not stored within ${FLUSH_ON_STOP_MS / 1000} s; they are retried`);
      },
    };
  }

  /** The scope of a flow running here, if it does (REST reads see its unstored writes too). */
  runningScope(flowId: string): ContextScope | undefined {
    return this.flows.get(flowId);
  }

  /** Stores everything recorded, then stops listening; what the database would not take is said, never lost silently. */
  async close(): Promise<void> {
    clearInterval(this.sweepTimer);
    await this.journal.close();
    const waiting = this.journal.backlog();
    if (waiting > 0) this.deps.logger.error({ waiting, failingSince: this.journal.stalledSince() }, "context writes not stored at shutdown (the database did not take them): they are lost");
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = undefined;
    if (unsubscribe) await (await unsubscribe.catch(() => undefined))?.().catch(() => undefined);
  }
}
