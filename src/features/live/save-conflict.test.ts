import { describe, expect, it } from "vitest";
import type { FlowNode } from "@/shared/flow-graph";
import { planAfterConflict } from "./save-conflict";

const node = (id: string, name = ""): FlowNode => ({ id, type: "debug", name, position: { x: 0, y: 0 }, config: {}, disabled: false });

describe("planAfterConflict", () => {
  const base = { nodes: [node("a"), node("b")], connections: [] };
  it("saves the merge at their revision when no node changed on both sides", () => {
    const plan = planAfterConflict(base, { nodes: [node("a", "mine"), node("b")], connections: [] }, { nodes: [node("a"), node("b", "theirs"), node("c")], connections: [], revision: 7 });
    expect(plan).toMatchObject({ kind: "save", revision: 7, theirChanges: 2 });
    expect(plan.kind === "save" && plan.graph.nodes.map((n) => n.name)).toEqual(["mine", "theirs", ""]);
  });

  it("asks when the same node changed on both sides", () => {
    const plan = planAfterConflict(base, { nodes: [node("a", "mine"), node("b")], connections: [] }, { nodes: [node("a", "theirs"), node("b", "x")], connections: [], revision: 3 });
    expect(plan).toMatchObject({ kind: "ask", revision: 3, theirChanges: 1 });
    expect(plan.merge.conflicts.map((c) => c.id)).toEqual(["a"]);
  });
});
