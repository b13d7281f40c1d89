import type { PrismaClient } from "../../generated/prisma/client";
import type { FlowEngine, LinkDelivery, LinkDeliveryResult, LinkRelay } from "../runtime/engine";
import type { Message } from "../runtime/types";
import type { DeploymentSnapshot } from "./types";

/** A link hop to a flow that does not run on this instance, made where it runs (the cluster's holder). */
export interface RemoteLinks {
  /** Delivers to link-in `nodeId` of flow `flowId`, where that flow runs; false when it runs nowhere (or did not answer). */
  deliver(flowId: string, delivery: { organizationId: string; nodeId: string; msg: Message; hops: number }): Promise<boolean>;
  /** Hands a link-out's reply to link-call `nodeId` of flow `flowId`, where it runs; false when it runs nowhere. */
  reply(flowId: string, reply: { organizationId: string; nodeId: string; eventId: string; msg: Message; hops: number }): Promise<boolean>;
}

/** How long the link-in names of an organization's running flows are reused (dynamic link-calls by name). */
const NAMES_TTL_MS = 1_000;

/**
 * The links the engine cannot make alone: a link-in or link-call that does not run here. It finds
 * the node in the organization's flows (by id in the node index, by name in the deployments that
 * run), always within the engine's own organization, so a forged id of another organization's node
 * is "not found"; then delivers it here or, through `remote`, on the instance that runs the flow. A
 * node of a flow that runs nowhere is "not_running": the message is dropped (a link-call times out).
 */
export class FlowLinks implements LinkRelay {
  private readonly names = new Map<string, { at: number; linkIns: Promise<Array<{ flowId: string; nodeId: string; name: string }>> }>();
  /** Nodes found by id (organization, id → flow and type), reused for a second: a stream of link messages asks once. */
  private readonly found = new Map<string, { at: number; flowId: string; type: string }>();

  constructor(
    private readonly deps: {
      prisma: PrismaClient;
      engine: () => FlowEngine;
      remote?: RemoteLinks;
    },
  ) {}

  /** The flow and type of node `nodeId` of the organization (its saved graph), if it has one. Only hits are reused. */
  private async nodeOf(organizationId: string, nodeId: string): Promise<{ flowId: string; type: string } | null> {
    const key = `${organizationId} ${nodeId}`;
    const cached = this.found.get(key);
    if (cached && performance.now() - cached.at < NAMES_TTL_MS) return cached;
    const row = await this.deps.prisma.flowNode.findUnique({ where: { organizationId_nodeId: { organizationId, nodeId } }, select: { flowId: true, type: true } });
    if (row) {
      if (this.found.size >= 10_000) this.found.clear();
      this.found.set(key, { at: performance.now(), ...row });
    } else this.found.delete(key);
    return row;
  }

  async deliver({ organizationId, target, byName, msg, hops }: LinkDelivery): Promise<LinkDeliveryResult> {
    const byId = await this.nodeOf(organizationId, target);
    let found: { flowId: string; nodeId: string } | undefined;
    if (byId?.type === "link-in") found = { flowId: byId.flowId, nodeId: target };
    else if (byName) {
      const named = (await this.linkInsOf(organizationId)).filter((l) => l.name === target);
      if (named.length > 1) return "ambiguous";
      found = named[0];
    }
    if (!found) return "not_found";
    if (this.deps.engine().deliverLink(organizationId, found.nodeId, msg, hops)) return "delivered";
    if (!this.deps.remote) return "not_running";
    return (await this.deps.remote.deliver(found.flowId, { organizationId, nodeId: found.nodeId, msg, hops })) ? "delivered" : "not_running";
  }

  async reply(reply: { organizationId: string; nodeId: string; eventId: string; msg: Message; hops: number }): Promise<boolean> {
    if (!this.deps.remote) return false;
    const row = await this.nodeOf(reply.organizationId, reply.nodeId);
    if (row?.type !== "link-call") return false;
    return this.deps.remote.reply(row.flowId, reply);
  }

  /** The link-in nodes (id and name, as Node-RED names them: the id when unnamed) of the organization's deployed, enabled flows. */
  private linkInsOf(organizationId: string) {
    const cached = this.names.get(organizationId);
    if (cached && performance.now() - cached.at < NAMES_TTL_MS) return cached.linkIns;
    const linkIns = this.readLinkIns(organizationId);
    this.names.set(organizationId, { at: performance.now(), linkIns });
    linkIns.catch(() => this.names.delete(organizationId));
    if (this.names.size > 1_000) this.names.delete(this.names.keys().next().value!);
    return linkIns;
  }

  private async readLinkIns(organizationId: string) {
    const flows = await this.deps.prisma.flow.findMany({
      where: { organizationId, deletedAt: null, enabled: true, currentDeploymentId: { not: null }, nodeIndex: { some: { type: "link-in" } } },
      select: { currentDeploymentId: true },
    });
    const deployments = await this.deps.prisma.deployment.findMany({
      where: { organizationId, id: { in: flows.map((f) => f.currentDeploymentId!) } },
      select: { flowId: true, snapshot: true },
    });
    return deployments.flatMap((d) =>
      (d.snapshot as unknown as DeploymentSnapshot).nodes
        .filter((n) => n.type === "link-in" && !n.disabled)
        .map((n) => ({ flowId: d.flowId, nodeId: n.id, name: n.name || n.id })),
    );
  }
}
