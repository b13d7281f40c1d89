import { applyNodeChanges, type NodeChange } from "@xyflow/react";
import type { EditorNode } from "../model";
import type { Snapshot } from "../graph/graph-model";

/**
 * What one `onNodesChange` call means for the editor's graph (the hook applies it):
 * - `drag`: a pointer move of a drag; the graph before the drag is `dragStart` (kept by the hook
 *   until the drop); the moves skip React (graphRef and React Flow's store only).
 * - `drop`: the end of a pointer drag; one undo entry from `before` when something moved.
 * - `key-move`: the selected nodes moved by an arrow key (React Flow sends a position change with
 *   `dragging: false` and no drag before it): an edit, so one undo entry (a burst of presses is one,
 *   see `continuesKeyMove`) and the flow is unsaved.
 * - `set`: selection, dimensions and the like: the graph changes, nothing to undo.
 */
export type NodeChangePlan =
  | { kind: "ignore" }
  | { kind: "drag"; next: Snapshot; dragStart: Snapshot }
  | { kind: "drop"; next: Snapshot; before: Snapshot; moved: boolean }
  | { kind: "key-move"; next: Snapshot; moved: string[] }
  | { kind: "set"; next: Snapshot; dragStart: Snapshot | null };

export function planNodeChanges(current: Snapshot, changes: NodeChange<EditorNode>[], { readOnly, dragStart }: { readOnly: boolean; dragStart: Snapshot | null }): NodeChangePlan {
  const relevant = readOnly ? changes.filter((c) => c.type === "select" || c.type === "dimensions") : changes.filter((c) => c.type !== "remove");
  if (relevant.length === 0) return { kind: "ignore" };
  const nextNodes = applyNodeChanges(relevant, current.nodes);
  const next = { ...current, nodes: nextNodes };
  const positions = relevant.filter((c) => c.type === "position");
  const dragging = positions.some((c) => c.dragging);
  const released = positions.some((c) => c.dragging === false);
  if (dragging && relevant.every((c) => c.type === "position")) return { kind: "drag", next, dragStart: dragStart ?? current };
  if (released && dragStart) return { kind: "drop", next, before: dragStart, moved: movedIds(dragStart.nodes, nextNodes).length > 0 };
  if (released && !dragging) {
    // No drag started: the arrow keys moved the selection.
    const moved = movedIds(current.nodes, nextNodes);
    if (moved.length > 0) return { kind: "key-move", next, moved };
  }
  return { kind: "set", next, dragStart: dragging ? (dragStart ?? current) : dragStart };
}

function movedIds(before: EditorNode[], after: EditorNode[]): string[] {
  const was = new Map(before.map((n) => [n.id, n.position]));
  return after.filter((n) => {
    const p = was.get(n.id);
    return p && (p.x !== n.position.x || p.y !== n.position.y);
  }).map((n) => n.id);
}

/** The last keyboard move's undo entry: which nodes it moved, when, and the entry's id in the history. */
export interface KeyMoveBurst {
  entry: number;
  ids: string;
  at: number;
}

/** Presses of arrow keys closer together than this (a held key repeats every ~30 ms) are one undo entry. */
export const KEY_MOVE_BURST_MS = 1000;

/**
 * Whether a keyboard move may continue the last one's undo entry: the same nodes, soon after. (The
 * history amends that entry only while it is still the newest one: nothing done or undone since.)
 */
export function continuesKeyMove(last: KeyMoveBurst | null, moved: string[], now: number): last is KeyMoveBurst {
  return !!last && last.ids === keyOf(moved) && now - last.at < KEY_MOVE_BURST_MS;
}

export const keyOf = (ids: string[]) => [...ids].sort().join("\n");
