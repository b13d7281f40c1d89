import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import { switchConfig, switchNode } from "./definition";
import { MAX_HELD_MESSAGES } from "./behaviour";

const flow = closingTestFlows();

describe("switch: configuration", () => {
  it.each([
    [{ property: "payload.(", property_type: "jsonata" }, /property.*not a valid JSONata expression/],
    [{ rules: [{ t: "regex", v: "(a)\\1" }] }, /rules\.0\.v.*not a supported regular expression/],
    [{ rules: [{ t: "eq", v: "x +", v_type: "jsonata" }] }, /rules\.0\.v.*JSONata/],
    [{ rules: [{ t: "gt", v: "abc", v_type: "num" }] }, /rules\.0\.v.*must be a number/],
    [{ rules: [{ t: "jsonata_exp", v: "payload >" }] }, /rules\.0\.v.*JSONata/],
    [{ rules: [{ t: "istype", v: "date" }] }, /rules\.0\.v/],
    [{ property: "__proto__", property_type: "msg" }, /property.*property path/],
  ])("refuses %j with a clear message", (config, message) => {
    const result = switchConfig.safeParse(config);
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("\n")).toMatch(message);
  });

  it("imports Node-RED's env, flow, JSONata and previous-value operands losslessly, and exports them back", () => {
    const props = {
      property: "$count(payload)",
      propertyType: "jsonata",
      rules: [
        { t: "eq", v: "CITY", vt: "env" },
        { t: "btwn", v: "min", vt: "flow", v2: "max", v2t: "global" },
        { t: "gt", v: "", vt: "prev" },
        { t: "regex", v: "^a", vt: "str", case: true },
        { t: "istype", v: "buffer", vt: "buffer" },
        { t: "index", v: "1", vt: "num", v2: "$N - 1", v2t: "jsonata" },
        { t: "jsonata_exp", v: "$I = 0", vt: "jsonata" },
        { t: "else" },
      ],
      checkall: "false",
      repair: true,
      outputs: 8,
    };
    const config = switchConfig.parse(switchNode.nodeRed!.fromNodeRed(props));
    expect(switchNode.nodeRed!.toNodeRed(config)).toEqual(props);
  });

  it("has help and a human title on every property", () => {
    expect(switchNode.help).toMatch(/### Inputs[\s\S]*### Outputs[\s\S]*### Details[\s\S]*### Differences from Node-RED/);
    const schema = JSON.stringify(switchConfig.toJSONSchema({ io: "input" }));
    for (const title of ["Property", "Property type", "Rules", "Check all rules", "Recreate message sequences", "Value type", "Ignore case"]) expect(schema).toContain(`"title":"${title}"`);
  });
});

describe("switch: behaviour", () => {
  it("with check all, each output gets its own copy: a change on one branch is not seen on another", async () => {
    const h = await flow(
      [
        { id: "w", type: "switch", config: { rules: [{ t: "nnull" }, { t: "nnull" }], check_all: true } },
        { id: "c", type: "change", config: { rules: [{ t: "set", p: "payload.branch", to: "one" }] } },
        { id: "a", type: "sink" },
        { id: "b", type: "sink" },
      ],
      [
        { source: "w", target: "c", source_port: 0 },
        { source: "c", target: "a" },
        { source: "w", target: "b", source_port: 1 },
      ],
    );
    h.send("w", { payload: { v: 1 } });
    await h.waitFor(2);
    expect(h.arrivals.find((x) => x.sink === "a")!.msg.payload).toEqual({ v: 1, branch: "one" });
    expect(h.arrivals.find((x) => x.sink === "b")!.msg.payload).toEqual({ v: 1 });
  });

  it("keeps the order of messages with JSONata rules", async () => {
    const h = await flow([{ id: "w", type: "switch", config: { rules: [{ t: "eq", v: "$$.payload", v_type: "jsonata" }] } }, { id: "s", type: "sink" }], [{ source: "w", target: "s" }]);
    for (let i = 0; i < 20; i++) h.send("w", { payload: i });
    const got = await h.waitFor(20);
    expect(got.map((m) => m.payload)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it("a JSONata property that fails is a warning and nothing is sent", async () => {
    const h = await flow([{ id: "w", type: "switch", config: { property: "$error('boom')", property_type: "jsonata", rules: [{ t: "else" }] } }, { id: "s", type: "sink" }], [{ source: "w", target: "s" }]);
    h.send("w", { payload: 1 });
    await expect.poll(() => h.errors).toEqual([{ nodeId: "w", error: expect.stringContaining("boom") }]);
    expect(h.received).toEqual([]);
  });

  it(`holds at most ${MAX_HELD_MESSAGES} messages of incomplete sequences, then reports and drops them`, async () => {
    const h = await flow([{ id: "w", type: "switch", config: { rules: [{ t: "tail", v: "1", v_type: "num" }] } }, { id: "s", type: "sink" }], [{ source: "w", target: "s" }]);
    for (let i = 0; i <= MAX_HELD_MESSAGES; i++) h.send("w", { payload: i, parts: { id: "big", index: i } });
    await expect.poll(() => h.errors, { timeout: 10_000 }).toEqual([{ nodeId: "w", error: expect.stringContaining("too many messages held") }]);
    // The held sequence is gone: its last message alone does not complete it.
    h.send("w", { payload: "end", parts: { id: "big", index: MAX_HELD_MESSAGES + 1, count: MAX_HELD_MESSAGES + 2 } });
    await new Promise((r) => setTimeout(r, 100));
    expect(h.received).toEqual([]);
  });
});

describe("switch: the flow's turn (NodeRoles.jsonataTurn)", () => {
  const turn = (config: Record<string, unknown>) => switchNode.roles!.jsonataTurn!(switchConfig.parse(config) as never);
  it("only with a JSONata operand and a context read", () => {
    expect(turn({ property: "$flowContext('limit') > payload", property_type: "jsonata", rules: [{ t: "true" }] })).toBe(true);
    expect(turn({ property: "payload", property_type: "jsonata", rules: [{ t: "gt", v: "limit", v_type: "flow" }] })).toBe(true);
    expect(turn({ property: "payload", rules: [{ t: "jsonata_exp", v: "$ > $globalContext('x')" }] })).toBe(true);
    expect(turn({ property: "payload * 2", property_type: "jsonata", rules: [{ t: "gt", v: "3", v_type: "num" }] })).toBe(false);
    // Without JSONata the input is synchronous: a context read happens in the delivery itself.
    expect(turn({ property: "payload", rules: [{ t: "gt", v: "limit", v_type: "flow" }] })).toBe(false);
  });
});
