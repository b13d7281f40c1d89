import { describe, expect, it } from "vitest";
import type { EditorFlow } from "../model";
import { snapshotOf, toFlowGraph } from "./graph-model";

const flow = {
  id: "f1",
  name: "F",
  revision: 3,
  nodes: [
    { id: "a", type: "inject", name: "", position: { x: 0, y: 0 }, config: {}, disabled: false },
    { id: "b", type: "debug", name: "out", position: { x: 200.4, y: 10 }, config: {}, disabled: false },
  ],
  connections: [{ source: "a", source_port: 0, target: "b" }],
} as unknown as EditorFlow;

describe("the editor's graph model", () => {
  it("round-trips nodes and connections to the graph a save sends", () => {
    const s = snapshotOf(flow, new Map());
    expect(s.groups).toEqual([]);
    const g = toFlowGraph(s);
    expect(g.connections).toEqual([{ source: "a", source_port: 0, target: "b" }]);
    expect(g.nodes.map((n) => [n.id, n.position])).toEqual([
      ["a", { x: 0, y: 0 }],
      ["b", { x: 200, y: 10 }],
    ]);
  });

  it("carries a flow's groups into the snapshot and into what a save sends, without deleted members", () => {
    const group = { id: "g1", name: "G", style: {}, nodes: ["a", "b"], env: [] };
    const s = snapshotOf({ ...flow, groups: [group] } as unknown as EditorFlow, new Map());
    expect(s.groups).toEqual([group]);
    expect(toFlowGraph(s).groups).toEqual([group]);
    expect(toFlowGraph({ ...s, nodes: s.nodes.filter((n) => n.id !== "b") }).groups).toEqual([{ ...group, nodes: ["a"] }]);
    expect(toFlowGraph({ ...s, nodes: [] }).groups).toEqual([]);
  });
});
