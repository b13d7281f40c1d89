/**
 * Flow and global context as the runtime holds it (SPEC §13): one ContextScope per flow (its
 * context) and per organization (its global context), each a synchronous cache of JSON values in
 * front of a write-behind journal (context-journal.ts) that stores every write before the messages
 * sent after it are delivered (the engine's durability gate).
 *
 * Values are kept as JSON text: what a node reads is a copy (as from Node-RED's persistent stores),
 * and sizes are counted in UTF-8 bytes of key + JSON, against the organization's limit
 * (CONTEXT_MAX_BYTES), shared by all its scopes on this instance (OrgUsage).
 */
import type { SharedContextStore } from "../types";
import type { ContextJournal } from "./context-journal";
import { assertContextKey, contextKeyProblem } from "./context-key";

/** A write refused because the organization's context would exceed its limit. */
export class ContextFullError extends Error {
  constructor(message = "context is full") {
    super(message);
    this.name = "ContextFullError";
  }
}

/** The bytes one organization's context uses (as this instance knows them) and its limit. */
export interface OrgUsage {
  bytes: number;
  readonly limit: number;
  /** Rows the organization's context holds (keys, deleted ones until swept) and may hold (CONTEXT_MAX_KEYS); absent: unbounded. */
  keys?: number;
  readonly maxKeys?: number;
}

export function entryBytes(key: string, json: string): number {
  return Buffer.byteLength(key) + Buffer.byteLength(json);
}

/** JSON text of a context value; undefined deletes. Functions, symbols and cycles are refused. */
export function contextJson(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (err) {
    throw new TypeError(`context values must be JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (json === undefined) throw new TypeError(`context values must be JSON (got a ${typeof value})`);
  return json;
}

interface Entry {
  json: string;
  bytes: number;
}

export interface ScopeEntry {
  key: string;
  json: string;
  version: number;
}

export class ContextScope implements SharedContextStore {
  private readonly entries = new Map<string, Entry>();
  /** The newest version seen per key, deletions included (writes of other instances apply only if newer). */
  private readonly versions = new Map<string, number>();
  private scopeBytes = 0;
  /**
   * Writes made on the host (change nodes, REST, another instance) that the flow's function sandboxes
   * have not been told yet (see sandbox-flow-context.ts); key → JSON or null (deleted).
   */
  private hostWrites: Map<string, string | null> | undefined;

  constructor(
    readonly organizationId: string,
    /** "global", or the flow's id. */
    readonly scope: string,
    private readonly usage: OrgUsage,
    private readonly journal: ContextJournal | null,
    initial: ScopeEntry[] = [],
  ) {
    for (const { key, json, version } of initial) {
      const bytes = entryBytes(key, json);
      this.entries.set(key, { json, bytes });
      this.versions.set(key, version);
      this.scopeBytes += bytes;
    }
  }

  get(key: string): unknown {
    const entry = this.entries.get(key);
    return entry === undefined ? undefined : JSON.parse(entry.json);
  }

  getJson(key: string): string | undefined {
    return this.entries.get(key)?.json;
  }

  set(key: string, value: unknown): void {
    this.setJson(key, contextJson(value) ?? null);
  }

  keys(): string[] {
    return [...this.entries.keys()];
  }

  /** Bytes this scope holds. */
  get bytes(): number {
    return this.scopeBytes;
  }

  /** Bytes this scope may grow to: the organization's limit less what its other scopes use. */
  budget(): number {
    return this.usage.limit - (this.usage.bytes - this.scopeBytes);
  }

  /** Keys the organization's context may still add (the sandboxes' copy is told with each request). */
  keysLeft(): number {
    return this.usage.maxKeys === undefined ? Infinity : Math.max(0, this.usage.maxKeys - (this.usage.keys ?? 0));
  }

  snapshot(): Array<[string, string]> {
    return [...this.entries].map(([key, entry]) => [key, entry.json]);
  }

  /**
   * Adds `by` to a number (anything else counts as 0) and returns the new value. Exact on this
   * instance at once; stored as an addition, so additions made on several instances all count.
   */
  increment(key: string, by = 1): number {
    const current = this.get(key);
    const next = (typeof current === "number" ? current : 0) + by;
    this.write(key, JSON.stringify(next), { check: true, origin: "host", increment: by });
    return next;
  }

  /**
   * The atomic increment of function code: stored (and, across instances, added in the database)
   * before it resolves, to the value the store answered.
   */
  async incrementStored(key: string, by = 1): Promise<number> {
    const local = this.increment(key, by);
    if (!this.journal) return local;
    const stored = await this.journal.commitNow(this, key);
    return typeof stored === "number" ? stored : local;
  }

  /** A write made on the host; null deletes. Throws ContextFullError past the organization's limit. */
  setJson(key: string, json: string | null): void {
    this.write(key, json, { check: true, origin: "host" });
  }

  /**
   * Writes the flow's function sandboxes made (they checked the limit and the key against
   * budget() and context-key.ts themselves; a key that could not be stored is dropped here too).
   * `nodeId`: the function node whose code made them (a write the store refuses is its error).
   */
  applySandboxWrites(writes: Array<[string, string | null]>, nodeId?: string): void {
    for (const [key, json] of writes) if (contextKeyProblem(key) === null) this.write(key, json, { check: false, origin: "sandbox", nodeId });
  }

  private write(key: string, json: string | null, options: { check: boolean; origin: "host" | "sandbox"; increment?: number; nodeId?: string }): void {
    if (options.check) assertContextKey(key);
    const previous = this.entries.get(key);
    // A key this scope holds no row for (as far as it knows) takes a new one: the organization's key bound.
    if (json !== null && previous === undefined && !this.versions.has(key) && this.usage.maxKeys !== undefined) {
      const keys = this.usage.keys ?? 0;
      if (keys + 1 > this.usage.maxKeys) {
        const full = new ContextFullError(`context is full: the organization's context may hold ${this.usage.maxKeys} keys (deleted ones count until they are swept, within minutes)`);
        if (options.check) throw full;
        // The sandbox already went on: the write is refused as a store refusal is (its node's error).
        this.journal?.refuse({ organizationId: this.organizationId, scope: this.scope, key, json, nodeId: options.nodeId, error: full });
        return;
      }
      this.usage.keys = keys + 1;
    }
    const previousBytes = previous?.bytes ?? 0;
    if (json === null) {
      if (previous === undefined) return;
      this.entries.delete(key);
      this.scopeBytes -= previousBytes;
      this.usage.bytes -= previousBytes;
    } else {
      const bytes = entryBytes(key, json);
      if (options.check && bytes > previousBytes && this.usage.bytes - previousBytes + bytes > this.usage.limit) throw new ContextFullError();
      this.entries.set(key, { json, bytes });
      this.scopeBytes += bytes - previousBytes;
      this.usage.bytes += bytes - previousBytes;
    }
    if (options.origin === "host") this.hostWrites?.set(key, json);
    else this.hostWrites?.delete(key);
    this.journal?.record(this, key, json, options.increment, options.nodeId);
  }

  /**
   * What the store holds for a key whose write it refused (read back by the hub after refused()):
   * applied unless a newer write of this scope is on its way.
   */
  restore(key: string, json: string | null, version: number): void {
    if (this.journal?.hasUnstored(this, key)) return;
    if (version > (this.versions.get(key) ?? 0)) this.versions.set(key, version);
    const previous = this.entries.get(key);
    const previousBytes = previous?.bytes ?? 0;
    if (json === null) {
      if (!previous) return;
      this.entries.delete(key);
      this.scopeBytes -= previousBytes;
      this.usage.bytes -= previousBytes;
    } else {
      const bytes = entryBytes(key, json);
      this.entries.set(key, { json, bytes });
      this.scopeBytes += bytes - previousBytes;
      this.usage.bytes += bytes - previousBytes;
    }
    this.hostWrites?.set(key, json);
  }

  /**
   * A write of this scope the store refused (the journal gave up on it): the cached value is
   * dropped, so what the flow reads is no longer something that was never stored (the hub then
   * restores what the store holds).
   */
  refused(key: string): void {
    const previous = this.entries.get(key);
    if (!previous) return;
    this.entries.delete(key);
    this.scopeBytes -= previous.bytes;
    this.usage.bytes -= previous.bytes;
    this.hostWrites?.set(key, null);
  }

  /**
   * A write stored elsewhere (REST, another instance) with its version: applied unless this scope
   * has seen a newer one, or has a write of its own on the way to the store (which will be newer).
   */
  applyStored(key: string, json: string | null, version: number): void {
    if ((this.versions.get(key) ?? 0) >= version) return;
    this.versions.set(key, version);
    if (this.journal?.hasUnstored(this, key)) return;
    const previous = this.entries.get(key);
    const previousBytes = previous?.bytes ?? 0;
    if (json === null) {
      if (!previous) return;
      this.entries.delete(key);
      this.scopeBytes -= previousBytes;
      this.usage.bytes -= previousBytes;
    } else {
      if (previous?.json === json) return;
      const bytes = entryBytes(key, json);
      this.entries.set(key, { json, bytes });
      this.scopeBytes += bytes - previousBytes;
      this.usage.bytes += bytes - previousBytes;
    }
    this.hostWrites?.set(key, json);
  }

  /**
   * The version the store gave this scope's own write (from the journal), and for an addition the
   * value the store computed (other instances' additions included).
   */
  stored(key: string, version: number, json?: string | null): void {
    if ((this.versions.get(key) ?? 0) < version) this.versions.set(key, version);
    if (json === undefined || json === null || this.entries.get(key)?.json === json) return;
    const previousBytes = this.entries.get(key)?.bytes ?? 0;
    const bytes = entryBytes(key, json);
    this.entries.set(key, { json, bytes });
    this.scopeBytes += bytes - previousBytes;
    this.usage.bytes += bytes - previousBytes;
    this.hostWrites?.set(key, json);
  }

  /** Starts tracking host writes for the flow's sandboxes (see sandbox-flow-context.ts). */
  trackHostWrites(): void {
    this.hostWrites ??= new Map();
  }

  takeHostWrites(): Array<[string, string | null]> | undefined {
    if (!this.hostWrites || this.hostWrites.size === 0) return undefined;
    const writes = [...this.hostWrites];
    this.hostWrites.clear();
    return writes;
  }

  /** Forgets host writes not yet told (the sandboxes' copy is being re-seeded from snapshot()). */
  clearHostWrites(): void {
    this.hostWrites?.clear();
  }
}

/** In-memory scopes (no journal, no limit) for an engine given no durable context (unit tests). */
export function memoryScope(organizationId: string, scope: string): ContextScope {
  return new ContextScope(organizationId, scope, { bytes: 0, limit: Number.MAX_SAFE_INTEGER }, null);
}
