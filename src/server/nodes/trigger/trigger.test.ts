import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import type { Message } from "@/server/runtime/types";
import { triggerNode } from "./definition";
import { TOO_MANY_TOPICS } from "./behaviour";
import { MAX_TOPICS } from "../sequence-support";
import { advance, inVirtualTime, settle } from "@/test/virtual-time";

const flow = closingTestFlows();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function triggerFlow(config: Record<string, unknown>, outputs = 1) {
  const nodes = [{ id: "t", type: "trigger", config }, { id: "s", type: "sink" }, { id: "s2", type: "sink" }];
  const connections = [{ source: "t", target: "s" }, ...(outputs === 2 ? [{ source: "t", target: "s2", source_port: 1 }] : [])];
  return flow(nodes, connections);
}
const payloads = (ms: Message[]) => ms.map((m) => m.payload);

describe("trigger", () => {
  // In virtual time (src/test/virtual-time.ts): a real wait on a loaded machine could outlast the node's timer.
  it('sends "1" at once and "0" after the delay, keeping the message, and ignores messages meanwhile', async () => {
    const h = await triggerFlow({ duration: 250 });
    await inVirtualTime(async () => {
      h.send("t", { payload: "x", topic: "t1" });
      await advance(20);
      h.send("t", { payload: "ignored" });
      await advance(229);
      expect(payloads(h.received)).toEqual(["1"]);
      await advance(80);
    });
    expect(h.received.map((m) => [m.payload, m.topic])).toEqual([["1", "t1"], ["0", "t1"]]);
  });

  it("acts as a watchdog: nothing first, extended by each message, the latest message sent when they stop", async () => {
    const h = await triggerFlow({ op1_type: "nul", op2_type: "payl", extend: true, duration: 400 });
    await inVirtualTime(async () => {
      for (const p of [1, 2, 3]) {
        h.send("t", { payload: p });
        await advance(50);
      }
      // 150 ms in: the first message's 400 ms would have ended at 400, the last one's ends at 500.
      await advance(300);
      expect(h.received).toHaveLength(0);
      await advance(70);
    });
    expect(payloads(h.received)).toEqual([3]);
  });

  it("keeps one timer per topic, shows how many in its status, and sends the second message on output 2", async () => {
    const h = await triggerFlow({ by_topic: "topic", op1: "on", op2: "off", duration: 400, outputs: 2 }, 2);
    h.send("t", { payload: 1, topic: "a" });
    h.send("t", { payload: 1, topic: "b" });
    await sleep(50);
    expect(h.statuses.at(-1)!.status).toEqual({ fill: "blue", shape: "dot", text: "2" });
    await h.waitFor(4);
    expect(h.arrivals.map((a) => [a.sink, a.msg.payload, a.msg.topic])).toEqual([
      ["s", "on", "a"],
      ["s", "on", "b"],
      ["s2", "off", "a"],
      ["s2", "off", "b"],
    ]);
    expect(h.statuses.at(-1)!.status).toBeNull();
  });

  it("resends at an interval until reset by msg.reset or the reset payload", async () => {
    const h = await triggerFlow({ op1_type: "pay", duration: -30, reset: "stop" });
    h.send("t", { payload: "tick" });
    await h.waitFor(3);
    h.send("t", { payload: "stop" });
    await settle();
    const count = h.received.length;
    await sleep(100);
    expect(h.received.length).toBe(count);
    expect(new Set(payloads(h.received))).toEqual(new Set(["tick"]));
  });

  it("uses msg.delay when allowed, and evaluates typed values and mustache templates", async () => {
    const h = await triggerFlow({ override_delay: true, duration: 5000, op1: "{{payload}}!", op1_type: "str", op2: '{"done":true}', op2_type: "json" });
    h.send("t", { payload: "go", delay: 30 });
    const got = await h.waitFor(2, 1000);
    expect(payloads(got)).toEqual(["go!", { done: true }]);
  });

  it("waits to be reset with a duration of 0", async () => {
    const h = await triggerFlow({ duration: 0 });
    h.send("t", { payload: 1 });
    h.send("t", { payload: 2 });
    await sleep(50);
    h.send("t", { reset: true });
    h.send("t", { payload: 3 });
    await h.waitFor(2);
    await sleep(30);
    expect(payloads(h.received)).toEqual(["1", "1"]);
  });

  it("clears its timers when the flow stops: a redeploy leaks nothing", async () => {
    const h = await triggerFlow({ duration: 150 });
    h.send("t", { payload: 1 });
    await h.waitFor(1);
    await h.engine.stop("flw_test");
    await sleep(250);
    expect(payloads(h.received)).toEqual(["1"]);
    const r = await triggerFlow({ duration: -20 });
    r.send("t", { payload: 1 });
    await r.waitFor(2);
    await r.engine.stop("flw_test");
    const count = r.received.length;
    await sleep(80);
    expect(r.received.length).toBe(count);
  });

  it(`holds at most ${MAX_TOPICS} topics at once`, async () => {
    const h = await triggerFlow({ by_topic: "topic", op1_type: "nul", duration: 0 });
    for (let i = 0; i <= MAX_TOPICS; i++) h.send("t", { topic: `t${i}`, payload: i });
    const deadline = Date.now() + 10_000;
    while (h.errors.length === 0 && Date.now() < deadline) await sleep(20);
    expect(h.errors.map((e) => e.error)).toEqual([TOO_MANY_TOPICS]);
    h.send("t", { reset: true, topic: "t0" });
    h.send("t", { topic: "new", payload: "x" });
    await sleep(50);
    expect(h.errors).toHaveLength(1);
  }, 20_000);

  it("validates its values and maps Node-RED's properties, legacy val types included", () => {
    expect(triggerNode.configSchema.safeParse({ op1: "abc", op1_type: "num" }).success).toBe(false);
    expect(triggerNode.configSchema.safeParse({ op2: "{", op2_type: "json" }).success).toBe(false);
    expect(triggerNode.configSchema.safeParse({ op1: "{{payload}}", op1_type: "str" }).success).toBe(true);
    const defaults = triggerNode.configSchema.parse(triggerNode.nodeRed!.fromNodeRed({ op1: "1", op2: "0", op1type: "val", op2type: "val", duration: "250", extend: "false", units: "ms", reset: "", bytopic: "all", topic: "topic", outputs: 1 }));
    expect(defaults).toMatchObject({ op1: "1", op1_type: "str", op2: "0", op2_type: "str", duration: 250, extend: false });
    const nulls = triggerNode.configSchema.parse(triggerNode.nodeRed!.fromNodeRed({ op1: "null", op1type: "val", op2: "true", op2type: "val" }));
    expect(nulls).toMatchObject({ op1: "null", op1_type: "json", op2_type: "bool" });
    const nr = { op1: "", op2: "x", op1type: "nul", op2type: "payl", duration: "-5", extend: false, overrideDelay: true, units: "s", reset: "stop", bytopic: "topic", topic: "payload.id", outputs: 2 };
    expect(triggerNode.nodeRed!.toNodeRed(triggerNode.configSchema.parse(triggerNode.nodeRed!.fromNodeRed(nr)))).toEqual(nr);
  });
});
