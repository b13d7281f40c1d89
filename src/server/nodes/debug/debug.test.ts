import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import { debugNode } from "./definition";

const loadTestFlow = closingTestFlows();
const settle = (ms = 30) => new Promise((r) => setTimeout(r, ms));

/** Node-RED flows.json debug properties → our config, through the import mapping and the schema. */
const fromNodeRed = (props: Record<string, unknown>) => debugNode.configSchema.parse(debugNode.nodeRed!.fromNodeRed(props)) as Record<string, unknown>;

describe("debug: Node-RED import and export", () => {
  it("reads complete: \"false\" (Node-RED's default, 'msg.payload') as payload, not as a property named false", () => {
    expect(fromNodeRed({ complete: "false" })).toMatchObject({ property: "payload" });
    expect(fromNodeRed({ complete: false })).toMatchObject({ property: "payload" });
    expect(fromNodeRed({})).toMatchObject({ property: "payload", active: true, to_sidebar: true, status_type: "auto" });
  });

  it("reads the complete message (complete true or \"true\", targetType full) and any property path", () => {
    expect(fromNodeRed({ complete: "true" }).property).toBe("msg");
    expect(fromNodeRed({ complete: true }).property).toBe("msg");
    expect(fromNodeRed({ complete: "true", targetType: "full" }).property).toBe("msg");
    expect(fromNodeRed({ complete: "foo.bar", targetType: "msg" }).property).toBe("foo.bar");
  });

  it("reads tostatus with statusType and statusVal, console and tosidebar as Node-RED writes them", () => {
    expect(fromNodeRed({ tostatus: true, statusType: "msg", statusVal: "topic", console: "true", tosidebar: false, active: false })).toMatchObject({
      to_status: true,
      status_type: "msg",
      status_property: "topic",
      to_console: true,
      to_sidebar: false,
      active: false,
    });
    expect(fromNodeRed({ tostatus: true, statusType: "counter", statusVal: "" })).toMatchObject({ status_type: "counter", status_property: "" });
  });

  it("reads JSONata output and status expressions, and refuses one that does not compile", () => {
    expect(fromNodeRed({ targetType: "jsonata", complete: '"<" & payload & ">"' })).toMatchObject({ property: '"<" & payload & ">"', property_type: "jsonata" });
    expect(fromNodeRed({ tostatus: true, statusType: "jsonata", statusVal: "$count(payload)" })).toMatchObject({ status_type: "jsonata", status_property: "$count(payload)" });
    expect(() => fromNodeRed({ targetType: "jsonata", complete: "payload +" })).toThrow();
    expect(() => fromNodeRed({ tostatus: true, statusType: "jsonata", statusVal: "(" })).toThrow();
    // A path stays a path: not an expression, and never __proto__.
    expect(() => fromNodeRed({ complete: "__proto__.x" })).toThrow();
  });

  it("exports back what it imported", () => {
    for (const props of [
      { complete: "payload", targetType: "msg", tostatus: false, statusType: "auto", statusVal: "" },
      { complete: "true", targetType: "full", tostatus: true, statusType: "counter", statusVal: "" },
      { complete: "foo.bar", targetType: "msg", tostatus: true, statusType: "msg", statusVal: "topic" },
      { complete: '"<" & payload & ">"', targetType: "jsonata", tostatus: true, statusType: "jsonata", statusVal: "$length(payload)" },
    ]) {
      expect(debugNode.nodeRed!.toNodeRed(fromNodeRed(props))).toMatchObject(props);
    }
  });
});

describe("debug: behaviour (after Node-RED's 21-debug_spec)", () => {
  it("shows a JSONata expression's result, and a JSONata status; an expression's error is the node's", async () => {
    const h = await loadTestFlow(
      [
        { id: "j1", type: "debug", config: fromNodeRed({ targetType: "jsonata", complete: '"<" & payload & ">"', tostatus: true, statusType: "auto" }) },
        { id: "j2", type: "debug", config: fromNodeRed({ complete: "payload", tostatus: true, statusType: "jsonata", statusVal: '$string($count(payload)) & " items"' }) },
        { id: "j3", type: "debug", config: fromNodeRed({ targetType: "jsonata", complete: "$error('no')" }) },
      ],
      [],
    );
    h.send("j1", { payload: "hi" });
    h.send("j2", { payload: [1, 2, 3] });
    h.send("j3", { payload: 1 });
    await settle(100);
    expect(h.debug.filter((d) => d.nodeId === "j1").map((d) => [d.property, d.msg])).toEqual([["", "<hi>"]]);
    expect(h.statuses.find((s) => s.nodeId === "j1")?.status?.text).toBe("<hi>");
    expect(h.statuses.find((s) => s.nodeId === "j2")?.status?.text).toBe("3 items");
    expect(h.debug.filter((d) => d.nodeId === "j2").map((d) => d.msg)).toEqual([[1, 2, 3]]);
    expect(h.debug.filter((d) => d.nodeId === "j3")).toEqual([]);
    expect(h.errors.find((e) => e.nodeId === "j3")?.error).toContain("no");
  });


  it("publishes msg.payload by default, another property, a deep property, or the complete message", async () => {
    const h = await loadTestFlow(
      [
        { id: "d1", type: "debug", config: fromNodeRed({ complete: "false" }) },
        { id: "d2", type: "debug", config: fromNodeRed({ complete: "foo" }) },
        { id: "d3", type: "debug", config: fromNodeRed({ complete: "foo.bar" }) },
        { id: "d4", type: "debug", config: fromNodeRed({ complete: "true" }) },
      ],
      [],
    );
    h.send("d1", { payload: "test" });
    h.send("d2", { payload: "test", foo: "bar" });
    h.send("d3", { payload: "test", foo: { bar: "deep" } });
    h.send("d4", { payload: "test", topic: "t" });
    await settle();
    expect(h.debug.map((d) => [d.nodeId, d.property, d.msg, d.format])).toEqual([
      ["d1", "payload", "test", "string"],
      ["d2", "foo", "bar", "string"],
      ["d3", "foo.bar", "deep", "string"],
      ["d4", "msg", expect.objectContaining({ payload: "test", topic: "t" }), "object"],
    ]);
    expect(h.debug[3]!.topic).toBe("t");
  });

  it("publishes numbers, booleans, null, arrays and a missing payload with their formats", async () => {
    const h = await loadTestFlow([{ id: "d", type: "debug" }], []);
    for (const payload of [7, true, null, [0, 1, 2, 3], Buffer.from([0x41, 0x42, 0xff])]) h.send("d", { payload });
    h.send("d", {});
    await settle();
    expect(h.debug.map((d) => d.format)).toEqual(["number", "boolean", "null", "array[4]", "buffer[3]", "undefined"]);
  });

  it("truncates a long message to 1,000 characters", async () => {
    const h = await loadTestFlow([{ id: "d", type: "debug" }], []);
    h.send("d", { payload: "X".repeat(1001) });
    await settle();
    expect(h.debug[0]!.msg).toBe(`${"X".repeat(1000)}…`);
  });

  it("publishes nothing while inactive or not to the sidebar, and its status still updates", async () => {
    const h = await loadTestFlow(
      [
        { id: "off", type: "debug", config: fromNodeRed({ active: false, tostatus: true }) },
        { id: "nosidebar", type: "debug", config: fromNodeRed({ tosidebar: false, console: true }) },
      ],
      [],
    );
    h.send("off", { payload: "hidden" });
    h.send("nosidebar", { payload: "hidden" });
    await settle();
    expect(h.debug).toEqual([]);
    expect(h.statuses).toContainEqual({ nodeId: "off", status: { fill: "grey", shape: "dot", text: "hidden" } });
  });

  it("status auto: the shown value cut to 32 characters, objects inspected, msg.error red, msg.status as given; unchanged statuses not repeated", async () => {
    const h = await loadTestFlow([{ id: "d", type: "debug", config: fromNodeRed({ tostatus: true, statusType: "auto" }) }], []);
    h.send("d", { payload: "a".repeat(40) });
    h.send("d", { payload: { a: 1 } });
    h.send("d", { payload: { a: 1 } });
    h.send("d", { payload: "x", error: { message: "boom" } });
    h.send("d", { payload: "x", status: { fill: "green", shape: "dot", text: "ok" } });
    h.send("d", { payload: { fill: "yellow", shape: "ring", text: "from the payload" } });
    await settle();
    expect(h.statuses.map((s) => s.status)).toEqual([
      { fill: "grey", shape: "dot", text: `${"a".repeat(32)}...` },
      { fill: "grey", shape: "dot", text: "{ a: 1 }" },
      { fill: "red", shape: "dot", text: "boom" },
      { fill: "green", shape: "dot", text: "ok" },
      { fill: "yellow", shape: "ring", text: "from the payload" },
    ]);
  });

  it("status auto with the complete message shows msg.payload; status msg shows another property", async () => {
    const h = await loadTestFlow(
      [
        { id: "full", type: "debug", config: fromNodeRed({ complete: "true", tostatus: true }) },
        { id: "topic", type: "debug", config: fromNodeRed({ tostatus: true, statusType: "msg", statusVal: "topic" }) },
      ],
      [],
    );
    h.send("full", { payload: "p", topic: "t" });
    h.send("topic", { payload: "p", topic: "the topic" });
    await settle();
    expect(h.statuses).toEqual([
      { nodeId: "full", status: { fill: "grey", shape: "dot", text: "p" } },
      { nodeId: "topic", status: { fill: "grey", shape: "dot", text: "the topic" } },
    ]);
  });

  it("status counter: starts at 0 and counts, the last count shown after a burst", async () => {
    const h = await loadTestFlow([{ id: "d", type: "debug", config: fromNodeRed({ tostatus: true, statusType: "counter" }) }], []);
    expect(h.statuses[0]).toEqual({ nodeId: "d", status: { fill: "blue", shape: "ring", text: "0" } });
    for (let i = 0; i < 5; i++) h.send("d", { payload: i });
    await settle(300);
    expect(h.statuses.at(-1)).toEqual({ nodeId: "d", status: { fill: "blue", shape: "ring", text: "5" } });
  });

  it("ignores a status message that this very node reported", async () => {
    const h = await loadTestFlow([{ id: "d", type: "debug", config: fromNodeRed({ tostatus: true }) }], []);
    h.send("d", { payload: "loop", status: { text: "x", source: { id: "d" } } });
    h.send("d", { payload: "other", status: { text: "y", source: { id: "elsewhere" } } });
    await settle();
    expect(h.debug.map((d) => d.msg)).toEqual(["other"]);
    expect(h.statuses.map((s) => s.status?.text)).toEqual(["y"]);
  });
});
