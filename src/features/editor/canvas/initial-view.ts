import type { FitViewOptions } from "@xyflow/react";
import type { EditorNode } from "../model";

/**
 * Where the canvas first looks. A flow opened with nodes fits them (a big one opens on its top-left
 * corner at a readable zoom: only what is visible is drawn). A flow opened empty does not fit at
 * all: React Flow keeps a `fitView` queued until it has nodes, so the first node dropped would
 * re-centre the view and jump away from where it was dropped.
 */
export function initialViewOf(initialNodes: EditorNode[]): { fitView: boolean; fitViewOptions?: FitViewOptions<EditorNode> } {
  if (initialNodes.length === 0) return { fitView: false };
  if (initialNodes.length <= 150) return { fitView: true, fitViewOptions: { maxZoom: 1, padding: 0.15 } };
  const corner = [...initialNodes].sort((a, b) => a.position.y + a.position.x / 4 - (b.position.y + b.position.x / 4)).slice(0, 40);
  return { fitView: true, fitViewOptions: { maxZoom: 1, minZoom: 0.5, padding: 0.1, nodes: corner.map((n) => ({ id: n.id })) } };
}
