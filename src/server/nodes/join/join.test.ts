import { describe, expect, it } from "vitest";
import { advance, inVirtualTime, settle } from "@/test/virtual-time";
import { closingTestFlows } from "@/test/runtime-harness";
import { joinNode } from "./definition";
import { TOO_MANY } from "./behaviour";
import { MAX_HELD_MESSAGES } from "../sequence-support";

const flow = closingTestFlows();

async function joinFlow(config: Record<string, unknown> = {}) {
  return flow([{ id: "j", type: "join", config }, { id: "s", type: "sink" }], [{ source: "j", target: "s" }]);
}

async function splitJoin(splitConfig: Record<string, unknown> = {}, joinConfig: Record<string, unknown> = {}) {
  return flow(
    [
      { id: "sp", type: "split", config: splitConfig },
      { id: "j", type: "join", config: joinConfig },
      { id: "s", type: "sink" },
    ],
    [
      { source: "sp", target: "j" },
      { source: "j", target: "s" },
    ],
  );
}

const quiet = () => new Promise((r) => setTimeout(r, 60));


describe("join, automatic mode", () => {
  it("reverses a split of an array, an object, a string and a buffer", async () => {
    const h = await splitJoin();
    h.send("sp", { payload: [1, { a: 2 }, "3"], topic: "t" });
    h.send("sp", { payload: { a: 1, b: [2] } });
    h.send("sp", { payload: "one\ntwo" });
    h.send("sp", { payload: Buffer.from("x\ny") });
    const got = await h.waitFor(4);
    expect(got.map((m) => m.payload)).toEqual([[1, { a: 2 }, "3"], { a: 1, b: [2] }, "one\ntwo", Buffer.from("x\ny")]);
    expect(got[0]!.topic).toBe("t");
    expect(got.every((m) => !("parts" in m))).toBe(true);
  });

  it("reverses an array split into chunks and a fixed-length string split", async () => {
    const h = await splitJoin({ array_split: 2 });
    h.send("sp", { payload: [1, 2, 3, 4, 5] });
    const [a] = await h.waitFor(1);
    expect(a!.payload).toEqual([1, 2, 3, 4, 5]);
    const s = await splitJoin({ split_type: "len", split: "3" });
    s.send("sp", { payload: "abcdefgh" });
    const [b] = await s.waitFor(1);
    expect(b!.payload).toBe("abcdefgh");
  });

  it("places parts by index whatever their order, and restores an enclosing sequence's parts", async () => {
    const h = await joinFlow();
    const outer = { id: "o", index: 1, count: 2 };
    h.send("j", { payload: "c", parts: { id: "g", index: 2, count: 3, type: "array", parts: outer } });
    h.send("j", { payload: "a", parts: { id: "g", index: 0, count: 3, type: "array", parts: outer } });
    h.send("j", { payload: "b", parts: { id: "g", index: 1, count: 3, type: "array", parts: outer } });
    const [m] = await h.waitFor(1);
    expect(m!.payload).toEqual(["a", "b", "c"]);
    expect(m!.parts).toEqual(outer);
  });

  it("chains split-split-join-join back to the original", async () => {
    const h = await flow(
      [
        { id: "s1", type: "split" },
        { id: "s2", type: "split", config: { split_type: "str", split: "," } },
        { id: "j1", type: "join" },
        { id: "j2", type: "join" },
        { id: "s", type: "sink" },
      ],
      [
        { source: "s1", target: "s2" },
        { source: "s2", target: "j1" },
        { source: "j1", target: "j2" },
        { source: "j2", target: "s" },
      ],
    );
    h.send("s1", { payload: ["a,b", "c,d,e"] });
    const [m] = await h.waitFor(1);
    expect(m!.payload).toEqual(["a,b", "c,d,e"]);
  });

  it("warns about a message without msg.parts and sends nothing", async () => {
    const h = await joinFlow();
    h.send("j", { payload: 1 });
    await quiet();
    expect(h.received).toHaveLength(0);
    expect(h.errors[0]!.error).toMatch(/missing msg.parts/);
  });
});

describe("join, manual mode", () => {
  it("joins into an array after a count, ignoring parts.index", async () => {
    const h = await joinFlow({ mode: "manual", build: "array", count: 3 });
    for (const [p, i] of [["a", 2], ["b", 1], ["c", 0]] as const) h.send("j", { payload: p, topic: `t${i}`, parts: { id: "x", index: i, count: 3 } });
    const [m] = await h.waitFor(1);
    expect(m!.payload).toEqual(["a", "b", "c"]);
    expect(m!.topic).toBe("t0");
    expect("parts" in m!).toBe(false);
  });

  // In virtual time (src/test/virtual-time.ts): on a loaded machine a real 300 ms wait can outlast the 500 ms timeout.
  it("joins strings with a joiner after a timeout, and the timeout restarts", async () => {
    const h = await joinFlow({ mode: "manual", build: "string", joiner: ",", timeout_seconds: 0.5 });
    await inVirtualTime(async () => {
      h.send("j", { payload: "a" });
      await advance(300);
      h.send("j", { payload: "b", restartTimeout: true });
      await advance(450);
      expect(h.received).toHaveLength(0);
      await advance(60);
    });
    expect(h.received.map((m) => m.payload)).toEqual(["a,b"]);
  });

  it("builds a key/value object, merged objects and accumulates", async () => {
    const o = await joinFlow({ mode: "manual", build: "object", count: 2 });
    o.send("j", { payload: 1, topic: "a" });
    o.send("j", { payload: 2, topic: "b" });
    const [obj] = await o.waitFor(1);
    expect(obj!.payload).toEqual({ a: 1, b: 2 });

    const m = await joinFlow({ mode: "manual", build: "merged", count: 3, accumulate: true });
    m.send("j", { payload: { a: 1 } });
    m.send("j", { payload: { b: 2 } });
    m.send("j", { payload: { c: 3 } });
    m.send("j", { payload: { a: 4 } });
    const got = await m.waitFor(2);
    expect(got.map((x) => x.payload)).toEqual([{ a: 1, b: 2, c: 3 }, { a: 4, b: 2, c: 3 }]);
  });

  it("joins whole messages, and strings into a buffer", async () => {
    const h = await joinFlow({ mode: "manual", build: "array", property_type: "full", count: 2 });
    h.send("j", { payload: 1, topic: "a" });
    h.send("j", { payload: 2, topic: "b" });
    const [m] = await h.waitFor(1);
    expect((m!.payload as Array<Record<string, unknown>>).map((x) => [x.payload, x.topic])).toEqual([[1, "a"], [2, "b"]]);

    const b = await joinFlow({ mode: "manual", build: "buffer", joiner_type: "bin", joiner: "[44]", count: 2 });
    b.send("j", { payload: "ab" });
    b.send("j", { payload: Buffer.from("cd") });
    const [buf] = await b.waitFor(1);
    expect(buf!.payload).toEqual(Buffer.from("ab,cd"));
  });

  it("sends on msg.complete and drops on msg.reset", async () => {
    const h = await joinFlow({ mode: "manual", build: "string", joiner: "-" });
    h.send("j", { payload: "a" });
    h.send("j", { payload: "b" });
    h.send("j", { reset: true });
    h.send("j", { payload: "c" });
    h.send("j", { payload: "d", complete: true });
    const [m] = await h.waitFor(1);
    expect(m!.payload).toBe("c-d");
    expect("complete" in m!).toBe(false);
  });

  it("groups by msg.parts.id when the count is empty and msg.parts is used", async () => {
    const h = await joinFlow({ mode: "manual", build: "array", use_parts: true });
    h.send("j", { payload: 1, parts: { id: "A", index: 0, count: 2 } });
    h.send("j", { payload: 10, parts: { id: "B", index: 0, count: 2 } });
    h.send("j", { payload: 20, parts: { id: "B", index: 1, count: 2 } });
    h.send("j", { payload: 2, parts: { id: "A", index: 1, count: 2 } });
    const got = await h.waitFor(2);
    expect(got.map((m) => m.payload)).toEqual([[10, 20], [1, 2]]);
  });

  it(`holds at most ${MAX_HELD_MESSAGES} messages, then reports and drops them`, async () => {
    const h = await joinFlow({ mode: "manual", build: "array" });
    for (let i = 0; i <= MAX_HELD_MESSAGES; i++) h.send("j", { payload: i });
    const deadline = Date.now() + 10_000;
    while (!h.errors.some((e) => e.error === TOO_MANY) && Date.now() < deadline) await quiet();
    expect(h.errors.map((e) => e.error)).toContain(TOO_MANY);
    h.send("j", { payload: "after", complete: true });
    const [m] = await h.waitFor(1);
    expect(m!.payload).toEqual(["after"]);
  }, 20_000);

  it("stops its timer when the flow stops", async () => {
    const h = await joinFlow({ mode: "manual", build: "string", timeout_seconds: 0.1 });
    await inVirtualTime(async () => {
      h.send("j", { payload: "a" });
      await advance(50);
      await h.engine.stop("flw_test");
      await advance(150);
    });
    await settle();
    expect(h.received).toHaveLength(0);
  });

  it("maps Node-RED's properties both ways", () => {
    const nr = { mode: "custom", build: "string", property: "payload", propertyType: "msg", key: "topic", joiner: ",", joinerType: "str", useparts: false, accumulate: false, timeout: "2", count: "3" };
    const config = joinNode.configSchema.parse(joinNode.nodeRed!.fromNodeRed(nr));
    expect(config).toMatchObject({ mode: "manual", build: "string", joiner: ",", count: 3, timeout_seconds: 2 });
    expect(joinNode.nodeRed!.toNodeRed(config)).toMatchObject(nr);
    expect(joinNode.configSchema.safeParse({ joiner_type: "bin", joiner: "x" }).success).toBe(false);
  });
});

describe("join, reduce mode", () => {
  const reduce = (extra: Record<string, unknown> = {}) => joinFlow({ mode: "reduce", reduce_expression: "$A+payload", reduce_init: "0", reduce_init_type: "num", ...extra });
  const sequence = (values: unknown[], id = "g") => values.map((payload, index) => ({ payload, parts: { id, index, count: values.length } }));

  it("reduces a sequence in index order with a fix-up, whatever the arrival order", async () => {
    const h = await reduce({ reduce_fixup: "$A/$N" });
    const msgs = sequence([1, 2, 3, 6]);
    for (const m of [msgs[2]!, msgs[0]!, msgs[3]!, msgs[1]!]) h.send("j", m);
    const [m] = await h.waitFor(1);
    expect(m!.payload).toBe(3);
    expect(m!.parts).toMatchObject({ index: 3, count: 4 });
  });

  it("evaluates right to left, and with context in the expressions", async () => {
    const h = await reduce({ reduce_expression: "$A & payload", reduce_init: "", reduce_init_type: "str", reduce_right: true });
    sequence(["a", "b", "c"]).forEach((m) => h.send("j", m));
    const [m] = await h.waitFor(1);
    expect(m!.payload).toBe("cba");
  });

  it("reports a failing expression on the message that completed the sequence, and sends nothing", async () => {
    const h = await reduce();
    sequence(["x", "y"]).forEach((m) => h.send("j", m));
    await quiet();
    expect(h.received).toHaveLength(0);
    expect(h.errors).toHaveLength(1);
  });

  it("stops an endless expression at the JSONata time limit", async () => {
    const h = await reduce({ reduce_expression: "($f := function($n){ $f($n) }; $f(1))" });
    sequence([1]).forEach((m) => h.send("j", m));
    const deadline = Date.now() + 5000;
    while (h.errors.length === 0 && Date.now() < deadline) await quiet();
    expect(h.errors).toHaveLength(1);
    expect(h.received).toHaveLength(0);
  }, 10_000);

  it("refuses a missing or invalid expression and an invalid initial value", () => {
    expect(joinNode.configSchema.safeParse({ mode: "reduce" }).success).toBe(false);
    expect(joinNode.configSchema.safeParse({ mode: "reduce", reduce_expression: "$A +" }).success).toBe(false);
    expect(joinNode.configSchema.safeParse({ mode: "reduce", reduce_expression: "$A", reduce_fixup: "(" }).success).toBe(false);
    expect(joinNode.configSchema.safeParse({ mode: "reduce", reduce_expression: "$A", reduce_init: "abc", reduce_init_type: "num" }).success).toBe(false);
    const nr = { mode: "reduce", reduceExp: "$A+payload", reduceInit: "", reduceInitType: "num", reduceFixup: "$A/$N", reduceRight: true };
    const config = joinNode.configSchema.parse(joinNode.nodeRed!.fromNodeRed(nr));
    expect(config).toMatchObject({ mode: "reduce", reduce_expression: "$A+payload", reduce_init: "0", reduce_init_type: "num", reduce_fixup: "$A/$N", reduce_right: true });
    expect(joinNode.nodeRed!.toNodeRed(config)).toMatchObject({ mode: "reduce", reduceExp: "$A+payload", reduceInit: "0", reduceFixup: "$A/$N", reduceRight: true });
  });
});
