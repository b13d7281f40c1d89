/**
 * Types shared by the host side of the function sandbox (function-sandbox.ts, sandbox-pool.ts,
 * pool-worker.ts, pooled-sandbox.ts) and the worker side (sandbox-worker.ts, sandbox-core.ts). No
 * runtime dependencies: importing this file loads neither QuickJS nor worker threads.
 */
import type { Message, NodeStatus } from "../types";

export interface SandboxResult {
  /** What the code returned, normalized per output port: result[i] is the list of messages for output i. */
  outputs: Message[][];
  /** Messages sent with node.send() during the call, normalized the same way, in call order. */
  sent: Message[][][];
  /** Last node.status() call; null clears the status; undefined if not called. */
  status: NodeStatus | null | undefined;
  logs: Array<{ level: "log" | "warn" | "error"; message: string }>;
  /** Timers the call set or cleared (setTimeout/setInterval and their clear functions); absent when none. */
  timers?: TimerChanges;
  /** run(): the call's token, which `dones` entries name (node.done of this message, now or later). */
  run?: string;
  /** node.error(err, msg) calls with a msg: for the catch nodes. `text` is Node-RED's (an Error's toString()). */
  errors?: Array<{ text: string; isError: boolean; msg: Record<string, unknown>; after: number }>;
  /** node.done(err?) calls: of run `run`, with the error's text (none: done without error) and the msg as it was then. */
  dones?: Array<{ run: string; error?: string; isError: boolean; msg: Record<string, unknown> }>;
  /** run(): the code's promise had not settled when the call ended; a later call reports it in `settled`. */
  runPending?: boolean;
  /**
   * Runs whose promise settled during this call: fulfilled (`error` absent), or rejected with
   * Node-RED's text (`thrownError`: an Error, which Node-RED puts in msg.error), with the msg as the code left it.
   */
  settled?: Array<{ run: string; error?: string; thrownError: boolean; msg: Record<string, unknown> }>;
  /**
   * node.linkcall() calls made during the call (Node-RED 5.0): the host calls `target` (a link-in's
   * id or name) with `msg` and answers each with linkReturn(id, …) when a link-out in return mode
   * replies, when `timeoutMs` has passed, or when the target is not found.
   */
  linkCalls?: Array<{ id: number; target: string; msg: Record<string, unknown>; timeoutMs: number }>;
  /** The input msg as the code left it: after an error, and after every run with `finalMsg`. */
  msg?: Record<string, unknown>;
  /** Some of its messages hold Buffers (see buffer-source.ts, restoreBuffers). */
  buffers?: true;
  /** `initialize` returned a promise that is still pending (messages wait for it, as in Node-RED). */
  initPending?: boolean;
  /** That promise settled during this call: `error` (Node-RED's text) when it was rejected. */
  initSettled?: { error?: string };
}

/**
 * The sandbox keeps the timers' callbacks; the host keeps the clocks (see nodes/function/timers.ts).
 * Each call reports what it changed, and the host arms or disarms its timers accordingly, then asks
 * the sandbox to run a timer with fire(id). Timer ids are never reused by one FunctionSandbox, even
 * across re-created engines, so a stale id is only ever unknown, never another timer.
 */
export interface TimerChanges {
  /** New timers: [id, delay in ms (already coerced as Node does: 1 to 2^31-1), repeats (setInterval)]. */
  set?: Array<[number, number, boolean]>;
  /** Timers cleared, or unknown to the engine (a fire() of a timer it does not hold). */
  clear?: number[];
  /**
   * A new engine took over (created, or re-created after a fatal error or a lost worker): its timer
   * ids start here, and every timer with a smaller id belongs to an engine that is gone.
   */
  from?: number;
}

/** Timers a sandbox may hold at once (set and not yet run or cleared); past it setTimeout throws. */
export const MAX_TIMERS_PER_SANDBOX = 1000;

export interface FunctionSandboxOptions {
  code: string;
  outputs: number;
  timeoutMs: number;
  /** Memory limit of the sandbox runtime (bytes); default 32 MiB. */
  memoryLimitBytes?: number;
  /** Run once at creation (and again whenever the sandbox is recreated after a fatal error). */
  initialize?: string;
  /** Run at close(). */
  finalize?: string;
  /**
   * The node's Setup → Modules (Node-RED's `libs`): each a global of the code named `var`, the
   * module `module` (Node's `crypto` or `util`, with or without `node:`), evaluated at its first use.
   */
  libs?: Array<{ var: string; module: string }>;
  /**
   * Flow-scoped context shared by the flow's function nodes. The sandboxes of one Map run on the same
   * worker thread, where the authoritative copy lives (so flow.get/set stay synchronous); this Map
   * identifies the group, seeds the worker's copy (its entries at the group's first sandbox, and again
   * when a worker is replaced) and mirrors every write made in the sandboxes (applied when the call
   * that made it returns). Writes made to this Map by the host after the group started are not seen
   * by the sandboxes.
   */
  flowContext: Map<string, unknown>;
  /**
   * Bound on the JSON bytes that sandboxes may keep in one flowContext Map (shared by all sandboxes
   * of that Map); flow.set() beyond it throws inside the sandbox. Default 32 MiB.
   */
  flowContextLimitBytes?: number;
  /**
   * The flow's durable context (SPEC §13), taking the place of `flowContext` when given: it seeds the
   * group's worker copy, takes the writes the sandboxes make (when their call returns, before what
   * the call sent is routed), tells the worker the writes made on the host (change nodes, REST,
   * another instance) with the group's next request, and bounds the bytes the worker copy may hold.
   */
  flowScope?: SandboxFlowContext;
  /** The organization's global context: `global.*` in the code calls it synchronously (Atomics.wait). */
  globalContext?: SandboxGlobalContext;
  nodeInfo: { id: string; name: string; flowId: string };
  /** Report the input msg as the code left it after every run (SandboxResult.msg): a complete node watches the node. */
  finalMsg?: boolean;
  /**
   * What env.get answers: Node-RED's built-in names and the flow's non-secret variables (never a
   * secret). Absent: the built-ins of nodeInfo. run(msg, { env }) replaces it.
   */
  env?: Readonly<Record<string, unknown>>;
  /** Whose sandbox this is (an organization id): the pool bounds how many one owner may run at once. */
  owner?: string;
}

export interface SandboxFlowContext {
  snapshot(): Array<[string, string]>;
  /** `nodeId`: the function node whose code made them. */
  applySandboxWrites(writes: Array<[string, string | null]>, nodeId?: string): void;
  trackHostWrites(): void;
  takeHostWrites(): Array<[string, string | null]> | undefined;
  clearHostWrites(): void;
  /** Bytes the flow's context may hold (the organization's limit less what its other scopes use). */
  budget(): number;
  /** Keys the organization's context may still add (CONTEXT_MAX_KEYS); absent or Infinity: unbounded. */
  keysLeft?(): number;
}

export interface SandboxGlobalContext {
  getJson(key: string): string | undefined;
  /** null deletes; throws (an Error whose message the code sees) past the organization's limit. */
  setJson(key: string, json: string | null): void;
  keys(): string[];
  /** Atomic across instances: resolves once stored, to the stored value. */
  incrementStored(key: string, by: number): Promise<number>;
}

/** A synchronous call of the code on the global context (see sandbox-protocol.ts "ctx"). */
export type GlobalCall = { op: "get"; key: string } | { op: "set"; key: string; json: string | null } | { op: "keys" } | { op: "inc"; key: string; by: number };
export type GlobalAnswer = { ok: true; v?: string } | { ok: false; e: string };

/** What a node.linkcall() gets back: the reply, or why there is none ("timeout", not found). */
export type LinkAnswer = { msg: Record<string, unknown> } | { error: string };

export type SandboxErrorKind = "timeout" | "memory" | "syntax" | "runtime" | "capacity";

export class SandboxError extends Error {
  readonly kind: SandboxErrorKind;
  /** What the call did before it failed (node.send, node.status, logs); outputs are empty. */
  readonly result?: SandboxResult;
  /**
   * The code threw an Error (not a string or another value): Node-RED then sets msg.error to it,
   * which catch nodes see as msg._error.
   */
  readonly thrownError: boolean;
  constructor(kind: SandboxErrorKind, message: string, result?: SandboxResult, thrownError = false) {
    super(message);
    this.name = "SandboxError";
    this.kind = kind;
    this.result = result;
    this.thrownError = thrownError;
  }
}

export interface FunctionSandbox {
  /**
   * Runs the code on one message. Rejects with SandboxError. Calls are serialized; after a fatal
   * error the sandbox is recreated before the next call runs.
   */
  run(msg: Message, options?: { env?: Readonly<Record<string, unknown>> }): Promise<SandboxResult>;
  /**
   * Runs the callback of timer `id` (one that a result's `timers.set` reported), serialized with
   * run() calls, under the same time limit. Messages it sends get a fresh _msgid; `outputs` stay
   * empty. A timer the engine does not know (cleared meanwhile, or lost with a re-created engine)
   * runs nothing and comes back in `timers.clear`. Rejects with SandboxError like run().
   */
  fire(id: number): Promise<SandboxResult>;
  /**
   * Settles the promise of node.linkcall `id` (a result's `linkCalls`): with the reply msg, or
   * rejected with an Error of `error`'s text. Serialized with run() and fire(), under the same time
   * limit; an id the engine does not hold (a re-created engine) settles nothing.
   */
  linkReturn(id: number, answer: LinkAnswer): Promise<SandboxResult>;
  /** What `initialize` did (sends, status, logs) when the sandbox was created. */
  readonly initResult: SandboxResult;
  /**
   * Runs `finalize` (errors are reported in the returned result's logs) and frees the engine.
   * Idempotent (a second call resolves to null); run() after close() rejects. Asynchronous: the
   * host's event loop never waits for finalize; its hard deadline bounds how long it may take.
   */
  close(): Promise<SandboxResult | null>;
}

export const DEFAULT_MEMORY_LIMIT_BYTES = 32 * 1024 * 1024;
export const DEFAULT_FLOW_CONTEXT_LIMIT_BYTES = 32 * 1024 * 1024;

export function emptyResult(outputs: number): SandboxResult {
  return { outputs: Array.from({ length: outputs }, () => []), sent: [], status: undefined, logs: [] };
}

/**
 * Puts what an `initialize` re-run reported (its logs, its timers and the new engine's first timer
 * id) in front of the next call's result. Shared with pooled-sandbox.ts.
 */
export function withCarried(result: SandboxResult, carried: Pick<SandboxResult, "logs" | "timers">): SandboxResult {
  if (carried.logs.length > 0) result.logs.unshift(...carried.logs);
  const before = carried.timers;
  if (before) {
    const after = result.timers;
    const set = [...(before.set ?? []), ...(after?.set ?? [])];
    const clear = [...(before.clear ?? []), ...(after?.clear ?? [])];
    const from = Math.max(before.from ?? 0, after?.from ?? 0);
    result.timers = { set: set.length > 0 ? set : undefined, clear: clear.length > 0 ? clear : undefined, from: from > 0 ? from : undefined };
  }
  return result;
}

/** The highest timer id a result mentions (0 if none). */
export function maxTimerIdOf(result: SandboxResult | undefined): number {
  const timers = result?.timers;
  // node.linkcall ids come from the timers' sequence.
  let max = 0;
  for (const call of result?.linkCalls ?? []) if (call.id > max) max = call.id;
  if (!timers) return max;
  max = Math.max(max, (timers.from ?? 1) - 1);
  for (const [id] of timers.set ?? []) if (id > max) max = id;
  return max;
}

/** JSON.parse without own `__proto__` keys (harmless to JSON.parse itself, not to Object.assign later). */
export function parseJson(text: string): unknown {
  if (!text.includes('"__proto__"')) return JSON.parse(text);
  return JSON.parse(text, (key, value: unknown) => (key === "__proto__" ? undefined : value));
}

/** Counters of a SandboxPool, for tests and monitoring (see SandboxPool.diagnostics()). */
export interface SandboxPoolDiagnostics {
  enginesCreated: number;
  enginesLive: number;
  enginesAbandoned: number;
  disposeFailures: number;
  workersStarted: number;
  workersTerminated: number;
  /** Calls whose answer the host caught while spinning, and spins that ended without one (spin.ts). */
  spinsCaught: number;
  spinsMissed: number;
}

export function emptyDiagnostics(): SandboxPoolDiagnostics {
  return { enginesCreated: 0, enginesLive: 0, enginesAbandoned: 0, disposeFailures: 0, workersStarted: 0, workersTerminated: 0, spinsCaught: 0, spinsMissed: 0 };
}
