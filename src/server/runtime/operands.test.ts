import { describe, expect, it } from "vitest";
import { builtinVariables, memoryContextStore, memoryNodeContext } from "./memory-context";
import { evaluateOperand, getTarget, operandProblem, prepareOperand, setTarget, type OperandType } from "./operands";
import type { Message, NodeContext } from "./types";

function context(): NodeContext {
  return {
    context: {
      node: memoryNodeContext(),
      flow: memoryContextStore(new Map<string, unknown>([["count", 2], ["stats", { total: 5, list: [1, 2] }]])),
      global: memoryContextStore(new Map<string, unknown>([["site", "north"]])),
    },
    env: builtinVariables({ CITY: "Oslo", N: "42", NR_NODE_ID: "n1" }),
  } as unknown as NodeContext;
}

const msg = (): Message => ({ _msgid: "m1", payload: { a: [10, 20] }, topic: "t" });
const value = (type: OperandType, v: string, m = msg(), ctx = context()) => evaluateOperand(ctx, { value: v, type }, m);

describe("evaluateOperand", () => {
  it("reads msg, flow and global (nested keys as Node-RED)", () => {
    expect(value("msg", "payload.a[1]")).toBe(20);
    expect(value("msg", "msg.topic")).toBe("t");
    expect(value("flow", "count")).toBe(2);
    expect(value("flow", "stats.list[1]")).toBe(2);
    expect(value("flow", "missing.x")).toBeUndefined();
    expect(value("global", "site")).toBe("north");
    // Node-RED's store prefix names the one store there is.
    expect(value("flow", "#:(file)::count")).toBe(2);
  });

  it("reads env as Node-RED's evaluateEnvProperty: NAME, ${NAME}, or text with ${NAME}", () => {
    expect(value("env", "CITY")).toBe("Oslo");
    expect(value("env", "${CITY}")).toBe("Oslo");
    expect(value("env", "in ${CITY} at ${NR_NODE_ID}${NOPE}")).toBe("in Oslo at n1");
    expect(value("env", "NOPE")).toBe("");
  });

  it("reads the literals str, num, bool, json, bin", () => {
    expect(value("str", "hello")).toBe("hello");
    expect(value("num", "3.5")).toBe(3.5);
    expect(value("bool", "TRUE")).toBe(true);
    expect(value("bool", "no")).toBe(false);
    expect(value("json", '{"a":[1,{"b":null}]}')).toEqual({ a: [1, { b: null }] });
    expect(value("bin", "[1,2,255]")).toEqual(Buffer.from([1, 2, 255]));
    expect(value("bin", '"hi"')).toEqual(Buffer.from("hi"));
  });

  it("a literal that is exactly ${NAME} reads the variable, as Node-RED maps it at load; unknown stays", () => {
    expect(value("str", "${CITY}")).toBe("Oslo");
    expect(value("num", "${N}")).toBe(42);
    expect(value("str", "${NOPE}")).toBe("${NOPE}");
    expect(value("str", "a ${CITY}")).toBe("a ${CITY}");
  });

  it("reads date as a timestamp, ISO text, a Date, or a moment.js format", () => {
    const before = Date.now();
    expect(value("date", "") as number).toBeGreaterThanOrEqual(before);
    expect(value("date", "iso")).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(value("date", "object")).toBeInstanceOf(Date);
    expect(value("date", "YYYY")).toBe(String(new Date().getFullYear()));
  });

  it("compiles re and jsonata once; jsonata is asynchronous and sees the node's context and env", async () => {
    const re = prepareOperand({ value: "^a+$", type: "re" });
    expect(re.async).toBe(false);
    expect((re.evaluate(context(), msg()) as { matcher(s: string): { find(): boolean } }).matcher("aaa").find()).toBe(true);
    const expr = prepareOperand({ value: "payload.a[0] + $flowContext('count') & $env('CITY')", type: "jsonata" });
    expect(expr.async).toBe(true);
    await expect(expr.evaluate(context(), msg())).resolves.toBe("12Oslo");
    // $moment is bound as in Node-RED; jsonata 2.2 reads only own properties, so its methods cannot be called.
    const when = prepareOperand({ value: "$moment('2020-01-02T03:04:05Z')", type: "jsonata" });
    expect(JSON.stringify(await when.evaluate(context(), msg()))).toBe('"2020-01-02T03:04:05.000Z"');
  });
});

describe("operandProblem (what the schemas refuse at save)", () => {
  it.each([
    ["msg", "payload.__proto__.x", /property path/],
    ["flow", "", /context key/],
    ["global", "a.constructor", /context key/],
    ["num", "abc", /number/],
    ["bool", "yes", /true or false/],
    ["json", "{bad", /valid JSON/],
    ["bin", "{}", /array of bytes/],
    ["re", "(a)\\1", /regular expression/],
    ["jsonata", "payload.(", /JSONata/],
  ] as const)("%s %j is refused", (type, v, message) => {
    expect(operandProblem(v, type)).toMatch(message);
  });

  it("accepts good values, and ${NAME} for any literal", () => {
    for (const [type, v] of [["msg", "payload.a[0]"], ["flow", "stats.list[0]"], ["num", "-1e3"], ["json", "[1]"], ["bin", "[1]"], ["jsonata", "$now()"], ["num", "${N}"], ["date", "HH:mm"]] as const) {
      expect(operandProblem(v, type)).toBeNull();
    }
  });
});

describe("targets", () => {
  it("sets and deletes msg properties and nested flow/global keys without touching the stored object", () => {
    const ctx = context();
    const m = msg();
    const stored = ctx.context.flow.get("stats");
    setTarget(ctx, { type: "flow", path: "stats.list[0]" }, m, 9);
    expect(getTarget(ctx, { type: "flow", path: "stats" }, m)).toEqual({ total: 5, list: [9, 2] });
    expect(stored).toEqual({ total: 5, list: [1, 2] });
    setTarget(ctx, { type: "global", path: "site" }, m, undefined);
    expect(ctx.context.global.keys()).toEqual([]);
    setTarget(ctx, { type: "msg", path: "payload.b.c" }, m, 1);
    expect(m.payload).toEqual({ a: [10, 20], b: { c: 1 } });
    expect(getTarget(ctx, { type: "msg", path: "msg.payload.b.c" }, m)).toBe(1);
    setTarget(ctx, { type: "msg", path: "msg.topic" }, m, undefined);
    expect("topic" in m).toBe(false);
    expect(() => setTarget(ctx, { type: "flow", path: "__proto__.x" }, m, 1)).toThrow(/not an allowed context key/);
  });
});
