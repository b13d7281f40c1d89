import { describe, expect, it } from "vitest";
import type { FlowGraph, FlowNode } from "./flow-graph";
import { mergeGraphs, type Resolution } from "./graph-merge";

const node = (id: string, over: Partial<FlowNode> = {}): FlowNode => ({ id, type: "function", name: "", position: { x: 0, y: 0 }, config: { code: "return msg;" }, disabled: false, ...over });
const graph = (nodes: FlowNode[], wires: Array<[string, string]> = []): FlowGraph => ({ nodes, connections: wires.map(([source, target]) => ({ source, source_port: 0, target })) });

const base = graph([node("a"), node("b"), node("c")], [["a", "b"], ["b", "c"]]);

describe("mergeGraphs", () => {
  it("merges changes to different nodes from both sides without asking", () => {
    const mine = graph([node("a", { name: "mine" }), node("b"), node("c")], [["a", "b"], ["b", "c"]]);
    const theirs = graph([node("a"), node("b"), node("c", { config: { code: "return null;" } })], [["a", "b"], ["b", "c"]]);
    const r = mergeGraphs(base, mine, theirs);
    expect(r.conflicts).toEqual([]);
    expect(r.graph.nodes.find((n) => n.id === "a")!.name).toBe("mine");
    expect(r.graph.nodes.find((n) => n.id === "c")!.config).toEqual({ code: "return null;" });
    expect(r.graph.connections).toHaveLength(2);
  });

  it("a description edited on one side is taken; edited differently on both, it is asked about; an empty one is none", () => {
    const mine = graph([node("a", { description: "Why it is here" }), node("b"), node("c")], [["a", "b"], ["b", "c"]]);
    const theirs = graph([node("a"), node("b", { description: "" }), node("c")], [["a", "b"], ["b", "c"]]);
    const r = mergeGraphs(base, mine, theirs);
    expect(r.conflicts).toEqual([]);
    expect(r.graph.nodes.find((n) => n.id === "a")!.description).toBe("Why it is here");
    const both = mergeGraphs(base, mine, graph([node("a", { description: "Another reason" }), node("b"), node("c")], [["a", "b"], ["b", "c"]]));
    expect(both.conflicts.map((c) => c.id)).toEqual(["a"]);
  });

  it("keeps nodes and wires added on either side, and drops what either side deleted", () => {
    const mine = graph([node("a"), node("b"), node("c"), node("m")], [["a", "b"], ["b", "c"], ["c", "m"]]);
    const theirs = graph([node("a"), node("b"), node("t")], [["a", "b"], ["b", "t"]]);
    const r = mergeGraphs(base, mine, theirs);
    expect(r.conflicts).toEqual([]);
    expect(r.graph.nodes.map((n) => n.id)).toEqual(["a", "b", "m", "t"]);
    // c was deleted by them, so my new wire c->m cannot survive; b->c went with c.
    expect(r.graph.connections.map((c) => `${c.source}->${c.target}`).sort()).toEqual(["a->b", "b->t"]);
  });

  it("asks only about the node both sides changed differently, and applies the choice", () => {
    const mine = graph([node("a", { name: "left" }), node("b", { name: "mine only" }), node("c")], [["a", "b"], ["b", "c"]]);
    const theirs = graph([node("a", { name: "right" }), node("b"), node("c", { disabled: true })], [["a", "b"], ["b", "c"]]);
    const r = mergeGraphs(base, mine, theirs);
    expect(r.conflicts.map((c) => c.id)).toEqual(["a"]);
    expect(r.conflicts[0]).toMatchObject({ base: { name: "" }, mine: { name: "left" }, theirs: { name: "right" } });
    expect(r.unresolved).toEqual(["a"]);
    const mineWins = mergeGraphs(base, mine, theirs, new Map([["a", "mine"]]));
    expect(mineWins.unresolved).toEqual([]);
    expect(mineWins.graph.nodes.map((n) => [n.id, n.name, n.disabled])).toEqual([
      ["a", "left", false],
      ["b", "mine only", false],
      ["c", "", true],
    ]);
    expect(mergeGraphs(base, mine, theirs, new Map([["a", "theirs"]])).graph.nodes[0]!.name).toBe("right");
  });

  it("treats a change against a deletion as a conflict, either way round", () => {
    const mine = graph([node("a", { name: "edited" }), node("b"), node("c")], [["a", "b"], ["b", "c"]]);
    const theirs = graph([node("b"), node("c")], [["b", "c"]]);
    const r = mergeGraphs(base, mine, theirs);
    expect(r.conflicts).toEqual([{ id: "a", base: base.nodes[0], mine: mine.nodes[0], theirs: null }]);
    expect(mergeGraphs(base, mine, theirs, new Map([["a", "theirs"]])).graph.nodes.map((n) => n.id)).toEqual(["b", "c"]);
    const kept = mergeGraphs(base, mine, theirs, new Map([["a", "mine"]])).graph;
    expect(kept.nodes.map((n) => n.id)).toEqual(["a", "b", "c"]);
    // The wire theirs removed stays removed even though the node came back.
    expect(kept.connections.map((c) => `${c.source}->${c.target}`)).toEqual(["b->c"]);
    expect(mergeGraphs(base, theirs, mine).conflicts.map((c) => c.id)).toEqual(["a"]);
  });

  it("does not ask about identical changes or about positions; my layout wins", () => {
    const mine = graph([node("a", { name: "same", position: { x: 10, y: 10 } }), node("b", { position: { x: 5, y: 5 } }), node("c")], [["a", "b"], ["b", "c"]]);
    const theirs = graph([node("a", { name: "same", position: { x: 99, y: 99 } }), node("b", { config: { code: "return 1;" }, position: { x: 7, y: 7 } }), node("c")], [["a", "b"], ["b", "c"]]);
    const r = mergeGraphs(base, mine, theirs);
    expect(r.conflicts).toEqual([]);
    expect(r.graph.nodes[0]).toMatchObject({ name: "same", position: { x: 10, y: 10 } });
    expect(r.graph.nodes[1]).toMatchObject({ config: { code: "return 1;" }, position: { x: 5, y: 5 } });
  });

  it("compares config regardless of key order", () => {
    const b = graph([node("a", { config: { x: 1, y: 2 } })]);
    const mine = graph([node("a", { config: { y: 2, x: 1 } })]);
    const theirs = graph([node("a", { config: { x: 1, y: 3 } })]);
    const r = mergeGraphs(b, mine, theirs);
    expect(r.conflicts).toEqual([]);
    expect(r.graph.nodes[0]!.config).toEqual({ x: 1, y: 3 });
  });

  it("flags the same new id added differently on both sides", () => {
    const mine = graph([...base.nodes, node("n", { type: "debug" })], [["a", "b"], ["b", "c"]]);
    const theirs = graph([...base.nodes, node("n", { type: "delay" })], [["a", "b"], ["b", "c"]]);
    expect(mergeGraphs(base, mine, theirs).conflicts).toEqual([{ id: "n", base: null, mine: mine.nodes[3], theirs: theirs.nodes[3] }]);
  });

  // Node ids are user data: these are all valid ids (^[A-Za-z0-9_-]{1,64}$) that a plain object
  // would answer from Object.prototype.
  describe.each(["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf"])("a node with id %s", (id) => {
    const b = graph([node(id), node("x")], [[id, "x"]]);
    const choose = (r: Resolution) => new Map([[id, r]]);

    it("asks when both sides changed it differently, and applies only the choice made", () => {
      const mine = graph([node(id, { name: "mine" }), node("x")], [[id, "x"]]);
      const theirs = graph([node(id, { name: "theirs" }), node("x")], [[id, "x"]]);
      const r = mergeGraphs(b, mine, theirs);
      expect(r.conflicts.map((c) => c.id)).toEqual([id]);
      expect(r.unresolved).toEqual([id]);
      // An unrelated choice resolves nothing.
      expect(mergeGraphs(b, mine, theirs, new Map([["x", "mine"]])).unresolved).toEqual([id]);
      const m = mergeGraphs(b, mine, theirs, choose("mine"));
      expect(m.unresolved).toEqual([]);
      expect(m.graph.nodes.find((n) => n.id === id)!.name).toBe("mine");
      expect(mergeGraphs(b, mine, theirs, choose("theirs")).graph.nodes.find((n) => n.id === id)!.name).toBe("theirs");
    });

    it("takes the one side that changed it without asking", () => {
      const mine = graph([node(id, { name: "mine" }), node("x")], [[id, "x"]]);
      const r = mergeGraphs(b, mine, b);
      expect(r.conflicts).toEqual([]);
      expect(r.graph.nodes.find((n) => n.id === id)!.name).toBe("mine");
      const theirs = graph([node(id, { config: { code: "return null;" } }), node("x")], [[id, "x"]]);
      const t = mergeGraphs(b, b, theirs);
      expect(t.conflicts).toEqual([]);
      expect(t.graph.nodes.find((n) => n.id === id)!.config).toEqual({ code: "return null;" });
      expect(t.graph.connections).toEqual([{ source: id, source_port: 0, target: "x" }]);
    });

    it("asks when one side deleted it and the other changed it", () => {
      const mine = graph([node(id, { name: "edited" }), node("x")], [[id, "x"]]);
      const theirs = graph([node("x")]);
      const r = mergeGraphs(b, mine, theirs);
      expect(r.conflicts).toEqual([{ id, base: b.nodes[0], mine: mine.nodes[0], theirs: null }]);
      expect(r.unresolved).toEqual([id]);
      expect(mergeGraphs(b, theirs, mine).unresolved).toEqual([id]);
      expect(mergeGraphs(b, mine, theirs, choose("theirs")).graph.nodes.map((n) => n.id)).toEqual(["x"]);
      expect(mergeGraphs(b, mine, theirs, choose("mine")).graph.nodes.map((n) => n.id)).toEqual([id, "x"]);
    });

    it("drops it without asking when one side deleted it and the other left it alone", () => {
      const r = mergeGraphs(b, b, graph([node("x")]));
      expect(r.conflicts).toEqual([]);
      expect(r.graph).toEqual({ nodes: [node("x")], connections: [], groups: [] });
    });
  });
});
