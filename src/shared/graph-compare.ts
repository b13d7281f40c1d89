import type { Connection, FlowGraph, FlowNode } from "./flow-graph";

/** JSON with object keys sorted, so two equal values always print the same. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** What a node is, without where it sits on the canvas (its description and appearance count, as in Node-RED). */
export function nodeContent(node: FlowNode): string {
  return stableJson({ type: node.type, name: node.name, config: node.config, disabled: node.disabled, description: node.description || undefined, appearance: node.appearance });
}

export const connectionKey = (c: Connection) => `${c.source}:${c.source_port}->${c.target}`;

/** Each node's outgoing wires, as one comparable string per node id. */
export function wiresByNode(graph: FlowGraph): Map<string, string> {
  const out = new Map<string, string[]>();
  for (const c of graph.connections) {
    const list = out.get(c.source) ?? [];
    list.push(`${c.source_port}->${c.target}`);
    out.set(c.source, list);
  }
  return new Map([...out].map(([id, list]) => [id, list.sort().join(",")]));
}
