import type { FlowGraph } from "@/shared/flow-graph";
import { mergeGraphs, type MergeResult } from "@/shared/graph-merge";

/** What Merge does after a save answered 409: save the merge as it is, or ask about the overlaps first. */
export type ConflictPlan = ({ kind: "save"; graph: FlowGraph } | { kind: "ask"; base: FlowGraph; mine: FlowGraph; theirs: FlowGraph }) & {
  revision: number;
  merge: MergeResult;
  /** How many nodes they changed that merge without a question. */
  theirChanges: number;
}

/** `theirs` is the server's flow now (its graph and revision). */
export function planAfterConflict(base: FlowGraph, mine: FlowGraph, theirs: FlowGraph & { revision: number }): ConflictPlan {
  const theirsGraph = { nodes: theirs.nodes, connections: theirs.connections };
  const merge = mergeGraphs(base, mine, theirsGraph);
  const theirChanges = theirChangesMerged(base, theirsGraph, merge.conflicts.map((c) => c.id));
  if (merge.conflicts.length === 0) return { kind: "save", graph: merge.graph, revision: theirs.revision, merge, theirChanges };
  return { kind: "ask", revision: theirs.revision, merge, base, mine, theirs: theirsGraph, theirChanges };
}

/** How many of their node changes came along without asking (for the dialog's sentence). */
export function theirChangesMerged(base: FlowGraph, theirs: FlowGraph, conflicts: string[]): number {
  const b = new Map(base.nodes.map((n) => [n.id, JSON.stringify(n)]));
  const t = new Map(theirs.nodes.map((n) => [n.id, JSON.stringify(n)]));
  let count = 0;
  for (const id of new Set([...b.keys(), ...t.keys()])) if (!conflicts.includes(id) && b.get(id) !== t.get(id)) count++;
  return count;
}
