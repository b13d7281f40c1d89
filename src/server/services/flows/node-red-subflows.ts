import type { NodeRegistry } from "../../nodes/registry";
import type { Connection, FlowNode } from "../../../shared/flow-graph";
import { SUBFLOW_IN_TYPE, SUBFLOW_OUT_TYPE, SUBFLOW_STATUS_TYPE, type FlowGroup, type SubflowEnvEntry } from "../../../shared/subflows";
import { canvasToNodeRed, convertNodeRedNodes, envEntryFromNodeRed, type ImportReportEntry } from "./node-red";
import { groupsFromNodeRed } from "./node-red-groups";

type NrNode = Record<string, unknown>;

/** A definition as the mapping sees it (the row's fields, or SubflowView's). */
export interface DefinitionGraph {
  id: string;
  name: string;
  description: string;
  category: string;
  color: string;
  icon: string | null;
  env: SubflowEnvEntry[];
  nodes: FlowNode[];
  connections: Connection[];
  groups: FlowGroup[];
}

/** The ids our port nodes get in a definition imported from Node-RED (whose ports have none). */
export const portNodeIds = (subflowId: string) => ({
  in: `${subflowId}-in`,
  out: (port: number) => `${subflowId}-out${port}`,
  status: `${subflowId}-status`,
});

/**
 * A definition as Node-RED writes it: the `subflow` node (its in, out and status ports with their
 * positions and wires, env, category, color, info, icon), then its groups and nodes (z = its id).
 * A wire from the input straight to an output is Node-RED's `{id: <subflow id>, port: 0}`.
 */
export function subflowToNodeRed(registry: NodeRegistry, def: DefinitionGraph, portsOf: (node: FlowNode) => number): NrNode[] {
  const byId = new Map(def.nodes.map((n) => [n.id, n]));
  const input = def.nodes.find((n) => n.type === SUBFLOW_IN_TYPE);
  const outputs = def.nodes.filter((n) => n.type === SUBFLOW_OUT_TYPE).sort((a, b) => Number(a.config.port) - Number(b.config.port));
  const status = def.nodes.find((n) => n.type === SUBFLOW_STATUS_TYPE);
  const source = (c: Connection) => (byId.get(c.source)?.type === SUBFLOW_IN_TYPE ? { id: def.id, port: 0 } : { id: c.source, port: c.source_port });
  const into = (port: FlowNode) => def.connections.filter((c) => c.target === port.id).map(source);
  const definition: NrNode = {
    id: def.id,
    type: "subflow",
    name: def.name,
    info: def.description,
    category: def.category,
    in: input ? [{ x: input.position.x, y: input.position.y, wires: def.connections.filter((c) => c.source === input.id && byId.get(c.target)?.type !== SUBFLOW_OUT_TYPE && byId.get(c.target)?.type !== SUBFLOW_STATUS_TYPE).map((c) => ({ id: c.target })) }] : [],
    out: outputs.map((o) => ({ x: o.position.x, y: o.position.y, wires: into(o) })),
    env: def.env,
    meta: {},
    color: def.color,
    ...(def.icon ? { icon: def.icon } : {}),
    ...(status ? { status: { x: status.position.x, y: status.position.y, wires: into(status) } } : {}),
  };
  return [definition, ...canvasToNodeRed(registry, def.id, def, portsOf)];
}

/**
 * A Node-RED `subflow` and the nodes and groups inside it (z = its id) → a definition's fields:
 * its ports become subflow-in / subflow-out / subflow-status nodes at the ports' positions, wired
 * as the ports were. `newId` renames inner ids that are not valid here; `subflows` maps the
 * instances inside it to definitions (nested subflows).
 */
export function subflowFromNodeRed(
  registry: NodeRegistry,
  item: NrNode,
  ourId: string,
  inner: NrNode[],
  innerGroups: NrNode[],
  newId: (id: string) => string,
  subflows: ReadonlyMap<string, string>,
  warnings: string[],
  report: ImportReportEntry[],
) {
  const nrId = String(item.id);
  const graph = convertNodeRedNodes(registry, inner, newId, warnings, report, subflows);
  const ports = portNodeIds(ourId);
  const local = new Set(graph.nodes.map((n) => n.id));
  const at = (p: unknown) => {
    const o = (p ?? {}) as { x?: unknown; y?: unknown };
    return { x: Number(o.x ?? 0) || 0, y: Number(o.y ?? 0) || 0 };
  };
  const nodes: FlowNode[] = [];
  const connections: Connection[] = [...graph.connections];
  // A wire named by the ports: `{id}` (into a node) or `{id, port}` (out of a node, or of the input when id is the subflow's).
  const sourceOf = (w: { id?: unknown; port?: unknown }) => {
    const id = String(w.id);
    if (id === nrId) return { source: ports.in, source_port: 0 };
    const source = newId(id);
    return local.has(source) ? { source, source_port: Number(w.port ?? 0) || 0 } : null;
  };
  const wiresOf = (p: unknown) => (Array.isArray((p as { wires?: unknown })?.wires) ? ((p as { wires: unknown[] }).wires as Array<{ id?: unknown; port?: unknown }>) : []);
  const inputs = Array.isArray(item.in) ? item.in : [];
  if (inputs.length > 0) {
    nodes.push({ id: ports.in, type: SUBFLOW_IN_TYPE, name: "", position: at(inputs[0]), config: {}, disabled: false });
    for (const w of wiresOf(inputs[0])) {
      const target = newId(String(w.id));
      if (local.has(target)) connections.push({ source: ports.in, source_port: 0, target });
    }
  }
  (Array.isArray(item.out) ? item.out : []).forEach((out, port) => {
    nodes.push({ id: ports.out(port), type: SUBFLOW_OUT_TYPE, name: "", position: at(out), config: { port }, disabled: false });
    for (const w of wiresOf(out)) {
      const from = sourceOf(w);
      if (from) connections.push({ ...from, target: ports.out(port) });
    }
  });
  if (item.status && typeof item.status === "object") {
    nodes.push({ id: ports.status, type: SUBFLOW_STATUS_TYPE, name: "", position: at(item.status), config: {}, disabled: false });
    for (const w of wiresOf(item.status)) {
      const from = sourceOf(w);
      if (from) connections.push({ ...from, target: ports.status });
    }
  }
  const allNodes = [...nodes, ...graph.nodes];
  const groups = groupsFromNodeRed(innerGroups, newId, new Set(allNodes.map((n) => n.id)), warnings);
  for (const g of innerGroups) report.push({ node_id: String(g.id), type: "group", support: "supported" });
  report.push({ node_id: nrId, type: "subflow", support: "supported" });
  return {
    id: ourId,
    name: (typeof item.name === "string" && item.name.trim()) || "Subflow",
    description: typeof item.info === "string" ? item.info.slice(0, 10_000) : "",
    ...(typeof item.category === "string" && item.category.trim() ? { category: item.category } : {}),
    ...(typeof item.color === "string" && /^#[0-9A-Fa-f]{6}$/.test(item.color) ? { color: item.color } : {}),
    ...(typeof item.icon === "string" && item.icon ? { icon: item.icon } : {}),
    env: Array.isArray(item.env) ? item.env.map(envEntryFromNodeRed) : [],
    nodes: allNodes,
    connections,
    groups,
  };
}
