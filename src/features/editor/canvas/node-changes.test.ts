import { describe, expect, it } from "vitest";
import type { NodeChange } from "@xyflow/react";
import type { EditorNode } from "../model";
import type { Snapshot } from "../graph/graph-model";
import { continuesKeyMove, KEY_MOVE_BURST_MS, keyOf, planNodeChanges } from "./node-changes";

const node = (id: string, x: number, y: number, selected = false) => ({ id, type: "flow", position: { x, y }, selected, data: {} }) as unknown as EditorNode;
const graph: Snapshot = { nodes: [node("a", 0, 0, true), node("b", 300, 0)], edges: [], groups: [] };
const move = (id: string, x: number, y: number, dragging: boolean | undefined): NodeChange<EditorNode> => ({ id, type: "position", position: { x, y }, dragging });

describe("what a change from React Flow means for the graph", () => {
  it("an arrow key's move (a position change with dragging: false and no drag before it) is an edit", () => {
    const plan = planNodeChanges(graph, [move("a", 5, 0, false)], { readOnly: false, dragStart: null });
    expect(plan.kind).toBe("key-move");
    if (plan.kind !== "key-move") return;
    expect(plan.moved).toEqual(["a"]);
    expect(plan.next.nodes[0]!.position).toEqual({ x: 5, y: 0 });
  });

  it("a pointer drag moves outside React and is one entry at the drop, from the graph at the first move", () => {
    const first = planNodeChanges(graph, [move("a", 10, 10, true)], { readOnly: false, dragStart: null });
    expect(first.kind).toBe("drag");
    if (first.kind !== "drag") return;
    expect(first.dragStart).toBe(graph);
    const second = planNodeChanges(first.next, [move("a", 20, 20, true)], { readOnly: false, dragStart: first.dragStart });
    if (second.kind !== "drag") throw new Error(`a drag's move planned as ${second.kind}`);
    expect(second.dragStart).toBe(graph);
    const drop = planNodeChanges(second.next, [move("a", 20, 20, false)], { readOnly: false, dragStart: graph });
    expect(drop).toMatchObject({ kind: "drop", before: graph, moved: true });
  });

  it("a drag back to where it started records nothing", () => {
    const drop = planNodeChanges(graph, [move("a", 0, 0, false)], { readOnly: false, dragStart: graph });
    expect(drop).toMatchObject({ kind: "drop", moved: false });
  });

  it("selection is not an edit, and a read-only canvas takes no moves", () => {
    expect(planNodeChanges(graph, [{ id: "b", type: "select", selected: true }], { readOnly: false, dragStart: null }).kind).toBe("set");
    expect(planNodeChanges(graph, [move("a", 5, 0, false)], { readOnly: true, dragStart: null }).kind).toBe("ignore");
    expect(planNodeChanges(graph, [move("a", 0, 0, false)], { readOnly: false, dragStart: null }).kind).toBe("set");
  });

  it("arrow presses on the same nodes in quick succession are one undo entry; a pause or other nodes start another", () => {
    const last = { entry: 7, ids: keyOf(["b", "a"]), at: 1_000 };
    expect(continuesKeyMove(null, ["a"], 1_000)).toBe(false);
    expect(continuesKeyMove(last, ["a", "b"], 1_030)).toBe(true);
    expect(continuesKeyMove(last, ["a"], 1_030)).toBe(false);
    expect(continuesKeyMove(last, ["a", "b"], 1_000 + KEY_MOVE_BURST_MS)).toBe(false);
  });
});
