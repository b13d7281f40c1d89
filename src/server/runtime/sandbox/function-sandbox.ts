/**
 * The sandbox of the `function` node: the user's JavaScript runs in QuickJS compiled to WebAssembly
 * (`quickjs-emscripten`), never in the host's V8 (Node's `vm` is not a security boundary), and OFF the
 * main thread, in a small pool of worker threads.
 *
 * - sandbox-core.ts: the engine (one WebAssembly instance, QuickJS runtime and context per sandbox;
 *   soft time limit by the interrupt handler, memory and stack limits; the only doors out are the
 *   three flow-context callbacks, which exchange JSON strings). Runs inside the workers.
 * - sandbox-worker.ts: a worker thread hosting many sandboxes, keyed by sandbox id, and the flow
 *   context of their flows.
 * - sandbox-pool.ts: the host side: the pool, and where each flow group's sandboxes live.
 * - pool-worker.ts: one worker seen from the host: its queue and the hard deadline per call (the
 *   worker is terminated when a call outlives `timeoutMs + max(100, timeoutMs)`: this bounds loops of
 *   long native operations that QuickJS's interrupt check never sees).
 * - pooled-sandbox.ts: the FunctionSandbox handles, and re-creation of the sandboxes of a terminated
 *   worker (`initialize` runs again, the per-node context is lost).
 *
 * Timers: setTimeout/setInterval/clearTimeout/clearInterval exist inside the sandbox, but its engine
 * never runs on its own: the driver keeps the callbacks and reports the timers each call set or
 * cleared (SandboxResult.timers); whoever holds the FunctionSandbox keeps the clocks and runs a due
 * timer with fire(id), a call like run() (the function node: nodes/function/timers.ts, which waits
 * while the flow is busy). At most MAX_TIMERS_PER_SANDBOX live at once. Timers live in the engine, so
 * a re-created engine (fatal error, lost worker) has none of the old ones (like the per-node context);
 * its ids never reuse the old ones, and fire() of an id it does not hold runs nothing.
 *
 * Importing this file starts no worker and holds no state: createAppServices makes one SandboxPool per
 * application (closed by the app's close()), whose workers start at its first create().
 *
 * Messages cross the boundary as JSON in both directions: functions, symbols and `undefined` drop
 * out; a Buffer crosses as a stand-in that becomes a Buffer on the other side (buffer-source.ts:
 * Node's Buffer API inside, evaluated at its first use).
 */
export {
  DEFAULT_FLOW_CONTEXT_LIMIT_BYTES,
  DEFAULT_MEMORY_LIMIT_BYTES,
  MAX_TIMERS_PER_SANDBOX,
  SandboxError,
  type FunctionSandbox,
  type FunctionSandboxOptions,
  type LinkAnswer,
  type SandboxErrorKind,
  type SandboxPoolDiagnostics,
  type SandboxResult,
  type TimerChanges,
} from "./sandbox-types";
export { SandboxPool, poolSize } from "./sandbox-pool";
