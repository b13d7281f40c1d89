import type { FlowGraph } from "./flow-graph";
import { subflowIdOfType, type SubflowSnapshot } from "./subflows";

/** A deployed graph with the subflow definitions (SPEC §16) and configuration nodes (SPEC §19) it carries. */
type DeployedGraph = FlowGraph & {
  subflows?: Record<string, Pick<SubflowSnapshot, "revision" | "nodes">>;
  config_nodes?: Record<string, { revision: number; config: Record<string, unknown> }>;
};

/**
 * The revisions of the configuration nodes a config names, and those they name in turn. A
 * reference is a top-level property holding the id of a configuration node the deployment
 * carries (the snapshot carries exactly the ones its nodes name, so no schema is needed here).
 */
function configRevisions(graph: DeployedGraph | null, other: DeployedGraph | null, configs: Array<Record<string, unknown>>): string {
  const known = (id: string) => !!graph?.config_nodes?.[id] || !!other?.config_nodes?.[id];
  const seen = new Map<string, number | null>();
  const visit = (config: Record<string, unknown>) => {
    for (const value of Object.values(config)) {
      if (typeof value !== "string" || value === "" || seen.has(value) || !known(value)) continue;
      const c = graph?.config_nodes?.[value];
      seen.set(value, c?.revision ?? null);
      if (c) visit(c.config);
    }
  };
  for (const config of configs) visit(config);
  return JSON.stringify([...seen].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The configs whose configuration nodes a node runs with: its own, and for an instance those of the definitions under it. */
function configsOf(graph: DeployedGraph | null, node: { type: string; config: Record<string, unknown> }): Array<Record<string, unknown>> {
  const out = [node.config];
  const seen = new Set<string>();
  const visit = (sid: string) => {
    if (seen.has(sid)) return;
    seen.add(sid);
    for (const n of graph?.subflows?.[sid]?.nodes ?? []) {
      out.push(n.config);
      const inner = subflowIdOfType(n.type);
      if (inner) visit(inner);
    }
  };
  const id = subflowIdOfType(node.type);
  if (id) visit(id);
  return out;
}

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
 * counts rewiring), a subflow instance when the definitions it runs changed revision, and a node
 * when a configuration node it uses (directly, through another, or inside its definition) changed
 * revision; moving it on the canvas changes nothing that runs. The first deployment adds every node.
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
  const configChanged = (old: DeployedGraph["nodes"][number], node: DeployedGraph["nodes"][number]) =>
    !!(previous?.config_nodes || current.config_nodes) && configRevisions(previous, current, configsOf(previous, old)) !== configRevisions(current, previous, configsOf(current, node));
  const seen = new Set<string>();
  for (const node of current.nodes) {
    seen.add(node.id);
    const old = before.get(node.id);
    if (!old) changes.added.push(ref(node));
    else if (nodeContent(old) !== nodeContent(node) || (wiresBefore.get(node.id) ?? "") !== (wiresNow.get(node.id) ?? "") || definitionChanged(node.type) || configChanged(old, node)) changes.changed.push(ref(node));
  }
  for (const node of previous?.nodes ?? []) if (!seen.has(node.id)) changes.removed.push(ref(node));
  return changes;
}
