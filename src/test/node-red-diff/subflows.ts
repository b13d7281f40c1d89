import type { NodeRegistry } from "@/server/nodes/registry";
import { nodeRedToSelection } from "@/server/services/flows/node-red";
import type { SubflowEnvEntry, SubflowSnapshot } from "@/shared/subflows";
import { SUBFLOW_IN_TYPE, SUBFLOW_OUT_TYPE, SUBFLOW_STATUS_TYPE, isSubflowInstanceType } from "@/shared/subflows";
import type { NodeRedNode } from "./types";

type Connection = { source: string; source_port: number; target: string };
type PortWire = { id: string; port?: number };

/**
 * The harness's minimal mapping of Node-RED subflows onto the engine's FlowSpec (the import's own
 * mapping is the Subflow resource's; this one function is where the harness would call it):
 * `subflow:<id>` instances of a node list become nodes with config {env}, their wires connections,
 * and each `subflow` definition a SubflowSnapshot whose ports are subflow-in/-out/-status nodes.
 */
export function splitInstances(items: NodeRedNode[]): { instances: Array<{ id: string; type: string; name: string; config: Record<string, unknown> }>; connections: Connection[]; rest: NodeRedNode[] } {
  const instances = items.filter((n) => isSubflowInstanceType(n.type));
  const ids = new Set(instances.map((n) => n.id));
  const connections: Connection[] = [];
  for (const n of items) {
    (n.wires ?? []).forEach((port, source_port) => {
      for (const target of port) if (ids.has(n.id) || ids.has(target)) connections.push({ source: n.id, source_port, target });
    });
  }
  return {
    instances: instances.map((n) => ({ id: n.id, type: n.type, name: typeof n.name === "string" ? n.name : "", config: { env: (n.env as SubflowEnvEntry[] | undefined) ?? [] } })),
    connections,
    rest: items.filter((n) => !ids.has(n.id)),
  };
}

export function nodeRedSubflows(registry: NodeRegistry, items: NodeRedNode[]): Record<string, SubflowSnapshot> {
  const out: Record<string, SubflowSnapshot> = {};
  for (const def of items.filter((n) => n.type === "subflow")) {
    const inner = items.filter((n) => n.z === def.id).map(({ z: _z, ...n }) => ({ x: 100, y: 100, ...n }) as NodeRedNode);
    const { instances, connections, rest } = splitInstances(inner);
    const converted = rest.length > 0 ? nodeRedToSelection(registry, rest) : { nodes: [], connections: [] };
    const position = { x: 0, y: 0 };
    const nodes: SubflowSnapshot["nodes"] = [
      ...converted.nodes.map((n) => ({ id: n.id, type: n.type, name: n.name, position, config: n.config, disabled: n.disabled ?? false })),
      ...instances.map((n) => ({ ...n, position, disabled: false })),
    ];
    const all = [...converted.connections.map((c) => ({ source: c.source, source_port: c.source_port ?? 0, target: c.target })), ...connections];
    const inPorts = (def.in as Array<{ wires: PortWire[] }> | undefined) ?? [];
    if (inPorts.length > 0) {
      nodes.push({ id: `${def.id}-in`, type: SUBFLOW_IN_TYPE, name: "", position, config: {}, disabled: false });
      for (const w of inPorts[0]!.wires) all.push({ source: `${def.id}-in`, source_port: 0, target: w.id });
    }
    ((def.out as Array<{ wires: PortWire[] }> | undefined) ?? []).forEach((port, i) => {
      nodes.push({ id: `${def.id}-out${i}`, type: SUBFLOW_OUT_TYPE, name: "", position, config: { port: i }, disabled: false });
      for (const w of port.wires) all.push({ source: w.id === def.id ? `${def.id}-in` : w.id, source_port: w.port ?? 0, target: `${def.id}-out${i}` });
    });
    const status = def.status as { wires: PortWire[] } | undefined;
    if (status) {
      nodes.push({ id: `${def.id}-status`, type: SUBFLOW_STATUS_TYPE, name: "", position, config: {}, disabled: false });
      for (const w of status.wires) all.push({ source: w.id === def.id ? `${def.id}-in` : w.id, source_port: w.port ?? 0, target: `${def.id}-status` });
    }
    out[def.id] = { id: def.id, name: typeof def.name === "string" ? def.name : def.id, revision: 1, env: (def.env as SubflowEnvEntry[] | undefined) ?? [], nodes, connections: all };
  }
  return out;
}
