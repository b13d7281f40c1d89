/**
 * One function node's sandbox, as seen from the host: a handle on an engine that lives on a pool
 * worker (pool-worker.ts), on the worker of its flow group (sandbox-pool.ts).
 *
 * After its worker is terminated (or dies), the sandbox is re-created on a fresh worker before its
 * next call: `initialize` runs again (its logs and timers are reported with that call) and the
 * per-node `context` is lost, and so are the timers set before (their callbacks lived in the lost
 * engine): the new engine's timer ids start above every id this handle has seen, the call's result
 * says so (`timers.from`), and a fire() of an old id runs nothing and answers it cleared. Requests
 * queued behind the one that timed out never ran and are retried there transparently. The flow
 * context survives: the worker's copy is re-seeded from the host's mirror (see
 * FunctionSandboxOptions.flowContext), and every flow write a reply carries is applied to it.
 */
import { randomHex } from "../../ids";
import type { Message } from "../types";
import { boundedJson } from "../bounded-json";
import { bufferMarkReplacer } from "./buffer-source";
import { hardLimitMs, WorkerLost, type GlobalCallHandler, type HostedSandbox, type PoolWorker, type ReplyMessage } from "./pool-worker";
import type { WireLinkAnswer, WireOptions, WorkerRequest } from "./sandbox-protocol";
import {
  DEFAULT_MEMORY_LIMIT_BYTES,
  emptyResult,
  maxTimerIdOf,
  parseJson,
  SandboxError,
  withCarried,
  type FunctionSandbox,
  type FunctionSandboxOptions,
  type LinkAnswer,
  type GlobalAnswer,
  type GlobalCall,
  type SandboxFlowContext,
  type SandboxGlobalContext,
  type SandboxPoolDiagnostics,
  type SandboxResult,
} from "./sandbox-types";

/** The longest the event loop may spend writing one message for the sandbox. */
const HAND_OVER_MAX_MS = 250;

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

/** The older option: a plain Map (no host writes told, no organization limit). */
function mapFlowContext(map: Map<string, unknown>): SandboxFlowContext {
  return {
    snapshot: () => seedOf(map),
    applySandboxWrites: (writes) => {
      for (const [key, json] of writes) {
        if (json === null) map.delete(key);
        else map.set(key, parseJson(json));
      }
    },
    trackHostWrites: () => undefined,
    takeHostWrites: () => undefined,
    clearHostWrites: () => undefined,
    budget: () => Infinity,
  };
}

function globalHandler(global: SandboxGlobalContext): GlobalCallHandler {
  return (call: GlobalCall): GlobalAnswer | Promise<GlobalAnswer> => {
    switch (call.op) {
      case "get": {
        const v = global.getJson(call.key);
        return v === undefined ? { ok: true } : { ok: true, v };
      }
      case "keys":
        return { ok: true, v: JSON.stringify(global.keys()) };
      case "set":
        global.setJson(call.key, call.json);
        return { ok: true };
      case "inc":
        return global.incrementStored(call.key, call.by).then((n) => ({ ok: true, v: JSON.stringify(n) }));
    }
  };
}

function toError(reply: ReplyMessage): SandboxError {
  const error = reply.error ?? { kind: "runtime", message: "the sandbox failed" };
  return new SandboxError(error.kind, error.message, error.result, error.thrown === true);
}

/** What a sandbox needs of its pool (SandboxPool): ids, its flow group's worker, the counters. */
export interface SandboxHost {
  readonly counters: SandboxPoolDiagnostics;
  newSandboxId(): number;
  groupOf(key: object): SandboxGroup;
  workerAt(slot: number): PoolWorker;
  /** The global context of sandboxes created without one (in memory, per owner). */
  defaultGlobal(owner: string | undefined): SandboxGlobalContext;
}

/** A flow group: its worker slot, and which host writes went to its worker with which request. */
export interface SandboxGroup {
  gid: number;
  slot: number;
  /** key → id of the request that told the worker the host's write (a reply of an earlier request does not undo it). */
  sentAt: Map<string, number>;
}

export class PooledSandbox implements FunctionSandbox, HostedSandbox {
  private readonly sid: number;
  private worker: PoolWorker | undefined;
  private recreating: Promise<PoolWorker> | undefined;
  private closed = false;
  /** What an `initialize` re-run after a recreation reported (logs, timers), given with the next call. */
  private carried: Pick<SandboxResult, "logs" | "timers"> | undefined;
  /** The highest timer id seen in any result: a re-created engine's ids start above it. */
  private maxTimerId = 0;
  readonly initResult: SandboxResult;
  private readonly wire: WireOptions;
  private readonly group: SandboxGroup;
  private readonly flow: SandboxFlowContext;
  private readonly onGlobal: GlobalCallHandler;

  private constructor(
    private readonly pool: SandboxHost,
    private readonly options: FunctionSandboxOptions,
    wire: WireOptions,
  ) {
    this.sid = pool.newSandboxId();
    this.wire = wire;
    this.flow = options.flowScope ?? mapFlowContext(options.flowContext);
    this.flow.trackHostWrites();
    this.group = pool.groupOf(options.flowScope ?? options.flowContext);
    this.onGlobal = globalHandler(options.globalContext ?? pool.defaultGlobal(options.owner));
    this.initResult = emptyResult(options.outputs);
  }

  static async create(pool: SandboxHost, options: FunctionSandboxOptions): Promise<PooledSandbox> {
    const wire: WireOptions = {
      code: options.code,
      outputs: options.outputs,
      timeoutMs: options.timeoutMs,
      memoryLimitBytes: options.memoryLimitBytes,
      initialize: options.initialize,
      finalize: options.finalize,
      ...(options.libs && options.libs.length > 0 ? { libs: options.libs } : {}),
      flowContextLimitBytes: options.flowContextLimitBytes,
      nodeInfo: { id: options.nodeInfo.id, name: options.nodeInfo.name, flowId: options.nodeInfo.flowId },
      ...(options.finalMsg ? { finalMsg: true } : {}),
      ...(options.env ? { env: options.env } : {}),
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
      let seed: Array<[string, string]> | undefined;
      if (refs === 0) {
        // A fresh copy on this worker: everything the host holds now, nothing left to tell.
        this.flow.clearHostWrites();
        this.group.sentAt.clear();
        seed = this.flow.snapshot();
      }
      worker.globalHandlers.set(this.sid, this.onGlobal);
      try {
        reply = await worker.request(
          this.synced({
            t: "create",
            id: worker.newId(),
            sid: this.sid,
            gid: this.group.gid,
            seed,
            options: this.wire,
            timerBase: this.maxTimerId,
          }),
          createMs,
        );
      } catch (err) {
        if (err instanceof WorkerLost && attempt < 2) continue;
        if (err instanceof SandboxError) throw new SandboxError(err.kind, `initialize: ${err.message}`);
        throw new SandboxError("runtime", "the sandbox worker was restarted while the sandbox was being created");
      }
      this.applyFlowWrites(reply);
      if (!reply.ok) {
        worker.globalHandlers.delete(this.sid);
        this.releaseGroup(worker);
        throw toError(reply);
      }
      this.pool.counters.enginesCreated++;
      this.pool.counters.enginesLive++;
      this.worker = worker;
      worker.sandboxes.add(this);
      const initResult = reply.value ?? emptyResult(this.options.outputs);
      this.maxTimerId = Math.max(this.maxTimerId, maxTimerIdOf(initResult));
      return initResult;
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

  /** Adds to a request what the worker's flow copy must know first: host writes, and its budget. */
  private synced<R extends WorkerRequest & { t: "create" | "run" | "timer" | "link" | "close" }>(request: R): R {
    const writes = this.flow.takeHostWrites();
    if (writes) {
      request.fw = writes;
      for (const [key] of writes) this.group.sentAt.set(key, request.id);
    }
    request.fl = this.flow.budget();
    const keys = this.flow.keysLeft?.();
    if (keys !== undefined && keys !== Infinity) request.fk = keys;
    return request;
  }

  /**
   * The flow writes the sandboxes made during a request, applied on the host before what the call
   * sent is routed. A write the host told the worker after that request (a later request carries it)
   * is newer on both sides and stays.
   */
  private applyFlowWrites(reply: ReplyMessage): void {
    if (!reply.flow) return;
    const sentAt = this.group.sentAt;
    const writes = sentAt.size === 0 ? reply.flow : reply.flow.filter(([key]) => (sentAt.get(key) ?? 0) <= reply.id);
    if (writes.length > 0) this.flow.applySandboxWrites(writes, this.options.nodeInfo.id);
  }

  /** Called by the worker when it goes away: the engine is gone, the next call re-creates it. */
  lost(): void {
    if (this.worker) this.pool.counters.enginesLive--;
    this.worker?.globalHandlers.delete(this.sid);
    this.worker = undefined;
  }

  private ensureWorker(): Promise<PoolWorker> {
    if (this.worker) return Promise.resolve(this.worker);
    this.recreating ??= this.start()
      .then((initResult) => {
        this.carried = { logs: [...initResult.logs], timers: initResult.timers };
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

  // Not async itself: one promise per call, the one of call() (this is the hot path).
  run(msg: Message, options?: { env?: Readonly<Record<string, unknown>> }): Promise<SandboxResult> {
    try {
      // New variable values travel with the call that first needs them, and seed a re-created engine.
      let env: Readonly<Record<string, unknown>> | undefined;
      if (options?.env && options.env !== this.wire.env) env = this.wire.env = options.env;
      return this.call(this.runRequest(msg, env));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private runRequest(msg: Message, env: Readonly<Record<string, unknown>> | undefined): (worker: PoolWorker) => WorkerRequest {
    if (this.closed) throw new SandboxError("runtime", "the sandbox is closed");
    const msgid = msg?._msgid ?? randomHex(8);
    const msgJson = this.handOver(msg);
    return (worker) => this.synced({ t: "run", id: worker.newId(), sid: this.sid, msgJson, msgid, ...(env ? { env } : {}) });
  }

  /**
   * A message as the JSON text the engine parses (a run's input, a link call's answer): bounded
   * (runtime/bounded-json.ts: one repeating an object is refused after half the sandbox's memory
   * worth of text, never expanded in full on the event loop), its Buffers as stand-ins
   * (buffer-source.ts). Throws SandboxError when the sandbox cannot take it.
   */
  private handOver(msg: Message | Record<string, unknown>): string {
    const memoryLimit = this.options.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT_BYTES;
    let json: ReturnType<typeof boundedJson>;
    try {
      json = boundedJson(msg, { maxChars: memoryLimit / 2, maxMs: HAND_OVER_MAX_MS, cut: false, bufferReplacer: bufferMarkReplacer });
    } catch (err) {
      throw new SandboxError("runtime", `the message cannot be serialized: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (json.truncated || json.text === undefined) {
      throw new SandboxError("memory", `message too large for the sandbox (more than ${memoryLimit / 2} characters as JSON, or more than ${HAND_OVER_MAX_MS} ms to write; memory limit ${memoryLimit} bytes)`);
    }
    const msgJson = json.text;
    if (msgJson.length > memoryLimit / 8 && Buffer.byteLength(msgJson) > memoryLimit / 2) {
      throw new SandboxError("memory", `message too large for the sandbox (${Buffer.byteLength(msgJson)} bytes as JSON, memory limit ${memoryLimit} bytes)`);
    }
    return msgJson;
  }

  fire(id: number): Promise<SandboxResult> {
    if (this.closed) return Promise.reject(new SandboxError("runtime", "the sandbox is closed"));
    return this.call((worker) => this.synced({ t: "timer", id: worker.newId(), sid: this.sid, timer: id }));
  }

  linkReturn(id: number, answer: LinkAnswer): Promise<SandboxResult> {
    if (this.closed) return Promise.reject(new SandboxError("runtime", "the sandbox is closed"));
    // Handed over as a run's message; one the sandbox cannot take fails the call's promise with why.
    let sent: WireLinkAnswer;
    if ("msg" in answer) {
      try {
        sent = { msgJson: this.handOver(answer.msg) };
      } catch (err) {
        sent = { error: `the link call's answer: ${err instanceof Error ? err.message : String(err)}` };
      }
    } else sent = answer;
    return this.call((worker) => this.synced({ t: "link", id: worker.newId(), sid: this.sid, link: id, answer: sent }));
  }

  private async call(request: (worker: PoolWorker) => WorkerRequest): Promise<SandboxResult> {
    for (let attempt = 0; ; attempt++) {
      const worker = await this.ensureWorker();
      if (this.closed) throw new SandboxError("runtime", "the sandbox is closed");
      let reply: ReplyMessage;
      try {
        reply = await worker.request(request(worker), hardLimitMs(this.options.timeoutMs));
      } catch (err) {
        if (err instanceof WorkerLost && attempt < 2) continue;
        if (err instanceof SandboxError) throw err;
        throw new SandboxError("runtime", "the sandbox worker was restarted repeatedly");
      }
      this.applyFlowWrites(reply);
      if (!reply.ok) {
        const error = toError(reply);
        if (error.result?.timers) this.maxTimerId = Math.max(this.maxTimerId, maxTimerIdOf(error.result));
        throw error;
      }
      const result = reply.value!;
      if (result.timers || result.linkCalls) this.maxTimerId = Math.max(this.maxTimerId, maxTimerIdOf(result));
      if (this.carried) {
        withCarried(result, this.carried);
        this.carried = undefined;
      }
      return result;
    }
  }

  /** Frees the engine without waiting for the worker (finalize, if any, runs but its result is dropped). */
  private release(worker: PoolWorker): void {
    this.worker = undefined;
    worker.sandboxes.delete(this);
    this.pool.counters.enginesLive--;
    const request = this.synced({ t: "close" as const, id: worker.newId(), sid: this.sid });
    worker.post(request, hardLimitMs(this.options.timeoutMs), {
      onReply: (reply) => {
        worker.globalHandlers.delete(this.sid);
        this.applyFlowWrites(reply);
      },
      onLost: () => undefined,
    });
    this.releaseGroup(worker);
  }

  async close(): Promise<SandboxResult | null> {
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
    const request = this.synced({ t: "close" as const, id: worker.newId(), sid: this.sid });
    const hardMs = hardLimitMs(this.options.timeoutMs);
    // finalize runs on the worker; the host's event loop goes on meanwhile (never a blocking wait:
    // a `while (true) {}` in finalize is stopped by the hard deadline, which terminates the worker).
    let outcome: ReplyMessage | Error;
    try {
      outcome = await worker.request(request, hardMs);
    } catch (err) {
      outcome = err instanceof Error ? err : new Error(String(err));
    }
    worker.globalHandlers.delete(this.sid);
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
