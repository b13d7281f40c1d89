import type { Connection, FlowGraph, FlowNode } from "./flow-graph";
import { connectionKey, nodeContent, stableJson } from "./graph-compare";
import { pruneGroups } from "./group-tree";
import type { FlowGroup } from "./subflows";

/** The same node changed on both sides, differently (a deletion counts as a change). */
export interface NodeConflict {
  id: string;
  base: FlowNode | null;
  mine: FlowNode | null;
  theirs: FlowNode | null;
}

export type Resolution = "mine" | "theirs";

/**
 * The person's choices, by node id. A Map, never a plain object: node ids are user data and
 * `constructor`, `toString` or `__proto__` are valid ids, which an object would answer from its
 * prototype (a conflict "resolved" that nobody was asked about).
 */
export type Resolutions = ReadonlyMap<string, Resolution>;

export interface MergeResult {
  graph: FlowGraph;
  /** Every real overlap, resolved or not. */
  conflicts: NodeConflict[];
  /** Ids of conflicts with no resolution yet; `graph` holds the server's version of those. */
  unresolved: string[];
}

const same = (a: FlowNode | undefined, b: FlowNode | undefined) => (a && b ? nodeContent(a) === nodeContent(b) : a === b);
const samePlace = (a: FlowNode, b: FlowNode) => stableJson(a.position) === stableJson(b.position);

/**
 * Three-way merge after a 409: `base` is the revision the editor loaded, `mine` the editor's graph,
 * `theirs` what the server holds now. Nodes are matched by id. A node changed on one side only takes
 * that side; changed identically on both, either; changed differently on both (or changed on one
 * side and deleted on the other) is a conflict the person resolves (`resolutions`). Where a node sits
 * on the canvas is not worth asking about: when only positions differ, mine wins. Wires merge as a
 * set (a wire either side removed is gone, a wire either side added is there) and wires to nodes
 * that did not survive are dropped.
 */
export function mergeGraphs(base: FlowGraph, mine: FlowGraph, theirs: FlowGraph, resolutions: Resolutions = new Map()): MergeResult {
  const b = new Map(base.nodes.map((n) => [n.id, n]));
  const m = new Map(mine.nodes.map((n) => [n.id, n]));
  const t = new Map(theirs.nodes.map((n) => [n.id, n]));
  const order = [...mine.nodes.map((n) => n.id), ...theirs.nodes.map((n) => n.id).filter((id) => !m.has(id))];
  const conflicts: NodeConflict[] = [];
  const unresolved: string[] = [];
  const nodes: FlowNode[] = [];

  for (const id of new Set([...order, ...b.keys()])) {
    const [bn, mn, tn] = [b.get(id), m.get(id), t.get(id)];
    let result: FlowNode | undefined;
    if (same(mn, bn)) {
      // Mine left it alone (apart from, maybe, moving it): theirs decides what it is.
      result = tn && mn && bn && !samePlace(mn, bn) ? { ...tn, position: mn.position } : tn;
    } else if (same(tn, bn)) {
      result = mn;
    } else if (same(mn, tn)) {
      result = mn;
    } else {
      conflicts.push({ id, base: bn ?? null, mine: mn ?? null, theirs: tn ?? null });
      const choice = resolutions.get(id);
      if (choice !== "mine" && choice !== "theirs") unresolved.push(id);
      result = choice === "mine" ? mn : tn;
    }
    if (result) nodes.push(result);
  }

  const present = new Set(nodes.map((n) => n.id));
  const inBase = new Set(base.connections.map(connectionKey));
  const inMine = new Map(mine.connections.map((c) => [connectionKey(c), c]));
  const inTheirs = new Map(theirs.connections.map((c) => [connectionKey(c), c]));
  const connections: Connection[] = [];
  for (const [key, c] of new Map([...inMine, ...inTheirs])) {
    const keep = (inMine.has(key) && inTheirs.has(key)) || !inBase.has(key);
    if (keep && present.has(c.source) && present.has(c.target)) connections.push(c);
  }
  return { graph: { nodes, connections, groups: mergeGroups(base.groups ?? [], mine.groups ?? [], theirs.groups ?? [], present) }, conflicts, unresolved };
}

/**
 * Groups merge by id like nodes, without asking: a group one side changed takes that side, one
 * changed on both takes mine (a box's name, colour or members are cheap to redo). Members that did
 * not survive the merge are dropped, a node claimed by two groups stays in the first, and groups
 * left empty go.
 */
export function mergeGroups(base: FlowGroup[], mine: FlowGroup[], theirs: FlowGroup[], present: ReadonlySet<string>): FlowGroup[] {
  const key = (g: FlowGroup | undefined) => (g ? stableJson(g) : null);
  const b = new Map(base.map((g) => [g.id, g]));
  const m = new Map(mine.map((g) => [g.id, g]));
  const t = new Map(theirs.map((g) => [g.id, g]));
  const out: FlowGroup[] = [];
  for (const id of new Set([...m.keys(), ...t.keys(), ...b.keys()])) {
    const [bg, mg, tg] = [b.get(id), m.get(id), t.get(id)];
    const result = key(mg) === key(bg) ? tg : mg;
    if (result) out.push(result);
  }
  return pruneGroups(out, present);
}
