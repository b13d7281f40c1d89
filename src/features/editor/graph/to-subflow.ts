import type { Connection, FlowNode } from "@/shared/flow-graph";
import { SUBFLOW_IN_TYPE, SUBFLOW_OUT_TYPE } from "@/shared/subflows";

export interface SubflowConversion {
  /** The new definition's graph (fresh node ids, port nodes added). */
  definition: { nodes: FlowNode[]; connections: Connection[] };
  /** Where the instance goes: the middle of the selection. */
  position: { x: number; y: number };
  /** Wires into the instance (port 0 is its input) and out of it, by output port. */
  inputs: Array<{ source: string; source_port: number }>;
  outputs: Array<Array<{ target: string }>>;
}

/**
 * "Selection to subflow" (SPEC §16), as Node-RED's convertToSubflow: the selected nodes move into
 * a new definition; wires inside the selection stay inside; wires entering it become the
 * instance's one input (refused when they enter more than one node, as Node-RED does); each
 * distinct output port a wire leaves by becomes one output of the instance, wired as before.
 * Node ids inside the definition are new (the flow still holds the old ones until it is saved).
 */
export function convertToSubflow(nodes: FlowNode[], connections: Connection[], selected: ReadonlySet<string>, newId: () => string): SubflowConversion | { error: string } {
  const inner = nodes.filter((n) => selected.has(n.id));
  if (inner.length === 0) return { error: "Select the nodes to turn into a subflow first." };
  const incoming = connections.filter((c) => !selected.has(c.source) && selected.has(c.target));
  const outgoing = connections.filter((c) => selected.has(c.source) && !selected.has(c.target));
  const entered = new Set(incoming.map((c) => c.target));
  if (entered.size > 1) return { error: "Cannot create a subflow: wires enter the selection at more than one node (a subflow has one input)." };

  const ids = new Map(inner.map((n) => [n.id, newId()]));
  const minX = Math.min(...inner.map((n) => n.position.x));
  const minY = Math.min(...inner.map((n) => n.position.y));
  const maxX = Math.max(...inner.map((n) => n.position.x));
  const maxY = Math.max(...inner.map((n) => n.position.y));
  const shift = { x: 240 - minX, y: 60 - minY };
  const defNodes: FlowNode[] = inner.map((n) => ({ ...n, id: ids.get(n.id)!, position: { x: n.position.x + shift.x, y: n.position.y + shift.y } }));
  const defConnections: Connection[] = connections.filter((c) => selected.has(c.source) && selected.has(c.target)).map((c) => ({ ...c, source: ids.get(c.source)!, target: ids.get(c.target)! }));

  if (entered.size === 1) {
    const inId = newId();
    const target = [...entered][0]!;
    const t = inner.find((n) => n.id === target)!;
    defNodes.push({ id: inId, type: SUBFLOW_IN_TYPE, name: "", position: { x: 40, y: t.position.y + shift.y }, config: {}, disabled: false });
    defConnections.push({ source: inId, source_port: 0, target: ids.get(target)! });
  }
  const ports = [...new Map(outgoing.map((c) => [`${c.source}:${c.source_port}`, { source: c.source, source_port: c.source_port }])).values()];
  ports.forEach((p, i) => {
    const outId = newId();
    const s = inner.find((n) => n.id === p.source)!;
    defNodes.push({ id: outId, type: SUBFLOW_OUT_TYPE, name: "", position: { x: maxX + shift.x + 260, y: s.position.y + shift.y + i * 10 }, config: { port: i }, disabled: false });
    defConnections.push({ source: ids.get(p.source)!, source_port: p.source_port, target: outId });
  });

  return {
    definition: { nodes: defNodes, connections: defConnections },
    position: { x: Math.round((minX + maxX) / 2), y: Math.round((minY + maxY) / 2) },
    inputs: incoming.map((c) => ({ source: c.source, source_port: c.source_port })),
    outputs: ports.map((p) => outgoing.filter((c) => c.source === p.source && c.source_port === p.source_port).map((c) => ({ target: c.target }))),
  };
}
