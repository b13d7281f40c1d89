import { randomHex } from "../ids";
import type {
  FlowState,
  Message,
  NodeBehaviour,
  NodeContext,
  NodeFactory,
  NodeStatus,
  EngineCallbacks,
  RuntimeNode,
  RuntimeServices,
  SendValue,
  SharedContextStore,
  VariableResolver,
} from "./types";
import { builtinVariables, memoryNodeContext } from "./memory-context";
import { memoryScope } from "./context/context-scope";

export interface FlowSpec {
  flowId: string;
  organizationId: string;
  organizationSlug: string;
  revision: number;
  /** The flow's name (NR_FLOW_NAME); absent in older callers. */
  name?: string;
  nodes: Array<RuntimeNode & { disabled?: boolean }>;
  connections: Array<{ source: string; source_port: number; target: string }>;
}

export interface EngineOptions {
  behaviours: Map<string, NodeFactory>;
  /** Output port count of a node (from its type's definition and config). */
  outputsOf(node: RuntimeNode): number;
  /** What the engine reports as it runs: flow state, node statuses, debug messages, node errors. */
  callbacks: EngineCallbacks;
  services?: RuntimeServices;
  /** How long a closing node may take before the deploy goes on without it. */
  closeTimeoutMs?: number;
  /** Nodes one message may pass through (loops A→A, A→B→A) before it is dropped as a runaway. */
  maxHops?: number;
  /** Deliveries one flow may have queued at once (fan-out loops) before new ones are dropped. */
  maxQueuedPerFlow?: number;
  /**
   * Backpressure: a flow whose waiting messages (queued deliveries plus asynchronous inputs not yet
   * done) reach this mark is busy until they fall to half of it. While busy, the doors that can say
   * so refuse (inject, webhooks, devices), timers wait or skip; maxQueuedPerFlow stays the last
   * resort for a flow that floods without yielding.
   */
  highWaterMark?: number;
  /**
   * While this answers false for a flow, nothing of that flow is sent or delivered: the instance
   * can no longer prove it may run the flow (its cluster lease), e.g. after being paused.
   */
  fence?: (flowId: string) => boolean;
  /**
   * The flow and global context stores of a flow being started (SPEC §13). Absent: in memory, the
   * flow's for as long as it runs, the organization's for as long as this engine lives.
   */
  contextStores?: (spec: FlowSpec) => FlowContextStores | Promise<FlowContextStores>;
  /**
   * The durability rule of SPEC §13: context writes are counted (`written`) and stored behind
   * (`stored`); a message sent while a write of its flow's context or its organization's global
   * context is not yet stored is held, and delivered in order (per flow) once it is (whenStored).
   * Other flows' writes hold nothing. Absent: nothing is held (in-memory context).
   */
  durability?: DurabilityGate;
  /** Variables for a node of a flow being started (SPEC §14). Absent: Node-RED's built-in names only. */
  variables?: (spec: FlowSpec, node: RuntimeNode) => VariableResolver;
}

export interface FlowContextStores {
  flow: SharedContextStore;
  global: SharedContextStore;
  /** Called once the flow's nodes are closed (stop, redeploy): stores what they wrote. */
  close?(): Promise<void>;
}

export interface DurabilityGate {
  /** Sequence number of the last write a message of this flow may depend on (its own scope's, its organization's global scope's). */
  written(scope: { organizationId: string; flowId: string }): number;
  /** Every write up to this sequence number is stored. */
  stored(): number;
  whenStored(seq: number, fn: () => void): void;
}

export const DEFAULT_MAX_HOPS = 10_000;
export const DEFAULT_MAX_QUEUED_PER_FLOW = 50_000;
export const DEFAULT_HIGH_WATER_MARK = 10_000;
/**
 * Text a node reports is cut (with "…") to bound what every listener of the organization receives
 * and what a slow WebSocket reader can make the server hold: a status text, and a warning or error.
 */
export const MAX_STATUS_TEXT = 256;
export const MAX_ERROR_TEXT = 4096;

export function cutText(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
/** What a refused door tells its caller to wait (Retry-After) while a flow is busy. */
export const FLOW_BUSY_RETRY_AFTER_SEC = 1;

interface LiveNode {
  node: RuntimeNode;
  behaviour: NodeBehaviour;
  ctx: NodeContext;
  /** wires[port] = target node ids */
  wires: string[][];
  status: NodeStatus | null;
}

interface RunningFlow {
  spec: FlowSpec;
  nodes: Map<string, LiveNode>;
  state: FlowState;
  error?: string;
  /** Bumped on every (re)start: deliveries queued for an older version are dropped. */
  generation: number;
  /** Deliveries of this flow waiting in the queue. */
  queued: number;
  /** Hops so far per message id (bounded: cleared when it holds maxQueuedPerFlow ids). */
  hops: Map<string, number>;
  /** A runaway was reported and not yet followed by an idle queue (one report per episode). */
  runawayReported: boolean;
  /** Asynchronous inputs delivered and not yet settled (a function node's call in its sandbox). */
  inFlight: number;
  /** Over the high-water mark, and not yet back under the low one. */
  busy: boolean;
  /** Waiting for the flow to be ready again (whenReady). */
  readyWaiters: Set<() => void>;
  contextStores?: FlowContextStores;
  /** Deliveries held until the context writes made before them are stored (durability), in order. */
  held: Array<{ seq: number; item: QueueItem }>;
  heldWaiting: boolean;
}

interface QueueItem {
  flow: RunningFlow;
  generation: number;
  target: string;
  msg: Message;
}

export function newMessageId(): string {
  return randomHex(8);
}

// Delivery is asynchronous, as in Node-RED, but batched: messages queue and are drained in one
// setImmediate turn (bounded per turn), so a hop costs an array push, not a timer.
const DRAIN_BATCH = 2000;

function cloneMessage(msg: Message): Message {
  return structuredClone(msg);
}

/**
 * Runs the deployed flows of every organization on this instance: one instance of the engine,
 * no module-level state. A deploy swaps a flow under a per-flow lock (old nodes closed, with a
 * timeout, before new ones start). A node that throws is marked in error and reported; it never
 * takes down the process or another flow.
 */
export class FlowEngine {
  private readonly flows = new Map<string, RunningFlow>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private queue: Array<QueueItem | undefined> = [];
  private queueHead = 0;
  private draining = false;
  private generationCounter = 0;
  private closed = false;
  private readonly highWater: number;
  private readonly lowWater: number;
  /** Messages handed to a node's input since the engine started (GET /metrics). */
  private delivered = 0;
  /** In-memory global context per organization, when no contextStores option is given. */
  private readonly memoryGlobals = new Map<string, SharedContextStore>();

  constructor(private readonly options: EngineOptions) {
    this.highWater = Math.max(2, options.highWaterMark ?? DEFAULT_HIGH_WATER_MARK);
    this.lowWater = Math.floor(this.highWater / 2);
  }

  /** Runs `fn` after every earlier operation on the same flow has finished. */
  private withLock<T>(flowId: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(flowId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(fn);
    this.locks.set(flowId, next);
    void next.finally(() => {
      if (this.locks.get(flowId) === next) this.locks.delete(flowId);
    }).catch(() => undefined);
    return next;
  }

  state(flowId: string): FlowState {
    return this.flows.get(flowId)?.state ?? "stopped";
  }

  /** Why the flow is in error, if it is. */
  errorOf(flowId: string): string | undefined {
    return this.flows.get(flowId)?.error;
  }

  isRunning(flowId: string): boolean {
    return this.flows.get(flowId)?.state === "running";
  }

  /** Whether the flow is over its high-water mark (its doors refuse new messages for now). */
  isBusy(flowId: string): boolean {
    return this.flows.get(flowId)?.busy ?? false;
  }

  /** Messages waiting in the flow: queued deliveries plus asynchronous inputs not yet done. */
  load(flowId: string): number {
    const flow = this.flows.get(flowId);
    return flow ? flow.queued + flow.inFlight : 0;
  }

  /** For GET /metrics: flows in the running state here, and messages delivered to nodes so far. */
  stats(): { runningFlows: number; messagesDelivered: number } {
    let runningFlows = 0;
    for (const flow of this.flows.values()) if (flow.state === "running") runningFlows++;
    return { runningFlows, messagesDelivered: this.delivered };
  }

  runningFlowIds(): string[] {
    return [...this.flows.keys()];
  }

  /** The flows of one organization that run here. */
  flowIdsOf(organizationId: string): string[] {
    return [...this.flows.values()].filter((f) => f.spec.organizationId === organizationId).map((f) => f.spec.flowId);
  }

  nodeStatuses(flowId: string): Map<string, NodeStatus | null> {
    const flow = this.flows.get(flowId);
    return new Map([...(flow?.nodes.values() ?? [])].map((n) => [n.node.id, n.status]));
  }

  /** Replaces whatever runs for the flow with this version; resolves once it runs. */
  deploy(spec: FlowSpec): Promise<FlowState> {
    if (this.closed) return Promise.reject(new Error("runtime is shut down"));
    return this.withLock(spec.flowId, async () => {
      await this.stopUnlocked(spec.flowId, new Set(spec.nodes.map((n) => n.id)));
      return this.startUnlocked(spec);
    });
  }

  stop(flowId: string): Promise<void> {
    return this.withLock(flowId, () => this.stopUnlocked(flowId, new Set()));
  }

  /** Sends a message out of an inject node of a running flow; resolves to its id. */
  inject(flowId: string, nodeId: string, overrides: { payload?: unknown; topic?: string }): string {
    const flow = this.flows.get(flowId);
    const live = flow?.nodes.get(nodeId);
    if (!flow || flow.state !== "running" || !live) throw new Error("flow is not running");
    const trigger = (live.behaviour as NodeBehaviour & { trigger?: (o: typeof overrides) => string }).trigger;
    if (!trigger) throw new Error("not an inject node");
    return trigger(overrides);
  }

  /** Delivers a message into a node's input of a running flow, as a wire would (test harnesses). */
  receive(flowId: string, nodeId: string, msg: Message): void {
    const flow = this.flows.get(flowId);
    if (!flow || !flow.nodes.has(nodeId)) throw new Error("no such running node");
    this.enqueue(flow, nodeId, msg);
    this.scheduleDrain();
  }

  private enqueue(flow: RunningFlow, target: string, msg: Message) {
    if (++flow.queued + flow.inFlight >= this.highWater) flow.busy = true;
    const item: QueueItem = { flow, generation: flow.generation, target, msg };
    const gate = this.options.durability;
    if (gate) {
      // Held behind the writes this flow's messages may depend on (and behind what the flow holds
      // already: its order is kept).
      const seq = gate.written(flow.spec);
      if (flow.held.length > 0 || seq > gate.stored()) {
        flow.held.push({ seq, item });
        this.waitForStored(flow);
        return;
      }
    }
    this.queue.push(item);
  }

  private waitForStored(flow: RunningFlow): void {
    const gate = this.options.durability;
    if (!gate || flow.heldWaiting || flow.held.length === 0) return;
    flow.heldWaiting = true;
    gate.whenStored(flow.held[flow.held.length - 1]!.seq, () => {
      flow.heldWaiting = false;
      this.releaseHeld(flow);
    });
  }

  /** Delivers, in order, the flow's held messages whose writes are stored now. */
  private releaseHeld(flow: RunningFlow): void {
    const stored = this.options.durability!.stored();
    let i = 0;
    while (i < flow.held.length && flow.held[i]!.seq <= stored) this.queue.push(flow.held[i++]!.item);
    if (i > 0) {
      flow.held = i === flow.held.length ? [] : flow.held.slice(i);
      this.scheduleDrain();
    }
    this.waitForStored(flow);
  }

  /** Back under the low-water mark: the flow is ready again, and whoever waited for it runs. */
  private release(flow: RunningFlow) {
    flow.busy = false;
    if (flow.readyWaiters.size === 0) return;
    const waiters = [...flow.readyWaiters];
    flow.readyWaiters.clear();
    for (const fn of waiters) {
      // A waiter may make the flow busy again: the rest wait for the next release.
      if (flow.busy || flow.generation < 0) {
        flow.readyWaiters.add(fn);
        continue;
      }
      try {
        fn();
      } catch {
        // A waiter's failure is its own (timers report their errors themselves).
      }
    }
  }

  private whenReady(flow: RunningFlow, fn: () => void): () => void {
    if (!flow.busy) {
      let cancelled = false;
      queueMicrotask(() => {
        if (!cancelled && flow.generation >= 0) fn();
      });
      return () => {
        cancelled = true;
      };
    }
    const once = () => fn();
    flow.readyWaiters.add(once);
    return () => {
      flow.readyWaiters.delete(once);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.flows.keys()].map((id) => this.stop(id)));
  }

  private async startUnlocked(spec: FlowSpec): Promise<FlowState> {
    const generation = ++this.generationCounter;
    const flow: RunningFlow = {
      spec,
      nodes: new Map(),
      state: "running",
      generation,
      queued: 0,
      hops: new Map(),
      runawayReported: false,
      inFlight: 0,
      busy: false,
      readyWaiters: new Set(),
      held: [],
      heldWaiting: false,
    };
    const flowContext = new Map<string, unknown>();
    let stores: FlowContextStores;
    try {
      stores = await this.contextStoresFor(spec);
    } catch (err) {
      const error = `context could not be loaded: ${errorText(err)}`;
      flow.state = "error";
      flow.error = error;
      this.flows.set(spec.flowId, flow);
      this.options.callbacks.onFlowState({ organizationId: spec.organizationId, flowId: spec.flowId, state: "error", error });
      return "error";
    }
    flow.contextStores = stores;
    const wires = new Map<string, string[][]>();
    for (const c of spec.connections) {
      const ports = wires.get(c.source) ?? [];
      (ports[c.source_port] ??= []).push(c.target);
      wires.set(c.source, ports);
    }
    this.flows.set(spec.flowId, flow);
    const failures: string[] = [];
    for (const node of spec.nodes) {
      if (node.disabled) continue;
      const factory = this.options.behaviours.get(node.type);
      if (!factory) continue;
      const live: LiveNode = { node, behaviour: {}, ctx: undefined as unknown as NodeContext, wires: wires.get(node.id) ?? [], status: null };
      live.ctx = this.contextFor(flow, live, flowContext, stores);
      try {
        live.behaviour = await factory(live.ctx);
        flow.nodes.set(node.id, live);
      } catch (err) {
        failures.push(`${node.id}: ${errorText(err)}`);
        this.reportNodeError(flow, node.id, err);
      }
    }
    if (failures.length > 0) {
      flow.state = "error";
      flow.error = failures.join("; ");
      this.options.callbacks.onFlowState({ organizationId: spec.organizationId, flowId: spec.flowId, state: "error", error: failures.join("; ") });
      return "error";
    }
    for (const live of flow.nodes.values()) {
      try {
        await live.behaviour.start?.();
      } catch (err) {
        this.reportNodeError(flow, live.node.id, err);
      }
    }
    this.options.callbacks.onFlowState({ organizationId: spec.organizationId, flowId: spec.flowId, state: "running" });
    return "running";
  }

  private async stopUnlocked(flowId: string, keptNodeIds: Set<string>): Promise<void> {
    const flow = this.flows.get(flowId);
    if (!flow) return;
    this.flows.delete(flowId);
    flow.generation = -1;
    flow.readyWaiters.clear();
    const timeout = this.options.closeTimeoutMs ?? 5000;
    await Promise.all(
      [...flow.nodes.values()].map(async (live) => {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            Promise.resolve(live.behaviour.close?.(!keptNodeIds.has(live.node.id))),
            new Promise((resolve) => {
              timer = setTimeout(resolve, timeout);
            }),
          ]);
        } catch (err) {
          this.reportNodeError(flow, live.node.id, err);
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    try {
      await flow.contextStores?.close?.();
    } catch (err) {
      this.reportNodeError(flow, flow.spec.nodes[0]?.id ?? flowId, new Error(`context could not be stored: ${errorText(err)}`));
    }
    this.options.callbacks.onFlowState({ organizationId: flow.spec.organizationId, flowId, state: "stopped" });
  }

  private async contextStoresFor(spec: FlowSpec): Promise<FlowContextStores> {
    if (this.options.contextStores) return this.options.contextStores(spec);
    let global = this.memoryGlobals.get(spec.organizationId);
    if (!global) this.memoryGlobals.set(spec.organizationId, (global = memoryScope(spec.organizationId, "global")));
    return { flow: memoryScope(spec.organizationId, spec.flowId), global };
  }

  private contextFor(
    flow: RunningFlow,
    live: LiveNode,
    flowContext: Map<string, unknown>,
    stores: FlowContextStores,
  ): NodeContext {
    const { spec } = flow;
    const env =
      this.options.variables?.(spec, live.node) ??
      builtinVariables({ NR_NODE_ID: live.node.id, NR_NODE_NAME: live.node.name, NR_FLOW_ID: spec.flowId, NR_FLOW_NAME: spec.name ?? "" });
    return {
      context: { node: memoryNodeContext(), flow: stores.flow, global: stores.global },
      env,
      node: live.node,
      flowId: spec.flowId,
      organizationId: spec.organizationId,
      organizationSlug: spec.organizationSlug,
      outputs: this.options.outputsOf(live.node),
      send: (value) => this.route(flow, live, value),
      status: (reported) => {
        const status = reported === null ? null : { fill: reported.fill, shape: reported.shape, text: cutText(String(reported.text ?? ""), MAX_STATUS_TEXT) };
        live.status = status;
        this.options.callbacks.onNodeStatus({ organizationId: spec.organizationId, flowId: spec.flowId, nodeId: live.node.id, status });
      },
      log: {
        warn: (message) => this.options.callbacks.onNodeError({ organizationId: spec.organizationId, flowId: spec.flowId, nodeId: live.node.id, error: cutText(message, MAX_ERROR_TEXT) }),
        error: (err) => this.reportNodeError(flow, live.node.id, err),
      },
      debug: (data) =>
        this.options.callbacks.onDebug({ organizationId: spec.organizationId, flowId: spec.flowId, nodeId: live.node.id, name: live.node.name, ...data }),
      flowContext,
      busy: () => flow.busy,
      waiting: () => flow.queued + flow.inFlight,
      whenReady: (fn) => this.whenReady(flow, fn),
      newMessageId,
      services: this.options.services ?? {},
    };
  }

  /** Puts a node's output on its wires: the first target gets the message, the others clones. */
  private route(flow: RunningFlow, live: LiveNode, value: SendValue): void {
    if (flow.generation < 0 || value === null || value === undefined) return;
    if (this.options.fence && !this.options.fence(flow.spec.flowId)) return;
    const perPort: Array<Message | Message[] | null | undefined> = Array.isArray(value) ? value : [value];
    perPort.forEach((portValue, port) => {
      if (portValue === null || portValue === undefined) return;
      const targets = live.wires[port];
      if (!targets || targets.length === 0) return;
      const messages = Array.isArray(portValue) ? portValue : [portValue];
      for (const msg of messages) {
        if (msg === null || typeof msg !== "object") continue;
        msg._msgid ??= newMessageId();
        if (!this.admit(flow, live, msg, targets.length)) continue;
        targets.forEach((target, i) => {
          this.enqueue(flow, target, i === 0 ? msg : cloneMessage(msg));
        });
      }
    });
    this.scheduleDrain();
  }

  /**
   * The runaway guards: a message that has passed through maxHops nodes (a loop) and deliveries
   * past maxQueuedPerFlow for one flow (a fan-out loop, or a flood) are dropped, and reported once
   * per episode as an error of the sending node, instead of burning CPU and memory forever.
   */
  private admit(flow: RunningFlow, live: LiveNode, msg: Message, fanOut: number): boolean {
    const maxHops = this.options.maxHops ?? DEFAULT_MAX_HOPS;
    const maxQueued = this.options.maxQueuedPerFlow ?? DEFAULT_MAX_QUEUED_PER_FLOW;
    const id = String(msg._msgid);
    const hops = (flow.hops.get(id) ?? 0) + 1;
    let reason: string | undefined;
    if (hops > maxHops) reason = `message ${id} passed through ${maxHops} nodes: the flow loops; it was dropped`;
    else if (flow.queued + fanOut > maxQueued) reason = `more than ${maxQueued} messages are waiting in this flow (a loop or a flood); new messages are dropped`;
    if (reason) {
      if (!flow.runawayReported) {
        flow.runawayReported = true;
        this.reportNodeError(flow, live.node.id, new Error(reason));
      }
      return false;
    }
    if (flow.hops.size >= maxQueued) flow.hops.clear();
    flow.hops.set(id, hops);
    return true;
  }

  private scheduleDrain() {
    if (this.draining) return;
    this.draining = true;
    setImmediate(() => this.drain());
  }

  private drain() {
    let processed = 0;
    while (this.queueHead < this.queue.length && processed < DRAIN_BATCH) {
      const item = this.queue[this.queueHead]!;
      this.queue[this.queueHead++] = undefined;
      processed++;
      const flow = item.flow;
      flow.queued--;
      if (flow.busy && flow.queued + flow.inFlight <= this.lowWater) this.release(flow);
      if (item.flow.generation === item.generation && (!this.options.fence || this.options.fence(item.flow.spec.flowId))) {
        const live = item.flow.nodes.get(item.target);
        if (live?.behaviour.input) this.deliver(item.flow, live, item.msg);
      }
      // Idle again: a later runaway is a new episode, reported again.
      if (item.flow.queued === 0) item.flow.runawayReported = false;
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
    if (this.queueHead < this.queue.length) this.scheduleDrain();
  }

  private deliver(flow: RunningFlow, live: LiveNode, msg: Message) {
    // Made by functions that return them unnamed: closures declared here by name would each get a
    // name-setting wrapper from the TypeScript loader on every message.
    this.delivered++;
    const send = this.sendFor(flow, live);
    const done = this.doneFor(flow, live, msg);
    try {
      const result = live.behaviour.input!(msg, send, done);
      if (result && typeof (result as Promise<void>).then === "function") {
        // Counted until it settles: a node that works asynchronously (a function node's sandbox)
        // holds its messages outside the queue, and they weigh on the flow all the same.
        flow.inFlight++;
        (result as Promise<void>).then(
          () => {
            this.settled(flow);
            done();
          },
          (err: unknown) => {
            this.settled(flow);
            done(err);
          },
        );
      }
    } catch (err) {
      done(err);
    }
  }

  private settled(flow: RunningFlow) {
    flow.inFlight--;
    if (flow.busy && flow.queued + flow.inFlight <= this.lowWater) this.release(flow);
  }

  private sendFor(flow: RunningFlow, live: LiveNode): (value: SendValue) => void {
    return (value) => this.route(flow, live, value);
  }

  /** The node's `done`: the first call counts; with an error, the error is reported and caught. */
  private doneFor(flow: RunningFlow, live: LiveNode, msg: Message): (err?: unknown) => void {
    let finished = false;
    return (err) => {
      if (finished) return;
      finished = true;
      if (err) {
        this.reportNodeError(flow, live.node.id, err);
        this.routeToCatch(flow, live.node, msg, err);
      }
    };
  }

  /**
   * Node-RED's catch semantics: the failed message, with msg.error = {message, source}, leaves every
   * catch node of the flow whose scope covers the failing node. A catch node's own failures are not
   * caught again (no loops).
   */
  private routeToCatch(flow: RunningFlow, source: RuntimeNode, msg: Message, err: unknown) {
    if (source.type === "catch") return;
    for (const live of flow.nodes.values()) {
      if (live.node.type !== "catch") continue;
      const scope = (live.node.config as { scope?: string[] | null }).scope;
      if (scope && !scope.includes(source.id)) continue;
      let copy: Message;
      try {
        copy = cloneMessage(msg);
      } catch {
        copy = { _msgid: msg._msgid, payload: msg.payload };
      }
      copy.error = { message: errorText(err), source: { id: source.id, type: source.type, name: source.name } };
      this.route(flow, live, copy);
    }
  }

  private reportNodeError(flow: RunningFlow, nodeId: string, err: unknown) {
    const error = cutText(errorText(err), MAX_ERROR_TEXT);
    const live = flow.nodes.get(nodeId);
    const status: NodeStatus = { fill: "red", shape: "ring", text: error.slice(0, 120) };
    if (live) live.status = status;
    this.options.callbacks.onNodeError({ organizationId: flow.spec.organizationId, flowId: flow.spec.flowId, nodeId, error });
    this.options.callbacks.onNodeStatus({ organizationId: flow.spec.organizationId, flowId: flow.spec.flowId, nodeId, status });
  }
}

function errorText(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === "string" ? err : JSON.stringify(err);
}
