import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import { builtinVariables, memoryContextStore } from "@/server/runtime/memory-context";
import { changeConfig, changeNode } from "./definition";

const flow = closingTestFlows();

async function changeFlow(rules: unknown[], options: { flow?: Map<string, unknown>; global?: Map<string, unknown>; env?: Record<string, string> } = {}) {
  const flowStore = memoryContextStore(options.flow ?? new Map());
  const globalStore = memoryContextStore(options.global ?? new Map());
  return flow(
    [{ id: "c", type: "change", config: { rules } }, { id: "s", type: "sink" }],
    [{ source: "c", target: "s" }],
    {},
    {},
    { contextStores: () => ({ flow: flowStore, global: globalStore }), variables: () => builtinVariables(options.env ?? {}) },
  );
}

describe("change: configuration", () => {
  it.each([
    [{ t: "set", p: "payload", to: "$invalid(", to_type: "jsonata" }, /rules\.0\.to.*not a valid JSONata expression/],
    [{ t: "change", p: "payload", from: "(a)\\1", from_type: "re", to: "" }, /rules\.0\.from.*not a supported regular expression/],
    [{ t: "set", p: "payload", to: "{bad", to_type: "json" }, /rules\.0\.to.*valid JSON/],
    [{ t: "set", p: "payload", to: "x", to_type: "re" }, /rules\.0\.to_type/],
    [{ t: "set", p: "__proto__.x", to: "x" }, /rules\.0\.p.*property path/],
    [{ t: "set", p: "a..b", p_type: "flow", to: "x" }, /rules\.0\.p.*context key/],
    [{ t: "move", p: "payload", to: "x", to_type: "str" }, /rules\.0\.to_type/],
  ])("refuses %j with a clear message", (rule, message) => {
    const result = changeConfig.safeParse({ rules: [rule] });
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("\n")).toMatch(message);
  });

  it("imports Node-RED rules with env, flow, global and JSONata operands losslessly, and exports them back", () => {
    const rules = [
      { t: "set", p: "payload", pt: "msg", to: "$length(payload)", tot: "jsonata" },
      { t: "set", p: "total", pt: "flow", to: "CITY", tot: "env" },
      { t: "change", p: "payload", pt: "msg", from: "k", fromt: "global", to: "v", tot: "flow", dc: true },
      { t: "move", p: "a", pt: "global", to: "b", tot: "msg" },
      { t: "delete", p: "x", pt: "flow" },
    ];
    const config = changeConfig.parse(changeNode.nodeRed!.fromNodeRed({ rules }));
    expect(changeNode.nodeRed!.toNodeRed(config)).toEqual({ rules, action: "", property: "", from: "", to: "", reg: false });
  });

  it("has help and a human title on every property", () => {
    expect(changeNode.help).toMatch(/### Inputs[\s\S]*### Outputs[\s\S]*### Details[\s\S]*### Differences from Node-RED/);
    const schema = JSON.stringify(changeConfig.toJSONSchema({ io: "input" }));
    for (const title of ["Property", "Property type", "To the value", "Value type", "Search for", "Replace with", "Deep copy value", "Rules"]) expect(schema).toContain(`"title":"${title}"`);
  });
});

describe("change: behaviour", () => {
  it("writes and reads flow and global context through the node's stores", async () => {
    const flowMap = new Map<string, unknown>([["stats", { total: 1 }]]);
    const globalMap = new Map<string, unknown>();
    const h = await changeFlow(
      [
        { t: "set", p: "stats.total", p_type: "flow", to: "payload", to_type: "msg" },
        { t: "set", p: "last", p_type: "global", to: "topic", to_type: "msg" },
        { t: "set", p: "echo", to: "$flowContext('stats.total') + 1", to_type: "jsonata" },
      ],
      { flow: flowMap, global: globalMap },
    );
    h.send("c", { payload: 41, topic: "t" });
    const [msg] = await h.waitFor(1);
    expect(msg!.echo).toBe(42);
    expect(flowMap.get("stats")).toEqual({ total: 41 });
    expect(globalMap.get("last")).toBe("t");
  });

  it("a JSONata expression over its time limit is a node error and the message is not sent", async () => {
    const h = await changeFlow([{ t: "set", p: "payload", to: "($f := function($x) { $f($x + 1) }; $f(0))", to_type: "jsonata" }]);
    h.send("c", { payload: 1 });
    await expect.poll(() => h.errors, { timeout: 4000 }).toEqual([{ nodeId: "c", error: expect.stringMatching(/Invalid JSONata expression: the expression ran longer than its time limit \(1000 ms\)/) }]);
    expect(h.received).toEqual([]);
  });

  it("keeps the order of messages when rules are asynchronous (JSONata)", async () => {
    const h = await changeFlow([{ t: "set", p: "payload", to: "payload * 2", to_type: "jsonata" }]);
    for (let i = 0; i < 20; i++) h.send("c", { payload: i });
    const got = await h.waitFor(20);
    expect(got.map((m) => m.payload)).toEqual(Array.from({ length: 20 }, (_, i) => i * 2));
  });

  it("keeps the order when one message's expression yields to the event loop (a long evaluation; Node-RED sends it last: cases.ts)", async () => {
    // The first message's $reduce runs past the 10 ms after which an evaluation yields (setImmediate);
    // the 19 behind it, each a few microtasks, must still come out after it.
    const h = await changeFlow([{ t: "set", p: "payload", to: "payload = 0 ? $reduce([1..20000], function($a, $b) { $a + $b }) : payload", to_type: "jsonata" }]);
    for (let i = 0; i < 20; i++) h.send("c", { payload: i });
    const got = await h.waitFor(20);
    expect(got.map((m) => m.payload)).toEqual([200010000, ...Array.from({ length: 19 }, (_, i) => i + 1)]);
  });

  it("a search of type variable searches for the variable's value (Node-RED: its name)", async () => {
    const h = await changeFlow([{ t: "change", p: "payload", from: "CITY", from_type: "env", to: "X", to_type: "str" }], { env: { CITY: "Oslo" } });
    h.send("c", { payload: "Oslo and CITY" });
    const [msg] = await h.waitFor(1);
    expect(msg!.payload).toBe("X and CITY");
  });

  it("setting beneath a string warns and leaves the message as it was", async () => {
    const h = await changeFlow([{ t: "set", p: "payload.a", to: "1" }]);
    h.send("c", { payload: "text" });
    const [msg] = await h.waitFor(1);
    expect(msg!.payload).toBe("text");
    expect(h.errors).toEqual([{ nodeId: "c", error: "Cannot set property of non-object type: payload.a" }]);
  });
});

describe("change: a JSONata read of the context in the flow's turn", () => {
  // Node-RED ends an evaluation before the next delivery begins. Ours hands a batch of deliveries
  // out before any evaluation goes on, and a long one yields to the event loop every 10 ms: the
  // read must still come before what the next message's branches write (NodeHost.inTurn).
  const fan = { id: "fan", type: "change", config: { rules: [{ t: "set", p: "topic", to: "t", to_type: "str" }] } };
  const slowRead = "[payload, $reduce([1..20000], function($a, $b) { $a + $b }) > 0 ? $flowContext('v') : null]";

  async function fanFlow(writer: { id: string; type: string; config: Record<string, unknown> }) {
    const flowStore = memoryContextStore(new Map<string, unknown>([["v", "start"]]));
    const globalStore = memoryContextStore(new Map());
    return flow(
      [fan, { id: "rd", type: "change", config: { rules: [{ t: "set", p: "payload", to: slowRead, to_type: "jsonata" }] } }, writer, { id: "s", type: "sink" }],
      [
        { source: "fan", target: "rd" },
        { source: "fan", target: "wr" },
        { source: "rd", target: "s" },
      ],
      {},
      {},
      { contextStores: () => ({ flow: flowStore, global: globalStore }) },
    );
  }

  it.each([
    ["a function", { id: "wr", type: "function", config: { code: "flow.set('v', msg.payload); return null;" } }],
    ["a change node", { id: "wr", type: "change", config: { rules: [{ t: "set", p: "v", p_type: "flow", to: "payload", to_type: "msg" }] } }],
  ])("a long expression reads the flow context before %s on the next message sets it", async (_name, writer) => {
    const h = await fanFlow(writer);
    for (const payload of [1, 2, 3]) h.send("fan", { payload });
    const got = await h.waitFor(3, 10_000);
    expect(got.map((m) => m.payload)).toEqual([
      [1, "start"],
      [2, 1],
      [3, 2],
    ]);
  }, 20_000);
});

describe("change: the flow's turn (NodeRoles.jsonataTurn)", () => {
  const turn = (rules: unknown[]) => changeNode.roles!.jsonataTurn!(changeConfig.parse({ rules }) as never);
  it("only with a JSONata operand and a context read or write", () => {
    expect(turn([{ t: "set", p: "payload", to: "$flowContext('v')", to_type: "jsonata" }])).toBe(true);
    expect(turn([{ t: "set", p: "payload", to: "$map(keys, $globalContext)", to_type: "jsonata" }])).toBe(true);
    // $eval's text is made at run time and evaluated with the same bindings.
    expect(turn([{ t: "set", p: "payload", to: "$eval('$' & \"flowContext('v')\")", to_type: "jsonata" }])).toBe(true);
    expect(turn([{ t: "set", p: "v", p_type: "flow", to: "payload * 2", to_type: "jsonata" }])).toBe(true);
    expect(turn([{ t: "set", p: "payload", to: "payload * 2", to_type: "jsonata" }, { t: "delete", p: "old", p_type: "global" }])).toBe(true);
    expect(turn([{ t: "set", p: "payload", to: "payload * 2", to_type: "jsonata" }])).toBe(false);
    expect(turn([{ t: "set", p: "v", p_type: "flow", to: "payload", to_type: "msg" }])).toBe(false);
  });
});
