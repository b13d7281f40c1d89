import type { FlowGraph } from "./flow-graph";
import { nodeContent, wiresByNode } from "./graph-compare";

export interface NodeRef {
  id: string;
  type: string;
  name: string;
}

export interface DeploymentChanges {
  added: NodeRef[];
  changed: NodeRef[];
  removed: NodeRef[];
}

const ref = (n: { id: string; type: string; name: string }): NodeRef => ({ id: n.id, type: n.type, name: n.name });

/**
 * What a deployment changed against the one before it, in the runtime's terms: a node is changed
 * when its type, name, config, disabled flag or outgoing wires differ (as Node-RED's deploy diff
 * counts rewiring); moving it on the canvas changes nothing that runs. The first deployment adds
 * every node.
 */
export function diffDeployments(previous: FlowGraph | null, current: FlowGraph): DeploymentChanges {
  const before = new Map((previous?.nodes ?? []).map((n) => [n.id, n]));
  const wiresBefore = previous ? wiresByNode(previous) : new Map<string, string>();
  const wiresNow = wiresByNode(current);
  const changes: DeploymentChanges = { added: [], changed: [], removed: [] };
  const seen = new Set<string>();
  for (const node of current.nodes) {
    seen.add(node.id);
    const old = before.get(node.id);
    if (!old) changes.added.push(ref(node));
    else if (nodeContent(old) !== nodeContent(node) || (wiresBefore.get(node.id) ?? "") !== (wiresNow.get(node.id) ?? "")) changes.changed.push(ref(node));
  }
  for (const node of previous?.nodes ?? []) if (!seen.has(node.id)) changes.removed.push(ref(node));
  return changes;
}
