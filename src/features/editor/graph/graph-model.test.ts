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

  it("drops a wire into a node whose configuration closed its input (an mqtt in without dynamic subscription), and only that", () => {
    const entry = (type: string, inputs_rule: unknown) => [type, { type, inputs: 0, inputs_rule, outputs: 1, outputs_rule: 1, defaults: {} }] as const;
    const catalog = new Map([entry("inject", 0), entry("mqtt-in", { value_of: "inputs" })]) as unknown as Parameters<typeof snapshotOf>[1];
    const withMqtt = {
      ...flow,
      nodes: [...flow.nodes, { id: "m", type: "mqtt-in", name: "", position: { x: 0, y: 50 }, config: { inputs: 0 }, disabled: false }, { id: "d", type: "mqtt-in", name: "", position: { x: 0, y: 90 }, config: { inputs: 1 }, disabled: false }],
      connections: [...flow.connections, { source: "a", source_port: 0, target: "m" }, { source: "a", source_port: 0, target: "d" }],
    } as unknown as EditorFlow;
    // debug is not in this catalog: its wire stays, as every wire into a type the editor does not know.
    expect(toFlowGraph(snapshotOf(withMqtt, catalog)).connections.map((c) => c.target)).toEqual(["b", "d"]);
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
