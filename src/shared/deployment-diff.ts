import type { FlowGraph } from "./flow-graph";
import { subflowIdOfType, type SubflowSnapshot } from "./subflows";

/** A deployed graph with the subflow definitions it carries (SPEC §16). */
type DeployedGraph = FlowGraph & { subflows?: Record<string, Pick<SubflowSnapshot, "revision" | "nodes">> };

/** The revisions of the definitions an instance of `id` runs (itself and those nested in it). */
function revisionsUnder(subflows: DeployedGraph["subflows"], id: string): string {
  const seen = new Map<string, number | null>();
  const visit = (sid: string) => {
    if (seen.has(sid)) return;
    const s = subflows?.[sid];
    seen.set(sid, s?.revision ?? null);
    for (const n of s?.nodes ?? []) {
      const inner = subflowIdOfType(n.type);
      if (inner) visit(inner);
    }
  };
  visit(id);
  return JSON.stringify([...seen].sort(([a], [b]) => (a < b ? -1 : 1)));
}
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
 * counts rewiring), and a subflow instance when the definitions it runs changed revision; moving
 * it on the canvas changes nothing that runs. The first deployment adds every node.
 */
export function diffDeployments(previous: DeployedGraph | null, current: DeployedGraph): DeploymentChanges {
  const before = new Map((previous?.nodes ?? []).map((n) => [n.id, n]));
  const wiresBefore = previous ? wiresByNode(previous) : new Map<string, string>();
  const wiresNow = wiresByNode(current);
  const changes: DeploymentChanges = { added: [], changed: [], removed: [] };
  // A subflow instance also changes when a definition it runs (its own or one nested in it) is at another revision.
  const definitionChanged = (type: string) => {
    const id = subflowIdOfType(type);
    return id !== null && revisionsUnder(previous?.subflows, id) !== revisionsUnder(current.subflows, id);
  };
  const seen = new Set<string>();
  for (const node of current.nodes) {
    seen.add(node.id);
    const old = before.get(node.id);
    if (!old) changes.added.push(ref(node));
    else if (nodeContent(old) !== nodeContent(node) || (wiresBefore.get(node.id) ?? "") !== (wiresNow.get(node.id) ?? "") || definitionChanged(node.type)) changes.changed.push(ref(node));
  }
  for (const node of previous?.nodes ?? []) if (!seen.has(node.id)) changes.removed.push(ref(node));
  return changes;
}
