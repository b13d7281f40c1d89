import type { PrismaClient, Flow, Deployment } from "../../generated/prisma/client";
import type { KeyValueStore } from "../store";
import type { Logger } from "../logger";
import { FLOW_BUSY_RETRY_AFTER_SEC, FlowEngine, newMessageId } from "../runtime/engine";
import type { DeviceInMessage, FlowState, Message, NodeStatus, RuntimeServices } from "../runtime/types";
import type { WebhookRegistry, WebhookRequest, WebhookResponse } from "../runtime/webhooks";
import type { NodeRegistry } from "../nodes/registry";
import type { DeviceBus } from "../realtime/device-bus";
import type { EventData, EventTopic } from "../../shared/realtime";
import type { OrgEventPublisher } from "../realtime/org-events";
import type { ContextHub } from "./context-hub";
import { FlowLinks, type RemoteLinks } from "./links";
import { variableResolver, VariableSet } from "../runtime/variables";
import type { VariableCache } from "./variable-cache";
import type { DeploymentSnapshot, FlowPlacement, FlowRuntime, FlowRuntimeStats, InjectOrigin, InjectResult, ReplayResult, SetActiveResult } from "./types";
import { ExecutionTracker } from "../runtime/executions/tracker";
import { ExecutionWriter, type ExecutionSettings } from "./execution-writer";

export interface LocalRuntimeDeps {
  prisma: PrismaClient;
  store: KeyValueStore;
  /** Where runtime events (debug messages, node statuses, flow states) go out. */
  events: OrgEventPublisher;
  logger: Logger;
  nodes: NodeRegistry;
  services: RuntimeServices & { webhooks: WebhookRegistry };
  devices: DeviceBus;
  instanceId: string;
  /**
   * In a cluster: whether this instance can still prove its lease on the flow. While it cannot,
   * the engine drops every message of the flow (a paused process that wakes up sends nothing).
   */
  fence?: (flowId: string) => boolean;
  /** Backpressure: waiting messages at which a flow is busy (the engine's highWaterMark; default 10,000). */
  highWaterMark?: number;
  /** In a cluster: link messages to flows that run on another instance. */
  remoteLinks?: RemoteLinks;
  /**
   * Awaited after each write of a flow's state to its row, before the state is announced: every
   * instance then reads the organization's flows again (services/flows/flow-reads.ts).
   */
  flowsChanged(organizationId: string): Promise<void>;
  /** Durable flow and global context (SPEC §13); absent: in memory (tests of the runtime alone). */
  context?: ContextHub;
  /**
   * Variables and secrets (SPEC §14): loaded before a flow of the organization starts, read by its
   * nodes when they use them, and the organization's secrets redacted from everything this runtime
   * reports (debug events, statuses, node errors and their log lines). Absent: no variables.
   */
  variables?: VariableCache;
  /** Executions (SPEC §15): recorded here for the flows this instance runs. Absent or disabled: none. */
  executions?: ExecutionSettings;
}

/**
 * This process's flows: between the database and the engine, it turns deployments into running
 * flows, writes the state the engine reports back to the flow row, and publishes runtime events to
 * the organization's channel. The engine itself knows nothing of either side. On its own it is the
 * single-instance runtime (every deployed, enabled flow runs here); ClusteredFlowRuntime uses it
 * for the flows whose lease this instance holds.
 */
export class LocalFlowRuntime implements FlowRuntime {
  readonly mode = "single" as const;
  readonly instanceId: string;
  private readonly engine: FlowEngine;
  /** Flows stopped for a hand-over: their "stopped" is not written (they keep running elsewhere). */
  private readonly quiet = new Set<string>();
  /** Running flows: their deployment and since when they run here. */
  private readonly running = new Map<string, { deploymentId: string; since: Date }>();
  /** The deployment last put in effect here for each enabled flow, whatever state it reached. */
  private readonly applied = new Map<string, string>();
  /** Node errors reported by the engine since start (GET /metrics). */
  private nodeErrors = 0;
  private readonly tracker: ExecutionTracker | undefined;
  /** Where this instance's executions are stored (absent: not recorded). */
  readonly executions: ExecutionWriter | undefined;

  constructor(private readonly deps: LocalRuntimeDeps) {
    this.instanceId = deps.instanceId;
    deps.context?.useFence(deps.fence);
    const context = deps.context;
    if (deps.executions?.enabled) {
      this.executions = new ExecutionWriter({
        prisma: deps.prisma,
        logger: deps.logger,
        instanceId: deps.instanceId,
        settings: deps.executions,
        redactor: (organizationId) => this.secretsOf(organizationId),
      });
      this.tracker = new ExecutionTracker({ sink: this.executions, sampleAllPerSec: deps.executions.sampleAllPerSec, sampleOneIn: deps.executions.sampleOneIn });
    }
    this.engine = new FlowEngine({
      executions: this.tracker,
      fence: deps.fence,
      contextStores: context ? (spec) => context.storesFor(spec) : undefined,
      durability: context?.journal,
      highWaterMark: deps.highWaterMark,
      types: deps.nodes.runtimeTypes(),
      services: deps.services,
      links: new FlowLinks({ prisma: deps.prisma, engine: () => this.engine, remote: deps.remoteLinks }),
      ...(deps.variables
        ? { variables: (spec, node, layers) => variableResolver(deps.variables!, { organizationId: spec.organizationId, flowId: spec.flowId, flowName: spec.name }, node, layers) }
        : {}),
      configSchemaOf: (type) => {
        const definition = deps.nodes.get(type);
        return definition?.kind === "config" ? definition.configSchema : undefined;
      },
      // Every door out of the engine passes the organization's redactor: a secret's value leaves as "***".
      callbacks: {
        onFlowState: ({ organizationId, flowId, state, error }) => {
          if (state === "stopped" && this.quiet.has(flowId)) return;
          void this.recordState(organizationId, flowId, state, error === undefined ? undefined : this.secretsOf(organizationId).redactText(error));
        },
        onNodeStatus: ({ organizationId, flowId, nodeId, status }) => {
          const redactor = this.secretsOf(organizationId);
          this.publish(organizationId, "node.status", flowId, { node_id: nodeId, status: status && redactor.hasSecrets ? { ...status, text: redactor.redactText(status.text) } : status });
        },
        onDebug: ({ organizationId, flowId, nodeId, name, property, msg, format, topic, executionId, subflow }) => {
          const redactor = this.secretsOf(organizationId);
          this.publish(organizationId, "debug", flowId, {
            node_id: nodeId,
            name,
            property,
            msg: redactor.redact(msg),
            format,
            ...(topic !== undefined ? { topic: redactor.redactText(topic) } : {}),
            execution_id: executionId ?? null,
            ...(subflow ? { subflow } : {}),
          });
        },
        onNodeError: ({ organizationId, flowId, nodeId, error: raw, caught, executionId }) => {
          this.nodeErrors++;
          const error = this.secretsOf(organizationId).redactText(raw);
          deps.logger.warn({ flowId, nodeId, error }, "node error");
          this.publish(organizationId, "node.status", flowId, { node_id: nodeId, status: { fill: "red", shape: "ring", text: error.slice(0, 120) }, error, ...(caught ? { caught: true as const } : {}), ...(executionId ? { execution_id: executionId } : {}) });
        },
      },
    });
    if (context) {
      context.onRefused = ({ organizationId, flowId, nodeId, key, error }) => {
        // Host nodes' writes name no node (the hub logged it); a function's writes name its node.
        if (!flowId || !nodeId || this.engine.organizationOf(flowId) !== organizationId) return;
        this.engine.nodeFailed(flowId, nodeId, new Error(error), { _msgid: newMessageId(), topic: "context", payload: { scope: "flow", key } });
      };
    }
  }

  private secretsOf(organizationId: string): VariableSet {
    return this.deps.variables?.current(organizationId) ?? VariableSet.empty;
  }

  private publish<T extends EventTopic>(organizationId: string, topic: T, flowId: string | null, data: EventData[T]) {
    this.deps.events.publish(organizationId, topic, flowId, data);
  }

  private async recordState(organizationId: string, flowId: string, state: FlowState, error?: string) {
    // A stop that is part of a redeploy is followed at once by the new state; both are written in
    // order because the engine reports them in order.
    try {
      await this.deps.prisma.flow.updateMany({ where: { id: flowId, currentDeploymentId: { not: null } }, data: { state, stateError: error ?? null } });
      await this.deps.flowsChanged(organizationId);
    } catch (err) {
      this.deps.logger.error({ err, flowId }, "flow state could not be recorded");
    }
    this.publish(organizationId, "flow.state", flowId, { state, error: error ?? null });
  }

  private async specFor(flow: Flow, deployment: Deployment) {
    const org = await this.deps.prisma.organization.findUniqueOrThrow({ where: { id: flow.organizationId }, select: { slug: true } });
    const snapshot = deployment.snapshot as unknown as DeploymentSnapshot;
    // Its nodes resolve variables synchronously from the first message on.
    await this.deps.variables?.ensure(flow.organizationId);
    return {
      flowId: flow.id,
      organizationId: flow.organizationId,
      organizationSlug: org.slug,
      revision: deployment.revision,
      deploymentId: deployment.id,
      name: flow.name,
      nodes: snapshot.nodes,
      connections: snapshot.connections,
      ...(snapshot.subflows ? { subflows: snapshot.subflows } : {}),
      ...(snapshot.groups?.length ? { groups: snapshot.groups } : {}),
      // As deployed, credentials still sealed: the runtime opens them (SPEC §19).
      ...(snapshot.config_nodes ? { configNodes: snapshot.config_nodes } : {}),
    };
  }

  async start(): Promise<void> {
    const restarted = await this.startAll();
    if (restarted > 0) this.deps.logger.info({ flows: restarted }, "deployed flows restarted");
  }

  /** Puts the deployment in effect: running when the flow is enabled, stopped otherwise. */
  async apply(flow: Flow, deployment: Deployment): Promise<FlowState> {
    // A flow that targets a device runs there (SPEC §22), never here: whatever ran of it stops.
    if (flow.targetDeviceId || flow.targetDeviceTag) {
      await this.stop(flow.id);
      return "stopped";
    }
    if (!flow.enabled) {
      await this.engine.stop(flow.id);
      this.running.delete(flow.id);
      this.applied.delete(flow.id);
      await this.recordState(flow.organizationId, flow.id, "stopped");
      return "stopped";
    }
    const spec = await this.specFor(flow, deployment);
    // Starting here (not a redeploy of what runs here): what another instance left running of it
    // (it died, or lost the flow mid-execution) ends in error.
    if (this.executions && !this.running.has(flow.id)) {
      await this.executions.abandonOthers(flow.id).catch((err: unknown) => {
        this.deps.logger.warn({ err, flowId: flow.id }, "executions left running by another instance could not be closed");
      });
    }
    // The old version's "stopped" is not written: the row goes straight to the new version's state
    // (written below), and a late write of "stopped" must not overtake it.
    this.quiet.add(flow.id);
    let state: FlowState;
    try {
      state = await this.engine.deploy(spec);
    } finally {
      this.quiet.delete(flow.id);
    }
    this.applied.set(flow.id, deployment.id);
    if (state === "running") {
      const before = this.running.get(flow.id);
      this.running.set(flow.id, { deploymentId: deployment.id, since: before?.since ?? new Date() });
    } else {
      this.running.delete(flow.id);
    }
    // The engine reports asynchronously; the response must not come before the row says so.
    await this.deps.prisma.flow.update({ where: { id: flow.id }, data: { state, stateError: state === "error" ? this.secretsOf(flow.organizationId).redactText(this.engine.errorOf(flow.id) ?? "") || null : null } });
    // The flow runs either way: a store that cannot take the new token (it is failing) must not turn
    // a started flow into a failed start. Other instances' reads then expire within a minute.
    await this.deps.flowsChanged(flow.organizationId).catch((err: unknown) => {
      this.deps.logger.warn({ err, flowId: flow.id }, "flow reads could not be invalidated");
    });
    return state;
  }

  async setEnabled(flow: Flow, enabled: boolean): Promise<FlowState> {
    if (!flow.currentDeploymentId) return "stopped";
    const deployment = await this.deps.prisma.deployment.findUniqueOrThrow({ where: { id: flow.currentDeploymentId } });
    return this.apply({ ...flow, enabled }, deployment);
  }

  async stop(flowId: string): Promise<void> {
    await this.engine.stop(flowId);
    this.running.delete(flowId);
    this.applied.delete(flowId);
  }

  /** Stops the flow here without recording it stopped: it goes on running on another instance. */
  async evict(flowId: string): Promise<void> {
    this.quiet.add(flowId);
    try {
      await this.engine.stop(flowId);
    } finally {
      this.quiet.delete(flowId);
      this.running.delete(flowId);
      this.applied.delete(flowId);
    }
  }

  /** The deployment last put in effect here for the flow (running or not), if any. */
  appliedDeployment(flowId: string): string | null {
    return this.applied.get(flowId) ?? null;
  }

  /** The deployment running here for the flow, if any. */
  runningDeployment(flowId: string): string | null {
    return this.engine.isRunning(flowId) ? (this.running.get(flowId)?.deploymentId ?? null) : null;
  }

  /** Flows that have a running (or failed) copy here. */
  flowIds(): string[] {
    return this.engine.runningFlowIds();
  }

  /** On start-up: every deployed, enabled flow runs again from its deployment snapshot. */
  async startAll(): Promise<number> {
    const flows = await this.deps.prisma.flow.findMany({
      where: { deletedAt: null, enabled: true, currentDeploymentId: { not: null }, targetDeviceId: null, targetDeviceTag: null, organization: { deletedAt: null } },
    });
    let started = 0;
    for (const flow of flows) {
      try {
        const deployment = await this.deps.prisma.deployment.findUniqueOrThrow({ where: { id: flow.currentDeploymentId! } });
        await this.apply(flow, deployment);
        started++;
      } catch (err) {
        this.deps.logger.error({ err, flowId: flow.id }, "flow could not be restarted");
      }
    }
    return started;
  }

  async inject(flowId: string, nodeId: string, overrides: { payload?: unknown; topic?: string }, origin?: InjectOrigin): Promise<InjectResult> {
    // Alone, on the in-process store: the event is queued for this turn's batch and nothing is
    // awaited; whoever could see it (this process's hub) goes down with the process anyway.
    return this.injectNow(flowId, nodeId, overrides, origin);
  }

  /**
   * inject(), synchronously: the message is on its way when this returns, and with `origin` its
   * `inject` event is queued in the publisher (ahead of the debug events the message causes).
   */
  injectNow(flowId: string, nodeId: string, overrides: { payload?: unknown; topic?: string }, origin?: InjectOrigin): InjectResult {
    if (!this.engine.isRunning(flowId)) return { ok: false, reason: "not_running" };
    if (this.engine.isBusy(flowId)) return { ok: false, reason: "busy", retryAfterSec: FLOW_BUSY_RETRY_AFTER_SEC, waiting: this.engine.load(flowId) };
    let messageId: string;
    try {
      messageId = this.engine.inject(flowId, nodeId, overrides);
    } catch {
      // Saved but not part of the deployed version yet.
      return { ok: false, reason: "not_deployed" };
    }
    if (origin) this.publish(origin.organizationId, "inject", flowId, { node_id: nodeId, message_id: messageId, by: origin.by });
    return { ok: true, messageId };
  }

  async setActive(flowId: string, nodeId: string, active: boolean): Promise<SetActiveResult> {
    return this.setActiveNow(flowId, nodeId, active);
  }

  setActiveNow(flowId: string, nodeId: string, active: boolean): SetActiveResult {
    if (!this.engine.isRunning(flowId)) return { ok: false, reason: "not_running" };
    try {
      this.engine.setActive(flowId, nodeId, active);
    } catch {
      // Saved but not part of the deployed version yet.
      return { ok: false, reason: "not_deployed" };
    }
    return { ok: true };
  }

  /**
   * Answers once the new execution is stored (as `running`, or finished): `GET /executions/{id}`
   * right after the 202, on any instance, finds it (read your writes).
   */
  async replay(flowId: string, nodeId: string, message: Message, replayOf: string): Promise<ReplayResult> {
    const result = this.replayNow(flowId, nodeId, message, replayOf);
    if (result.ok) await this.executions?.flush();
    return result;
  }

  /** replay(), synchronously, where the flow runs (the execution is on its way to the database, not yet stored). */
  replayNow(flowId: string, nodeId: string, message: Message, replayOf: string): ReplayResult {
    if (!this.tracker) return { ok: false, reason: "not_recorded" };
    if (!this.engine.isRunning(flowId)) return { ok: false, reason: "not_running" };
    try {
      return { ok: true, executionId: this.engine.replay(flowId, nodeId, message, replayOf) };
    } catch {
      return { ok: false, reason: "not_deployed" };
    }
  }

  async nodeStatuses(flowId: string): Promise<Map<string, NodeStatus | null>> {
    const statuses = this.engine.nodeStatuses(flowId);
    const organizationId = this.engine.organizationOf(flowId);
    const redactor = organizationId ? this.secretsOf(organizationId) : VariableSet.empty;
    if (!redactor.hasSecrets) return statuses;
    return new Map([...statuses].map(([id, status]) => [id, status && { ...status, text: redactor.redactText(status.text) }]));
  }

  async placement(flowId: string): Promise<FlowPlacement | null> {
    const running = this.running.get(flowId);
    return running && this.engine.isRunning(flowId) ? { instanceId: this.instanceId, since: running.since } : null;
  }

  async hasWebhook(organizationSlug: string, method: string, path: string): Promise<boolean> {
    return this.deps.services.webhooks.lookup(organizationSlug, method, path) !== undefined;
  }

  async handleWebhook(organizationSlug: string, request: WebhookRequest): Promise<WebhookResponse | null> {
    return (await this.deps.services.webhooks.handle(organizationSlug, request)) ?? null;
  }

  async liveInstances(ids: string[]): Promise<Set<string>> {
    return new Set(ids.filter((id) => id === this.instanceId));
  }

  deviceMessage(organizationId: string, message: DeviceInMessage): void {
    this.deps.devices.publishFromDevice(organizationId, message);
  }

  stats(): FlowRuntimeStats {
    return {
      ...this.engine.stats(),
      nodeErrors: this.nodeErrors,
      executionsNotStored: this.executions ? this.executions.counters.lost + this.executions.counters.overBound : 0,
      contextWritesRefused: this.deps.context?.journal.counters.refused ?? 0,
    };
  }

  /** A link message for link-in `nodeId` of the organization, sent from another instance: false when it does not run here. */
  deliverLink(organizationId: string, nodeId: string, msg: Message, hops: number): boolean {
    return this.engine.deliverLink(organizationId, nodeId, msg, hops);
  }

  /** A link-out's reply for link-call `nodeId` of the organization, sent from another instance: false when it does not run here. */
  returnLink(organizationId: string, nodeId: string, eventId: string, msg: Message, hops: number): boolean {
    return this.engine.returnLink(organizationId, nodeId, eventId, msg, hops);
  }

  async close(): Promise<void> {
    await this.engine.close();
    this.tracker?.close();
    await this.executions?.close();
    await this.deps.context?.close();
  }
}
