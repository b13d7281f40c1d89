import type { FlowNode } from "../../../shared/flow-graph";
import { SUBFLOW_OUT_TYPE, subflowIdOfType, subflowInstanceType, type SubflowSnapshot } from "../../../shared/subflows";
import type { NodeRegistry } from "../../nodes/registry";
import { hasScope, remapConfig } from "../../runtime/subflows";
import { portsLookup, type PortsLookup } from "../flows/node-red-mapping";
import { subflowToNodeRed } from "../flows/node-red-subflows";

type NrNode = Record<string, unknown>;

/**
 * What marks a copy's ids on a device (`<id>~<flow id>`): our node and definition ids never hold
 * it, so the agent reports the original ids by cutting there (packages/agent/lib/agent.js).
 */
export const DEVICE_COPY_MARK = "~";

/**
 * The subflow definitions a device's flows use (SPEC §16, §22), as Node-RED subflows in the
 * flows.json it runs: each from its flow's deployment snapshot, as the hosted runtime runs it.
 * Node-RED needs ids unique in the whole file, so a definition several flows use is written once;
 * when a flow's deployment carries another revision of one already written (a flow not redeployed
 * since the definition changed), that flow gets copies of all its definitions, their ids and their
 * inner nodes' ids marked with the flow's (DEVICE_COPY_MARK), and its instances name the copies.
 */
export class DeviceSubflows {
  /** Definition id → the revision written under that id. */
  private readonly written = new Map<string, number>();
  readonly items: NrNode[] = [];

  constructor(private readonly registry: NodeRegistry) {}

  /** The flow's nodes as they go to the device (instances of copies renamed), with the ports of its instances. */
  add(flowId: string, nodes: FlowNode[], subflows: Record<string, SubflowSnapshot> = {}): { nodes: FlowNode[]; portsOf: PortsLookup } {
    const definitions = Object.values(subflows);
    const copy = definitions.some((d) => this.written.has(d.id) && this.written.get(d.id) !== d.revision) ? `${DEVICE_COPY_MARK}${flowId}` : "";
    const rename = (type: string) => {
      const id = subflowIdOfType(type);
      return copy && id !== null && subflows[id] ? subflowInstanceType(`${id}${copy}`) : type;
    };
    const outputs = new Map(definitions.map((d) => [`${d.id}${copy}`, d.nodes.filter((n) => n.type === SUBFLOW_OUT_TYPE).length]));
    for (const d of definitions) {
      if (!copy) {
        if (this.written.has(d.id)) continue;
        this.written.set(d.id, d.revision);
      }
      const def = copy ? this.copied(d, copy, rename) : d;
      this.items.push(
        ...subflowToNodeRed(
          this.registry,
          { id: def.id, name: def.name, description: "", category: "", color: "#DDAA99", icon: null, env: def.env, nodes: def.nodes, connections: def.connections, groups: def.groups ?? [] },
          portsLookup(this.registry, outputs, def.connections),
        ),
      );
    }
    return { nodes: copy ? nodes.map((n) => ({ ...n, type: rename(n.type) })) : nodes, portsOf: portsLookup(this.registry, outputs) };
  }

  /** A definition under marked ids: its own, its nodes' (and every reference to them), its instances'. */
  private copied(d: SubflowSnapshot, mark: string, rename: (type: string) => string): SubflowSnapshot {
    const ids = new Set(d.nodes.map((n) => n.id));
    const marked = (id: string) => `${id}${mark}`;
    const scoped = (type: string) => hasScope(this.registry.get(type)?.roles as Parameters<typeof hasScope>[0]);
    return {
      ...d,
      id: marked(d.id),
      nodes: d.nodes.map((n) => ({ ...n, id: marked(n.id), type: rename(n.type), config: remapConfig(scoped(n.type), n.config, ids, marked) })),
      connections: d.connections.map((c) => ({ ...c, source: marked(c.source), target: marked(c.target) })),
      ...(d.groups ? { groups: d.groups.map((g) => ({ ...g, id: marked(g.id), nodes: g.nodes.map(marked) })) } : {}),
    };
  }
}
