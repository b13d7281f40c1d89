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

describe("diffDeployments with configuration nodes", () => {
  const tls = (revision: number, config: Record<string, unknown> = {}) => ({ revision, config });
  const request = node("r", { type: "http-request", config: { tls: "t1", proxy: "" } });
  const other = node("o", { type: "debug", config: {} });

  it("counts a node changed when a configuration node it names changed revision", () => {
    const before = { ...graph([request, other]), config_nodes: { t1: tls(1) } };
    const after = { ...graph([request, other]), config_nodes: { t1: tls(2) } };
    expect(diffDeployments(before, after).changed.map((n) => n.id)).toEqual(["r"]);
    expect(diffDeployments(before, { ...graph([request, other]), config_nodes: { t1: tls(1) } }).changed).toEqual([]);
  });

  it("follows a configuration node to the ones it names, and into subflow definitions", () => {
    const before = { ...graph([request]), config_nodes: { t1: tls(1, { ca_from: "t2" }), t2: tls(4) } };
    const after = { ...graph([request]), config_nodes: { t1: tls(1, { ca_from: "t2" }), t2: tls(5) } };
    expect(diffDeployments(before, after).changed.map((n) => n.id)).toEqual(["r"]);
    const instance = node("i", { type: "subflow:sf", config: { env: [] } });
    const sub = { sf: { revision: 1, nodes: [request] } };
    expect(diffDeployments({ ...graph([instance]), subflows: sub, config_nodes: { t1: tls(1) } }, { ...graph([instance]), subflows: sub, config_nodes: { t1: tls(2) } }).changed.map((n) => n.id)).toEqual(["i"]);
  });
});
