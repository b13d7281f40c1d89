import type { LinkPort, Message } from "../types";
import { cloneMessage, linkAmbiguous, linkName, linkNotFound, newMessageId, type EngineOptions } from "./common";
import type { DeliveryQueue } from "./delivery";
import type { Flow } from "./flow";
import type { NodeHost } from "./node-host";

/**
 * Links: virtual wires between flows of one organization. The running link targets (link-in) and
 * link calls (link-call) per organization, by node id (node ids are unique in an organization),
 * found by their roles; what a link delivers goes into the target flow's queue as a wire would.
 * Targets not running here go to EngineOptions.links (the flow runtime's relay).
 */
export class LinkIndex {
  private readonly byOrganization = new Map<string, Map<string, NodeHost>>();

  constructor(
    private readonly options: Pick<EngineOptions, "fence" | "links">,
    private readonly queue: DeliveryQueue,
  ) {}

  add(host: NodeHost) {
    const organizationId = host.flow.spec.organizationId;
    let org = this.byOrganization.get(organizationId);
    if (!org) this.byOrganization.set(organizationId, (org = new Map()));
    org.set(host.node.id, host);
  }

  removeFlow(flow: Flow) {
    const org = this.byOrganization.get(flow.spec.organizationId);
    if (!org) return;
    for (const [id, host] of org) if (host.flow === flow) org.delete(id);
    if (org.size === 0) this.byOrganization.delete(flow.spec.organizationId);
  }

  private fenced(flow: Flow): boolean {
    return flow.generation < 0 || (this.options.fence !== undefined && !this.options.fence(flow.spec.flowId));
  }

  /** What the flow's link nodes use (NodeContext.links). */
  port(flow: Flow): LinkPort {
    const organizationId = flow.spec.organizationId;
    const queue = this.queue;
    return {
      send: (targets, msg) => {
        if (this.fenced(flow)) return;
        msg._msgid ??= newMessageId();
        const hops = queue.hops.get(msg) ?? 0;
        targets.forEach((target, i) => {
          const copy = i === 0 ? msg : cloneMessage(msg);
          if (this.into(organizationId, target, copy, hops, flow)) return;
          if (!this.options.links) return;
          queue.hold(flow);
          void this.options.links
            .deliver({ organizationId, fromFlowId: flow.spec.flowId, target, byName: false, msg: copy, hops })
            .catch(() => undefined)
            .finally(() => queue.settled(flow));
        });
      },
      call: (target, msg, { byName }) => {
        if (this.fenced(flow)) return { end: () => undefined };
        // A call waiting for its answer weighs on the calling flow, as an asynchronous input does.
        queue.hold(flow);
        let ended = false;
        const end = () => {
          if (ended) return;
          ended = true;
          queue.settled(flow);
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
        if (this.fenced(flow)) return true;
        const hops = queue.hops.get(msg) ?? 0;
        if (this.returnTo(organizationId, nodeId, eventId, msg, hops)) return true;
        if (!this.options.links) return false;
        return this.options.links.reply({ organizationId, nodeId, eventId, msg, hops });
      },
    };
  }

  /** link-call's lookup (Node-RED's getTargetNode): by id, then by name in this flow, then in the organization's. */
  private startCall(flow: Flow, target: string, msg: Message, byName: boolean): Promise<void> | undefined {
    const organizationId = flow.spec.organizationId;
    msg._msgid ??= newMessageId();
    const hops = this.queue.hops.get(msg) ?? 0;
    if (this.into(organizationId, target, msg, hops, flow)) return undefined;
    if (byName) {
      const inFlow = [...flow.nodes.values()].filter((n) => n.roles.linkTarget && linkName(n.node) === target);
      if (inFlow.length === 1) {
        this.into(organizationId, inFlow[0]!.node.id, msg, hops, flow);
        return undefined;
      }
    }
    const relay = this.options.links;
    if (!relay) {
      if (!byName) throw linkNotFound(target);
      const named = [...(this.byOrganization.get(organizationId)?.values() ?? [])].filter((h) => h.roles.linkTarget && linkName(h.node) === target);
      if (named.length > 1) throw linkAmbiguous(target);
      if (named.length === 0 || !this.into(organizationId, named[0]!.node.id, msg, hops, flow)) throw linkNotFound(target);
      return undefined;
    }
    return relay.deliver({ organizationId, fromFlowId: flow.spec.flowId, target, byName, msg, hops }).then((result) => {
      if (result === "not_found") throw linkNotFound(target);
      if (result === "ambiguous") throw linkAmbiguous(target);
    });
  }

  /**
   * Delivers a message to a link target of the organization running here, into its flow's queue
   * (as a wire would: backpressure and the runaway guards count it there); `source`, a flow of this
   * engine, counts it as waiting until it is delivered. False when no such link target runs here.
   */
  into(organizationId: string, nodeId: string, msg: Message, hops: number, source?: Flow): boolean {
    const host = this.byOrganization.get(organizationId)?.get(nodeId);
    if (!host || !host.roles.linkTarget || host.flow.generation < 0) return false;
    const flow = host.flow;
    if (this.options.fence && !this.options.fence(flow.spec.flowId)) return false;
    msg._msgid ??= newMessageId();
    const bytes = this.queue.admit(flow, host, msg, 1, hops);
    if (bytes === undefined) return true;
    this.queue.enqueue(flow, nodeId, msg, bytes, source && source !== flow ? source : undefined);
    this.queue.scheduleDrain();
    return true;
  }

  /** Hands a link-out's reply to the link call `nodeId` of the organization, if it runs here. */
  returnTo(organizationId: string, nodeId: string, eventId: string, msg: Message, hops: number): boolean {
    const host = this.byOrganization.get(organizationId)?.get(nodeId);
    if (!host || !host.roles.linkCall || host.flow.generation < 0 || !host.behaviour.linkReturn) return false;
    if (hops > (this.queue.hops.get(msg) ?? 0)) this.queue.hops.set(msg, hops);
    host.behaviour.linkReturn(eventId, msg);
    return true;
  }

  /** Whether a link target of the organization with this id runs here. */
  runsTarget(organizationId: string, nodeId: string): boolean {
    return this.byOrganization.get(organizationId)?.get(nodeId)?.roles.linkTarget === true;
  }
}
