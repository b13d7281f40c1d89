import { describe, expect, it } from "vitest";
import type { FlowGraph, FlowNode } from "./flow-graph";
import { diffDeployments } from "./deployment-diff";

const node = (id: string, over: Partial<FlowNode> = {}): FlowNode => ({ id, type: "inject", name: id.toUpperCase(), position: { x: 0, y: 0 }, config: {}, disabled: false, ...over });
const graph = (nodes: FlowNode[], wires: Array<[string, string, number?]> = []): FlowGraph => ({ nodes, connections: wires.map(([source, target, port]) => ({ source, source_port: port ?? 0, target })) });

describe("diffDeployments", () => {
  it("counts every node of the first deployment as added", () => {
    expect(diffDeployments(null, graph([node("a"), node("b")]))).toEqual({ added: [{ id: "a", type: "inject", name: "A" }, { id: "b", type: "inject", name: "B" }], changed: [], removed: [] });
  });

  it("finds added, changed and removed nodes, by id", () => {
    const before = graph([node("a"), node("b"), node("c")]);
    const after = graph([node("a"), node("b", { config: { payload: "2" } }), node("d", { type: "debug" })]);
    expect(diffDeployments(before, after)).toEqual({
      added: [{ id: "d", type: "debug", name: "D" }],
      changed: [{ id: "b", type: "inject", name: "B" }],
      removed: [{ id: "c", type: "inject", name: "C" }],
    });
  });

  it("counts rewiring, renaming and disabling as changes, moving and key order not", () => {
    const before = graph([node("a"), node("b"), node("c", { config: { x: 1, y: 2 } })], [["a", "b"]]);
    expect(diffDeployments(before, graph([node("a"), node("b"), node("c", { config: { x: 1, y: 2 } })], [["a", "b", 1]])).changed.map((n) => n.id)).toEqual(["a"]);
    expect(diffDeployments(before, graph([node("a"), node("b", { name: "renamed" }), node("c", { disabled: true, config: { x: 1, y: 2 } })], [["a", "b"]])).changed.map((n) => n.id)).toEqual(["b", "c"]);
    expect(diffDeployments(before, graph([node("a", { position: { x: 50, y: 9 } }), node("b"), node("c", { config: { y: 2, x: 1 } })], [["a", "b"]]))).toEqual({ added: [], changed: [], removed: [] });
  });
});
