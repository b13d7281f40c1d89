import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import { MAX_SUBFLOW_DEPTH, type SubflowSnapshot } from "@/shared/subflows";
import { memoryContextStore } from "./memory-context";
import { expandSubflows, SubflowError } from "./subflows";

const loadTestFlow = closingTestFlows();

type Def = Omit<SubflowSnapshot, "revision" | "nodes"> & { nodes: Array<{ id: string; type: string; name?: string; config?: Record<string, unknown> }> };
const snapshot = (def: Def): SubflowSnapshot => ({
  revision: 1,
  ...def,
  nodes: def.nodes.map((n) => ({ name: "", config: {}, position: { x: 0, y: 0 }, disabled: false, ...n })),
});
const c = (source: string, target: string, source_port = 0) => ({ source, target, source_port });
const node = (id: string, type: string, config: Record<string, unknown> = {}, name = "") => ({ id, type, name, config });

/** A definition passing what it gets through a change node to output 0. */
const passThrough = (id: string, inner: Array<{ id: string; type: string; config?: Record<string, unknown> }> = [{ id: "work", type: "change" }]) =>
  snapshot({
    id,
    name: `def ${id}`,
    env: [],
    nodes: [{ id: "in", type: "subflow-in" }, ...inner, { id: "out", type: "subflow-out", config: { port: 0 } }],
    connections: [c("in", inner[0]!.id), c(inner[0]!.id, "out")],
  });

describe("expandSubflows", () => {
  it("gives each instance its own copy of the definition, ids <instance>-<inner>, wired as Node-RED rewires them", () => {
    const def = snapshot({
      id: "sf",
      name: "two outputs",
      env: [],
      nodes: [
        { id: "in", type: "subflow-in" },
        { id: "a", type: "change" },
        { id: "catcher", type: "catch", config: { scope: ["a", "elsewhere"] } },
        { id: "o0", type: "subflow-out", config: { port: 0 } },
        { id: "o1", type: "subflow-out", config: { port: 1 } },
        { id: "st", type: "subflow-status" },
        { id: "b", type: "change", config: { ref: "a", links: ["a", "outside"] } },
      ],
      connections: [c("in", "a"), c("a", "o1"), c("a", "b"), c("a", "o0"), c("in", "o1"), c("b", "st")],
    });
    const out = expandSubflows({
      flowId: "flw",
      nodes: [node("src", "change"), node("i1", "subflow:sf"), node("x", "change"), node("y", "change")],
      connections: [c("src", "i1"), c("i1", "x", 0), c("i1", "y", 1)],
      subflows: { sf: def },
    }, { scoped: (type) => type === "catch" });
    expect(out.nodes.map((n) => [n.id, n.alias ?? null, n.role ?? null, n.scope?.instance.id ?? null])).toEqual([
      ["src", null, null, null],
      ["i1", null, "instance", null],
      ["i1-a", "a", null, "i1"],
      ["i1-catcher", "catcher", null, "i1"],
      ["i1-b", "b", null, "i1"],
      ["i1:status", null, "status", "i1"],
      ["x", null, null, null],
      ["y", null, null, null],
    ]);
    // A catch scope names the instance's copies (an id of no inner node becomes ""); a property naming an inner node follows it.
    expect(out.nodes.find((n) => n.id === "i1-catcher")!.config.scope).toEqual(["i1-a", ""]);
    expect(out.nodes.find((n) => n.id === "i1-b")!.config).toEqual({ ref: "i1-a", links: ["i1-a", "outside"] });
    expect(out.connections).toEqual([
      c("src", "i1"),
      // The instance node carries the input's wires (and the input wired straight to output 1).
      c("i1", "i1-a"),
      // An inner node's own wires first, then the outputs' by port, then the status output.
      c("i1-a", "i1-b"),
      c("i1-a", "x", 0),
      c("i1-a", "y", 0),
      c("i1", "y", 0),
      c("i1-b", "i1:status"),
    ]);
    expect(out.scopes.map((s) => [s.instance.id, s.depth, s.path, s.hasStatusPort])).toEqual([["i1", 1, "flw/i1", true]]);
  });

  it("expands nested instances with ids and paths through every level", () => {
    const inner = passThrough("inner");
    const outer = passThrough("outer", [{ id: "nested", type: "subflow:inner" }]);
    const out = expandSubflows({ flowId: "flw", nodes: [node("top", "subflow:outer"), node("sink", "change")], connections: [c("top", "sink")], subflows: { inner, outer } });
    expect(out.nodes.map((n) => n.id)).toEqual(["top", "top-nested", "top-nested-work", "sink"]);
    expect(out.connections).toEqual([c("top", "top-nested"), c("top-nested", "top-nested-work"), c("top-nested-work", "sink")]);
    expect(out.scopes.map((s) => [s.instance.id, s.depth, s.path, s.instanceIds])).toEqual([
      ["top", 1, "flw/top", ["top"]],
      ["top-nested", 2, "flw/top/nested", ["top", "top-nested"]],
    ]);
  });

  it("leaves a flow without instances as it is, and a disabled instance unexpanded", () => {
    const plain = { flowId: "flw", nodes: [node("a", "change")], connections: [] };
    expect(expandSubflows(plain).nodes).toEqual([{ ...plain.nodes[0], scope: null }]);
    const disabled = expandSubflows({ flowId: "flw", nodes: [{ ...node("i", "subflow:sf"), disabled: true }], connections: [], subflows: { sf: passThrough("sf") } });
    expect(disabled.nodes.map((n) => n.id)).toEqual(["i"]);
    expect(disabled.scopes).toEqual([]);
  });

  it("refuses a missing definition, a cycle, and nesting deeper than MAX_SUBFLOW_DEPTH, saying which", () => {
    expect(() => expandSubflows({ flowId: "flw", nodes: [node("i", "subflow:gone")], connections: [] })).toThrow(
      new SubflowError("subflow instance i uses subflow gone, which is not part of this deployment"),
    );
    const a = passThrough("a", [{ id: "x", type: "subflow:b" }]);
    const b = snapshot({ ...passThrough("b", [{ id: "y", type: "subflow:a" }]), name: "bee" });
    expect(() => expandSubflows({ flowId: "flw", nodes: [node("i", "subflow:a")], connections: [], subflows: { a, b } })).toThrow(
      'subflow "def a" contains itself ("def a" → "bee" → "def a"): a subflow cannot use itself',
    );
    const chain: Record<string, SubflowSnapshot> = {};
    for (let level = 0; level <= MAX_SUBFLOW_DEPTH; level++) {
      chain[`l${level}`] = level === MAX_SUBFLOW_DEPTH ? passThrough(`l${level}`) : passThrough(`l${level}`, [{ id: "next", type: `subflow:l${level + 1}` }]);
    }
    expect(() => expandSubflows({ flowId: "flw", nodes: [node("i", "subflow:l0")], connections: [], subflows: chain })).toThrow(`subflows are nested deeper than ${MAX_SUBFLOW_DEPTH} levels`);
    // MAX_SUBFLOW_DEPTH levels are fine.
    const fits = { ...chain, [`l${MAX_SUBFLOW_DEPTH - 1}`]: passThrough(`l${MAX_SUBFLOW_DEPTH - 1}`) };
    expect(expandSubflows({ flowId: "flw", nodes: [node("i", "subflow:l0")], connections: [], subflows: fits }).scopes).toHaveLength(MAX_SUBFLOW_DEPTH);
  });
});

describe("subflow instances in the engine", () => {
  it("a flow whose subflows nest in a cycle does not start, and says why", async () => {
    const a = passThrough("a", [{ id: "x", type: "subflow:a" }]);
    const h = await loadTestFlow([{ id: "i", type: "subflow:a" }], [], {}, {}, { subflows: { a } });
    expect(h.state).toBe("error");
    expect(h.engine.errorOf("flw_test")).toBe('subflow "def a" contains itself ("def a" → "def a"): a subflow cannot use itself');
  });

  it("messages go in through the instance and out of its ports; each instance keeps its own flow context, $parent reaches the flow's", async () => {
    const def = snapshot({
      id: "counter",
      name: "counter",
      env: [],
      nodes: [
        { id: "in", type: "subflow-in" },
        {
          id: "count",
          type: "change",
          config: {
            rules: [
              { t: "set", p: "seen", p_type: "flow", to: "payload", to_type: "msg" },
              { t: "set", p: "$parent.last", p_type: "flow", to: "payload", to_type: "msg" },
              { t: "set", p: "mine", p_type: "msg", to: "seen", to_type: "flow" },
              { t: "set", p: "flows", p_type: "msg", to: "$parent.marker", to_type: "flow" },
            ],
          },
        },
        { id: "out", type: "subflow-out", config: { port: 0 } },
      ],
      connections: [c("in", "count"), c("count", "out")],
    });
    const flowStore = memoryContextStore(new Map([["marker", "the flow's"]]));
    const h = await loadTestFlow(
      [
        { id: "one", type: "subflow:counter" },
        { id: "two", type: "subflow:counter" },
        { id: "sink", type: "sink" },
      ],
      [c("one", "sink"), c("two", "sink")],
      {},
      {},
      { subflows: { counter: def }, contextStores: () => ({ flow: flowStore, global: memoryContextStore() }) },
    );
    expect(h.state).toBe("running");
    h.send("one", { payload: "A" });
    await h.waitFor(1);
    h.send("two", { payload: "B" });
    await h.waitFor(2);
    expect(h.received.map((m) => [m.payload, m.mine, m.flows])).toEqual([
      ["A", "A", "the flow's"],
      ["B", "B", "the flow's"],
    ]);
    // The instances' own keys stay theirs; `$parent.` wrote the flow's.
    expect(Object.fromEntries(flowStore.keys().map((k) => [k, flowStore.get(k)]))).toEqual({ marker: "the flow's", last: "B" });
  });

  it("a debug node inside an instance reports its running id, where it is on the flow's canvas and which definition holds it", async () => {
    const inner = snapshot({
      id: "inner",
      name: "inner",
      env: [],
      nodes: [{ id: "in", type: "subflow-in" }, { id: "dbg", type: "debug", config: {} }],
      connections: [c("in", "dbg")],
    });
    const outer = passThrough("outer", [{ id: "nested", type: "subflow:inner" }]);
    const h = await loadTestFlow([{ id: "top", type: "subflow:outer" }], [], {}, {}, { subflows: { inner, outer } });
    h.send("top", { payload: 42 });
    const deadline = Date.now() + 3000;
    while (h.debug.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(h.debug).toMatchObject([
      { nodeId: "top-nested-dbg", msg: 42, subflow: { instance_id: "top", instance_path: ["top", "top-nested"], subflow_id: "inner", node_id: "dbg", path: "flw_test/top/nested" } },
    ]);
  });

  it("the status output sets the instance's own status", async () => {
    const def = snapshot({
      id: "st",
      name: "status",
      env: [],
      nodes: [
        { id: "in", type: "subflow-in" },
        { id: "status", type: "subflow-status" },
      ],
      connections: [c("in", "status")],
    });
    const h = await loadTestFlow([{ id: "inst", type: "subflow:st" }], [], {}, {}, { subflows: { st: def } });
    h.send("inst", { payload: { fill: "green", shape: "dot", text: "connected" } });
    h.send("inst", { payload: "plain text" });
    const deadline = Date.now() + 3000;
    while (h.statuses.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(h.statuses).toEqual([
      { nodeId: "inst", status: { fill: "green", shape: "dot", text: "connected" } },
      { nodeId: "inst", status: { fill: undefined, shape: undefined, text: "plain text" } },
    ]);
  });

  it("env properties: the instance's override the definition's, ${NAME} in inner properties reads them, the flow's are above", async () => {
    const def = snapshot({
      id: "env",
      name: "env",
      env: [
        { name: "WHO", type: "str", value: "definition" },
        { name: "N", type: "num", value: "2" },
      ],
      nodes: [
        { id: "in", type: "subflow-in" },
        {
          id: "set",
          type: "change",
          config: {
            rules: [
              { t: "set", p: "who", p_type: "msg", to: "${WHO}", to_type: "str" },
              { t: "set", p: "n", p_type: "msg", to: "N", to_type: "env" },
              { t: "set", p: "text", p_type: "msg", to: "${WHO}/${N}/${NR_SUBFLOW_NAME}/${NR_FLOW_ID}", to_type: "env" },
            ],
          },
        },
        { id: "out", type: "subflow-out", config: { port: 0 } },
      ],
      connections: [c("in", "set"), c("set", "out")],
    });
    const h = await loadTestFlow(
      [
        { id: "plain", type: "subflow:env", name: "plain one" },
        { id: "over", type: "subflow:env", name: "overriding", config: { env: [{ name: "WHO", type: "str", value: "instance" }] } },
        { id: "sink", type: "sink" },
      ],
      [c("plain", "sink"), c("over", "sink")],
      {},
      {},
      { subflows: { env: def } },
    );
    h.send("plain", { payload: 1 });
    await h.waitFor(1);
    h.send("over", { payload: 2 });
    await h.waitFor(2);
    expect(h.received.map((m) => [m.who, m.n, m.text])).toEqual([
      ["definition", 2, "definition/2/plain one/flw_test"],
      ["instance", 2, "instance/2/overriding/flw_test"],
    ]);
  });

  it("a link inside a definition reaches the link-in of the same instance", async () => {
    const def = snapshot({
      id: "linked",
      name: "linked",
      env: [],
      nodes: [
        { id: "in", type: "subflow-in" },
        { id: "lout", type: "link-out", config: { mode: "link", links: ["lin"] } },
        { id: "lin", type: "link-in" },
        { id: "out", type: "subflow-out", config: { port: 0 } },
      ],
      connections: [c("in", "lout"), c("lin", "out")],
    });
    const h = await loadTestFlow(
      [
        { id: "one", type: "subflow:linked" },
        { id: "two", type: "subflow:linked" },
        { id: "sink1", type: "sink" },
        { id: "sink2", type: "sink" },
      ],
      [c("one", "sink1"), c("two", "sink2")],
      {},
      {},
      { subflows: { linked: def } },
    );
    h.send("one", { payload: 1 });
    h.send("two", { payload: 2 });
    await h.waitFor(2);
    expect(h.arrivals.map((a) => [a.sink, a.msg.payload]).sort()).toEqual([
      ["sink1", 1],
      ["sink2", 2],
    ]);
  });
});
