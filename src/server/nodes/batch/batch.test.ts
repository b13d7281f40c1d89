import { describe, expect, it } from "vitest";
import { advance, inVirtualTime, settle } from "@/test/virtual-time";
import { closingTestFlows } from "@/test/runtime-harness";
import { batchNode } from "./definition";
import { NO_PARTS, TOO_MANY } from "./behaviour";
import { MAX_HELD_MESSAGES } from "../sequence-support";

const flow = closingTestFlows();
const quiet = (ms = 60) => new Promise((r) => setTimeout(r, ms));

async function batchFlow(config: Record<string, unknown>) {
  return flow([{ id: "b", type: "batch", config }, { id: "s", type: "sink" }], [{ source: "b", target: "s" }]);
}

describe("batch", () => {
  it("groups by count, the sequence id being the first message's _msgid", async () => {
    const h = await batchFlow({ mode: "count", count: 2 });
    for (let i = 0; i < 5; i++) h.send("b", { _msgid: `m${i}`, payload: i });
    const got = await h.waitFor(4);
    await quiet();
    expect(got).toHaveLength(4);
    expect(got.map((m) => [m.payload, m.parts])).toEqual([
      [0, { id: "m0", index: 0, count: 2 }],
      [1, { id: "m0", index: 1, count: 2 }],
      [2, { id: "m2", index: 0, count: 2 }],
      [3, { id: "m2", index: 1, count: 2 }],
    ]);
  });

  it("overlaps sequences, ends a batch at the end of an incoming sequence, and drops on reset", async () => {
    const h = await batchFlow({ mode: "count", count: 3, overlap: 1 });
    for (let i = 0; i < 5; i++) h.send("b", { payload: i });
    const got = await h.waitFor(6);
    expect(got.map((m) => m.payload)).toEqual([0, 1, 2, 2, 3, 4]);

    const p = await batchFlow({ mode: "count", count: 10, honour_parts: true });
    p.send("b", { payload: "a", parts: { id: "x", index: 0, count: 2 } });
    p.send("b", { payload: "b", parts: { id: "x", index: 1, count: 2 } });
    const seq = await p.waitFor(2);
    expect(seq.map((m) => (m.parts as { count: number }).count)).toEqual([2, 2]);

    const r = await batchFlow({ mode: "count", count: 2 });
    r.send("b", { payload: 1 });
    r.send("b", { reset: true });
    r.send("b", { payload: 2 });
    r.send("b", { payload: 3 });
    expect((await r.waitFor(2)).map((m) => m.payload)).toEqual([2, 3]);
  });

  it("groups by interval and sends an empty sequence when asked", async () => {
    // In virtual time from before the flow starts (its interval starts with it): a loaded machine
    // could let the first interval pass before the two messages arrive.
    const got = await inVirtualTime(async () => {
      const h = await batchFlow({ mode: "interval", interval_seconds: 0.1, allow_empty_sequence: true });
      h.send("b", { payload: 1 });
      h.send("b", { payload: 2 });
      await settle();
      await advance(210);
      return h.received;
    });
    expect(got).toHaveLength(3);
    expect(got.slice(0, 2).map((m) => [m.payload, (m.parts as { count: number }).count])).toEqual([[1, 2], [2, 2]]);
    expect(got[2]).toMatchObject({ payload: null, parts: { index: 0, count: 1 } });
  });

  it("concatenates sequences in the order of its topics", async () => {
    const h = await batchFlow({ mode: "concat", topics: ["TA", "TB"] });
    h.send("b", { topic: "TB", payload: "b0", parts: { id: "B", index: 0, count: 1 } });
    h.send("b", { topic: "TA", payload: "a0", parts: { id: "A", index: 0, count: 2 } });
    h.send("b", { topic: "TC", payload: "ignored", parts: { id: "C", index: 0, count: 1 } });
    h.send("b", { topic: "TA", payload: "a1", parts: { id: "A", index: 1, count: 2 } });
    const got = await h.waitFor(3);
    expect(got.map((m) => [m.payload, (m.parts as { index: number }).index, (m.parts as { count: number }).count])).toEqual([
      ["a0", 0, 3],
      ["a1", 1, 3],
      ["b0", 2, 3],
    ]);
    h.send("b", { topic: "TA", payload: "no parts" });
    await quiet();
    expect(h.errors.map((e) => e.error)).toContain(NO_PARTS);
  });

  it(`holds at most ${MAX_HELD_MESSAGES} messages in interval mode`, async () => {
    const h = await batchFlow({ mode: "interval", interval_seconds: 3600 });
    for (let i = 0; i <= MAX_HELD_MESSAGES; i++) h.send("b", { payload: i });
    const deadline = Date.now() + 10_000;
    while (!h.errors.some((e) => e.error === TOO_MANY) && Date.now() < deadline) await quiet();
    expect(h.errors.map((e) => e.error)).toContain(TOO_MANY);
  }, 20_000);

  it("stops its interval timer when the flow stops", async () => {
    const h = await batchFlow({ mode: "interval", interval_seconds: 0.05, allow_empty_sequence: true });
    await h.engine.stop("flw_test");
    await quiet(150);
    expect(h.received).toHaveLength(0);
  });

  it("validates and maps Node-RED's properties", () => {
    expect(batchNode.configSchema.safeParse({ count: 2, overlap: 2 }).success).toBe(false);
    expect(batchNode.configSchema.safeParse({ mode: "interval", interval_seconds: 0 }).success).toBe(false);
    const nr = { mode: "concat", count: 10, overlap: 0, interval: 10, allowEmptySequence: false, topics: [{ topic: "a" }, { topic: "b" }], honourParts: false };
    const config = batchNode.configSchema.parse(batchNode.nodeRed!.fromNodeRed(nr));
    expect(batchNode.nodeRed!.toNodeRed(config)).toEqual(nr);
  });
});
