/**
 * The in-engine half of the function sandbox, used INSIDE a sandbox worker thread (sandbox-worker.ts):
 * the user's JavaScript runs in QuickJS compiled to WebAssembly (`quickjs-emscripten`), never in V8.
 *
 * Isolation, per sandbox (one per function node):
 * - its own WebAssembly instance (own linear memory), QuickJS runtime and context: nothing of the
 *   host is reachable (no `process`, `require`, `import()`, `fetch`, files or network); the only
 *   doors out are the three flow-context callbacks, which exchange JSON strings. setTimeout and
 *   setInterval are the driver's: the callbacks stay in the engine, each call reports the timers it
 *   set or cleared, and the host (which keeps the clocks) runs one later with fire();
 * - a soft time limit per call (the runtime's interrupt handler with a deadline), a memory limit (the
 *   runtime's `setMemoryLimit`, backed by a hard maximum on the instance's linear memory), and a
 *   stack limit; the hard time limit is the host's: it terminates the whole worker (pool-worker.ts);
 * - a failure that may leave the engine inconsistent (out of memory, or the thread's own stack running
 *   out inside the WebAssembly code) throws the whole instance away; the next call gets a new one
 *   (with `initialize` run again and the per-node context empty).
 *
 * Messages cross the boundary as JSON in both directions: functions, symbols and `undefined` drop
 * out; Buffers are not supported.
 */
import { randomHex } from "../../ids";
import { createRequire } from "node:module";
import { readFile } from "node:fs/promises";
import {
  newQuickJSWASMModule,
  newVariant,
  RELEASE_SYNC,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from "quickjs-emscripten";
import type { Message, NodeStatus } from "../types";
import { assertContextKey } from "../context/context-key";
import { DRIVER_SOURCE } from "./driver";
import { v8Error } from "./v8-messages";
import { bufferMark, bufferMarkJson, bufferSource } from "./buffer-source";
import { RED_UTIL_SOURCE } from "./red-util-source";
import { nodeUtilSource } from "./node-util-source";
import { urlCall } from "./url-host";
import { CipherTable, cryptoCall, cryptoMaxChars } from "./crypto-host";
import { CRYPTO_SOURCE } from "./crypto-source";
import { PACKAGE_FILES, packageSource } from "./packages-source";
import { URL_SOURCE } from "./url-source";
import { intlCall } from "./intl-host";
import { INTL_SOURCE } from "./intl-source";
import type { WireLinkAnswer } from "./sandbox-protocol";
import {
  DEFAULT_FLOW_CONTEXT_LIMIT_BYTES,
  DEFAULT_MEMORY_LIMIT_BYTES,
  emptyResult,
  MAX_TIMERS_PER_SANDBOX,
  maxTimerIdOf,
  parseJson,
  SandboxError,
  withCarried,
  type FunctionSandboxOptions,
  type GlobalCall,
  type SandboxResult,
  type TimerChanges,
} from "./sandbox-types";

/** What a sandbox needs in the worker: the options without the host's Map, plus the worker's flow store. */
export type CoreSandboxOptions = Omit<FunctionSandboxOptions, "flowContext" | "flowScope" | "globalContext"> & {
  flow: FlowStore;
  /** The global context, called synchronously (the worker waits for the host); absent: none. */
  global?: (call: GlobalCall) => string | undefined;
};

/**
 * QuickJS's own stack limit. The WebAssembly frames live on the host's V8 stack (about 1 MB), and
 * some engine paths (parser, JSON) use several times more host stack than QuickJS accounts for; this
 * keeps plain recursion around 1,000 levels deep. When the host stack runs out first anyway, the
 * instance is discarded (see HostFault).
 */
const MAX_STACK_BYTES = 192 * 1024;

// ---------------------------------------------------------------------------------------------
// WebAssembly module: compiled once per process, instantiated once per sandbox.

let wasmModulePromise: Promise<WebAssembly.Module | undefined> | undefined;

function loadWasmModule(): Promise<WebAssembly.Module | undefined> {
  wasmModulePromise ??= (async () => {
    try {
      const fromHere = createRequire(import.meta.url);
      const fromLibrary = createRequire(fromHere.resolve("quickjs-emscripten"));
      const wasmPath = fromLibrary.resolve("@jitl/quickjs-wasmfile-release-sync/wasm");
      return await WebAssembly.compile(await readFile(wasmPath));
    } catch {
      // Bundled or unusual layouts: let the variant find and compile its file on each instantiation.
      return undefined;
    }
  })();
  return wasmModulePromise;
}

const WASM_PAGE_BYTES = 64 * 1024;
/** The build's initial linear memory (static data, C stack, first heap): its import requires at least this. */
const BASE_MEMORY_BYTES = 16 * 1024 * 1024;
/** The build's declared maximum (2 GiB). */
const MAX_MEMORY_PAGES = 32768;

/**
 * A variant whose instance gets its own linear memory with a hard maximum. QuickJS's
 * setMemoryLimit is not enough in this build: without malloc_usable_size its running total only
 * counts allocations, not their sizes, so many large strings, arrays or ArrayBuffers each under the
 * limit would grow the memory to 2 GiB (quickjs-emscripten issue #271). With a capped memory,
 * malloc fails at the cap and QuickJS throws "out of memory".
 */
async function sandboxVariant(memoryLimitBytes: number): Promise<QuickJSSyncVariant> {
  const wasmModule = await loadWasmModule();
  const maximum = Math.min(MAX_MEMORY_PAGES, Math.ceil((BASE_MEMORY_BYTES + memoryLimitBytes) / WASM_PAGE_BYTES));
  const wasmMemory = new WebAssembly.Memory({ initial: BASE_MEMORY_BYTES / WASM_PAGE_BYTES, maximum });
  return newVariant(RELEASE_SYNC, wasmModule ? { wasmModule, wasmMemory } : { wasmMemory });
}

// ---------------------------------------------------------------------------------------------
// Flow context, worker side: the values of one flow group, as JSON text, with their byte count and
// the writes not yet reported to the host.

export class FlowStore {
  private readonly entries = new Map<string, string>();
  private total = 0;
  /** Bytes the host allows this copy to hold (the organization's context limit); see FlowSync. */
  budget = Infinity;
  /** key -> JSON text, or null for a deletion; taken by the host with each reply. */
  private dirty = new Map<string, string | null>();
  /** Keys this copy may still add (the organization's key bound, as the host counts it); see allowKeys. */
  private keysLeft = Infinity;

  /** From the host with each request: how many keys the organization's context may still add. */
  allowKeys(count: number): void {
    this.keysLeft = count;
  }

  constructor(seed: Array<[string, string]> = []) {
    for (const [key, json] of seed) {
      this.entries.set(key, json);
      this.total += Buffer.byteLength(key) + Buffer.byteLength(json);
    }
  }

  /** Writes made on the host (not reported back: the host has them). */
  applyHost(writes: Array<[string, string | null]>): void {
    for (const [key, json] of writes) {
      const previous = this.entries.get(key);
      if (previous !== undefined) this.total -= Buffer.byteLength(key) + Buffer.byteLength(previous);
      if (json === null) this.entries.delete(key);
      else {
        this.entries.set(key, json);
        this.total += Buffer.byteLength(key) + Buffer.byteLength(json);
      }
      this.dirty.delete(key);
    }
  }

  get(key: string): string | undefined {
    return this.entries.get(key);
  }

  keys(): string[] {
    return [...this.entries.keys()];
  }

  set(key: string, json: string | undefined, limit: number): void {
    assertContextKey(key);
    const previous = this.entries.get(key);
    const previousSize = previous === undefined ? 0 : Buffer.byteLength(key) + Buffer.byteLength(previous);
    if (json === undefined) {
      if (previous === undefined) return;
      this.entries.delete(key);
      this.total -= previousSize;
      this.dirty.set(key, null);
      return;
    }
    const size = Buffer.byteLength(key) + Buffer.byteLength(json);
    if (size > previousSize && this.total - previousSize + size > this.budget) throw new Error("context is full");
    if (previous === undefined) {
      if (this.keysLeft < 1) throw new Error("context is full: the organization's context may hold no more keys (deleted ones count until they are swept, within minutes)");
      this.keysLeft--;
    }
    if (this.total - previousSize + size > limit) throw new Error(`flow context is full (limit ${limit} bytes)`);
    this.entries.set(key, json);
    this.total += size - previousSize;
    this.dirty.set(key, json);
  }

  /** The writes since the last call, for the host's mirror. */
  takeWrites(): Array<[string, string | null]> | undefined {
    if (this.dirty.size === 0) return undefined;
    const writes = [...this.dirty];
    this.dirty = new Map();
    return writes;
  }
}

// ---------------------------------------------------------------------------------------------
// Normalization of what the code returned or sent (Node-RED's sendResults).

const FILLS = new Set(["red", "green", "yellow", "blue", "grey"]);
const SHAPES = new Set(["dot", "ring"]);
const LEVELS = new Set(["log", "warn", "error"]);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describeType(value: unknown): string {
  if (Array.isArray(value)) return "Array";
  return typeof value;
}

/**
 * Node-RED: a single value goes to output 0; an array has one entry per output, an entry that is an
 * array means several messages on that output; null/undefined entries send nothing; every message
 * gets the input message's `_msgid` (Node-RED overwrites it unconditionally); non-objects are
 * dropped with an error. Ports beyond `outputs` are dropped (they have no wires).
 */
function normalize(value: unknown, outputs: number, msgid: string, logs: SandboxResult["logs"]): Message[][] | null {
  if (value === null || value === undefined) return null;
  const ports = Array.isArray(value) ? value : [value];
  const result: Message[][] = Array.from({ length: outputs }, () => []);
  let count = 0;
  for (let port = 0; port < ports.length; port++) {
    const entry: unknown = ports[port];
    if (entry === null || entry === undefined) continue;
    const list: unknown[] = Array.isArray(entry) ? entry : [entry];
    for (const item of list) {
      if (item === null || item === undefined) continue;
      if (!isPlainObject(item)) {
        logs.push({ level: "error", message: `Function tried to send a message of type ${describeType(item)}` });
        continue;
      }
      item._msgid = msgid;
      if (port < outputs) {
        result[port]!.push(item as Message);
        count++;
      }
    }
  }
  return count > 0 ? result : null;
}

function normalizeStatus(value: unknown): NodeStatus | null {
  if (!isPlainObject(value)) return null;
  const { fill, shape, text } = value;
  if (fill === undefined && shape === undefined && text === undefined) return null;
  return {
    fill: typeof fill === "string" && FILLS.has(fill) ? (fill as NodeStatus["fill"]) : "grey",
    shape: typeof shape === "string" && SHAPES.has(shape) ? (shape as NodeStatus["shape"]) : "dot",
    text: text === undefined || text === null ? "" : typeof text === "string" ? text : JSON.stringify(text) ?? String(text),
  };
}

interface Envelope {
  r?: unknown;
  s?: unknown;
  l?: unknown;
  st?: unknown;
  t?: unknown;
  c?: unknown;
  ri?: unknown;
  e?: unknown;
  d?: unknown;
  m?: unknown;
  ip?: unknown;
  is?: unknown;
  rp?: unknown;
  ls?: unknown;
  lc?: unknown;
}

/** The msg of a node.error/node.done entry, or the final msg: an object (anything else reads as {}). */
const msgOf = (value: unknown): Record<string, unknown> => (isPlainObject(value) ? value : {});

/** The per-message parts of an envelope (see driver.ts): run token, node.error/node.done calls, final msg, On Start's promise. */
function decodeMessageApi(envelope: Envelope, result: SandboxResult, sources: ReadonlyArray<string | undefined>): void {
  if (typeof envelope.ri === "string") result.run = envelope.ri;
  if (Array.isArray(envelope.e)) {
    result.errors = [];
    for (const entry of envelope.e) {
      if (Array.isArray(entry) && typeof entry[0] === "string") result.errors.push({ text: entry[0], isError: entry[1] === true, msg: msgOf(entry[2]), after: typeof entry[3] === "number" ? entry[3] : 0 });
    }
  }
  if (Array.isArray(envelope.d)) {
    result.dones = [];
    for (const entry of envelope.d) {
      if (!Array.isArray(entry) || typeof entry[0] !== "string") continue;
      const done: NonNullable<SandboxResult["dones"]>[number] = { run: entry[0], isError: entry[2] === true, msg: msgOf(entry[3]) };
      if (typeof entry[1] === "string") done.error = entry[1];
      result.dones.push(done);
    }
  }
  if (envelope.m !== undefined) result.msg = msgOf(envelope.m);
  if (envelope.rp === 1) result.runPending = true;
  if (Array.isArray(envelope.ls)) {
    result.settled = [];
    for (const entry of envelope.ls) {
      if (!Array.isArray(entry) || typeof entry[0] !== "string") continue;
      const settled: NonNullable<SandboxResult["settled"]>[number] = { run: entry[0], thrownError: false, msg: msgOf(entry[4]) };
      if (entry[1] !== true) {
        const thrown = entry[3] as { n?: unknown; m?: unknown; s?: unknown } | null;
        if (isPlainObject(thrown)) {
          settled.thrownError = true;
          settled.error = nodeRedErrorText({ name: String(thrown.n ?? "Error"), message: String(thrown.m ?? ""), stack: String(thrown.s ?? "") }, true, sources);
        } else settled.error = typeof entry[2] === "string" ? entry[2] : "";
      }
      result.settled.push(settled);
    }
  }
  if (envelope.ip === 1) result.initPending = true;
  if (Array.isArray(envelope.is)) result.initSettled = envelope.is[0] === true ? {} : { error: typeof envelope.is[1] === "string" ? envelope.is[1] : "" };
}

const isTimerId = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value) && value > 0;

function decodeTimers(envelope: Envelope): TimerChanges | undefined {
  let set: TimerChanges["set"];
  let clear: TimerChanges["clear"];
  if (Array.isArray(envelope.t)) {
    set = [];
    for (const entry of envelope.t) {
      if (Array.isArray(entry) && isTimerId(entry[0]) && typeof entry[1] === "number" && entry[1] >= 1 && entry[1] <= 2 ** 31 - 1) {
        set.push([entry[0], entry[1], entry[2] === true]);
      }
    }
  }
  if (Array.isArray(envelope.c)) clear = envelope.c.filter(isTimerId);
  return set || clear ? { set, clear } : undefined;
}

/** `sources`: the code that may have run (for V8's wording of an error that names its callee, see v8-messages.ts). */
function decodeEnvelope(text: string, outputs: number, msgid: string, withReturn: boolean, sources: ReadonlyArray<string | undefined>): SandboxResult {
  let raw: unknown;
  try {
    raw = parseJson(text);
  } catch {
    throw new SandboxError("runtime", "the sandbox returned an invalid result");
  }
  if (!isPlainObject(raw)) throw new SandboxError("runtime", "the sandbox returned an invalid result");
  const envelope = raw as Envelope;
  const logs: SandboxResult["logs"] = [];
  if (Array.isArray(envelope.l)) {
    for (const entry of envelope.l) {
      if (Array.isArray(entry) && typeof entry[0] === "string" && LEVELS.has(entry[0]) && typeof entry[1] === "string") {
        logs.push({ level: entry[0] as "log" | "warn" | "error", message: entry[1] });
      }
    }
  }
  const sent: Message[][][] = [];
  /** keptBefore[i]: how many of the sends before the driver's i-th were kept (node.error entries count in the driver's sends). */
  const keptBefore: number[] = [];
  if (Array.isArray(envelope.s)) {
    for (const value of envelope.s) {
      keptBefore.push(sent.length);
      const ports = normalize(value, outputs, msgid, logs);
      if (ports) sent.push(ports);
    }
  }
  keptBefore.push(sent.length);
  const outputsResult = (withReturn ? normalize(envelope.r, outputs, msgid, logs) : null) ?? Array.from({ length: outputs }, () => []);
  const result: SandboxResult = {
    outputs: outputsResult,
    sent,
    status: "st" in envelope ? normalizeStatus(envelope.st) : undefined,
    logs,
  };
  if (envelope.t !== undefined || envelope.c !== undefined) {
    const timers = decodeTimers(envelope);
    if (timers) result.timers = timers;
  }
  if (Array.isArray(envelope.lc)) {
    const calls: NonNullable<SandboxResult["linkCalls"]> = [];
    for (const entry of envelope.lc) {
      if (Array.isArray(entry) && isTimerId(entry[0]) && typeof entry[1] === "string" && typeof entry[3] === "number") {
        calls.push({ id: entry[0], target: entry[1], msg: msgOf(entry[2]), timeoutMs: entry[3] });
      }
    }
    if (calls.length > 0) result.linkCalls = calls;
  }
  if (envelope.ri !== undefined || envelope.e !== undefined || envelope.d !== undefined || envelope.m !== undefined || envelope.ip !== undefined || envelope.is !== undefined || envelope.rp !== undefined || envelope.ls !== undefined) {
    decodeMessageApi(envelope, result, sources);
    for (const error of result.errors ?? []) error.after = keptBefore[Math.min(Math.max(0, error.after), keptBefore.length - 1)]!;
  }
  // Its Buffers stay stand-ins here, on the worker: the host makes them Buffers (pool-worker.ts).
  if (text.includes(bufferMarkJson())) result.buffers = true;
  return result;
}

// ---------------------------------------------------------------------------------------------
// Diagnostics

const diagnostics = { enginesCreated: 0, enginesLive: 0, enginesAbandoned: 0, disposeFailures: 0 };

/**
 * Counters for tests and monitoring. `disposeFailures` counts engines whose runtime could not be
 * freed cleanly: QuickJS asserts that no object is left when a runtime is freed, so a handle leak
 * shows up here.
 */
export function coreDiagnostics(): Readonly<typeof diagnostics> {
  return { ...diagnostics };
}

// ---------------------------------------------------------------------------------------------
// One engine instance: WebAssembly module + QuickJS runtime + context + the driver's dispatcher.

/** The host threw out of the WebAssembly code (e.g. its own stack ran out): the engine may be inconsistent. */
class HostFault extends Error {}

const OP_RUN = 0;
const OP_INIT = 1;
const OP_FINALIZE = 2;
const OP_SETTLE = 3;
const OP_PARTIAL = 4;
const OP_TIMER = 5;
const OP_LINK = 6;
/** Evaluates Node's Buffer in the engine (buffer-source.ts), or RED.util's, Node's util's, Intl's or URL's source, outside any run's time limit. */
const OP_LOAD_BUFFER = 7;
/**
 * Code that names Buffer (or a RED.util function that makes one), RED.util's other functions or
 * Intl has it evaluated with the engine, not in its first run's time (which may be a few ms).
 */
const NAMES_BUFFER = /\b(?:Buffer|ensureBuffer|evaluateNodeProperty)\b/;
const NAMES_UTIL = /\bRED\s*\.\s*util\b(?!\s*\.\s*cloneMessage\b)/;
const NAMES_INTL = /\bIntl\b/;
/** Node's util (and its promisify), globals of the code (not RED.util, not a property named util). */
const NAMES_NODE_UTIL = /(?<![.\w$])(?:util|promisify)\b/;
const NAMES_URL = /\bURL(?:SearchParams)?\b/;
/** Code that names a global (a module's variable of the node's libs), not a property of that name. */
const namesGlobal = (name: string) => new RegExp(`(?<![.\\w$])${name.replace(/\$/g, "\\$")}(?![\\w$])`);

interface DumpedError {
  name: string;
  message: string;
  stack: string;
  /** Something other than an Error was thrown: Node-RED's text of it (a string as it is, anything else as JSON). */
  value?: string;
}

class Engine {
  private deadline = Infinity;
  private disposed = false;
  /** The op of the call under way (its errors are worded as Node-RED words that kind of call's). */
  private op = OP_RUN;
  private readonly runtime: QuickJSRuntime;
  private readonly vm: QuickJSContext;
  private dispatch: QuickJSHandle | undefined;
  /** The ciphers the code's crypto holds (crypto-host.ts): they live on the host between calls. */
  private readonly ciphers = new CipherTable();
  private readonly opHandles: QuickJSHandle[] = [];

  constructor(
    module: QuickJSWASMModule,
    private readonly options: CoreSandboxOptions,
    /** Its timer ids start above this one. */
    readonly timerBase: number,
  ) {
    this.runtime = module.newRuntime();
    this.runtime.setMemoryLimit(options.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT_BYTES);
    this.runtime.setMaxStackSize(MAX_STACK_BYTES);
    this.runtime.setInterruptHandler(() => Date.now() > this.deadline);
    this.vm = this.runtime.newContext();
    diagnostics.enginesCreated++;
    diagnostics.enginesLive++;
  }

  /** Compiles the driver and the user's code; throws SandboxError("syntax") for invalid code. */
  setup(): void {
    const vm = this.vm;
    const { options } = this;
    const flowLimit = options.flowContextLimitBytes ?? DEFAULT_FLOW_CONTEXT_LIMIT_BYTES;
    const factory = this.unwrap(this.guard(() => vm.evalCode(DRIVER_SOURCE, "sandbox-driver.js")), "setup");
    const handles: QuickJSHandle[] = [factory];
    let faulted = false;
    try {
      handles.push(
        vm.newFunction("flowGet", (keyHandle) => {
          const text = options.flow.get(vm.getString(keyHandle));
          return text === undefined ? undefined : vm.newString(text);
        }),
        vm.newFunction("flowSet", (keyHandle, valueHandle) => {
          const key = vm.getString(keyHandle);
          const json = valueHandle === undefined || vm.typeof(valueHandle) !== "string" ? undefined : vm.getString(valueHandle);
          options.flow.set(key, json, flowLimit);
        }),
        // A subflow's `$parent.` writes (held here until the host routes them up) are not keys of this level.
        vm.newFunction("flowKeys", () => vm.newString(JSON.stringify(options.flow.keys().filter((key) => !key.startsWith("$parent."))))),
        // flow.increment in one host call: read, add and write on the worker's copy (one thread: atomic).
        vm.newFunction("flowIncrement", (keyHandle, byHandle) => {
          const key = vm.getString(keyHandle);
          const text = options.flow.get(key);
          const current: unknown = text === undefined ? undefined : JSON.parse(text);
          const next = (typeof current === "number" ? current : 0) + vm.getNumber(byHandle!);
          options.flow.set(key, JSON.stringify(next), flowLimit);
          return vm.newNumber(next);
        }),
        vm.newFunction("globalCall", (opHandle, keyHandle, argHandle) => {
          if (!options.global) throw new Error("global context is not available here");
          const op = vm.getString(opHandle);
          const key = keyHandle === undefined ? "" : vm.getString(keyHandle);
          let call: GlobalCall;
          if (op === "get") call = { op, key };
          else if (op === "keys") call = { op };
          else if (op === "inc") call = { op, key, by: vm.getNumber(argHandle!) };
          else call = { op: "set", key, json: argHandle === undefined || vm.typeof(argHandle) !== "string" ? null : vm.getString(argHandle) };
          const answer = options.global(call);
          return answer === undefined ? undefined : vm.newString(answer);
        }),
        vm.newFunction("envGet", (nameHandle) => {
          const name = vm.getString(nameHandle);
          const values = options.env ?? { NR_NODE_ID: options.nodeInfo.id, NR_NODE_NAME: options.nodeInfo.name, NR_FLOW_ID: options.nodeInfo.flowId };
          const value = Object.prototype.hasOwnProperty.call(values, name) ? values[name] : undefined;
          const json = value === undefined ? undefined : JSON.stringify(value);
          return json === undefined ? undefined : vm.newString(json);
        }),
        // Node's Buffer, evaluated in the engine at its first use (buffer-source.ts), and a Buffer's
        // bytes to and from base64 (its stand-in in JSON) natively: QuickJS would take ~50 µs for 64 bytes.
        vm.newFunction("bufferSource", () => vm.newString(bufferSource())),
        vm.newFunction("bytesOf", (base64Handle) => {
          const bytes = Buffer.from(vm.getString(base64Handle), "base64");
          return vm.newArrayBuffer(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
        }),
        vm.newFunction("base64Of", (bufferHandle, offsetHandle, lengthHandle) => {
          const memory = vm.getArrayBuffer(bufferHandle);
          try {
            const view = memory.value;
            const offset = Math.max(0, Math.min(view.length, vm.getNumber(offsetHandle)));
            const length = Math.max(0, Math.min(view.length - offset, vm.getNumber(lengthHandle)));
            return vm.newString(Buffer.from(view.buffer, view.byteOffset + offset, length).toString("base64"));
          } finally {
            memory.dispose();
          }
        }),
        // Node-RED's RED.util (red-util-source.ts), evaluated in the engine at the code's first call of it.
        // Node's util (node-util-source.ts) when asked for "node", also at its first use.
        vm.newFunction("utilSource", (which) => vm.newString(which !== undefined && vm.typeof(which) === "string" && vm.getString(which) === "node" ? nodeUtilSource() : RED_UTIL_SOURCE)),
        // Locales, answered by the host's V8 (intl-host.ts), and Intl's source (intl-source.ts).
        vm.newFunction("intl", (...args) => vm.newString(intlCall(...(args.map((h) => (h !== undefined && vm.typeof(h) === "string" ? vm.getString(h) : "")) as [string, string, string?, string?])))),
        vm.newFunction("intlSource", () => vm.newString(INTL_SOURCE)),
        // URL parsing, answered by the host's V8 (url-host.ts), and URL's source (url-source.ts).
        vm.newFunction("url", (h) => vm.newString(urlCall(h !== undefined && vm.typeof(h) === "string" ? vm.getString(h) : ""))),
        vm.newFunction("urlSource", () => vm.newString(URL_SOURCE)),
        // Node's crypto for the node's libs, answered by the host's (crypto-host.ts), and its source (crypto-source.ts).
        vm.newFunction("crypto", (h) => vm.newString(cryptoCall(h !== undefined && vm.typeof(h) === "string" ? vm.getString(h) : "", cryptoMaxChars(options.timeoutMs), this.ciphers))),
        vm.newFunction("cryptoSource", () => vm.newString(CRYPTO_SOURCE)),
        // An npm package of the node's libs, or one of moment's locales (packages-source.ts): its wrapped source, or undefined.
        vm.newFunction("packageSource", (h) => {
          const source = h !== undefined && vm.typeof(h) === "string" ? packageSource(vm.getString(h)) : undefined;
          return source === undefined ? vm.undefined : vm.newString(source);
        }),
        vm.newString(JSON.stringify({ ...options.nodeInfo, outputs: options.outputs, timerBase: this.timerBase, maxTimers: MAX_TIMERS_PER_SANDBOX, finalMsg: options.finalMsg === true, bufferMark: bufferMark(), libs: (options.libs ?? []).map((lib) => [lib.var, lib.module]), cryptoMaxChars: cryptoMaxChars(options.timeoutMs) })),
        vm.newString(options.code),
        vm.newString(options.initialize ?? ""),
        vm.newString(options.finalize ?? ""),
      );
      this.deadline = Date.now() + Math.max(options.timeoutMs, 1000);
      const result = this.guard(() => vm.callFunction(factory, vm.undefined, ...handles.slice(1)));
      this.deadline = Infinity;
      if (result.error) {
        const error = this.dumpError(result.error);
        result.error.dispose();
        if (error.name === "SyntaxError") throw new SandboxError("syntax", formatSyntaxError(error));
        throw this.classify(error);
      }
      this.dispatch = result.value;
      for (let op = OP_RUN; op <= OP_LOAD_BUFFER; op++) this.opHandles.push(vm.newNumber(op));
      const code = [options.code, options.initialize ?? "", options.finalize ?? ""];
      if (code.some((c) => NAMES_BUFFER.test(c))) this.loadBuffer();
      if (code.some((c) => NAMES_UTIL.test(c))) this.loadBuffer("util");
      if (code.some((c) => NAMES_INTL.test(c))) this.loadBuffer("intl");
      if (code.some((c) => NAMES_NODE_UTIL.test(c))) this.loadBuffer("nodeutil");
      if (code.some((c) => NAMES_URL.test(c))) this.loadBuffer("url");
      // A module of the node's libs that code names: with Buffer (a digest is one), before the first run.
      const libs = (options.libs ?? []).filter((lib) => code.some((c) => namesGlobal(lib.var).test(c)));
      if (libs.some((lib) => lib.module.endsWith("crypto"))) {
        if (!this.bufferLoaded) this.loadBuffer();
        this.loadBuffer("crypto");
      }
      if (libs.some((lib) => lib.module.endsWith("util"))) this.loadBuffer("nodeutil");
      // Every npm package of the libs, named by the code or not, as Node-RED requires each when the
      // node starts (moment-timezone, loaded, gives a moment entry its .tz); the driver then makes
      // the package's variables.
      for (const module of new Set((options.libs ?? []).map((lib) => lib.module))) if (Object.hasOwn(PACKAGE_FILES, module)) this.loadBuffer(`package:${module}`);
    } catch (err) {
      faulted = !(err instanceof SandboxError);
      throw err;
    } finally {
      this.deadline = Infinity;
      // After a fault the engine is not touched again (it is dropped whole).
      if (!faulted) for (const handle of handles) if (handle.alive) handle.dispose();
    }
  }

  /**
   * Runs one op (for OP_TIMER, `msgJson` is the timer's id); returns the envelope decoded. Throws
   * SandboxError for the code's own failures (with what happened before them), HostFault when the
   * engine must be discarded.
   */
  call(op: number, msgJson = "", msgidOfInput?: string): SandboxResult {
    const vm = this.vm;
    // A message that brings a Buffer to code that never named one: Buffer first, in its own time.
    if (!this.bufferLoaded && (op === OP_RUN || op === OP_LINK) && msgJson.includes(bufferMarkJson())) this.loadBuffer();
    // initialize/finalize/timer sends get a fresh id, like Node-RED's RED.util.generateId().
    const msgid = msgidOfInput ?? randomHex(8);
    this.op = op;
    this.deadline = Date.now() + this.options.timeoutMs;
    try {
      const msgHandle = this.guard(() => vm.newString(msgJson));
      let text: string;
      let faulted = false;
      try {
        text = this.callDispatch(this.opHandles[op]!, msgHandle, msgid);
      } catch (err) {
        faulted = !(err instanceof SandboxError);
        throw err;
      } finally {
        if (!faulted) msgHandle.dispose();
      }
      if (text === "" || this.guard(() => this.runtime.hasPendingJob())) {
        // The code returned a promise or queued jobs (like microtasks after a Node-RED function):
        // run the job queue within the same deadline, then collect the result.
        const jobs = this.guard(() => this.runtime.executePendingJobs(-1));
        if (jobs.error) {
          const error = this.dumpError(jobs.error);
          jobs.error.dispose();
          throw this.failure(error, msgid);
        }
        // An interrupt inside a job rejects a promise instead of failing the job queue.
        if (Date.now() > this.deadline) throw this.failure({ name: "InternalError", message: "interrupted", stack: "" }, msgid);
        text = this.callDispatch(this.opHandles[OP_SETTLE]!, undefined, msgid);
      }
      return decodeEnvelope(text, this.options.outputs, msgid, op === OP_RUN, this.sourcesFor(op));
    } finally {
      this.deadline = Infinity;
    }
  }

  private bufferLoaded = false;

  /**
   * Evaluates Node's Buffer in the engine (or, named, RED.util's, Node's util's, Intl's or URL's source), within the
   * setup's time (not a run's, which may be a few ms).
   */
  private loadBuffer(what: "" | "util" | "nodeutil" | "intl" | "url" | "crypto" | `package:${string}` = ""): void {
    const deadline = this.deadline;
    this.deadline = Date.now() + Math.max(this.options.timeoutMs, 1000);
    try {
      const named = what === "" ? undefined : this.vm.newString(what);
      try {
        this.callDispatch(this.opHandles[OP_LOAD_BUFFER]!, named, "");
      } finally {
        named?.dispose();
      }
      if (what === "") this.bufferLoaded = true;
    } finally {
      this.deadline = deadline;
    }
  }

  private callDispatch(opHandle: QuickJSHandle, msgHandle: QuickJSHandle | undefined, msgid: string): string {
    const vm = this.vm;
    const args = msgHandle ? [opHandle, msgHandle] : [opHandle];
    const result = this.guard(() => vm.callFunction(this.dispatch!, vm.undefined, ...args));
    if (result.error) {
      const error = this.dumpError(result.error);
      result.error.dispose();
      throw this.failure(error, msgid);
    }
    try {
      // The dispatcher always returns a string (the envelope is checked when decoded).
      return vm.getString(result.value);
    } finally {
      result.value.dispose();
    }
  }

  /** A SandboxError for an error thrown by the code, with what it sent/logged before failing. */
  private failure(error: DumpedError, msgid: string): SandboxError {
    const classified = this.classify(error);
    if (classified.kind === "memory") return classified;
    let partial: SandboxResult | undefined;
    try {
      this.deadline = Date.now() + 100;
      partial = this.callPartial(msgid);
    } catch (err) {
      if (err instanceof HostFault) throw err;
      partial = undefined;
    }
    return new SandboxError(classified.kind, classified.message, partial, classified.thrownError);
  }

  private callPartial(msgid: string): SandboxResult {
    const vm = this.vm;
    const result = this.guard(() => vm.callFunction(this.dispatch!, vm.undefined, this.opHandles[OP_PARTIAL]!));
    if (result.error) {
      result.error.dispose();
      throw new SandboxError("runtime", "no partial result");
    }
    try {
      return decodeEnvelope(vm.getString(result.value), this.options.outputs, msgid, false, this.sourcesFor(this.op));
    } finally {
      result.value.dispose();
    }
  }

  /** The code an op runs first, then the others (a timer's callback or a settled promise may be in any); made once. */
  private sourcesFor(op: number): ReadonlyArray<string | undefined> {
    const { code, initialize, finalize } = this.options;
    this.sourceOrders ??= { body: [code, initialize, finalize], init: [initialize, code, finalize], final: [finalize, code, initialize] };
    return op === OP_INIT ? this.sourceOrders.init : op === OP_FINALIZE ? this.sourceOrders.final : this.sourceOrders.body;
  }
  private sourceOrders: Record<"body" | "init" | "final", ReadonlyArray<string | undefined>> | undefined;

  private classify(error: DumpedError): SandboxError {
    if (error.value !== undefined) return new SandboxError("runtime", error.value);
    if (error.name === "InternalError" && error.message === "interrupted") {
      // Node-RED's vm timeout, in its words (only the code's synchronous part counts there; here all of it).
      return new SandboxError("timeout", `Error: Script execution timed out after ${this.options.timeoutMs}ms`);
    }
    if (/out of memory/i.test(error.message)) {
      return new SandboxError("memory", `Error: the function ran out of memory (limit ${this.options.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT_BYTES} bytes)`);
    }
    return new SandboxError("runtime", nodeRedErrorText(error, this.op === OP_RUN, this.sourcesFor(this.op)), undefined, true);
  }

  private dumpError(handle: QuickJSHandle): DumpedError {
    let dumped: unknown;
    try {
      // dump() evaluates inside the VM; give it a moment even when the deadline has passed.
      const saved = this.deadline;
      this.deadline = Date.now() + 100;
      try {
        dumped = this.guard(() => this.vm.dump(handle));
      } finally {
        this.deadline = saved;
      }
    } catch (err) {
      if (err instanceof HostFault) throw err;
      return { name: "InternalError", message: "out of memory", stack: "" };
    }
    // An Error dumps as {name, message, stack}; any other object as its JSON (Node-RED reports it so).
    if (isPlainObject(dumped) && !(typeof dumped.stack === "string" && typeof dumped.name === "string")) {
      return { name: "Error", message: "", stack: "", value: JSON.stringify(dumped) };
    }
    if (isPlainObject(dumped)) {
      return {
        name: typeof dumped.name === "string" ? dumped.name : "Error",
        message: typeof dumped.message === "string" ? dumped.message : String(dumped.message ?? ""),
        stack: typeof dumped.stack === "string" ? dumped.stack : "",
      };
    }
    if (dumped === null || dumped === undefined) return { name: "InternalError", message: "out of memory", stack: "" };
    return { name: "Error", message: "", stack: "", value: typeof dumped === "string" ? dumped : JSON.stringify(dumped) ?? String(dumped) };
  }

  private unwrap(result: ReturnType<QuickJSContext["evalCode"]>, what: string): QuickJSHandle {
    if (result.error) {
      const error = this.dumpError(result.error);
      result.error.dispose();
      throw new SandboxError("runtime", `sandbox ${what} failed: ${error.message}`);
    }
    return result.value;
  }

  /** Calls into the engine; anything the host throws out of it (not a QuickJS exception) is fatal. */
  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (err instanceof SandboxError) throw err;
      throw new HostFault(err instanceof Error ? `${err.name}: ${err.message}` : String(err));
    }
  }

  /** Jobs left in the queue after a timeout would run (and time out) in the next call. */
  hasLeftoverJobs(): boolean {
    return this.guard(() => this.runtime.hasPendingJob());
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.ciphers.clear();
    diagnostics.enginesLive--;
    try {
      for (const handle of this.opHandles) if (handle.alive) handle.dispose();
      if (this.dispatch?.alive) this.dispatch.dispose();
      this.vm.dispose();
      this.runtime.dispose();
    } catch {
      // A leak or a broken engine: drop it, its WebAssembly memory goes with it.
      diagnostics.disposeFailures++;
    }
  }

  /** After a HostFault: the engine's state is unknown, so it is not touched again, only dropped. */
  abandon(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.ciphers.clear();
    diagnostics.enginesLive--;
    diagnostics.enginesAbandoned++;
  }
}

/**
 * QuickJS's wording of the commonest errors, in V8's (Node-RED's engine): what a flow shows and what
 * a catch node's msg.error.message holds read the same as in Node-RED.
 */
/**
 * Node-RED's text of an error the code threw (msg.error.message of the catch node; what the flow
 * shows): its toString(), "TypeError: Cannot read properties of null (reading 'y')". In the body
 * (`body`), Node-RED rewrites a ReferenceError's message to its stack's first line plus the line and
 * column in the user's code, which toString() then prefixes again:
 * "ReferenceError: ReferenceError: x is not defined (line 2, col 3)".
 */
function nodeRedErrorText(error: DumpedError, body: boolean, sources: ReadonlyArray<string | undefined>): string {
  const { name, message } = v8Error(error, sources);
  const base = message ? `${name}: ${message}` : name;
  if (!body || name !== "ReferenceError") return base;
  const frame = /\(<input>:(\d+):(\d+)\)/.exec(error.stack);
  const line = frame ? Number(frame[1]) - 2 : 0;
  return line >= 1 ? `${name}: ${base} (line ${line}, col ${frame![2]})` : `${name}: ${base}`;
}

/** "SyntaxError: unexpected token in expression: ')' (line 3, column 7)", with the line in the user's code. */
function formatSyntaxError(error: DumpedError): string {
  const base = error.message ? `${error.name}: ${error.message}` : error.name;
  // The Function constructor puts the body after two lines of wrapper: "(function anonymous(…\n) {\n".
  const frame = /<input>:(\d+):(\d+)/.exec(error.stack);
  if (!frame) return base;
  const line = Number(frame[1]) - 2;
  if (line < 1) return base;
  return `${base} (line ${line}, column ${frame[2]})`;
}

// ---------------------------------------------------------------------------------------------

async function newEngine(options: CoreSandboxOptions, timerBase: number): Promise<{ engine: Engine; initResult: SandboxResult }> {
  const module = await newQuickJSWASMModule(await sandboxVariant(options.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT_BYTES));
  const engine = new Engine(module, options, timerBase);
  try {
    engine.setup();
  } catch (err) {
    if (err instanceof SandboxError) {
      engine.dispose();
      throw err;
    }
    engine.abandon();
    // The parser ran out of the host's stack before reaching its own limit.
    if (isStackFault(err)) throw new SandboxError("syntax", "SyntaxError: stack overflow (the code is nested too deeply)");
    throw new SandboxError("runtime", faultMessage(err));
  }
  try {
    const initResult = options.initialize?.trim() ? engine.call(OP_INIT, undefined) : emptyResult(options.outputs);
    // The host forgets the timers of any engine before this one.
    initResult.timers = { ...initResult.timers, from: timerBase + 1 };
    return { engine, initResult };
  } catch (err) {
    if (err instanceof SandboxError) {
      engine.dispose();
      throw new SandboxError(err.kind, `initialize: ${err.message}`, err.result);
    }
    engine.abandon();
    throw new SandboxError("runtime", `initialize: ${faultMessage(err)}`);
  }
}

/** One function node's sandbox inside a worker: its engine, recreated after a fatal error. */
export class CoreSandbox {
  private engine: Engine | undefined;
  private replacement: Promise<Engine> | undefined;
  private closed = false;
  /** What an `initialize` re-run after a recreation reported (logs, timers), given with the next call. */
  private carried: Pick<SandboxResult, "logs" | "timers"> | undefined;
  /** The highest timer id reported so far: a re-created engine's ids start above it. */
  private maxTimerId: number;

  constructor(
    private readonly options: CoreSandboxOptions,
    engine: Engine,
    readonly initResult: SandboxResult,
  ) {
    this.engine = engine;
    this.maxTimerId = Math.max(engine.timerBase, maxTimerIdOf(initResult));
  }

  /** Replaces what env.get reads, from the next call on (and in an engine re-created later). */
  setEnv(env: Readonly<Record<string, unknown>>): void {
    this.options.env = env;
  }

  /** Runs the code on one message, given as JSON text with its _msgid. */
  run(msgJson: string, msgid: string): Promise<SandboxResult> {
    return this.call(OP_RUN, msgJson, msgid);
  }

  /** Runs the callback of timer `id` (nothing if the engine does not hold it: see TimerChanges.clear). */
  fire(id: number): Promise<SandboxResult> {
    return this.call(OP_TIMER, String(id), undefined);
  }

  /** Settles node.linkcall `id`'s promise with the answer, its message as handed over (nothing if the engine does not hold it). */
  linkReturn(id: number, answer: WireLinkAnswer): Promise<SandboxResult> {
    return this.call(OP_LINK, "error" in answer ? JSON.stringify({ i: id, e: answer.error }) : `{"i":${id},"m":${answer.msgJson}}`, undefined);
  }

  private async call(op: number, arg: string, msgid: string | undefined): Promise<SandboxResult> {
    if (this.closed) throw new SandboxError("runtime", "the sandbox is closed");
    let engine = this.engine;
    if (!engine) {
      engine = await this.recreate();
      if (this.closed) throw new SandboxError("runtime", "the sandbox is closed");
    }
    try {
      const result = engine.call(op, arg, msgid);
      if (result.timers || result.linkCalls) this.maxTimerId = Math.max(this.maxTimerId, maxTimerIdOf(result));
      if (this.carried) {
        withCarried(result, this.carried);
        this.carried = undefined;
      }
      return result;
    } catch (err) {
      if (err instanceof SandboxError) {
        if (err.result?.timers) this.maxTimerId = Math.max(this.maxTimerId, maxTimerIdOf(err.result));
        if (err.kind === "memory") this.discard(engine, false);
        else if (err.kind === "timeout" && this.leftoverJobs(engine)) this.discard(engine, false);
        throw err;
      }
      // Anything else came out of the engine itself (HostFault, an emscripten abort): drop it.
      this.discard(engine, true);
      throw new SandboxError("runtime", faultMessage(err));
    }
  }

  private leftoverJobs(engine: Engine): boolean {
    try {
      return engine.hasLeftoverJobs();
    } catch {
      return true;
    }
  }

  private discard(engine: Engine, broken: boolean): void {
    if (broken) engine.abandon();
    else engine.dispose();
    if (this.engine === engine) this.engine = undefined;
  }

  private recreate(): Promise<Engine> {
    this.replacement ??= newEngine(this.options, this.maxTimerId)
      .then(({ engine, initResult }) => {
        this.maxTimerId = Math.max(this.maxTimerId, maxTimerIdOf(initResult));
        // Its sends are dropped (they would go out of no input), as before.
        this.carried = { logs: [...initResult.logs], timers: initResult.timers };
        if (this.closed) {
          engine.dispose();
        } else {
          this.engine = engine;
        }
        return engine;
      })
      .finally(() => {
        this.replacement = undefined;
      });
    return this.replacement;
  }

  close(): SandboxResult | null {
    if (this.closed) return null;
    this.closed = true;
    const engine = this.engine;
    this.engine = undefined;
    if (!engine) return null;
    let result: SandboxResult | null = null;
    if (this.options.finalize?.trim()) {
      try {
        result = engine.call(OP_FINALIZE, undefined);
      } catch (err) {
        if (!(err instanceof SandboxError)) {
          engine.abandon();
          return { ...emptyResult(this.options.outputs), logs: [{ level: "error", message: `finalize: ${faultMessage(err)}` }] };
        }
        result = err.result ?? emptyResult(this.options.outputs);
        result.logs.push({ level: "error", message: `finalize: ${err.message}` });
      }
    }
    engine.dispose();
    return result;
  }
}

function isStackFault(err: unknown): boolean {
  return err instanceof Error && /call stack|stack overflow/i.test(err.message);
}

function faultMessage(err: unknown): string {
  if (isStackFault(err)) return "InternalError: stack overflow (the sandbox was restarted)";
  return `the sandbox failed (${err instanceof Error ? err.message : String(err)}) and was restarted`;
}

/**
 * Creates the sandbox of one function node: compiles the code (SandboxError "syntax" when invalid)
 * and runs `initialize`.
 */
export async function createCoreSandbox(options: CoreSandboxOptions, timerBase = 0): Promise<CoreSandbox> {
  const { engine, initResult } = await newEngine(options, timerBase);
  return new CoreSandbox(options, engine, initResult);
}
