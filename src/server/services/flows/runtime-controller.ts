import type { PrismaClient, Flow, Deployment } from "../../../generated/prisma/client";
import type { KeyValueStore } from "../../store";
import type { Logger } from "../../logger";
import { FlowEngine } from "../../runtime/engine";
import type { FlowState, NodeFactory, NodeStatus, RuntimeServices } from "../../runtime/types";
import type { NodeRegistry } from "../../nodes/registry";
import { outputCount } from "../../nodes/types";
import type { FlowGraph } from "../../../shared/flow-graph";
import { orgEventsChannel, type EventData, type EventTopic } from "../../../shared/realtime";

export interface DeploymentSnapshot extends FlowGraph {
  name: string;
}

interface Deps {
  prisma: PrismaClient;
  store: KeyValueStore;
  logger: Logger;
  nodes: NodeRegistry;
  behaviours: Map<string, NodeFactory>;
  services?: RuntimeServices;
}

/**
 * Between the database and the engine: it turns deployments into running flows, writes the state
 * the engine reports back to the flow row, and publishes runtime events to the organization's
 * channel. The engine itself knows nothing of either side.
 */
export class FlowRuntimeController {
  readonly engine: FlowEngine;

  constructor(private readonly deps: Deps) {
    this.engine = new FlowEngine({
      behaviours: deps.behaviours,
      outputsOf: (node) => {
        const definition = deps.nodes.get(node.type);
        return definition ? outputCount(definition, node.config) : 0;
      },
      services: deps.services,
      hooks: {
        onFlowState: ({ organizationId, flowId, state, error }) => {
          void this.recordState(organizationId, flowId, state, error);
        },
        onNodeStatus: ({ organizationId, flowId, nodeId, status }) => {
          this.publish(organizationId, "node.status", flowId, { node_id: nodeId, status });
        },
        onDebug: ({ organizationId, flowId, nodeId, name, property, msg, format, topic }) => {
          this.publish(organizationId, "debug", flowId, { node_id: nodeId, name, property, msg, format, ...(topic !== undefined ? { topic } : {}) });
        },
        onNodeError: ({ organizationId, flowId, nodeId, error }) => {
          deps.logger.warn({ flowId, nodeId, error }, "node error");
          this.publish(organizationId, "node.status", flowId, { node_id: nodeId, status: { fill: "red", shape: "ring", text: error.slice(0, 120) }, error });
        },
      },
    });
  }

  publish<T extends EventTopic>(organizationId: string, topic: T, flowId: string | null, data: EventData[T]) {
    const event = { type: "event", topic, flow_id: flowId, data, ts: new Date().toISOString() };
    this.deps.store.publish(orgEventsChannel(organizationId), JSON.stringify(event)).catch((err: unknown) => {
      this.deps.logger.warn({ err, topic }, "runtime event could not be published");
    });
  }

  private async recordState(organizationId: string, flowId: string, state: FlowState, error?: string) {
    // A stop that is part of a redeploy is followed at once by the new state; both are written in
    // order because the engine reports them in order.
    try {
      await this.deps.prisma.flow.updateMany({ where: { id: flowId, currentDeploymentId: { not: null } }, data: { state, stateError: error ?? null } });
    } catch (err) {
      this.deps.logger.error({ err, flowId }, "flow state could not be recorded");
    }
    this.publish(organizationId, "flow.state", flowId, { state, error: error ?? null });
  }

  private async specFor(flow: Flow, deployment: Deployment) {
    const org = await this.deps.prisma.organization.findUniqueOrThrow({ where: { id: flow.organizationId }, select: { slug: true } });
    const snapshot = deployment.snapshot as unknown as DeploymentSnapshot;
    return {
      flowId: flow.id,
      organizationId: flow.organizationId,
      organizationSlug: org.slug,
      revision: deployment.revision,
      nodes: snapshot.nodes,
      connections: snapshot.connections,
    };
  }

  /** Puts the deployment in effect: running when the flow is enabled, stopped otherwise. */
  async apply(flow: Flow, deployment: Deployment): Promise<FlowState> {
    if (!flow.enabled) {
      await this.engine.stop(flow.id);
      await this.recordState(flow.organizationId, flow.id, "stopped");
      return "stopped";
    }
    const state = await this.engine.deploy(await this.specFor(flow, deployment));
    // The engine reports asynchronously; the response must not come before the row says so.
    await this.deps.prisma.flow.update({ where: { id: flow.id }, data: { state, stateError: state === "error" ? (this.engine.errorOf(flow.id) ?? null) : null } });
    return state;
  }

  async setEnabled(flow: Flow, enabled: boolean): Promise<FlowState> {
    if (!flow.currentDeploymentId) return "stopped";
    const deployment = await this.deps.prisma.deployment.findUniqueOrThrow({ where: { id: flow.currentDeploymentId } });
    return this.apply({ ...flow, enabled }, deployment);
  }

  async stop(flowId: string): Promise<void> {
    await this.engine.stop(flowId);
  }

  /** On start-up: every deployed, enabled flow runs again from its deployment snapshot. */
  async startAll(): Promise<number> {
    const flows = await this.deps.prisma.flow.findMany({
      where: { deletedAt: null, enabled: true, currentDeploymentId: { not: null }, organization: { deletedAt: null } },
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

  nodeStatuses(flowId: string): Map<string, NodeStatus | null> {
    return this.engine.nodeStatuses(flowId);
  }

  close(): Promise<void> {
    return this.engine.close();
  }
}
