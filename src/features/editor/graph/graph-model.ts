import type { FlowGraph } from "@/shared/flow-graph";
import type { FlowGroup } from "@/shared/subflows";
import { pruneGroups } from "@/shared/group-tree";
import { toConnection, toEditorEdge, toEditorNode, toFlowNode, type Catalog, type EditorEdge, type EditorFlow, type EditorNode } from "../model";

/**
 * The editor's graph: what one undo entry holds, what the canvas draws and what a save sends.
 * Besides nodes and edges it carries the graph-level collections (SPEC §16: `groups`); every
 * update spreads the previous snapshot (`{ ...current, nodes }`), so a collection an edit does not
 * touch rides along through undo, redo, save and reload. A new collection is a field here plus its
 * line in `snapshotOf` and `toFlowGraph`.
 */
export interface Snapshot {
  nodes: EditorNode[];
  edges: EditorEdge[];
  /** Groups of the flow (SPEC §16), as the server stores them (members may name deleted nodes until the save prunes them). */
  groups: FlowGroup[];
}

/** A flow from the server (load, reload, merge) as the editor's graph. */
export function snapshotOf(flow: EditorFlow, catalog: Catalog): Snapshot {
  const groups = (flow as EditorFlow & { groups?: FlowGroup[] }).groups ?? [];
  const nodes = flow.nodes.map((n) => toEditorNode(catalog, n));
  // A wire into a node whose configuration closed its input (an mqtt in without dynamic
  // subscription, which had the port always before) has nothing to draw to: it goes with the next
  // save, as Node-RED's editor removes it when the input closes.
  // Only such a node: a type missing from the catalog (not loaded, a device's) keeps every wire.
  const closed = new Set(nodes.filter((n) => n.data.inputs === 0 && typeof catalog.get(n.data.type)?.inputs_rule === "object").map((n) => n.id));
  return { nodes, edges: flow.connections.filter((c) => !closed.has(c.target)).map(toEditorEdge), groups };
}

/**
 * The graph as the server takes it (`flows.update`, `subflows.update`, the base and "mine" of a
 * merge). Groups lose members that were deleted since (a delete leaves `groups` alone, so its undo
 * brings the membership back), and groups left empty.
 */
export function toFlowGraph(g: Snapshot): FlowGraph & { groups: FlowGroup[] } {
  return { nodes: g.nodes.map(toFlowNode), connections: g.edges.map(toConnection), groups: pruneGroups(g.groups, new Set(g.nodes.map((n) => n.id))) };
}

/** The graph-level part of a flow from the server, for the merge base. */
export function flowGraphOf(flow: FlowGraph): FlowGraph & { groups: FlowGroup[] } {
  return { nodes: flow.nodes, connections: flow.connections, groups: flow.groups ?? [] };
}
