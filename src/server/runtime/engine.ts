import { randomHex } from "../ids";
import type { SubflowSnapshot } from "../../shared/subflows";
import { DONE_LATER } from "./types";
import type {
  FlowState,
  LinkPort,
  Message,
  NodeBehaviour,
  NodeContext,
  NodeFactory,
  NodeRoles,
  NodeStatus,
  EngineCallbacks,
  RuntimeNode,
  RuntimeNodeType,
  RuntimeServices,
  SendValue,
  SharedContextStore,
  VariableResolver,
} from "./types";
import { builtinVariables, memoryNodeContext } from "./memory-context";
import { memoryScope } from "./context/context-scope";
import type { ExecutionTracker, TrackedExecution, TrackedStep } from "./executions/tracker";
import type { ConfigNodeSnapshot } from "../../shared/config-nodes";
import {
  evaluateSubflowEnv,
  expandSubflows,
  statusFromMessage,
  SubflowContextScope,
  subflowVariables,
  type ExpandOptions,
  type ExpandedNode,
  type SubflowScope,
} from "./subflows";

export interface FlowSpec {
  flowId: string;
  organizationId: string;
  organizationSlug: string;
  revision: number;
  /** The deployment this version comes from (executions name it). */
  deploymentId?: string;
  /** The flow's name (NR_FLOW_NAME); absent in older callers. */
  name?: string;
  nodes: Array<RuntimeNode & { disabled?: boolean }>;
  connections: Array<{ source: string; source_port: number; target: string }>;
  /** The subflow definitions the flow's `subflow:<id>` instances use, transitively (from the deployment snapshot). */
  subflows?: Record<string, SubflowSnapshot>;
  /** The configuration nodes the flow uses, transitively, keyed by id (from the deployment snapshot, SPEC §19). */
  configNodes?: Record<string, ConfigNodeSnapshot>;
}

export interface EngineOptions {
  /**
   * The node types it runs (nodes/registry.ts: NodeRegistry.runtimeTypes()): behaviour, config
   * parser, ports, roles. A node of a type not here does not run.
   */
  types: ReadonlyMap<string, RuntimeNodeType>;
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
  /**
   * Link targets this engine does not run (flows of the organization that run on another instance,
   * or not at all). Absent: links reach only the flows running here.
   */
  links?: LinkRelay;
  /** Executions (SPEC §15, runtime/executions/tracker.ts): where every message goes. Absent: nothing is recorded. */
  executions?: ExecutionTracker;
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

/** A link delivery this engine could not make itself, for the flow runtime to make where the target runs. */
export interface LinkDelivery {
  organizationId: string;
  fromFlowId: string;
  /** A link-in id, or (byName) a link-in's name, as link-call's dynamic mode. */
  target: string;
  byName: boolean;
  msg: Message;
  /** Hops the message has made so far (the runaway guard follows it across flows). */
  hops: number;
}

export type LinkDeliveryResult = "delivered" | "not_running" | "not_found" | "ambiguous";

export interface LinkRelay {
  deliver(delivery: LinkDelivery): Promise<LinkDeliveryResult>;
  /** A link-out "return" for a link-call that does not run here: true once it was handed to it. */
  reply(reply: { organizationId: string; nodeId: string; eventId: string; msg: Message; hops: number }): Promise<boolean>;
}

/** Node-RED's link-call errors (60-link.js), word for word: catch nodes and tests match on them. */
export const linkNotFound = (target: string) => new Error(`target link-in node '${target}' not found`);
export const linkAmbiguous = (target: string) => new Error(`Multiple link-in nodes named '${target}' found`);

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
  /** The subflow instance the node runs in (null: the flow), and its part in it (runtime/subflows.ts). */
  sub: ExpandedNode;
  /** What its type declares to the engine (catch, status, complete, link target, link call, trigger). */
  roles: NodeRoles;
  /** A catch or status node's scope (null: all), read from its role as the flow starts. */
  scope?: string[] | null;
  /** A catch node's "uncaught only". */
  uncaught?: boolean;
}

/** The catch and status nodes of one subflow instance. */
interface ScopeIndex {
  catchNodes: LiveNode[];
  statusNodes: LiveNode[];
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
  /** Catch nodes in Node-RED's order: scoped ones first, then "all", then "uncaught only". */
  catchNodes: LiveNode[];
  statusNodes: LiveNode[];
  /** Complete nodes per node id in their scope. */
  completeNodes: Map<string, LiveNode[]>;
  /** Catch and status nodes inside subflow instances, per instance (the flow's own are above). */
  scopes: Map<SubflowScope, ScopeIndex>;
  /** Whether any status node runs in the flow or its instances (statuses are routed only then). */
  watchesStatus: boolean;
}

interface QueueItem {
  flow: RunningFlow;
  generation: number;
  target: string;
  msg: Message;
  /** The flow a link message came from, which counts it as waiting until it is delivered. */
  from?: RunningFlow;
  /** The execution the message belongs to (absent: it starts one where it is delivered). */
  exec?: TrackedExecution;
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
  /**
   * Hops per message object: how many nodes the message (or the one it was made from) passed
   * through on its way here. Kept by object, not by _msgid: Node-RED's function node gives all the
   * messages it sends for one input that input's _msgid, and a thousand of them are not a loop.
   */
  private readonly hopsByMsg = new WeakMap<object, number>();
  /** Running link-in and link-call nodes per organization, by node id (node ids are unique in an organization). */
  private readonly linkNodes = new Map<string, Map<string, { flow: RunningFlow; live: LiveNode }>>();

  /** Scoped types (catch, status, complete roles): their scopes inside a subflow instance name only its own nodes. */
  private readonly expandOptions: ExpandOptions;

  constructor(private readonly options: EngineOptions) {
    this.expandOptions = {
      scoped: (type) => {
        const roles = options.types.get(type)?.roles;
        return Boolean(roles && (roles.catch || roles.status || roles.complete));
      },
    };
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

  /** The organization of a flow that runs here. */
  organizationOf(flowId: string): string | undefined {
    return this.flows.get(flowId)?.spec.organizationId;
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
      await this.stopUnlocked(spec.flowId, keptNodeIds(spec, this.expandOptions));
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
    if (!live.roles.trigger || !live.behaviour.trigger) throw new Error("not an inject node");
    return live.behaviour.trigger(overrides);
  }

  /**
   * Replay (SPEC §15): sends `msg` again out of `nodeId`'s outputs in the running flow, as a new
   * execution that names the one it replays; resolves to its id. Throws when the flow does not run
   * here, the node is not part of its running version, or executions are not recorded.
   */
  replay(flowId: string, nodeId: string, msg: Message, replayOf: string): string {
    const tracker = this.options.executions;
    if (!tracker) throw new Error("executions are not recorded");
    const flow = this.flows.get(flowId);
    if (!flow || flow.state !== "running") throw new Error("flow is not running");
    const live = flow.nodes.get(nodeId);
    if (!live) throw new Error("no such running node");
    msg._msgid = newMessageId();
    const exec = tracker.begin(flow.spec, nodeId, msg, { sent: true, replayOf });
    this.route(flow, live, msg, 0, exec, exec.steps[0]);
    tracker.settle(exec);
    return exec.id;
  }

  /** Delivers a message into a node's input of a running flow, as a wire would (test harnesses). */
  receive(flowId: string, nodeId: string, msg: Message): void {
    const flow = this.flows.get(flowId);
    if (!flow || !flow.nodes.has(nodeId)) throw new Error("no such running node");
    this.enqueue(flow, nodeId, msg);
    this.scheduleDrain();
  }

  private enqueue(flow: RunningFlow, target: string, msg: Message, from?: RunningFlow, exec?: TrackedExecution) {
    if (++flow.queued + flow.inFlight >= this.highWater) flow.busy = true;
    if (from) this.hold(from);
    if (exec) exec.pending++;
    const item: QueueItem = { flow, generation: flow.generation, target, msg, from, exec };
    const gate = this.options.durability;
    if (gate) {
      // Held behind the writes this flow's messages may depend on (a link message: its source
      // flow's too), and behind what the flow holds already: its order is kept.
      const own = gate.written(flow.spec);
      const source = from ? gate.written(from.spec) : 0;
      const seq = own > source ? own : source;
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
      runawayReported: false,
      inFlight: 0,
      busy: false,
      readyWaiters: new Set(),
      held: [],
      heldWaiting: false,
      catchNodes: [],
      statusNodes: [],
      completeNodes: new Map(),
      scopes: new Map(),
      watchesStatus: false,
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
    let expanded: ReturnType<typeof expandSubflows>;
    try {
      expanded = expandSubflows(spec, this.expandOptions);
    } catch (err) {
      const error = errorText(err);
      flow.state = "error";
      flow.error = error;
      this.flows.set(spec.flowId, flow);
      this.options.callbacks.onFlowState({ organizationId: spec.organizationId, flowId: spec.flowId, state: "error", error });
      return "error";
    }
    // Each instance's flow context is its own (Node-RED's), `$parent.` reaching the level above; its
    // env properties are evaluated once, as it starts, parents first.
    const scopeStores = new Map<SubflowScope, SharedContextStore>();
    for (const scope of expanded.scopes) {
      const parent = scope.parent ? scopeStores.get(scope.parent)! : stores.flow;
      const own = new SubflowContextScope(spec.organizationId, `${spec.flowId}/${scope.instanceIds.join("/")}`, parent);
      scopeStores.set(scope, own);
      flow.scopes.set(scope, { catchNodes: [], statusNodes: [] });
      const base = this.variablesFor(spec, scope.instance);
      await evaluateSubflowEnv(scope, (name) => base.get(name), { flow: own, global: stores.global }, (message) =>
        this.options.callbacks.onNodeError({ organizationId: spec.organizationId, flowId: spec.flowId, nodeId: scope.instance.id, error: cutText(message, MAX_ERROR_TEXT) }),
      );
    }
    const wires = new Map<string, string[][]>();
    for (const c of expanded.connections) {
      const ports = wires.get(c.source) ?? [];
      (ports[c.source_port] ??= []).push(c.target);
      wires.set(c.source, ports);
    }
    this.flows.set(spec.flowId, flow);
    const failures: string[] = [];
    // Each node's configuration parsed once, by its type's schema, before any node is made: the
    // complete nodes' scopes are known to every node's context, and behaviours get typed config.
    const parts: Array<{ node: ExpandedNode; factory: NodeFactory; type?: RuntimeNodeType; config: Record<string, unknown> }> = [];
    for (const node of expanded.nodes) {
      if (node.disabled) continue;
      if (node.role) {
        parts.push({ node, factory: this.subflowPart(flow, node), config: node.config });
        continue;
      }
      const type = this.options.types.get(node.type);
      if (!type) continue;
      try {
        parts.push({ node, factory: type.behaviour, type, config: type.parse ? type.parse(node.config) : node.config });
      } catch (err) {
        failures.push(`${node.id}: ${errorText(err)}`);
        this.reportNodeError(flow, node.id, err);
      }
    }
    const watched = new Set<string>();
    for (const p of parts) if (p.type?.roles?.complete) for (const id of p.type.roles.complete(p.config).scope) watched.add(id);
    for (const { node, factory, type, config } of parts) {
      const { scope: _scope, alias: _alias, role: _role, inner: _inner, disabled: _disabled, ...plain } = node;
      const live: LiveNode = {
        node: { ...plain, config },
        behaviour: {},
        ctx: undefined as unknown as NodeContext,
        wires: wires.get(node.id) ?? [],
        status: null,
        sub: node,
        roles: type?.roles ?? {},
      };
      const scoped = node.scope ? { ...stores, flow: scopeStores.get(node.scope)! } : stores;
      live.ctx = this.contextFor(flow, live, flowContext, scoped, watched, type);
      try {
        live.behaviour = await factory(live.ctx, config);
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
    this.indexNodes(flow);
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
    this.unindexNodes(flow);
    flow.generation = -1;
    flow.readyWaiters.clear();
    this.options.executions?.flowStopped(flowId, "the flow stopped while it ran (a deploy, a stop or a hand-over)");
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
    /** Nodes a complete node names in its scope (the function node then reports the msg its code left). */
    watched: ReadonlySet<string>,
    type: RuntimeNodeType | undefined,
  ): NodeContext {
    const { spec } = flow;
    const { scope } = live.sub;
    const base = this.variablesFor(spec, live.node);
    const env = scope ? subflowVariables(scope, live.sub, base) : base;
    const subflow = scope ? { instance_id: scope.instanceIds[0]!, instance_path: scope.instanceIds, node_id: live.sub.alias ?? live.node.id, path: scope.path } : undefined;
    return {
      context: { node: memoryNodeContext(), flow: stores.flow, global: stores.global },
      env,
      node: live.node,
      flowId: spec.flowId,
      organizationId: spec.organizationId,
      organizationSlug: spec.organizationSlug,
      outputs: live.sub.role ? (live.sub.role === "instance" ? 1 : 0) : (type?.outputs(live.node.config) ?? 0),
      watchedByComplete: watched.has(live.node.id),
      send: (value) => this.route(flow, live, value, 0),
      status: (reported) => {
        const status = reported === null ? null : { fill: reported.fill, shape: reported.shape, text: cutText(String(reported.text ?? ""), MAX_STATUS_TEXT) };
        live.status = status;
        this.options.callbacks.onNodeStatus({ organizationId: spec.organizationId, flowId: spec.flowId, nodeId: live.node.id, status });
        if (flow.watchesStatus) this.routeToStatus(flow, live, reported);
      },
      log: {
        warn: (message) => this.options.callbacks.onNodeError({ organizationId: spec.organizationId, flowId: spec.flowId, nodeId: live.node.id, error: cutText(message, MAX_ERROR_TEXT) }),
        error: (err, msg) => {
          this.reportNodeError(flow, live.node.id, err);
          if (msg && typeof msg === "object") this.routeToCatch(flow, live, msg, err);
        },
      },
      debug: (data) =>
        this.options.callbacks.onDebug({
          organizationId: spec.organizationId,
          flowId: spec.flowId,
          nodeId: live.node.id,
          name: live.node.name,
          ...data,
          executionId: this.options.executions?.current?.id,
          ...(subflow ? { subflow } : {}),
        }),
      flowContext,
      busy: () => flow.busy,
      waiting: () => flow.queued + flow.inFlight,
      whenReady: (fn) => this.whenReady(flow, fn),
      newMessageId,
      services: this.options.services ?? {},
      links: this.linkPort(flow),
    };
  }

  /**
   * Puts a node's output on its wires. As Node-RED's Node.send: the first delivery of a message object
   * gets the object itself, every other delivery of it a clone, also when one object is sent on several
   * ports (a switch with "check all rules"), so no two nodes downstream share it.
   * `inputHop`: the hops of the message the node was handling when it sent (0 outside an input).
   */
  private route(flow: RunningFlow, live: LiveNode, value: SendValue, inputHop: number, exec?: TrackedExecution, step?: TrackedStep): void {
    if (flow.generation < 0 || value === null || value === undefined) return;
    if (this.options.fence && !this.options.fence(flow.spec.flowId)) return;
    const tracker = this.options.executions;
    let begun: TrackedExecution[] | undefined;
    const perPort: Array<Message | Message[] | null | undefined> = Array.isArray(value) ? value : [value];
    const delivered = new Set<Message>();
    perPort.forEach((portValue, port) => {
      if (portValue === null || portValue === undefined) return;
      const targets = live.wires[port];
      const messages = Array.isArray(portValue) ? portValue : [portValue];
      for (const msg of messages) {
        if (msg === null || typeof msg !== "object") continue;
        msg._msgid ??= newMessageId();
        // The execution the message continues (see runtime/executions/tracker.ts), or a new one.
        let e = exec;
        let s = step;
        if (tracker) {
          if (!e || e.ended) {
            e = e ? undefined : tracker.execOf(msg);
            s = undefined;
            if (!e) {
              e = tracker.begin(flow.spec, live.node.id, msg, { sent: true });
              (begun ??= []).push(e);
            }
          }
          s ??= tracker.senderStep(e, live.node.id, live.ctx.outputs, msg);
          tracker.sent(s, port);
        }
        if (!targets || targets.length === 0) continue;
        if (!this.admit(flow, live, msg, targets.length, inputHop)) continue;
        for (const target of targets) {
          if (delivered.has(msg)) {
            const copy = cloneMessage(msg);
            this.hopsByMsg.set(copy, this.hopsByMsg.get(msg)!);
            this.enqueue(flow, target, copy, undefined, e);
          } else {
            delivered.add(msg);
            this.enqueue(flow, target, msg, undefined, e);
          }
        }
      }
    });
    if (begun) for (const e of begun) tracker!.settle(e);
    this.scheduleDrain();
  }

  /**
   * The runaway guards: a message that has passed through maxHops nodes (a loop) and deliveries
   * past maxQueuedPerFlow for one flow (a fan-out loop, or a flood) are dropped, and reported once
   * per episode as an error of the sending node, instead of burning CPU and memory forever.
   */
  private admit(flow: RunningFlow, live: LiveNode, msg: Message, fanOut: number, inputHop: number): boolean {
    const maxHops = this.options.maxHops ?? DEFAULT_MAX_HOPS;
    const maxQueued = this.options.maxQueuedPerFlow ?? DEFAULT_MAX_QUEUED_PER_FLOW;
    const id = String(msg._msgid);
    const hops = Math.max(this.hopsByMsg.get(msg) ?? 0, inputHop) + 1;
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
    this.hopsByMsg.set(msg, hops);
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
        if (live?.behaviour.input) this.deliver(item.flow, live, item.msg, item.exec);
        else if (item.exec) this.options.executions!.skipped(item.exec);
      } else if (item.exec) {
        this.options.executions!.skipped(item.exec);
      }
      if (item.from) this.settled(item.from);
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

  private deliver(flow: RunningFlow, live: LiveNode, msg: Message, exec?: TrackedExecution) {
    // Made by functions that return them unnamed: closures declared here by name would each get a
    // name-setting wrapper from the TypeScript loader on every message.
    this.delivered++;
    const tracker = this.options.executions;
    let step: TrackedStep | undefined;
    let outer: TrackedExecution | undefined;
    if (tracker) {
      exec ??= tracker.begin(flow.spec, live.node.id, msg, { sent: false });
      step = tracker.step(exec, live.node.id, live.ctx.outputs, msg);
      outer = tracker.current;
      tracker.current = exec;
      // The input call itself holds the execution open: a node may call done() before it sends (split).
      exec.pending++;
    }
    const send = this.sendFor(flow, live, this.hopsByMsg.get(msg) ?? 0, exec, step);
    const done = this.doneFor(flow, live, msg, exec, step);
    try {
      const result = live.behaviour.input!(msg, send, done);
      if (result && typeof (result as Promise<void>).then === "function") {
        // Counted until it settles: a node that works asynchronously (a function node's sandbox)
        // holds its messages outside the queue, and they weigh on the flow all the same.
        flow.inFlight++;
        (result as Promise<unknown>).then(
          (value) => {
            this.settled(flow);
            if (value !== DONE_LATER) done();
          },
          (err: unknown) => {
            this.settled(flow);
            done(err);
          },
        );
      }
    } catch (err) {
      done(err);
    } finally {
      if (tracker) {
        tracker.current = outer;
        exec!.pending--;
        tracker.settle(exec!);
      }
    }
  }

  /** A message the flow sent elsewhere (a link) weighs on it until it is delivered there: backpressure follows links. */
  private hold(flow: RunningFlow) {
    if (flow.queued + ++flow.inFlight >= this.highWater) flow.busy = true;
  }

  private settled(flow: RunningFlow) {
    flow.inFlight--;
    if (flow.busy && flow.queued + flow.inFlight <= this.lowWater) this.release(flow);
  }

  private sendFor(flow: RunningFlow, live: LiveNode, inputHop: number, exec?: TrackedExecution, step?: TrackedStep): (value: SendValue) => void {
    return (value) => this.route(flow, live, value, inputHop, exec, step);
  }

  /** The node's `done`: the first call counts; with an error, the error is reported and caught. */
  private doneFor(flow: RunningFlow, live: LiveNode, msg: Message, exec?: TrackedExecution, step?: TrackedStep): (err?: unknown) => void {
    let finished = false;
    return (err) => {
      if (finished) return;
      finished = true;
      if (err) {
        this.reportNodeError(flow, live.node.id, err);
        this.routeToCatch(flow, live, msg, err, exec);
      } else if (flow.completeNodes.size > 0 && live.sub.role !== "instance") {
        // An instance node's own "done" reaches no complete node in Node-RED (it reports to its inner flow).
        this.routeToComplete(flow, live.node, msg, exec);
      }
      // After catch and complete: what they send continues the execution before it can end.
      if (exec && step) this.options.executions!.done(exec, step, msg, err ? cutText(errorText(err), MAX_ERROR_TEXT) : undefined);
    };
  }

  /**
   * Node-RED's catch semantics (Flow.handleError): the failed message, cloned, with msg.error =
   * {message, source: {id, type, name, count}} (an error it already had moves to msg._error), leaves
   * the catch nodes of the flow whose scope covers the failing node, scoped ones first; "uncaught
   * only" ones get it only when no catch node before them did. A message failing again and again
   * at the same node stops being caught at its tenth round (an error loop). A catch node's own
   * failures are not caught again. Inside a subflow instance, its own catch nodes are asked first;
   * when none takes it, the instance's level above is, as if the instance node had failed (scopes
   * match the instance), the source still the inner node (Subflow.handleError). Returns whether a
   * catch node took it.
   */
  private routeToCatch(flow: RunningFlow, failing: LiveNode, msg: Message, err: unknown, exec?: TrackedExecution): boolean {
    const source = failing.node;
    if (failing.roles.catch) return false;
    let count = 1;
    const previous = (msg.error as { source?: { id?: unknown; count?: unknown } } | undefined)?.source;
    if (previous && previous.id === source.id) {
      count = Number(previous.count) + 1;
      if (count === 10) {
        this.options.callbacks.onNodeError({ organizationId: flow.spec.organizationId, flowId: flow.spec.flowId, nodeId: source.id, error: "Message exceeded maximum number of catches" });
        return false;
      }
    }
    let scope = failing.sub.scope;
    let reporting = source.id;
    for (;;) {
      const catchNodes = scope ? flow.scopes.get(scope)!.catchNodes : flow.catchNodes;
      if (this.catchAt(flow, catchNodes, source, reporting, msg, err, count, exec)) return true;
      if (!scope) return false;
      reporting = scope.instance.id;
      scope = scope.parent;
    }
  }

  /** One level of routeToCatch: the catch nodes of one flow or instance; `reporting` is what their scopes are matched with. */
  private catchAt(flow: RunningFlow, catchNodes: LiveNode[], source: RuntimeNode, reporting: string, msg: Message, err: unknown, count: number, exec?: TrackedExecution): boolean {
    let handled = false;
    let handledByUncaught = false;
    for (const live of catchNodes) {
      if (live.scope && !live.scope.includes(reporting)) continue;
      if (live.uncaught && !handledByUncaught) {
        if (handled) continue;
        handledByUncaught = true;
      }
      let copy: Message;
      try {
        copy = cloneMessage(msg);
      } catch {
        copy = { _msgid: msg._msgid, payload: msg.payload };
      }
      if (Object.hasOwn(copy, "error")) copy._error = copy.error;
      copy.error = { message: catchText(err), source: { ...this.sourceOf(source), count } };
      this.route(flow, live, copy, this.hopsByMsg.get(msg) ?? 0, exec ?? this.options.executions?.execOf(msg));
      handled = true;
    }
    return handled;
  }

  /**
   * Node-RED's status node: each status a node in its scope reports, as msg.status = {fill, shape,
   * text, source}. Inside a subflow instance, its own status nodes first; when none takes it and
   * the definition has no status output, the level above, matched as the instance node, the source
   * still the inner node (Subflow.handleStatus).
   */
  private routeToStatus(flow: RunningFlow, reporter: LiveNode, reported: NodeStatus | null) {
    const source = reporter.node;
    let scope = reporter.sub.scope;
    let reporting = source.id;
    for (;;) {
      const statusNodes = scope ? flow.scopes.get(scope)!.statusNodes : flow.statusNodes;
      let handled = false;
      for (const live of statusNodes) {
        if (live.scope && !live.scope.includes(reporting)) continue;
        const status: Record<string, unknown> = reported ? { ...reported } : {};
        if (reported && Object.hasOwn(reported, "text")) status.text = String(reported.text);
        status.source = this.sourceOf(source);
        this.route(flow, live, { _msgid: newMessageId(), status }, 0);
        handled = true;
      }
      if (handled || !scope || scope.hasStatusPort) return;
      reporting = scope.instance.id;
      scope = scope.parent;
    }
  }

  /** Node-RED's complete node: a message a node in its scope finished with (done()), as msg.complete = {source}. */
  private routeToComplete(flow: RunningFlow, source: RuntimeNode, msg: Message, exec?: TrackedExecution) {
    const targets = flow.completeNodes.get(source.id);
    if (!targets) return;
    for (const live of targets) {
      let copy: Message;
      try {
        copy = cloneMessage(msg);
      } catch {
        copy = { _msgid: msg._msgid, payload: msg.payload };
      }
      copy.complete = { source: this.sourceOf(source) };
      this.route(flow, live, copy, this.hopsByMsg.get(msg) ?? 0, exec);
    }
  }

  /**
   * The flow's catch, status and complete nodes, as Node-RED's Flow.start lists them, and its link
   * nodes in the organization's index. A status or complete node leaves out of its scope the nodes it
   * is wired to itself (Node-RED's guard against the simplest loop).
   */
  private indexNodes(flow: RunningFlow) {
    const catches = new Map<SubflowScope | null, LiveNode[]>();
    for (const live of flow.nodes.values()) {
      const { roles } = live;
      const config = live.node.config;
      const scope = live.sub.scope;
      if (roles.catch) {
        const role = roles.catch(config);
        live.scope = role.scope;
        live.uncaught = role.uncaught;
        const list = catches.get(scope) ?? [];
        list.push(live);
        catches.set(scope, list);
      }
      if (roles.status) {
        const role = roles.status(config);
        const wired = new Set(live.wires.flat());
        live.scope = role.scope && role.scope.filter((id) => !wired.has(id));
        (scope ? flow.scopes.get(scope)!.statusNodes : flow.statusNodes).push(live);
        flow.watchesStatus = true;
      }
      if (roles.complete) {
        const wired = new Set(live.wires.flat());
        for (const id of roles.complete(config).scope) {
          if (wired.has(id)) continue;
          const list = flow.completeNodes.get(id) ?? [];
          list.push(live);
          flow.completeNodes.set(id, list);
        }
      }
      if (roles.linkTarget || roles.linkCall) {
        let org = this.linkNodes.get(flow.spec.organizationId);
        if (!org) this.linkNodes.set(flow.spec.organizationId, (org = new Map()));
        org.set(live.node.id, { flow, live });
      }
    }
    const rank = (live: LiveNode) => (live.scope ? 0 : live.uncaught ? 2 : 1);
    // Array.prototype.sort is stable: equal ranks keep the flow's order, as in Node-RED.
    for (const [scope, list] of catches) {
      list.sort((a, b) => rank(a) - rank(b));
      if (scope) flow.scopes.get(scope)!.catchNodes = list;
      else flow.catchNodes = list;
    }
  }

  /** The flow's variable resolver for a node (SPEC §14), or Node-RED's built-in names only. */
  private variablesFor(spec: FlowSpec, node: RuntimeNode) {
    return (
      this.options.variables?.(spec, node) ??
      builtinVariables({ NR_NODE_ID: node.id, NR_NODE_NAME: node.name, NR_FLOW_ID: spec.flowId, NR_FLOW_NAME: spec.name ?? "" })
    );
  }

  /**
   * The behaviour of a subflow instance node (what enters it is sent on to what the definition's
   * input is wired to) and of an instance's status node (what reaches it sets the instance's status).
   */
  private subflowPart(flow: RunningFlow, node: ExpandedNode): NodeFactory {
    if (node.role === "instance") {
      return () => ({
        input(msg, send, done) {
          send(msg);
          done();
        },
      });
    }
    const instanceId = node.scope!.instance.id;
    return () => ({
      input: (msg, _send, done) => {
        const status = statusFromMessage(msg);
        const instance = flow.nodes.get(instanceId);
        if (status !== undefined && instance) instance.ctx.status(status as NodeStatus);
        done();
      },
    });
  }

  private unindexNodes(flow: RunningFlow) {
    const org = this.linkNodes.get(flow.spec.organizationId);
    if (!org) return;
    for (const [id, entry] of org) if (entry.flow === flow) org.delete(id);
    if (org.size === 0) this.linkNodes.delete(flow.spec.organizationId);
  }

  // ---------------------------------------------------------------------------------------------
  // Links: virtual wires between flows of one organization

  private linkPort(flow: RunningFlow): LinkPort {
    const organizationId = flow.spec.organizationId;
    return {
      send: (targets, msg) => {
        if (flow.generation < 0 || (this.options.fence && !this.options.fence(flow.spec.flowId))) return;
        msg._msgid ??= newMessageId();
        const hops = this.hopsByMsg.get(msg) ?? 0;
        targets.forEach((target, i) => {
          const copy = i === 0 ? msg : cloneMessage(msg);
          if (this.linkInto(organizationId, target, copy, hops, flow)) return;
          if (!this.options.links) return;
          this.hold(flow);
          void this.options.links
            .deliver({ organizationId, fromFlowId: flow.spec.flowId, target, byName: false, msg: copy, hops })
            .catch(() => undefined)
            .finally(() => this.settled(flow));
        });
      },
      call: (target, msg, { byName }) => {
        if (flow.generation < 0 || (this.options.fence && !this.options.fence(flow.spec.flowId))) return { end: () => undefined };
        // A call waiting for its answer weighs on the calling flow, as an asynchronous input does.
        this.hold(flow);
        let ended = false;
        const end = () => {
          if (ended) return;
          ended = true;
          this.settled(flow);
        };
        try {
          const delivered = this.startCall(flow, target, msg, byName);
          return delivered ? { delivered, end } : { end };
        } catch (err) {
          end();
          throw err;
        }
      },
      reply: (nodeId, eventId, msg) => {
        if (flow.generation < 0 || (this.options.fence && !this.options.fence(flow.spec.flowId))) return true;
        const hops = this.hopsByMsg.get(msg) ?? 0;
        if (this.returnLink(organizationId, nodeId, eventId, msg, hops)) return true;
        if (!this.options.links) return false;
        return this.options.links.reply({ organizationId, nodeId, eventId, msg, hops });
      },
    };
  }

  /** link-call's lookup (Node-RED's getTargetNode): by id, then by name in this flow, then in the organization's. */
  private startCall(flow: RunningFlow, target: string, msg: Message, byName: boolean): Promise<void> | undefined {
    const organizationId = flow.spec.organizationId;
    msg._msgid ??= newMessageId();
    const hops = this.hopsByMsg.get(msg) ?? 0;
    if (this.linkInto(organizationId, target, msg, hops, flow)) return undefined;
    if (byName) {
      const inFlow = [...flow.nodes.values()].filter((n) => n.roles.linkTarget && linkName(n.node) === target);
      if (inFlow.length === 1) {
        this.linkInto(organizationId, inFlow[0]!.node.id, msg, hops, flow);
        return undefined;
      }
    }
    const relay = this.options.links;
    if (!relay) {
      if (!byName) throw linkNotFound(target);
      const named = [...(this.linkNodes.get(organizationId)?.values() ?? [])].filter((e) => e.live.roles.linkTarget && linkName(e.live.node) === target);
      if (named.length > 1) throw linkAmbiguous(target);
      if (named.length === 0 || !this.linkInto(organizationId, named[0]!.live.node.id, msg, hops, flow)) throw linkNotFound(target);
      return undefined;
    }
    return relay.deliver({ organizationId, fromFlowId: flow.spec.flowId, target, byName, msg, hops }).then((result) => {
      if (result === "not_found") throw linkNotFound(target);
      if (result === "ambiguous") throw linkAmbiguous(target);
    });
  }

  /** A node as catch, status and complete messages name it: Node-RED leaves out an empty name. */
  private sourceOf(node: RuntimeNode): { id: string; type: string; name?: string } {
    const type = this.options.types.get(node.type)?.nodeRedType ?? node.type;
    return node.name ? { id: node.id, type, name: node.name } : { id: node.id, type };
  }

  /**
   * Delivers a message to a link-in node of the organization running here, into its flow's queue
   * (as a wire would: backpressure and the runaway guards count it there). False when no such
   * link-in runs here.
   */
  deliverLink(organizationId: string, nodeId: string, msg: Message, hops = 0): boolean {
    return this.linkInto(organizationId, nodeId, msg, hops);
  }

  /** deliverLink, from a flow of this engine (`source`), which counts the message as waiting until it is delivered. */
  private linkInto(organizationId: string, nodeId: string, msg: Message, hops: number, source?: RunningFlow): boolean {
    const entry = this.linkNodes.get(organizationId)?.get(nodeId);
    if (!entry || !entry.live.roles.linkTarget || entry.flow.generation < 0) return false;
    const { flow } = entry;
    if (this.options.fence && !this.options.fence(flow.spec.flowId)) return false;
    msg._msgid ??= newMessageId();
    if (!this.admit(flow, entry.live, msg, 1, hops)) return true;
    this.enqueue(flow, nodeId, msg, source && source !== flow ? source : undefined);
    this.scheduleDrain();
    return true;
  }

  /** Hands a link-out's reply to the link-call node `nodeId` of the organization, if it runs here. */
  returnLink(organizationId: string, nodeId: string, eventId: string, msg: Message, hops = 0): boolean {
    const entry = this.linkNodes.get(organizationId)?.get(nodeId);
    if (!entry || !entry.live.roles.linkCall || entry.flow.generation < 0 || !entry.live.behaviour.linkReturn) return false;
    if (hops > (this.hopsByMsg.get(msg) ?? 0)) this.hopsByMsg.set(msg, hops);
    entry.live.behaviour.linkReturn(eventId, msg);
    return true;
  }

  /** Whether a link-in of the organization with this id runs here. */
  runsLinkIn(organizationId: string, nodeId: string): boolean {
    return this.linkNodes.get(organizationId)?.get(nodeId)?.live.roles.linkTarget === true;
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

/** The ids of the nodes a version of a flow runs, those inside its subflow instances included (a node not among them is removed). */
function keptNodeIds(spec: FlowSpec, options: ExpandOptions): Set<string> {
  try {
    return new Set(expandSubflows(spec, options).nodes.map((n) => n.id));
  } catch {
    // The new version will not start (its start reports why): every node of the old one is removed.
    return new Set();
  }
}

/** A link-in's name as Node-RED registers it: its name, or its id when unnamed. */
function linkName(node: RuntimeNode): string {
  return node.name || node.id;
}

/** msg.error.message as Node-RED writes it: the error's toString() ("Error: ..." for an Error). */
function catchText(err: unknown): string {
  if (err instanceof Error) return String(err);
  return typeof err === "string" ? err : JSON.stringify(err);
}

function errorText(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === "string" ? err : JSON.stringify(err);
}
