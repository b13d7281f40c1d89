import type { FlowGraph, FlowNode } from "@/shared/flow-graph";
import { stableJson } from "@/shared/graph-compare";
import { mergeGraphs, type MergeResult, type NodeConflict, type Resolution, type Resolutions } from "@/shared/graph-merge";

/** What Merge does after a save answered 409: save the merge as it is, or ask about the overlaps first. */
export type ConflictPlan = ({ kind: "save"; graph: FlowGraph } | { kind: "ask"; base: FlowGraph; mine: FlowGraph; theirs: FlowGraph }) & {
  revision: number;
  merge: MergeResult;
  /** How many nodes they changed that merge without a question. */
  theirChanges: number;
}

/** `theirs` is the server's flow now (its graph and revision). */
export function planAfterConflict(base: FlowGraph, mine: FlowGraph, theirs: FlowGraph & { revision: number }): ConflictPlan {
  const theirsGraph = { nodes: theirs.nodes, connections: theirs.connections, groups: theirs.groups ?? [] };
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

/** The dialog's choices with one more (a new Map: React state is never mutated). */
export function withChoice(choices: Resolutions, id: string, choice: Resolution): Resolutions {
  return new Map(choices).set(id, choice);
}

/** Whether every conflict has a choice (Merge is enabled only then). */
export function allChosen(conflicts: NodeConflict[], choices: Resolutions): boolean {
  return conflicts.every((c) => choices.get(c.id) === "mine" || choices.get(c.id) === "theirs");
}

/** The graph Merge saves, or null while a conflict has no choice: nothing is saved that nobody chose. */
export function mergedGraph(plan: ConflictPlan, choices: Resolutions): FlowGraph | null {
  if (plan.kind === "save") return plan.graph;
  const merged = mergeGraphs(plan.base, plan.mine, plan.theirs, choices);
  return merged.unresolved.length > 0 ? null : merged.graph;
}

/** A config value the node itself holds (config keys are user data: never one from Object.prototype). */
const own = (config: Record<string, unknown>, key: string): unknown => (Object.hasOwn(config, key) ? config[key] : undefined);

/** In words: what one side did to the node, against the version both started from. */
export function describeChange(base: FlowNode | null, side: FlowNode | null): string {
  if (!side) return "deleted it";
  if (!base) return `added it as a ${side.type} node`;
  const parts: string[] = [];
  if (side.type !== base.type) parts.push(`type → ${side.type}`);
  if (side.name !== base.name) parts.push(`name → “${side.name || "(none)"}”`);
  if (side.disabled !== base.disabled) parts.push(side.disabled ? "disabled it" : "enabled it");
  const keys = new Set([...Object.keys(base.config), ...Object.keys(side.config)]);
  const changed = [...keys].filter((k) => Object.hasOwn(base.config, k) !== Object.hasOwn(side.config, k) || stableJson(own(base.config, k)) !== stableJson(own(side.config, k)));
  if (changed.length > 0) parts.push(`changed ${changed.join(", ")}`);
  if ((side.description ?? "") !== (base.description ?? "")) parts.push(side.description ? "changed the description" : "removed the description");
  if (stableJson(side.appearance ?? null) !== stableJson(base.appearance ?? null)) parts.push("changed the appearance");
  return parts.length ? parts.join("; ") : "moved it";
}
