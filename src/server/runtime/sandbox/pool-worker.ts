/**
 * One worker thread of the function sandbox's pool, seen from the host (sandbox-pool.ts places the
 * sandboxes, pooled-sandbox.ts talks to their engines through this).
 *
 * - Protocol: requests and replies of sandbox-protocol.ts over a MessagePort; the worker handles one
 *   request at a time, in order, so the reply to the head of the queue is the next one to come.
 * - Hard deadline: the host times the request at the head of the queue (the one the worker is
 *   running) from when it reached the head; a call that has not answered after
 *   `timeoutMs + max(100, timeoutMs)` ms gets the worker terminated and fails with
 *   SandboxError("timeout"). The engine's interrupt handler (the soft deadline, `timeoutMs`) stays
 *   the first line; the hard one catches long native operations that never reach the interrupt check.
 * - Death: when the worker is terminated (or dies), the running request fails, the queued ones fail
 *   with WorkerLost (they never ran: safe to retry elsewhere), and its sandboxes are told (lost()).
 */
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import type { WorkerReply, WorkerRequest } from "./sandbox-protocol";
import { bufferMark, restoreBuffers } from "./buffer-source";
import { SandboxError, type GlobalAnswer, type GlobalCall, type SandboxPoolDiagnostics } from "./sandbox-types";
import { SpinGate, spinFor, type SpinBudget } from "./spin";

export type ReplyMessage = Extract<WorkerReply, { t: "reply" }>;

/** A request that never ran because its worker was replaced: safe to retry on the new one. */
export class WorkerLost extends Error {}

/** A sandbox whose engine lives on a worker: told when the worker goes away. */
export interface HostedSandbox {
  lost(): void;
}

/** Answers the global-context calls of one sandbox's code (see sandbox-protocol.ts "ctx"). */
export type GlobalCallHandler = (call: GlobalCall) => GlobalAnswer | Promise<GlobalAnswer>;

interface Pending {
  id: number;
  hardMs: number;
  /** When the request reached the head of the worker's queue (the worker started it); 0 before. */
  started: number;
  onReply(reply: ReplyMessage): void;
  onLost(error: Error): void;
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

/**
 * One worker thread of the pool and its queue of requests: it answers them one at a time, in order,
 * and the host times the one at the head against its hard deadline.
 */
export class PoolWorker {
  readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly syncPort: MessagePort;
  private readonly signal: Int32Array;
  /** Global-context handlers by sandbox id (registered before the sandbox is created). */
  readonly globalHandlers = new Map<number, GlobalCallHandler>();
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
  readonly sandboxes = new Set<HostedSandbox>();
  /** Whether the host spins for the next call's answer (spin.ts). */
  private readonly gate: SpinGate;
  /** Global-context calls answered by a promise, so far (a spin stops at one: it cannot settle meanwhile). */
  private asyncGlobalAnswers = 0;

  constructor(
    private readonly diagnostics: SandboxPoolDiagnostics,
    private readonly onDeath: (worker: PoolWorker) => void,
    private readonly spin: { windowUs: number; budget: SpinBudget },
  ) {
    const channel = new MessageChannel();
    const syncChannel = new MessageChannel();
    const signal = new SharedArrayBuffer(16);
    this.signal = new Int32Array(signal);
    this.port = channel.port1;
    this.syncPort = syncChannel.port1;
    this.syncPort.unref();
    const { url, execArgv } = workerEntry();
    this.worker = new Worker(url, {
      execArgv,
      workerData: { port: channel.port2, syncPort: syncChannel.port2, signal, bufferMark: bufferMark(), spinUs: spin.windowUs },
      transferList: [channel.port2, syncChannel.port2],
    });
    this.gate = new SpinGate(spin.windowUs);
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
      this.send(request);
      return 0;
    }
    const pending: Pending = { id: request.id, hardMs, started: 0, ...handlers };
    this.queue.push(pending);
    if (this.queue.length === 1) {
      this.port.ref();
      this.worker.ref();
      this.startHead();
    }
    const answered = Atomics.load(this.signal, 0);
    this.send(request);
    // A call to an idle worker: its answer is usually back within the spin window (spin.ts). Spun
    // for in a microtask, so onReply never runs inside post().
    if (this.queue.length === 1 && this.ready && request.t !== "create" && request.t !== "close" && this.gate.open()) {
      const id = request.id;
      queueMicrotask(() => this.spinForReply(id, answered));
    }
    return request.id;
  }

  /** Posts on the port and counts the post in signal[3], which the worker watches while it spins. */
  private send(request: WorkerRequest): void {
    this.port.postMessage(request);
    Atomics.add(this.signal, 3, 1);
  }

  /**
   * Watches signal[0] (the worker's count of answers and global-context calls) for up to the spin
   * window and takes what came meanwhile off the port, instead of waiting for the event loop to
   * wake for it. `answered`: the count when request `id` was posted.
   */
  private spinForReply(id: number, answered: number): void {
    const { budget, windowUs } = this.spin;
    if (this.dead || this.queue[0]?.id !== id || !budget.available()) return;
    const started = performance.now();
    let seen = answered;
    const asyncBefore = this.asyncGlobalAnswers;
    const ended = spinFor(windowUs, () => {
      const now = Atomics.load(this.signal, 0);
      if (now === seen) return false;
      seen = now;
      this.drain();
      // A global-context call answered by a promise (an increment: a database round trip) cannot
      // settle while this thread spins: stop, without calling it a miss.
      return this.dead || this.queue[0]?.id !== id || this.asyncGlobalAnswers !== asyncBefore;
    });
    const caught = ended && this.asyncGlobalAnswers === asyncBefore;
    budget.spent((performance.now() - started) * 1000, caught);
    if (caught) {
      this.gate.caught();
      this.diagnostics.spinsCaught++;
    } else if (!ended) {
      this.gate.missed();
      this.diagnostics.spinsMissed++;
    }
  }

  newId(): number {
    return this.nextId++;
  }

  request(request: WorkerRequest, hardMs: number): Promise<ReplyMessage> {
    return new Promise((resolve, reject) => {
      this.post(request, hardMs, { onReply: resolve, onLost: reject });
    });
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
    if (reply.t === "ctx") {
      this.answerGlobal(reply);
      return;
    }
    if (reply.d) this.counters = reply.d;
    // Buffers in its messages come as stand-ins (buffer-source.ts).
    if (reply.value?.buffers) restoreBuffers(reply.value);
    if (reply.error?.result?.buffers) restoreBuffers(reply.error.result);
    const pending = this.queue[0];
    if (!pending || pending.id !== reply.id) return; // cannot happen: answers come in order
    this.queue.shift();
    if (this.queue.length > 0) this.startHead();
    else this.idle();
    pending.onReply(reply);
  }

  /** Answers a global-context call; the worker sleeps until signal[2] is set. */
  private answerGlobal(call: Extract<WorkerReply, { t: "ctx" }>): void {
    const answer = (value: GlobalAnswer) => {
      if (this.dead) return;
      this.syncPort.postMessage(value);
      Atomics.store(this.signal, 2, 1);
      Atomics.notify(this.signal, 2);
    };
    const handler = this.globalHandlers.get(call.sid);
    if (!handler) {
      answer({ ok: false, e: "global context is not available here" });
      return;
    }
    try {
      const result = handler(call);
      if (result instanceof Promise) {
        this.asyncGlobalAnswers++;
        result.then(answer, (err: unknown) => answer({ ok: false, e: err instanceof Error ? err.message : String(err) }));
      } else answer(result);
    } catch (err) {
      answer({ ok: false, e: err instanceof Error ? err.message : String(err) });
    }
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
    this.syncPort.close();
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
