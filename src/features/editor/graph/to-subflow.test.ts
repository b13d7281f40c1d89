import { describe, expect, it } from "vitest";
import type { FlowNode } from "@/shared/flow-graph";
import { convertToSubflow } from "./to-subflow";

const node = (id: string, type: string, x: number, y = 0): FlowNode => ({ id, type, name: "", position: { x, y }, config: {}, disabled: false });

describe("selection to subflow", () => {
  const nodes = [node("a", "inject", 0), node("b", "change", 200), node("c", "function", 400), node("d", "debug", 600), node("e", "debug", 600, 100)];
  const wires = [
    { source: "a", source_port: 0, target: "b" },
    { source: "b", source_port: 0, target: "c" },
    { source: "c", source_port: 0, target: "d" },
    { source: "c", source_port: 0, target: "e" },
  ];
  let n = 0;
  const ids = () => `n${++n}`;

  it("keeps inner wires inside, makes the entering wire the input and each leaving port one output", () => {
    n = 0;
    const r = convertToSubflow(nodes, wires, new Set(["b", "c"]), ids);
    if ("error" in r) throw new Error(r.error);
    const types = r.definition.nodes.map((x) => x.type).sort();
    expect(types).toEqual(["change", "function", "subflow-in", "subflow-out"]);
    const byType = new Map(r.definition.nodes.map((x) => [x.type, x.id]));
    expect(r.definition.connections).toContainEqual({ source: byType.get("change"), source_port: 0, target: byType.get("function") });
    expect(r.definition.connections).toContainEqual({ source: byType.get("subflow-in"), source_port: 0, target: byType.get("change") });
    expect(r.definition.connections).toContainEqual({ source: byType.get("function"), source_port: 0, target: byType.get("subflow-out") });
    expect(r.inputs).toEqual([{ source: "a", source_port: 0 }]);
    expect(r.outputs).toEqual([[{ target: "d" }, { target: "e" }]]);
    expect(r.definition.nodes.some((x) => x.id === "b" || x.id === "c")).toBe(false);
  });

  it("refuses wires entering at two nodes, as Node-RED does", () => {
    const r = convertToSubflow(nodes, [...wires, { source: "a", source_port: 0, target: "c" }], new Set(["b", "c"]), ids);
    expect(r).toEqual({ error: expect.stringMatching(/more than one node/) });
  });

  it("asks for a selection", () => {
    expect(convertToSubflow(nodes, wires, new Set(), ids)).toEqual({ error: expect.stringMatching(/Select/) });
  });
});
