/**
 * Host side of the function sandbox: a small pool of worker threads (sandbox-worker.ts) that run the
 * QuickJS engines off the main thread. The pool places sandboxes on workers; pool-worker.ts is one
 * worker (its request queue and hard deadline), pooled-sandbox.ts one node's sandbox (creation,
 * calls, re-creation after its worker died, close).
 *
 * - Pool: max(2, min(4, os.availableParallelism())) workers, started lazily at the first sandbox
 *   (importing this file starts nothing). Each worker hosts many sandboxes, keyed by sandbox id, and
 *   handles one request at a time, in order.
 * - Placement: all sandboxes of one flow context Map (one flow group) live on the same worker, where
 *   the group's flow context lives, so flow.get/set stay synchronous inside the sandbox. Groups are
 *   spread over the workers round-robin, in order of creation; a terminated worker's slot gets a
 *   fresh worker at the next request for it.
 */
import { availableParallelism } from "node:os";
import { PoolWorker } from "./pool-worker";
import { PooledSandbox, type SandboxGroup, type SandboxHost } from "./pooled-sandbox";
import { emptyDiagnostics, SandboxError, type FunctionSandbox, type FunctionSandboxOptions, type SandboxGlobalContext, type SandboxPoolDiagnostics } from "./sandbox-types";
import { memoryScope } from "../context/context-scope";
import { SpinBudget, spinWindowUs } from "./spin";

export type { SandboxPoolDiagnostics } from "./sandbox-types";

/**
 * How many sandboxes may live at once, in the whole pool and per owner (an organization). Each one is
 * a WebAssembly instance whose linear memory V8 reserves with its guard region (about 10 GB of address
 * space, 16 MiB of it committed lazily): the process's address space, shared by every tenant, holds
 * about 12,000 before allocation fails for everyone. The bounds refuse a deploy with a clear error
 * long before that, and keep one organization from taking all of it.
 */
export interface SandboxLimits {
  maxSandboxes: number;
  maxPerOwner: number;
}
export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { maxSandboxes: 4000, maxPerOwner: 500 };

export function poolSize(): number {
  return Math.max(2, Math.min(4, availableParallelism()));
}

/**
 * The worker pool of one application: created by createAppServices, closed by its close(). Everything the
 * pool tracks (workers, flow groups, counters) lives on the instance, none at module level, so two
 * applications in one process (tests) never share workers, and Next's bundled copies of this module
 * (which never start a pool) hold nothing.
 */
export class SandboxPool implements SandboxHost {
  private slots: Array<PoolWorker | undefined> | undefined;
  private readonly retiredCounters: [number, number] = [0, 0];
  private nextGroupSlot = 0;
  private nextGroupId = 1;
  private readonly groupIds = new WeakMap<object, SandboxGroup>();
  private readonly globals = new Map<string, SandboxGlobalContext>();
  private nextSandboxId = 1;
  private closed = false;
  /** @internal counters shared with the workers and sandboxes of this pool. */
  readonly counters: SandboxPoolDiagnostics = emptyDiagnostics();

  private live = 0;
  private readonly livePerOwner = new Map<string, number>();
  private readonly size: number;
  private readonly limits: SandboxLimits;
  /** The host's and the workers' spin window (spin.ts), and the host's per-turn budget shared by the workers. */
  private readonly spin: { windowUs: number; budget: SpinBudget };

  /** `spinUs`: how long each side waits for the other's answer before sleeping (0: never spin). */
  constructor(options: { size?: number; limits?: Partial<SandboxLimits>; spinUs?: number } = {}) {
    this.size = options.size ?? poolSize();
    this.limits = { ...DEFAULT_SANDBOX_LIMITS, ...options.limits };
    this.spin = { windowUs: spinWindowUs(options.spinUs), budget: new SpinBudget() };
  }

  /**
   * Creates the sandbox of one function node on the pool: compiles the code (SandboxError "syntax"
   * when invalid) and runs `initialize`. Refused (SandboxError "capacity") past the pool's limits;
   * the slot is given back when the sandbox is closed or fails to start.
   */
  async create(options: FunctionSandboxOptions): Promise<FunctionSandbox> {
    if (this.closed) throw new SandboxError("runtime", "the sandbox pool is shut down");
    if (!Number.isInteger(options.outputs) || options.outputs < 0) throw new RangeError("outputs must be a non-negative integer");
    if (!(options.timeoutMs > 0)) throw new RangeError("timeoutMs must be positive");
    const owner = options.owner;
    const ownerCount = owner === undefined ? 0 : (this.livePerOwner.get(owner) ?? 0);
    if (owner !== undefined && ownerCount >= this.limits.maxPerOwner) {
      throw new SandboxError("capacity", `this organization already runs ${this.limits.maxPerOwner} function nodes, the most it may run at once`);
    }
    if (this.live >= this.limits.maxSandboxes) {
      throw new SandboxError("capacity", `this server already runs ${this.limits.maxSandboxes} function nodes, the most it may run at once`);
    }
    this.live++;
    if (owner !== undefined) this.livePerOwner.set(owner, ownerCount + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.live--;
      if (owner === undefined) return;
      const n = (this.livePerOwner.get(owner) ?? 1) - 1;
      if (n > 0) this.livePerOwner.set(owner, n);
      else this.livePerOwner.delete(owner);
    };
    let sandbox: FunctionSandbox;
    try {
      sandbox = await PooledSandbox.create(this, options);
    } catch (err) {
      release();
      throw err;
    }
    const close = sandbox.close.bind(sandbox);
    sandbox.close = () => {
      release();
      return close();
    };
    return sandbox;
  }

  /** Sandboxes alive now, in all and for one owner (tests, monitoring). */
  liveCount(owner?: string): number {
    return owner === undefined ? this.live : (this.livePerOwner.get(owner) ?? 0);
  }

  /** @internal */
  newSandboxId(): number {
    return this.nextSandboxId++;
  }

  /** @internal */
  groupOf(key: object): SandboxGroup {
    let group = this.groupIds.get(key);
    if (!group) {
      group = { gid: this.nextGroupId++, slot: this.nextGroupSlot++ % this.size, sentAt: new Map() };
      this.groupIds.set(key, group);
    }
    return group;
  }

  /** @internal */
  defaultGlobal(owner: string | undefined): SandboxGlobalContext {
    const id = owner ?? "";
    let global = this.globals.get(id);
    if (!global) this.globals.set(id, (global = memoryScope(id, "global")));
    return global;
  }

  /**
   * Tells the pool of other work on the host's thread (the engine's delivery queue): while `busy()`
   * is true the host does not spin for a worker's answer (spin.ts). Returns the function that removes it.
   */
  yieldTo(busy: () => boolean): () => void {
    return this.spin.budget.yieldTo(busy);
  }

  /** @internal */
  workerAt(slot: number): PoolWorker {
    if (this.closed) throw new SandboxError("runtime", "the sandbox pool is shut down");
    const slots = (this.slots ??= Array.from({ length: this.size }, () => undefined));
    let worker = slots[slot];
    if (!worker || worker.dead) {
      worker = new PoolWorker(this.counters, (dead) => {
        this.retiredCounters[0] += dead.counters[0];
        this.retiredCounters[1] += dead.counters[1];
        if (this.slots?.[slot] === dead) this.slots[slot] = undefined;
      }, this.spin);
      slots[slot] = worker;
    }
    return worker;
  }

  /**
   * Counters for tests and monitoring. `disposeFailures` counts engines whose runtime could not be
   * freed cleanly (QuickJS asserts that no object is left when a runtime is freed, so a handle leak
   * shows up here), as last reported by the workers (see idle()).
   */
  diagnostics(): Readonly<SandboxPoolDiagnostics> {
    let abandoned = this.retiredCounters[0];
    let failures = this.retiredCounters[1];
    for (const worker of this.slots ?? []) {
      if (!worker) continue;
      abandoned += worker.counters[0];
      failures += worker.counters[1];
    }
    const d = this.counters;
    return { ...d, enginesAbandoned: d.enginesAbandoned + abandoned, disposeFailures: d.disposeFailures + failures };
  }

  /** Resolves once every worker has answered everything asked so far (for tests and shutdown). */
  async idle(): Promise<void> {
    while ((this.slots ?? []).some((worker) => worker && !worker.dead && !worker.idleNow)) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /** Terminates the pool's workers; sandboxes created afterwards are refused. */
  async close(): Promise<void> {
    this.closed = true;
    const workers = (this.slots ?? []).filter((worker): worker is PoolWorker => worker !== undefined);
    this.slots = undefined;
    await Promise.all(workers.map((worker) => worker.worker.terminate()));
  }
}
