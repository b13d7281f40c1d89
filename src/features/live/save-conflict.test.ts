import { describe, expect, it } from "vitest";
import type { FlowNode } from "@/shared/flow-graph";
import type { Resolutions } from "@/shared/graph-merge";
import { allChosen, describeChange, mergedGraph, planAfterConflict, withChoice } from "./save-conflict";

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

describe("the merge dialog's choices", () => {
  const ids = ["constructor", "__proto__", "toString", "hasOwnProperty"];
  const base = { nodes: ids.map((id) => node(id)), connections: [] };
  const mine = { nodes: ids.map((id) => node(id, "mine")), connections: [] };
  const theirs = { nodes: ids.map((id) => node(id, "theirs")), connections: [], revision: 4 };

  it("asks about nodes whose ids are Object.prototype's names, and saves nothing until each has a choice", () => {
    const plan = planAfterConflict(base, mine, theirs);
    expect(plan.kind).toBe("ask");
    expect(plan.merge.unresolved).toEqual(ids);
    let choices: Resolutions = new Map();
    for (const id of ids) {
      expect(allChosen(plan.merge.conflicts, choices)).toBe(false);
      expect(mergedGraph(plan, choices)).toBeNull();
      choices = withChoice(choices, id, id === "toString" ? "theirs" : "mine");
    }
    expect(allChosen(plan.merge.conflicts, choices)).toBe(true);
    expect(mergedGraph(plan, choices)!.nodes.map((n) => [n.id, n.name])).toEqual([
      ["constructor", "mine"],
      ["__proto__", "mine"],
      ["toString", "theirs"],
      ["hasOwnProperty", "mine"],
    ]);
  });

  it("withChoice leaves the previous choices as they were", () => {
    const before: Resolutions = new Map([["a", "mine"]]);
    const after = withChoice(before, "__proto__", "theirs");
    expect([...before]).toEqual([["a", "mine"]]);
    expect([...after]).toEqual([
      ["a", "mine"],
      ["__proto__", "theirs"],
    ]);
  });

  it("describes config changes by the node's own keys only", () => {
    const at = (config: Record<string, unknown>): FlowNode => ({ ...node("n"), config });
    expect(describeChange(at({}), at({ constructor: 1 }))).toBe("changed constructor");
    expect(describeChange(at({ toString: 1 }), at({}))).toBe("changed toString");
    // An own "__proto__" key (as JSON.parse makes it) holding {} is not Object.prototype.
    expect(describeChange(at({}), at(JSON.parse('{"__proto__": {}}') as Record<string, unknown>))).toBe("changed __proto__");
    expect(describeChange(at({ valueOf: 2 }), at({ valueOf: 2 }))).toBe("moved it");
    expect(describeChange(at({}), null)).toBe("deleted it");
  });

  it("says a changed description or appearance, not a move", () => {
    const base: FlowNode = { ...node("n"), description: "A" };
    expect(describeChange(base, { ...base, description: "B" })).toBe("changed the description");
    expect(describeChange(base, { ...node("n") })).toBe("removed the description");
    expect(describeChange(base, { ...base, appearance: { output_labels: ["ok"] } })).toBe("changed the appearance");
    expect(describeChange(base, { ...base, position: { x: 5, y: 5 } })).toBe("moved it");
  });
});
