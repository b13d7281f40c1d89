/**
 * Host side of the function sandbox: a small pool of worker threads (sandbox-worker.ts) that run the
 * QuickJS engines off the main thread, and the FunctionSandbox handles that talk to them.
 *
 * - Pool: max(2, min(4, os.availableParallelism())) workers, started lazily at the first sandbox
 *   (importing this file starts nothing). Each worker hosts many sandboxes, keyed by sandbox id, and
 *   handles one request at a time, in order.
 * - Placement: all sandboxes of one flow context Map (one flow group) live on the same worker, where
 *   the group's flow context lives, so flow.get/set stay synchronous inside the sandbox. Groups are
 *   spread over the workers round-robin, in order of creation.
 * - Hard deadline: the host times the request at the head of each worker's queue (the one the worker
 *   is running) from when it reached the head; a call that has not answered after
 *   `timeoutMs + max(100, timeoutMs)` ms gets the worker terminated and fails with
 *   SandboxError("timeout"). The engine's interrupt handler (the soft deadline, `timeoutMs`) stays
 *   the first line; the hard one catches long native operations that never reach the interrupt check.
 * - After a worker is terminated (or dies), every sandbox that lived on it is re-created on a fresh
 *   worker before its next call: `initialize` runs again (its logs are reported with that call) and
 *   the per-node `context` is lost; requests queued behind the one that timed out never ran and are
 *   retried there transparently. The flow context survives: the worker's copy is re-seeded from the
 *   host's mirror (see FunctionSandboxOptions.flowContext).
 */
import { randomBytes } from "node:crypto";
import { availableParallelism } from "node:os";
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import type { Message } from "../types";
import type { WireOptions, WorkerReply, WorkerRequest } from "./sandbox-protocol";
import {
  DEFAULT_MEMORY_LIMIT_BYTES,
  emptyResult,
  parseJson,
  SandboxError,
  type FunctionSandbox,
  type FunctionSandboxOptions,
  type SandboxResult,
} from "./sandbox-types";

type ReplyMessage = Extract<WorkerReply, { t: "reply" }>;

/** A request that never ran because its worker was replaced: safe to retry on the new one. */
class WorkerLost extends Error {}

interface Pending {
  id: number;
  hardMs: number;
  /** When the request reached the head of the worker's queue (the worker started it); 0 before. */
  started: number;
  onReply(reply: ReplyMessage): void;
  onLost(error: Error): void;
}

export interface SandboxPoolDiagnostics {
  enginesCreated: number;
  enginesLive: number;
  enginesAbandoned: number;
  disposeFailures: number;
  workersStarted: number;
  workersTerminated: number;
}

function emptyDiagnostics(): SandboxPoolDiagnostics {
  return { enginesCreated: 0, enginesLive: 0, enginesAbandoned: 0, disposeFailures: 0, workersStarted: 0, workersTerminated: 0 };
}

/** Time a new worker may take to load (tsx, QuickJS) before its first request is timed. */
const WORKER_BOOT_LIMIT_MS = 30_000;

export function hardLimitMs(timeoutMs: number): number {
  return timeoutMs + Math.max(100, timeoutMs);
}

function workerEntry(): { url: URL; execArgv: string[] | undefined } {
  const here = import.meta.url;
  // From source (tsx in production, vitest in tests) the worker is TypeScript too and needs the loader.
  if (/\.[cm]?tsx?$/.test(new URL(here).pathname)) {
    return { url: new URL("./sandbox-worker-boot.mjs", here), execArgv: [] };
  }
  return { url: new URL("./sandbox-worker.js", here), execArgv: undefined };
}

class PoolWorker {
  readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly signal: Int32Array;
  private readonly queue: Pending[] = [];
  private ready = false;
  private readonly bootStarted = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = 0;
  private nextId = 1;
  dead = false;
  /** Flow groups held by the worker: group id -> number of sandboxes (live or being created). */
  readonly groups = new Map<number, number>();
  /** The worker's last reported engine counters. */
  counters: [number, number] = [0, 0];
  readonly sandboxes = new Set<PooledSandbox>();

  constructor(
    private readonly diagnostics: SandboxPoolDiagnostics,
    private readonly onDeath: (worker: PoolWorker) => void,
  ) {
    const channel = new MessageChannel();
    const signal = new SharedArrayBuffer(8);
    this.signal = new Int32Array(signal);
    this.port = channel.port1;
    const { url, execArgv } = workerEntry();
    this.worker = new Worker(url, {
      execArgv,
      workerData: { port: channel.port2, signal },
      transferList: [channel.port2],
    });
    this.diagnostics.workersStarted++;
    this.port.on("message", (reply: WorkerReply) => this.dispatch(reply));
    this.worker.on("error", (err) => this.die(new SandboxError("runtime", `the sandbox worker failed (${err.message}) and was restarted`)));
    this.worker.on("exit", (code) => this.die(new SandboxError("runtime", `the sandbox worker stopped (exit code ${code}) and was restarted`)));
    this.idle();
  }

  /** Posts a request; the answer comes to onReply, or onLost if the worker goes away first. */
  post(request: WorkerRequest, hardMs: number, handlers: Pick<Pending, "onReply" | "onLost">): number {
    if (this.dead) {
      handlers.onLost(new WorkerLost());
      return 0;
    }
    if (request.t === "drop") {
      this.port.postMessage(request);
      return 0;
    }
    const pending: Pending = { id: request.id, hardMs, started: 0, ...handlers };
    this.queue.push(pending);
    if (this.queue.length === 1) {
      this.port.ref();
      this.worker.ref();
      this.startHead();
    }
    this.port.postMessage(request);
    return request.id;
  }

  newId(): number {
    return this.nextId++;
  }

  request(request: WorkerRequest, hardMs: number): Promise<ReplyMessage> {
    return new Promise((resolve, reject) => {
      this.post(request, hardMs, { onReply: resolve, onLost: reject });
    });
  }

  /**
   * Posts a request and blocks the calling thread until it is answered (or its hard deadline, or
   * that of a request ahead of it, passes: then the worker is terminated). For close() with finalize.
   */
  requestSync(request: WorkerRequest, hardMs: number): ReplyMessage | Error {
    let outcome: ReplyMessage | Error | undefined;
    this.post(request, hardMs, {
      onReply: (reply) => (outcome = reply),
      onLost: (error) => (outcome = error),
    });
    // Ask the worker to notify after each answer (it only counts them otherwise).
    Atomics.store(this.signal, 1, 1);
    while (outcome === undefined) {
      const seen = Atomics.load(this.signal, 0);
      this.drain();
      if (outcome !== undefined) break;
      const wait = this.checkHead();
      if (outcome !== undefined) break;
      Atomics.wait(this.signal, 0, seen, Math.max(1, wait));
    }
    Atomics.store(this.signal, 1, 0);
    return outcome;
  }

  /** Reads the answers already queued on the port, without waiting for the event loop. */
  private drain(): void {
    for (let received = receiveMessageOnPort(this.port); received; received = receiveMessageOnPort(this.port)) {
      this.dispatch(received.message as WorkerReply);
    }
  }

  private dispatch(reply: WorkerReply): void {
    if (this.dead) return;
    if (reply.t === "ready") {
      this.ready = true;
      this.startHead();
      return;
    }
    if (reply.d) this.counters = reply.d;
    const pending = this.queue[0];
    if (!pending || pending.id !== reply.id) return; // cannot happen: answers come in order
    this.queue.shift();
    if (this.queue.length > 0) this.startHead();
    else this.idle();
    pending.onReply(reply);
  }

  /**
   * Times the new head request. One timer per worker, re-armed only when the new deadline is
   * earlier than the armed one: a timer that fires early just re-arms for what is left (most calls
   * end long before their deadline, and re-arming a timer per call would cost more than the call).
   */
  private startHead(): void {
    const head = this.queue[0];
    if (!head) return;
    let deadline: number;
    if (this.ready) {
      head.started = Date.now();
      deadline = head.started + head.hardMs;
    } else {
      deadline = this.bootStarted + WORKER_BOOT_LIMIT_MS;
    }
    if (this.timer === undefined || deadline < this.timerAt) this.arm(deadline);
  }

  private arm(deadline: number): void {
    clearTimeout(this.timer);
    this.timerAt = deadline;
    this.timer = setTimeout(() => this.onTimer(), Math.max(1, deadline - Date.now()));
    // Pending requests keep the process alive through the port, not through this timer.
    this.timer.unref();
  }

  private idle(): void {
    // An idle pool does not keep the process alive (the timer, if armed, is unref'd and finds nothing to do).
    this.port.unref();
    this.worker.unref();
  }

  private onTimer(): void {
    this.timer = undefined;
    // Answers may be waiting behind this timer in the event loop: read them first.
    this.drain();
    if (this.dead) return;
    const wait = this.checkHead();
    if (!this.dead && wait !== Infinity && this.timer === undefined) this.arm(Date.now() + wait);
  }

  /** Terminates the worker if its head request is past its hard deadline; else ms left (Infinity if idle). */
  private checkHead(): number {
    const head = this.queue[0];
    if (!head) return Infinity;
    const now = Date.now();
    if (!this.ready) {
      const left = this.bootStarted + WORKER_BOOT_LIMIT_MS - now;
      if (left > 0) return left;
      this.kill(new SandboxError("runtime", "the sandbox worker did not start"));
      return Infinity;
    }
    const left = head.started + head.hardMs - now;
    if (left > 0) return left;
    this.kill(new SandboxError("timeout", `the function ran longer than its hard time limit (${head.hardMs} ms); its worker was restarted`));
    return Infinity;
  }

  private kill(headError: Error): void {
    if (this.dead) return;
    this.diagnostics.workersTerminated++;
    void this.worker.terminate();
    this.die(headError);
  }

  /** The worker is gone: the running request fails with `headError`, the queued ones never ran. */
  private die(headError: Error): void {
    if (this.dead) return;
    this.dead = true;
    clearTimeout(this.timer);
    this.port.close();
    this.diagnostics.enginesAbandoned += this.sandboxes.size;
    for (const sandbox of this.sandboxes) sandbox.lost();
    this.sandboxes.clear();
    this.onDeath(this);
    const queue = this.queue.splice(0);
    queue.forEach((pending, index) => pending.onLost(index === 0 ? headError : new WorkerLost()));
  }

  get idleNow(): boolean {
    return this.queue.length === 0;
  }
}

// ---------------------------------------------------------------------------------------------
// The pool

export function poolSize(): number {
  return Math.max(2, Math.min(4, availableParallelism()));
}

/**
 * The worker pool of one application: created by createApp, closed by its close(). Everything the
 * pool tracks (workers, flow groups, counters) lives on the instance, none at module level, so two
 * applications in one process (tests) never share workers, and Next's bundled copies of this module
 * (which never start a pool) hold nothing.
 */
export class SandboxPool {
  private slots: Array<PoolWorker | undefined> | undefined;
  private readonly retiredCounters: [number, number] = [0, 0];
  private nextGroupSlot = 0;
  private nextGroupId = 1;
  private readonly groupIds = new WeakMap<Map<string, unknown>, { gid: number; slot: number }>();
  private nextSandboxId = 1;
  private closed = false;
  /** @internal counters shared with the workers and sandboxes of this pool. */
  readonly counters: SandboxPoolDiagnostics = emptyDiagnostics();

  constructor(private readonly size = poolSize()) {}

  /**
   * Creates the sandbox of one function node on the pool: compiles the code (SandboxError "syntax"
   * when invalid) and runs `initialize`.
   */
  async create(options: FunctionSandboxOptions): Promise<FunctionSandbox> {
    if (this.closed) throw new SandboxError("runtime", "the sandbox pool is shut down");
    if (!Number.isInteger(options.outputs) || options.outputs < 0) throw new RangeError("outputs must be a non-negative integer");
    if (!(options.timeoutMs > 0)) throw new RangeError("timeoutMs must be positive");
    return PooledSandbox.create(this, options);
  }

  /** @internal */
  newSandboxId(): number {
    return this.nextSandboxId++;
  }

  /** @internal */
  groupOf(map: Map<string, unknown>): { gid: number; slot: number } {
    let group = this.groupIds.get(map);
    if (!group) {
      group = { gid: this.nextGroupId++, slot: this.nextGroupSlot++ % this.size };
      this.groupIds.set(map, group);
    }
    return group;
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
      });
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

// ---------------------------------------------------------------------------------------------
// One function node's sandbox, as seen from the host.

function seedOf(map: Map<string, unknown>): Array<[string, string]> {
  const seed: Array<[string, string]> = [];
  for (const [key, value] of map) {
    try {
      const json = JSON.stringify(value);
      if (json !== undefined) seed.push([key, json]);
    } catch {
      // Not serializable: invisible to the sandboxes, as before.
    }
  }
  return seed;
}

function toError(reply: ReplyMessage): SandboxError {
  const error = reply.error ?? { kind: "runtime", message: "the sandbox failed" };
  return new SandboxError(error.kind, error.message, error.result);
}

class PooledSandbox implements FunctionSandbox {
  private readonly sid: number;
  private worker: PoolWorker | undefined;
  private recreating: Promise<PoolWorker> | undefined;
  private closed = false;
  /** Logs of an `initialize` re-run after a recreation, reported with the next call. */
  private carriedLogs: SandboxResult["logs"] = [];
  readonly initResult: SandboxResult;
  private readonly wire: WireOptions;
  private readonly group: { gid: number; slot: number };

  private constructor(
    private readonly pool: SandboxPool,
    private readonly options: FunctionSandboxOptions,
    wire: WireOptions,
  ) {
    this.sid = pool.newSandboxId();
    this.wire = wire;
    this.group = pool.groupOf(options.flowContext);
    this.initResult = emptyResult(options.outputs);
  }

  static async create(pool: SandboxPool, options: FunctionSandboxOptions): Promise<PooledSandbox> {
    const wire: WireOptions = {
      code: options.code,
      outputs: options.outputs,
      timeoutMs: options.timeoutMs,
      memoryLimitBytes: options.memoryLimitBytes,
      initialize: options.initialize,
      finalize: options.finalize,
      flowContextLimitBytes: options.flowContextLimitBytes,
      nodeInfo: { id: options.nodeInfo.id, name: options.nodeInfo.name, flowId: options.nodeInfo.flowId },
    };
    const sandbox = new PooledSandbox(pool, options, wire);
    const initResult = await sandbox.start();
    (sandbox as { initResult: SandboxResult }).initResult = initResult;
    return sandbox;
  }

  /** Creates the engine on the group's current worker; retried if that worker is replaced meanwhile. */
  private async start(): Promise<SandboxResult> {
    for (let attempt = 0; ; attempt++) {
      const worker = this.pool.workerAt(this.group.slot);
      const refs = worker.groups.get(this.group.gid) ?? 0;
      worker.groups.set(this.group.gid, refs + 1);
      const createMs = Math.max(this.options.timeoutMs, 1000) + hardLimitMs(this.options.timeoutMs) + 2000;
      let reply: ReplyMessage;
      try {
        reply = await worker.request(
          {
            t: "create",
            id: worker.newId(),
            sid: this.sid,
            gid: this.group.gid,
            seed: refs === 0 ? seedOf(this.options.flowContext) : undefined,
            options: this.wire,
          },
          createMs,
        );
      } catch (err) {
        if (err instanceof WorkerLost && attempt < 2) continue;
        if (err instanceof SandboxError) throw new SandboxError(err.kind, `initialize: ${err.message}`);
        throw new SandboxError("runtime", "the sandbox worker was restarted while the sandbox was being created");
      }
      this.applyFlowWrites(reply);
      if (!reply.ok) {
        this.releaseGroup(worker);
        throw toError(reply);
      }
      this.pool.counters.enginesCreated++;
      this.pool.counters.enginesLive++;
      this.worker = worker;
      worker.sandboxes.add(this);
      return reply.value ?? emptyResult(this.options.outputs);
    }
  }

  private releaseGroup(worker: PoolWorker): void {
    const refs = (worker.groups.get(this.group.gid) ?? 1) - 1;
    if (refs > 0) {
      worker.groups.set(this.group.gid, refs);
    } else {
      worker.groups.delete(this.group.gid);
      worker.post({ t: "drop", gid: this.group.gid }, 0, { onReply: () => undefined, onLost: () => undefined });
    }
  }

  private applyFlowWrites(reply: ReplyMessage): void {
    if (!reply.flow) return;
    const map = this.options.flowContext;
    for (const [key, json] of reply.flow) {
      if (json === null) map.delete(key);
      else map.set(key, parseJson(json));
    }
  }

  /** Called by the worker when it goes away: the engine is gone, the next call re-creates it. */
  lost(): void {
    if (this.worker) this.pool.counters.enginesLive--;
    this.worker = undefined;
  }

  private ensureWorker(): Promise<PoolWorker> {
    if (this.worker) return Promise.resolve(this.worker);
    this.recreating ??= this.start()
      .then((initResult) => {
        this.carriedLogs = [...initResult.logs];
        const worker = this.worker!;
        // Closed while being re-created: free the new engine (finalize ran with the old one, or not at all).
        if (this.closed) this.release(worker);
        return worker;
      })
      .finally(() => {
        this.recreating = undefined;
      });
    return this.recreating;
  }

  async run(msg: Message): Promise<SandboxResult> {
    if (this.closed) throw new SandboxError("runtime", "the sandbox is closed");
    const msgid = msg?._msgid ?? randomBytes(8).toString("hex");
    let msgJson: string;
    try {
      msgJson = JSON.stringify(msg);
    } catch (err) {
      throw new SandboxError("runtime", `the message cannot be serialized: ${err instanceof Error ? err.message : String(err)}`);
    }
    const memoryLimit = this.options.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT_BYTES;
    if (msgJson.length > memoryLimit / 8 && Buffer.byteLength(msgJson) > memoryLimit / 2) {
      throw new SandboxError("memory", `the message is too large for the sandbox (${Buffer.byteLength(msgJson)} bytes as JSON, memory limit ${memoryLimit} bytes)`);
    }
    for (let attempt = 0; ; attempt++) {
      const worker = await this.ensureWorker();
      if (this.closed) throw new SandboxError("runtime", "the sandbox is closed");
      let reply: ReplyMessage;
      try {
        reply = await worker.request({ t: "run", id: worker.newId(), sid: this.sid, msgJson, msgid }, hardLimitMs(this.options.timeoutMs));
      } catch (err) {
        if (err instanceof WorkerLost && attempt < 2) continue;
        if (err instanceof SandboxError) throw err;
        throw new SandboxError("runtime", "the sandbox worker was restarted repeatedly");
      }
      this.applyFlowWrites(reply);
      if (!reply.ok) throw toError(reply);
      const result = reply.value!;
      if (this.carriedLogs.length > 0) {
        result.logs.unshift(...this.carriedLogs);
        this.carriedLogs = [];
      }
      return result;
    }
  }

  /** Frees the engine without waiting for the worker (finalize, if any, runs but its result is dropped). */
  private release(worker: PoolWorker): void {
    this.worker = undefined;
    worker.sandboxes.delete(this);
    this.pool.counters.enginesLive--;
    const request: WorkerRequest = { t: "close", id: worker.newId(), sid: this.sid };
    worker.post(request, hardLimitMs(this.options.timeoutMs), { onReply: (reply) => this.applyFlowWrites(reply), onLost: () => undefined });
    this.releaseGroup(worker);
  }

  close(): SandboxResult | null {
    if (this.closed) return null;
    this.closed = true;
    const worker = this.worker;
    if (!worker) return null;
    if (!this.options.finalize?.trim()) {
      this.release(worker);
      return null;
    }
    this.worker = undefined;
    worker.sandboxes.delete(this);
    this.pool.counters.enginesLive--;
    const request: WorkerRequest = { t: "close", id: worker.newId(), sid: this.sid };
    const hardMs = hardLimitMs(this.options.timeoutMs);
    // finalize's result is part of close()'s synchronous answer: wait for the worker (bounded by
    // the hard deadlines of this request and of the ones ahead of it).
    const outcome = worker.requestSync(request, hardMs);
    if (!worker.dead) this.releaseGroup(worker);
    if (outcome instanceof Error) {
      const message = outcome instanceof SandboxError ? outcome.message : "the sandbox worker was restarted before finalize ran";
      return { ...emptyResult(this.options.outputs), logs: [{ level: "error", message: `finalize: ${message}` }] };
    }
    this.applyFlowWrites(outcome);
    if (outcome.ok) return outcome.value ?? null;
    const error = toError(outcome);
    const result = error.result ?? emptyResult(this.options.outputs);
    result.logs.push({ level: "error", message: `finalize: ${error.message}` });
    return result;
  }
}
