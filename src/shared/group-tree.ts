import type { FlowGroup } from "./subflows";

/**
 * Pure operations on a graph's groups (SPEC §16), shared by the editor and the merge: a group's
 * members are node ids and group ids; a node or group is in at most one group.
 */

/** Drops members that are neither a present node nor a present group, then groups left empty (repeated: an emptied group empties its parent). */
export function pruneGroups(groups: FlowGroup[], nodeIds: ReadonlySet<string>): FlowGroup[] {
  let current = groups;
  for (;;) {
    const groupIds = new Set(current.map((g) => g.id));
    const seen = new Set<string>();
    const next: FlowGroup[] = [];
    for (const g of current) {
      const nodes = g.nodes.filter((m) => (nodeIds.has(m) || (groupIds.has(m) && m !== g.id)) && !seen.has(m));
      for (const m of nodes) seen.add(m);
      if (nodes.length > 0) next.push(nodes.length === g.nodes.length ? g : { ...g, nodes });
    }
    if (next.length === current.length && next.every((g, i) => g === current[i])) return current;
    current = next;
  }
}

/** The group each member (node or group) belongs to. */
export function parentOf(groups: FlowGroup[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const g of groups) for (const id of g.nodes) m.set(id, g.id);
  return m;
}

/** The node ids inside a group, at any depth. */
export function nodesInGroup(groups: FlowGroup[], groupId: string): string[] {
  const byId = new Map(groups.map((g) => [g.id, g]));
  const out: string[] = [];
  const seen = new Set<string>();
  const walk = (id: string) => {
    if (seen.has(id)) return;
    seen.add(id);
    const g = byId.get(id);
    if (!g) return;
    for (const m of g.nodes) if (byId.has(m)) walk(m);
    else out.push(m);
  };
  walk(groupId);
  return out;
}

/** Node-RED's default group style. */
export const DEFAULT_GROUP_STYLE = { stroke: "#999999", "stroke-opacity": 1, fill: "#e3f3d3", "fill-opacity": 0.5, label: true, "label-position": "nw", color: "#3f3f3f" } as const;

/**
 * A new group around `selectedNodes` (and the groups whose nodes are all selected, which become its
 * members): members are taken out of their old groups. The new group sits in the group all its
 * members shared, if they shared one.
 */
export function groupSelection(groups: FlowGroup[], selectedNodes: ReadonlySet<string>, id: string, name = ""): FlowGroup[] | null {
  if (selectedNodes.size === 0) return null;
  const parent = parentOf(groups);
  const whole = new Set(groups.filter((g) => { const inner = nodesInGroup(groups, g.id); return inner.length > 0 && inner.every((n) => selectedNodes.has(n)); }).map((g) => g.id));
  // The outermost wholly selected groups, and selected nodes outside them.
  const topOf = (mid: string): string => {
    let top = mid;
    for (let p = parent.get(top); p && whole.has(p); p = parent.get(top)) top = p;
    return top;
  };
  const members = [...new Set([...selectedNodes].map((n) => topOf(n)))];
  const parents = new Set(members.map((m) => parent.get(m) ?? null));
  const shared = parents.size === 1 ? [...parents][0]! : null;
  const taken = new Set(members);
  const next = groups.map((g) => (g.nodes.some((m) => taken.has(m)) ? { ...g, nodes: g.nodes.filter((m) => !taken.has(m)) } : g));
  const group: FlowGroup = { id, name, style: { ...DEFAULT_GROUP_STYLE }, nodes: members, env: [] };
  const placed = shared ? next.map((g) => (g.id === shared ? { ...g, nodes: [...g.nodes, id] } : g)) : next;
  return pruneGroups([...placed, group], new Set([...selectedNodes, ...allNodeMembers(groups)]));
}

function allNodeMembers(groups: FlowGroup[]): string[] {
  const ids = new Set(groups.map((g) => g.id));
  return groups.flatMap((g) => g.nodes.filter((m) => !ids.has(m)));
}

/** Removes the groups; their members go to each group's parent (or to no group). */
export function ungroup(groups: FlowGroup[], groupIds: ReadonlySet<string>): FlowGroup[] {
  const byId = new Map(groups.map((g) => [g.id, g]));
  const expand = (members: string[]): string[] => members.flatMap((m) => (groupIds.has(m) ? expand(byId.get(m)?.nodes ?? []) : [m]));
  return groups.filter((g) => !groupIds.has(g.id)).map((g) => (g.nodes.some((m) => groupIds.has(m)) ? { ...g, nodes: expand(g.nodes) } : g));
}
