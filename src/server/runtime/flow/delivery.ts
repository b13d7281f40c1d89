import type { Message } from "../types";
import type { TrackedExecution } from "../executions/tracker";
import { approxMessageBytes } from "../work-limits";
import { DEFAULT_HIGH_WATER_BYTES, DEFAULT_HIGH_WATER_MARK, DEFAULT_MAX_HOPS, DEFAULT_MAX_QUEUED_BYTES_PER_FLOW, DEFAULT_MAX_QUEUED_PER_FLOW, type EngineOptions } from "./common";
import type { Flow } from "./flow";
import type { NodeHost } from "./node-host";

/** One delivery waiting in the queue. */
export interface QueueItem {
  flow: Flow;
  generation: number;
  target: string;
  msg: Message;
  /** The flow a link message came from, which counts it as waiting until it is delivered. */
  from?: Flow;
  /** The execution the message belongs to (absent: it starts one where it is delivered). */
  exec?: TrackedExecution;
  /** The message's estimated size, counted in the flow's load while it waits. */
  bytes: number;
}

/**
 * A queue item as enqueue makes it: by a constructor, not an object literal, so V8 never decides to
 * allocate every item in the old generation (see executions/tracker.ts, emptyArray).
 */
class Delivery implements QueueItem {
  constructor(
    readonly flow: Flow,
    readonly generation: number,
    readonly target: string,
    readonly msg: Message,
    readonly from: Flow | undefined,
    readonly exec: TrackedExecution | undefined,
    readonly bytes: number,
  ) {}
}

/** What waits in one flow: its queued deliveries and unsettled inputs (backpressure), held deliveries (durability), the runaway episode. */
export class FlowLoad {
  /** Deliveries of this flow waiting in the queue. */
  queued = 0;
  /** Asynchronous inputs delivered and not yet settled (a function node's call in its sandbox), and messages sent elsewhere (links) not yet delivered. */
  inFlight = 0;
  /** Estimated bytes of the messages queued and of the asynchronous inputs not yet settled. */
  bytes = 0;
  /** Over the high-water mark, and not yet back under the low one. */
  busy = false;
  /**
   * A runaway was reported and the flow has not yet been idle since (one report per episode). While
   * it lasts, nothing the flow's nodes send is admitted: what waits drains and the loop dies out,
   * instead of churning at the bound (work-limits.ts: the looping flow).
   */
  runawayReported = false;
  /** When the episode began (performance.now()): past RUNAWAY_EPISODE_MAX_MS, an empty queue ends it even with inputs in flight. */
  runawaySince = 0;
  /**
   * Asynchronous inputs (counted in inFlight) that wait in whenReady to send what they made: they
   * weigh on nothing while they wait, since it is the flow's readiness they wait for. Counted, they
   * would hold the flow busy that they wait on (an http-request's responses under a low mark).
   */
  parked = 0;
  /** Waiting for the flow to be ready again (whenReady). */
  readonly readyWaiters = new Set<() => void>();
  /** Deliveries held until the context writes made before them are stored (durability), in order. */
  held: Array<{ seq: number; item: QueueItem }> = [];
  heldWaiting = false;
  /**
   * Inputs of in-turn nodes (NodeRoles.inTurn: a function node whose code can reach the context;
   * NodeRoles.jsonataTurn: a change or switch node whose JSONata reads or writes it) delivered and
   * not yet through their synchronous part (the promise their input returned has not settled).
   */
  turns = 0;
  /** The sandbox group (the flow context store) of the turns under way; MIXED_GROUPS when they are of several. */
  turnGroup: unknown = undefined;
  /**
   * The flow's deliveries that came up while a turn was under way, in order, from turnHead on:
   * delivered once the turns end, ahead of what came after them, and taken from here in place (a
   * new turn leaves the rest where it is).
   */
  turnHeld: Array<QueueItem | undefined> = [];
  turnHead = 0;
  /** Listed in DeliveryQueue.resumedFlows: its turns ended and its held deliveries go next. */
  resumable = false;
}

// Delivery is asynchronous, as in Node-RED, but batched: messages queue and are drained in one
// setImmediate turn (bounded per turn), so a hop costs an array push, not a timer.
const DRAIN_BATCH = 2000;
/** A runaway episode ends with an empty queue after this long even while inputs are still in flight (a link-call waiting for its answer). */
const RUNAWAY_EPISODE_MAX_MS = 5000;
/** FlowLoad.turnGroup of turns in several sandbox groups (a subflow instance's context is a group of its own). */
const MIXED_GROUPS = Symbol("mixed sandbox groups");

/**
 * The engine's one delivery queue and scheduler, shared by every flow: deliveries in order, drained
 * in batches; backpressure per flow (high- and low-water marks, whenReady); the runaway guards (hops
 * per message, queued per flow); and the durability gate (a delivery waits for the context writes
 * made before it). It knows flows only by their load and their nodes by id.
 */
export class DeliveryQueue {
  private queue: Array<QueueItem | undefined> = [];
  private queueHead = 0;
  /** Flows whose turns ended with deliveries held (FlowLoad.turnHeld): drained before the queue, which holds only later ones. */
  private resumedFlows: Flow[] = [];
  private draining = false;
  private readonly highWater: number;
  private readonly lowWater: number;
  private readonly maxHops: number;
  private readonly maxQueued: number;
  private readonly highBytes: number;
  private readonly maxBytes: number;
  /** Messages handed to a node's input since the engine started (GET /metrics). */
  delivered = 0;
  /**
   * Hops per message object: how many nodes the message (or the one it was made from) passed
   * through on its way here. Kept by object, not by _msgid: Node-RED's function node gives all the
   * messages it sends for one input that input's _msgid, and a thousand of them are not a loop.
   */
  readonly hops = new WeakMap<object, number>();

  constructor(private readonly options: Pick<EngineOptions, "highWaterMark" | "maxHops" | "maxQueuedPerFlow" | "maxQueuedBytesPerFlow" | "highWaterBytes" | "durability" | "fence" | "executions">) {
    this.highWater = Math.max(2, options.highWaterMark ?? DEFAULT_HIGH_WATER_MARK);
    this.lowWater = Math.floor(this.highWater / 2);
    this.maxHops = options.maxHops ?? DEFAULT_MAX_HOPS;
    this.maxQueued = options.maxQueuedPerFlow ?? DEFAULT_MAX_QUEUED_PER_FLOW;
    this.highBytes = options.highWaterBytes ?? DEFAULT_HIGH_WATER_BYTES;
    this.maxBytes = options.maxQueuedBytesPerFlow ?? DEFAULT_MAX_QUEUED_BYTES_PER_FLOW;
  }

  /** Back under both low-water marks (half the high ones): a busy flow is released. */
  private calm(load: FlowLoad): boolean {
    return load.queued + load.inFlight - load.parked <= this.lowWater && load.bytes <= this.highBytes / 2;
  }

  enqueue(flow: Flow, target: string, msg: Message, bytes: number, from?: Flow, exec?: TrackedExecution) {
    const load = flow.load;
    load.bytes += bytes;
    if (++load.queued + load.inFlight - load.parked >= this.highWater || load.bytes >= this.highBytes) load.busy = true;
    if (from) this.hold(from);
    if (exec) exec.pending++;
    const item: QueueItem = new Delivery(flow, flow.generation, target, msg, from, exec, bytes);
    const gate = this.options.durability;
    if (gate) {
      // Held behind the writes this flow's messages may depend on (a link message: its source
      // flow's too), and behind what the flow holds already: its order is kept.
      const own = gate.written(flow.spec);
      const source = from ? gate.written(from.spec) : 0;
      const seq = own > source ? own : source;
      if (load.held.length > 0 || seq > gate.stored()) {
        load.held.push({ seq, item });
        this.waitForStored(flow);
        return;
      }
    }
    this.queue.push(item);
  }

  private waitForStored(flow: Flow): void {
    const gate = this.options.durability;
    const load = flow.load;
    if (!gate || load.heldWaiting || load.held.length === 0) return;
    load.heldWaiting = true;
    gate.whenStored(load.held[load.held.length - 1]!.seq, () => {
      load.heldWaiting = false;
      this.releaseHeld(flow);
    });
  }

  /** Delivers, in order, the flow's held messages whose writes are stored now. */
  private releaseHeld(flow: Flow): void {
    const stored = this.options.durability!.stored();
    const load = flow.load;
    let i = 0;
    while (i < load.held.length && load.held[i]!.seq <= stored) this.queue.push(load.held[i++]!.item);
    if (i > 0) {
      load.held = i === load.held.length ? [] : load.held.slice(i);
      this.scheduleDrain();
    }
    this.waitForStored(flow);
  }

  /** Back under the low-water mark: the flow is ready again, and whoever waited for it runs. */
  private release(flow: Flow) {
    const load = flow.load;
    load.busy = false;
    if (load.readyWaiters.size === 0) return;
    const waiters = [...load.readyWaiters];
    load.readyWaiters.clear();
    for (const fn of waiters) {
      // A waiter may make the flow busy again: the rest wait for the next release.
      if (load.busy || flow.generation < 0) {
        load.readyWaiters.add(fn);
        continue;
      }
      try {
        fn();
      } catch {
        // A waiter's failure is its own (timers report their errors themselves).
      }
    }
  }

  /**
   * Runs fn once the flow is not busy. `parked`: the caller is one of the flow's asynchronous
   * inputs, in flight, waiting to send; while it waits its input does not count (FlowLoad.parked),
   * so inputs that all wait for the flow cannot keep it busy forever.
   */
  whenReady(flow: Flow, fn: () => void, parked = false): () => void {
    const load = flow.load;
    if (!load.busy) {
      let cancelled = false;
      queueMicrotask(() => {
        if (!cancelled && flow.generation >= 0) fn();
      });
      return () => {
        cancelled = true;
      };
    }
    if (!parked) {
      const once = () => fn();
      load.readyWaiters.add(once);
      return () => {
        load.readyWaiters.delete(once);
      };
    }
    const once = () => {
      load.parked--;
      fn();
    };
    load.parked++;
    load.readyWaiters.add(once);
    if (this.calm(load)) this.release(flow);
    return () => {
      if (load.readyWaiters.delete(once)) load.parked--;
    };
  }

  /** A message the flow sent elsewhere (a link) or an input still working weighs on it until settled: backpressure follows links. */
  hold(flow: Flow) {
    const load = flow.load;
    if (load.queued + ++load.inFlight - load.parked >= this.highWater) load.busy = true;
  }

  settled(flow: Flow, bytes = 0) {
    const load = flow.load;
    load.inFlight--;
    load.bytes -= bytes;
    if (load.runawayReported && load.queued === 0 && load.inFlight === 0) load.runawayReported = false;
    if (load.busy && this.calm(load)) this.release(flow);
  }

  /**
   * The runaway guards: a message that has passed through maxHops nodes (a loop), and deliveries
   * past maxQueuedPerFlow waiting in one flow or past maxQueuedBytesPerFlow of their estimated size
   * (a fan-out loop, or a flood; waiting: queued, or in an asynchronous input) are dropped, and
   * reported once per episode as an error of the sending node, instead of burning CPU and memory
   * forever. Admitted: the message's estimated size, counted per delivery.
   */
  admit(flow: Flow, sender: NodeHost, msg: Message, fanOut: number, inputHop: number): number | undefined {
    const load = flow.load;
    const id = String(msg._msgid);
    const hops = Math.max(this.hops.get(msg) ?? 0, inputHop) + 1;
    const bytes = approxMessageBytes(msg);
    // In a runaway episode nothing is admitted (reported once, when it began).
    if (load.runawayReported) return undefined;
    let reason: string | undefined;
    if (hops > this.maxHops) reason = `message ${id} passed through ${this.maxHops} nodes: the flow loops; it was dropped`;
    else if (load.queued + load.inFlight + fanOut > this.maxQueued) reason = `more than ${this.maxQueued} messages are waiting in this flow (a loop or a flood); new messages are dropped`;
    else if (load.bytes + bytes * fanOut > this.maxBytes) reason = `more than ${Math.round(this.maxBytes / 1024 / 1024)} MiB of messages are waiting in this flow (a loop or a flood); new messages are dropped`;
    if (reason) {
      load.runawayReported = true;
      load.runawaySince = performance.now();
      flow.reportNodeError(sender.node.id, new Error(reason));
      return undefined;
    }
    this.hops.set(msg, hops);
    return bytes;
  }

  /** Whether deliveries wait to be drained (the sandbox pool does not spin meanwhile: sandbox/spin.ts). */
  hasWork(): boolean {
    return this.draining || this.queueHead < this.queue.length || this.resumedFlows.length > 0;
  }

  scheduleDrain() {
    if (this.draining) return;
    this.draining = true;
    setImmediate(() => this.drain());
  }

  private drain() {
    let processed = 0;
    while (processed < DRAIN_BATCH) {
      let item: QueueItem | undefined;
      if (this.resumedFlows.length > 0) {
        const flow = this.resumedFlows[0]!;
        item = this.nextHeld(flow);
        if (!item) {
          // Its held deliveries are done, or a new turn holds the rest (its end lists the flow again).
          this.resumedFlows.shift();
          flow.load.resumable = false;
          continue;
        }
      } else if (this.queueHead < this.queue.length) {
        item = this.queue[this.queueHead]!;
        this.queue[this.queueHead++] = undefined;
        const load = item.flow.load;
        if ((load.turns > 0 || load.turnHead < load.turnHeld.length) && this.waitsForTurn(item.flow, item)) {
          processed++;
          continue;
        }
      } else break;
      processed++;
      this.deliverItem(item);
    }
    // An index, not shift(): dequeueing stays O(1) however long the backlog.
    if (this.queueHead >= this.queue.length) {
      this.queue = [];
      this.queueHead = 0;
    } else if (this.queueHead > 50_000) {
      this.queue = this.queue.slice(this.queueHead);
      this.queueHead = 0;
    }
    this.draining = false;
    if (this.queueHead < this.queue.length || this.resumedFlows.length > 0) this.scheduleDrain();
  }

  private deliverItem(item: QueueItem): void {
    const fence = this.options.fence;
    const flow = item.flow;
    const load = flow.load;
    load.queued--;
    // An asynchronous input keeps its bytes counted until it settles (NodeHost.deliver).
    load.bytes -= item.bytes;
    if (load.busy && this.calm(load)) this.release(flow);
    if (flow.generation === item.generation && (!fence || fence(flow.spec.flowId))) {
      const host = flow.nodes.get(item.target);
      if (host?.behaviour.input) {
        this.delivered++;
        host.deliver(item.msg, item.exec, item.bytes);
      } else if (item.exec) this.options.executions!.skipped(item.exec);
    } else if (item.exec) {
      this.options.executions!.skipped(item.exec);
    }
    if (item.from) this.settled(item.from);
    // Idle again (nothing queued, nothing in flight, or the episode is old): a later runaway is a new episode, reported again.
    if (load.runawayReported && load.queued === 0 && (load.inFlight === 0 || performance.now() - load.runawaySince > RUNAWAY_EPISODE_MAX_MS)) load.runawayReported = false;
  }

  /**
   * Node-RED runs a function node's code in the delivering turn: nothing else is handled until it
   * returns; and a JSONata evaluation ends before the next delivery begins. Ours runs the code in the
   * sandbox's worker, and our drain hands out a batch of deliveries before any evaluation's promise
   * goes on, so while one of the flow's turns is under way (FlowLoad.turns: a function node that
   * can reach the context, NodeRoles.inTurn; a change or switch node whose JSONata reads or writes
   * it, NodeRoles.jsonataTurn), its other deliveries wait, in order, and go first once the turns
   * end: what the code sent comes after them, and a branch reads the context the code set, as in
   * Node-RED. A
   * delivery to another in-turn node of the same sandbox group goes on while nothing waits: the
   * group's sandboxes share one worker that runs their calls in order, so function-to-function
   * pipelines keep their pace (pipelines). A delivery of a stopped version passes (it is skipped as
   * usual).
   */
  private waitsForTurn(flow: Flow, item: QueueItem): boolean {
    if (item.generation !== flow.generation) return false;
    const load = flow.load;
    const nothingWaits = load.turnHead >= load.turnHeld.length;
    if (nothingWaits && (load.turns === 0 || this.pipelines(flow, item))) return false;
    load.turnHeld.push(item);
    return true;
  }

  /**
   * A delivery that may go on beside the turns under way: to an in-turn node of the same sandbox
   * group as all of them, whose worker runs it after them (a subflow instance's context is a group
   * of its own, on a worker of its own).
   */
  private pipelines(flow: Flow, item: QueueItem): boolean {
    const host = flow.nodes.get(item.target);
    return host !== undefined && host.turnGroup !== undefined && host.turnGroup === flow.load.turnGroup;
  }

  /** The next held delivery of a flow whose turns ended, unless a new turn holds it (then it stays in place). */
  private nextHeld(flow: Flow): QueueItem | undefined {
    const load = flow.load;
    const held = load.turnHeld;
    if (load.turnHead >= held.length) {
      load.turnHeld = [];
      load.turnHead = 0;
      return undefined;
    }
    const item = held[load.turnHead]!;
    if (load.turns > 0 && item.generation === flow.generation && !this.pipelines(flow, item)) return undefined;
    held[load.turnHead++] = undefined;
    if (load.turnHead > 50_000) {
      load.turnHeld = held.slice(load.turnHead);
      load.turnHead = 0;
    }
    return item;
  }

  /** An in-turn node's input was delivered: a turn of the flow begins, in the node's sandbox group (NodeHost.deliver). */
  turnBegan(flow: Flow, group: unknown): void {
    const load = flow.load;
    if (load.turns++ === 0) load.turnGroup = group;
    else if (load.turnGroup !== group) load.turnGroup = MIXED_GROUPS;
  }

  /** Its synchronous part ended: once no turn is left, the held deliveries go next. */
  turnEnded(flow: Flow): void {
    const load = flow.load;
    if (load.turns === 0) return;
    if (--load.turns === 0) this.resumeHeld(flow);
  }

  /** The flow stopped: no turn is counted, and what waited is let go (to be skipped: the version no longer delivers). */
  turnsStopped(flow: Flow): void {
    flow.load.turns = 0;
    this.resumeHeld(flow);
  }

  private resumeHeld(flow: Flow): void {
    const load = flow.load;
    if (load.turnHead >= load.turnHeld.length || load.resumable) return;
    load.resumable = true;
    this.resumedFlows.push(flow);
    this.scheduleDrain();
  }
}
