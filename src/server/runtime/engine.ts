import type { FlowState, Message, NodeStatus, SharedContextStore } from "./types";
import { memoryScope } from "./context/context-scope";
import { expandSubflows, hasScope, type ExpandOptions } from "./subflows";
import type { EngineOptions, FlowContextStores, FlowSpec } from "./flow/common";
import { newMessageId } from "./flow/common";
import { DeliveryQueue } from "./flow/delivery";
import { LinkIndex } from "./flow/links";
import { Flow, type EngineCore } from "./flow/flow";
import { approxMessageBytes } from "./work-limits";
import { ConfigNodeHost } from "./config-nodes";
import type { ConnectionPool } from "./connections";

export type { DurabilityGate, EngineOptions, FlowContextStores, FlowSpec, LinkDelivery, LinkDeliveryResult, LinkRelay } from "./flow/common";
export {
  cutText,
  DEFAULT_HIGH_WATER_BYTES,
  DEFAULT_HIGH_WATER_MARK,
  DEFAULT_MAX_HOPS,
  DEFAULT_MAX_QUEUED_BYTES_PER_FLOW,
  DEFAULT_MAX_QUEUED_PER_FLOW,
  FLOW_BUSY_RETRY_AFTER_SEC,
  linkAmbiguous,
  linkNotFound,
  MAX_ERROR_TEXT,
  MAX_STATUS_TEXT,
  newMessageId,
} from "./flow/common";

/**
 * Runs the deployed flows of every organization on this instance: one instance of the engine,
 * no module-level state. A deploy swaps a flow under a per-flow lock (old nodes closed, with a
 * timeout, before new ones start). A node that throws is marked in error and reported; it never
 * takes down the process or another flow.
 *
 * The facade the rest of the code uses, over objects with one concern each, as Node-RED splits
 * its runtime (runtime/flow/): the delivery queue and scheduler, with backpressure, the runaway
 * guards and the durability gate (delivery.ts, DeliveryQueue); one running flow version: start,
 * stop, routing along wires and to catch, status and complete nodes (flow.ts, Flow); one running
 * node: its context, input call, send, done, status and errors (node-host.ts, NodeHost); the
 * organization's link targets and calls (links.ts, LinkIndex). This class keeps the running flows,
 * the per-flow lock and the engine's public doors.
 */
export class FlowEngine {
  private readonly flows = new Map<string, Flow>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private generationCounter = 0;
  private closed = false;
  /** In-memory global context per organization, when no contextStores option is given. */
  private readonly memoryGlobals = new Map<string, SharedContextStore>();
  private readonly queue: DeliveryQueue;
  private readonly links: LinkIndex;
  private readonly core: EngineCore;
  /** Configuration nodes and the connections they hold on this instance (SPEC §19). */
  private readonly configHost: ConfigNodeHost;
  /** Removes the delivery queue from the sandbox pool's view of the host's work. */
  private readonly unyield: () => void;

  constructor(options: EngineOptions) {
    this.configHost = new ConfigNodeHost({ schemaOf: options.configSchemaOf, openCredential: options.services?.openCredential, pool: options.connections });
    this.queue = new DeliveryQueue(options);
    // The host does not spin for a function node's answer while deliveries wait (sandbox/spin.ts).
    this.unyield = options.services?.sandboxes?.yieldTo(() => this.queue.hasWork()) ?? (() => undefined);
    this.links = new LinkIndex(options, this.queue);
    const expandOptions: ExpandOptions = {
      // Scoped types (the catch, status and complete roles): inside a subflow instance, their scopes name only its own nodes.
      scoped: (type) => hasScope(options.types.get(type)?.roles),
    };
    this.core = {
      options,
      queue: this.queue,
      links: this.links,
      expandOptions,
      configHost: this.configHost,
      contextStoresFor: async (spec) => {
        if (options.contextStores) return options.contextStores(spec);
        let global = this.memoryGlobals.get(spec.organizationId);
        if (!global) this.memoryGlobals.set(spec.organizationId, (global = memoryScope(spec.organizationId, "global")));
        return { flow: memoryScope(spec.organizationId, spec.flowId), global } satisfies FlowContextStores;
      },
    };
  }

  /** The instance's shared connections of configuration nodes (SPEC §19). */
  get connections(): ConnectionPool {
    return this.configHost.pool;
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
    return this.flows.get(flowId)?.load.busy ?? false;
  }

  /** Messages waiting in the flow: queued deliveries plus asynchronous inputs not yet done. */
  load(flowId: string): number {
    const flow = this.flows.get(flowId);
    return flow ? flow.load.queued + flow.load.inFlight : 0;
  }

  /** For GET /metrics: flows in the running state here, and messages delivered to nodes so far. */
  stats(): { runningFlows: number; messagesDelivered: number } {
    let runningFlows = 0;
    for (const flow of this.flows.values()) if (flow.state === "running") runningFlows++;
    return { runningFlows, messagesDelivered: this.queue.delivered };
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
      await this.stopUnlocked(spec.flowId, keptNodeIds(spec, this.core.expandOptions));
      const flow = new Flow(this.core, spec, ++this.generationCounter);
      // Known to the engine's doors from the start: while its context loads and its nodes are made,
      // its state is "running" and a door finds no node yet; a start that fails leaves it in "error".
      this.flows.set(spec.flowId, flow);
      return flow.start();
    });
  }

  stop(flowId: string): Promise<void> {
    return this.withLock(flowId, () => this.stopUnlocked(flowId, new Set()));
  }

  /** Sends a message out of a node with the trigger role (an inject node) of a running flow; resolves to its id. */
  inject(flowId: string, nodeId: string, overrides: { payload?: unknown; topic?: string }): string {
    const flow = this.flows.get(flowId);
    const host = flow?.nodes.get(nodeId);
    if (!flow || flow.state !== "running" || !host) throw new Error("flow is not running");
    if (!host.roles.trigger || !host.behaviour.trigger) throw new Error("not an inject node");
    return host.behaviour.trigger(overrides);
  }

  /** Switches a node with the switchable role (a debug node) of a running flow on or off, until the node restarts. */
  setActive(flowId: string, nodeId: string, active: boolean): void {
    const flow = this.flows.get(flowId);
    const host = flow?.nodes.get(nodeId);
    if (!flow || flow.state !== "running" || !host) throw new Error("flow is not running");
    if (!host.roles.switchable || !host.behaviour.setActive) throw new Error("not a switchable node");
    host.behaviour.setActive(active);
  }

  /**
   * Replay (SPEC §15): sends `msg` again out of `nodeId`'s outputs in the running flow, as a new
   * execution that names the one it replays; resolves to its id. Throws when the flow does not run
   * here, the node is not part of its running version, or executions are not recorded.
   */
  replay(flowId: string, nodeId: string, msg: Message, replayOf: string): string {
    const tracker = this.core.options.executions;
    if (!tracker) throw new Error("executions are not recorded");
    const flow = this.flows.get(flowId);
    if (!flow || flow.state !== "running") throw new Error("flow is not running");
    const host = flow.nodes.get(nodeId);
    if (!host) throw new Error("no such running node");
    msg._msgid = newMessageId();
    const exec = tracker.begin(flow.spec, nodeId, msg, { sent: true, replayOf });
    flow.route(host, msg, 0, exec, exec.steps[0]);
    tracker.settle(exec);
    return exec.id;
  }

  /**
   * An error that reaches a node from outside a delivery (a context write of its code that the
   * store refused after the message was handled): the node's error, and `msg` to the flow's catch
   * nodes, as a store error thrown by `flow.set` would have been.
   */
  nodeFailed(flowId: string, nodeId: string, err: unknown, msg: Message): void {
    const flow = this.flows.get(flowId);
    const host = flow?.nodes.get(nodeId);
    if (!flow || !host) return;
    flow.failNode(host, err, msg);
  }

  /** Delivers a message into a node's input of a running flow, as a wire would (test harnesses). */
  receive(flowId: string, nodeId: string, msg: Message): void {
    const flow = this.flows.get(flowId);
    if (!flow || !flow.nodes.has(nodeId)) throw new Error("no such running node");
    this.queue.enqueue(flow, nodeId, msg, approxMessageBytes(msg));
    this.queue.scheduleDrain();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.unyield();
    await Promise.all([...this.flows.keys()].map((id) => this.stop(id)));
  }

  private async stopUnlocked(flowId: string, keptNodeIds: Set<string>): Promise<void> {
    const flow = this.flows.get(flowId);
    if (!flow) return;
    this.flows.delete(flowId);
    await flow.stop(keptNodeIds);
  }

  /**
   * Delivers a message to a link-in node of the organization running here, into its flow's queue
   * (as a wire would: backpressure and the runaway guards count it there). False when no such
   * link-in runs here.
   */
  deliverLink(organizationId: string, nodeId: string, msg: Message, hops = 0): boolean {
    return this.links.into(organizationId, nodeId, msg, hops);
  }

  /** Hands a link-out's reply to the link-call node `nodeId` of the organization, if it runs here. */
  returnLink(organizationId: string, nodeId: string, eventId: string, msg: Message, hops = 0): boolean {
    return this.links.returnTo(organizationId, nodeId, eventId, msg, hops);
  }

  /** Whether a link-in of the organization with this id runs here. */
  runsLinkIn(organizationId: string, nodeId: string): boolean {
    return this.links.runsTarget(organizationId, nodeId);
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
