import { newId } from "../../ids";
import { EXECUTION_INPUT_MAX_BYTES } from "../../../shared/executions";
import type { Message } from "../types";
import { boundedJson } from "../bounded-json";

/**
 * Executions (SPEC §15), as the engine sees them: nothing here knows a database. The engine tells
 * the tracker where each message goes (a delivery queued, a node received it, sent on a port, was
 * done with it); the tracker keeps the path of every message an input node started, decides what
 * is kept (sampling), and hands what is kept to its sink (flow-runtime/execution-writer.ts).
 *
 * What an execution is:
 * - A message sent by a node outside of an input it is handling (inject, http-in, device-in, a
 *   timer, a status node) starts one; its first step is that node, with the message it sent. A
 *   message that reaches a flow without one (a link from another flow, a test harness) starts one
 *   at the node that receives it.
 * - Every delivery of it is a step. The execution a delivery belongs to travels with it: the `send`
 *   a node gets with an input carries it, so whatever the node sends with it (at once, or later, as
 *   delay and trigger do) continues it. A node that sends a message it received through its
 *   context's `send` (outside the input's own `send`) continues that message's execution: found by
 *   the message object, or else by the `_msgid` of its trigger message while it runs.
 * - It ends when no delivery of it is queued or running: a delivery runs until the node calls
 *   `done` (an asynchronous input: until it settles). A message sent for an execution that already
 *   ended (a function's timer firing later) starts a new one, at the node that sent it.
 * - Its status is `error` when a step failed, else `success`; a flow stopped (deploy, stop,
 *   hand-over) while it ran ends it in error.
 */

/** One shape for every step (all fields set at creation), so the engine's hot path stays monomorphic. */
export interface TrackedStep {
  nodeId: string;
  /** The message's JSON text as the node received it, cut at EXECUTION_INPUT_MAX_BYTES; undefined: not kept. */
  input: string | undefined;
  truncated: boolean;
  /** Messages sent per port (sparse). */
  outputs: number[];
  error: string | undefined;
  /** The node's output ports: one with ports that sent nothing dropped the message. */
  ports: number;
  /** Wall-clock ms: the execution's start plus the monotonic time since (one clock read a step). */
  startedAt: number;
  /** performance.now() at start, for the duration. */
  t0: number;
  durationMs: number | null;
  /** Past MAX_STEPS: counted, not kept (unless it fails). */
  omitted: boolean;
}

export interface TrackedExecution {
  /** Made when first read (most executions are counted, never stored, and never need one). */
  readonly id: string;
  organizationId: string;
  flowId: string;
  deploymentId: string | null;
  triggerNodeId: string;
  /** The trigger message's JSON text; null when over MAX_TRIGGER_BYTES (not replayable). */
  triggerMessage: string | null;
  triggerMsgId: string;
  replayOf: string | null;
  startedAt: number;
  t0: number;
  durationMs: number | null;
  steps: TrackedStep[];
  /** Steps past MAX_STEPS that were not kept. */
  stepsOmitted: number;
  /** Deliveries queued or running. */
  pending: number;
  ended: boolean;
  status: "running" | "success" | "error";
  /** Why it ended in error when no step says so (the flow stopped under it). */
  error: string | null;
  /** Kept in full (inputs of every step); false: kept only if it fails. */
  sampled: boolean;
  /** Handed to the sink as `running` (it ran longer than longRunningMs). */
  announced: boolean;
  /** A step failed (its error is set). */
  failed: boolean;
}

/** Where kept executions go. */
export interface ExecutionSink {
  /** One that runs longer than longRunningMs: it is stored as `running` now, and finished later. */
  running(execution: TrackedExecution): void;
  finished(execution: TrackedExecution): void;
  /** A successful execution of the flow that was not kept (sampling). */
  unrecorded(organizationId: string, flowId: string): void;
}

export interface ExecutionTrackerOptions {
  sink: ExecutionSink;
  /** Successes of one flow kept in full per second; past it, one in `sampleOneIn`. */
  sampleAllPerSec: number;
  sampleOneIn: number;
  /** After this long an execution is stored as `running` (default 1 s). */
  longRunningMs?: number;
}

/**
 * Steps one execution keeps (a generator's thousand messages from one timer are one execution):
 * past it, steps are only counted (`stepsOmitted`), except those that fail, which are always kept.
 */
export const MAX_STEPS = 100;

/** The trigger message is kept for replay up to this size (JSON text). */
export const MAX_TRIGGER_BYTES = 1024 * 1024;

interface FlowSampling {
  second: number;
  inSecond: number;
  skipped: number;
}

/**
 * Executions and their steps are made by constructors, and their arrays by a builtin, never by
 * object or array literals: V8 keeps an allocation site per literal and may decide, after a burst
 * in which most of a site's objects outlived a scavenge, to allocate all of that site's objects in
 * the old generation from then on (pretenuring). For objects that live a millisecond that costs
 * twice: each allocation in the old generation may do a step of incremental marking (a CPU profile
 * of a webhook put 5 % of the main thread on the step literal's line), and every young object they
 * point to survives the next scavenge whether they are still alive or not. Constructors and
 * builtins have no allocation site (docs/BENCHMARKS.md, "What recording costs"). NONE is frozen:
 * an accidental write to a step's shared empty outputs throws.
 */
const NONE = Object.freeze([]) as unknown as never[];
const emptyArray = <T>(): T[] => NONE.slice();

/** What a message marked by a tracker points to; its execution's end empties it. */
class ExecutionRef {
  constructor(public execution: TrackedExecution | undefined) {}
}

/** The ref of an execution this tracker made (every one is an Execution). */
const refOfExecution = (execution: TrackedExecution): ExecutionRef | undefined => (execution as { ref?: ExecutionRef }).ref;

/**
 * One descriptor for every mark (its value set for the call only): no object made per call. No
 * prototype: a `get` or `set` added to Object.prototype must not turn it into an accessor descriptor.
 */
const REF_PROPERTY: PropertyDescriptor = { __proto__: null, value: undefined, writable: true, enumerable: false, configurable: true } as PropertyDescriptor;

/**
 * Which execution of one tracker a message object was last part of: a property of the message
 * under a symbol of that tracker, not enumerable (no JSON text, for-in, Object.keys, spread,
 * structuredClone or debug view sees it), holding a ref that the execution's end empties. It
 * replaced a WeakMap from message to execution: a scavenge takes a WeakMap key in the old
 * generation as alive, so a message V8 had allocated there (a node's message literal, pretenured)
 * kept its execution and all it held alive until the next full collection, and recording tripled
 * the young generation's survivors. A message that cannot take the property (frozen, sealed, a
 * proxy refusing) is kept in a WeakMap as before, read only once there is one.
 */
class MessageMarks {
  private readonly key = Symbol("flowplane.execution");
  private readonly unmarkable = new WeakMap<object, ExecutionRef>();
  private anyUnmarkable = false;

  /** The ref a message carries: undefined when it was never part of an execution of this tracker. */
  refOf(msg: Message): ExecutionRef | undefined {
    if (this.anyUnmarkable) {
      const kept = this.unmarkable.get(msg);
      if (kept !== undefined) return kept;
    }
    try {
      // Only a ref counts: a proxy answering every key with something is not marked.
      const value = (msg as unknown as Record<symbol, unknown>)[this.key];
      return value instanceof ExecutionRef ? value : undefined;
    } catch {
      return undefined; // a proxy refusing the read
    }
  }

  mark(msg: Message, ref: ExecutionRef): void {
    const held = msg as unknown as Record<symbol, ExecutionRef | undefined>;
    try {
      if (Object.hasOwn(held, this.key)) {
        held[this.key] = ref;
      } else {
        REF_PROPERTY.value = ref;
        Object.defineProperty(held, this.key, REF_PROPERTY);
      }
      if (this.anyUnmarkable) this.unmarkable.delete(msg);
    } catch {
      this.unmarkable.set(msg, ref);
      this.anyUnmarkable = true;
    } finally {
      REF_PROPERTY.value = undefined;
    }
  }
}

/**
 * An execution as the tracker makes it: every field set in the constructor (one shape), and the id
 * drawn the first time something reads it (the sink storing it, a debug event naming it, replay
 * answering with it): an execution that sampling leaves out and that succeeds is only counted, and
 * its id would be 16 random bytes for nothing.
 */
class Execution implements TrackedExecution {
  private madeId: string | undefined = undefined;
  /** What the messages of this execution point to (emptied when it ends). */
  readonly ref: ExecutionRef = new ExecutionRef(this);
  durationMs: number | null = null;
  steps: TrackedStep[] = emptyArray();
  stepsOmitted = 0;
  ended = false;
  status: "running" | "success" | "error" = "running";
  error: string | null = null;
  announced = false;
  failed = false;

  constructor(
    readonly organizationId: string,
    readonly flowId: string,
    readonly deploymentId: string | null,
    readonly triggerNodeId: string,
    readonly triggerMessage: string | null,
    readonly triggerMsgId: string,
    readonly replayOf: string | null,
    readonly startedAt: number,
    readonly t0: number,
    public pending: number,
    readonly sampled: boolean,
  ) {}

  get id(): string {
    return (this.madeId ??= newId("exe"));
  }
}

class Step implements TrackedStep {
  /** The shared empty array until the first count (sent). */
  outputs: number[] = NONE;
  error: string | undefined = undefined;
  durationMs: number | null = null;
  omitted = false;

  constructor(
    readonly nodeId: string,
    public input: string | undefined,
    public truncated: boolean,
    readonly ports: number,
    public startedAt: number,
    readonly t0: number,
  ) {}
}

function newStep(nodeId: string, ports: number, startedAt: number, t0: number, input: string | undefined, truncated: boolean): TrackedStep {
  return new Step(nodeId, input, truncated, ports, startedAt, t0);
}

/**
 * A step input's JSON text, cut at the limit: written by the bounded serializer, so a message that
 * repeats one object (a JSONata result) costs the limit's worth of work, not its expansion.
 */
function capture(msg: unknown, max: number): { text: string; truncated: boolean } {
  let text: string;
  let truncated: boolean;
  try {
    const json = boundedJson(msg, { maxChars: max });
    text = json.text ?? "null";
    truncated = json.truncated;
  } catch {
    text = JSON.stringify({ _msgid: (msg as Message | null)?._msgid, unserializable: true });
    truncated = false;
  }
  // PostgreSQL's jsonb has no NUL character: it is kept as U+FFFD.
  if (text.includes("\\u0000")) text = text.replaceAll("\\u0000", "\\ufffd");
  return { text, truncated };
}

export class ExecutionTracker {
  /** The execution of the input being handled synchronously right now (what debug events name). */
  current: TrackedExecution | undefined;
  /** Open executions by their trigger message's _msgid (the fallback of execOf). */
  private readonly byMsgId = new Map<string, TrackedExecution>();
  /** The message objects of its executions (see MessageMarks). */
  private readonly marks = new MessageMarks();
  /** Open executions, oldest first (a Set keeps insertion order). */
  private readonly open = new Set<TrackedExecution>();
  private readonly sampling = new Map<string, FlowSampling>();
  private readonly timer: NodeJS.Timeout;
  private readonly longRunningMs: number;

  constructor(private readonly options: ExecutionTrackerOptions) {
    this.longRunningMs = options.longRunningMs ?? 1000;
    this.timer = setInterval(() => this.announceLongRunning(), Math.min(250, this.longRunningMs));
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
    // A message kept past the tracker (in context, by another engine) keeps no execution alive.
    for (const execution of this.open) {
      const ref = refOfExecution(execution);
      if (ref) ref.execution = undefined;
    }
  }

  private sample(flowId: string, now: number): boolean {
    const second = Math.floor(now / 1000);
    let s = this.sampling.get(flowId);
    if (!s) this.sampling.set(flowId, (s = { second, inSecond: 0, skipped: 0 }));
    if (s.second !== second) {
      s.second = second;
      s.inSecond = 0;
    }
    if (++s.inSecond <= this.options.sampleAllPerSec) return true;
    return ++s.skipped % this.options.sampleOneIn === 0;
  }

  /**
   * A new execution of the flow, started by `nodeId` with `msg`. `sent`: the node sent it (its step
   * comes first, with the message as its input); else the node is about to receive it (one
   * delivery of it is counted as pending).
   */
  begin(
    flow: { organizationId: string; flowId: string; deploymentId?: string },
    nodeId: string,
    msg: Message,
    how: { sent: boolean; replayOf?: string },
  ): TrackedExecution {
    const now = Date.now();
    const t0 = performance.now();
    const trigger = capture(msg, MAX_TRIGGER_BYTES);
    const execution = new Execution(
      flow.organizationId,
      flow.flowId,
      flow.deploymentId ?? null,
      nodeId,
      trigger.truncated ? null : trigger.text,
      String(msg._msgid),
      how.replayOf ?? null,
      now,
      t0,
      how.sent ? 0 : 1,
      how.replayOf !== undefined || this.sample(flow.flowId, now),
    );
    if (how.sent) {
      const cut = trigger.truncated || trigger.text.length > EXECUTION_INPUT_MAX_BYTES;
      const first = newStep(nodeId, 1, now, t0, cut ? trigger.text.slice(0, EXECUTION_INPUT_MAX_BYTES) : trigger.text, cut);
      first.durationMs = 0;
      execution.steps.push(first);
    }
    this.open.add(execution);
    this.byMsgId.set(execution.triggerMsgId, execution);
    this.marks.mark(msg, execution.ref);
    // A replay is stored as `running` at once: its id is answered with the replay's 202, and a read
    // that follows the answer must find it (the flow runtime waits for the sink's flush).
    if (how.replayOf !== undefined) {
      execution.announced = true;
      this.options.sink.running(execution);
    }
    return execution;
  }

  /** Marks a message as part of the execution (a node passing on the message it received, most do, finds it marked). */
  private mark(msg: Message, execution: TrackedExecution): void {
    const ref = refOfExecution(execution);
    if (ref !== undefined && this.marks.refOf(msg) !== ref) this.marks.mark(msg, ref);
  }

  /** The open execution a message belongs to: by the object, else by its _msgid. */
  execOf(msg: Message, flowId: string): TrackedExecution | undefined {
    // A message that was part of an execution answers for itself (none once that one ended), as the
    // WeakMap did; only one never marked is looked up by its _msgid, and only among the sending
    // flow's executions: a _msgid that came from elsewhere (a message received over a project link,
    // MQTT or a socket keeps its sender's) never joins another flow's, or organization's, execution.
    const ref = this.marks.refOf(msg);
    if (ref !== undefined) return ref.execution && !ref.execution.ended ? ref.execution : undefined;
    const found = msg._msgid !== undefined ? this.byMsgId.get(String(msg._msgid)) : undefined;
    return found && !found.ended && found.flowId === flowId ? found : undefined;
  }

  /** A node received a message of the execution: a new step. */
  step(execution: TrackedExecution, nodeId: string, ports: number, msg: Message): TrackedStep {
    if (execution.steps.length >= MAX_STEPS) {
      execution.stepsOmitted++;
      // A node passing on the message it received (most do) sends an object already mapped.
      this.mark(msg, execution);
      // Only counted: no clock, no copy. A failure still gets its step (done()).
      const omitted = newStep(nodeId, ports, 0, 0, undefined, false);
      omitted.omitted = true;
      return omitted;
    }
    // One clock read: the wall-clock start is the execution's plus the monotonic time since.
    const t0 = performance.now();
    const startedAt = execution.startedAt + (t0 - execution.t0);
    let step: TrackedStep;
    if (execution.sampled) {
      const input = capture(msg, EXECUTION_INPUT_MAX_BYTES);
      step = newStep(nodeId, ports, startedAt, t0, input.text, input.truncated);
    } else {
      step = newStep(nodeId, ports, startedAt, t0, undefined, false);
    }
    execution.steps.push(step);
    this.mark(msg, execution);
    return step;
  }

  /**
   * The step of `nodeId` a message it sends continues: its latest one, or (a catch or complete node
   * sending what the engine gave it) a new one, done at once, with that message as its input.
   */
  senderStep(execution: TrackedExecution, nodeId: string, ports: number, msg: Message): TrackedStep {
    const steps = execution.steps;
    // The common cases first: the node that received last, or the trigger (a generator sending a
    // thousand messages from a timer continues its execution a thousand times).
    const last = steps[steps.length - 1];
    if (last?.nodeId === nodeId) return last;
    if (steps[0]?.nodeId === nodeId) return steps[0];
    for (let i = steps.length - 2; i > 0; i--) if (steps[i]!.nodeId === nodeId) return steps[i]!;
    const step = this.step(execution, nodeId, ports, msg);
    step.durationMs = 0;
    return step;
  }

  sent(step: TrackedStep, port: number): void {
    const outputs = step.outputs;
    if (outputs === NONE) {
      // A first count: an array of the length it needs (growing an empty one makes room for 16).
      if (port === 0) step.outputs = Array.of(1);
      else (step.outputs = emptyArray<number>())[port] = 1;
    } else outputs[port] = (outputs[port] ?? 0) + 1;
  }

  /** A queued delivery was never made (its flow stopped, or its node is gone): it no longer counts. */
  skipped(execution: TrackedExecution): void {
    execution.pending--;
    this.settle(execution);
  }

  /** The node was done with its input (`done`), with or without an error. */
  done(execution: TrackedExecution, step: TrackedStep, msg: Message, err: string | undefined): void {
    if (!step.omitted) step.durationMs = performance.now() - step.t0;
    if (err !== undefined) {
      step.error = err;
      execution.failed = true;
      // Not sampled, or past MAX_STEPS: the failing step is kept, with its message, all the same.
      if (step.input === undefined) {
        const input = capture(msg, EXECUTION_INPUT_MAX_BYTES);
        step.input = input.text;
        if (input.truncated) step.truncated = true;
      }
      if (step.omitted) {
        step.omitted = false;
        step.startedAt = Date.now();
        execution.stepsOmitted--;
        execution.steps.push(step);
      }
    }
    execution.pending--;
    this.settle(execution);
  }

  /** Ends the execution once nothing of it is queued or running. */
  settle(execution: TrackedExecution): void {
    if (execution.pending > 0 || execution.ended) return;
    this.end(execution, null);
  }

  private end(execution: TrackedExecution, reason: string | null): void {
    execution.ended = true;
    execution.durationMs = performance.now() - execution.t0;
    execution.error = reason;
    execution.status = reason !== null || execution.failed ? "error" : "success";
    this.open.delete(execution);
    if (this.byMsgId.get(execution.triggerMsgId) === execution) this.byMsgId.delete(execution.triggerMsgId);
    const ref = refOfExecution(execution);
    if (ref) ref.execution = undefined;
    if (execution.sampled || execution.status === "error" || execution.announced) this.options.sink.finished(execution);
    else this.options.sink.unrecorded(execution.organizationId, execution.flowId);
  }

  /** The flow stopped: what of it still ran ends in error. */
  flowStopped(flowId: string, reason: string): void {
    for (const execution of [...this.open]) if (execution.flowId === flowId) this.end(execution, reason);
    this.sampling.delete(flowId);
  }

  /** Open executions older than longRunningMs are stored as `running` (kept ones only). */
  announceLongRunning(): void {
    const cutoff = performance.now() - this.longRunningMs;
    for (const execution of this.open) {
      if (execution.t0 > cutoff) break;
      if (execution.announced || !execution.sampled) continue;
      execution.announced = true;
      this.options.sink.running(execution);
    }
  }
}
