import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import { delayNode } from "./definition";

const loadTestFlow = closingTestFlows();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fromNodeRed = (props: Record<string, unknown>) => delayNode.configSchema.parse(delayNode.nodeRed!.fromNodeRed(props)) as Record<string, unknown>;

describe("delay: Node-RED import and export", () => {
  it("reads every pause type and unit as Node-RED computes them", () => {
    expect(fromNodeRed({ pauseType: "delay", timeout: "5", timeoutUnits: "seconds" })).toMatchObject({ mode: "delay", delay_ms: 5000 });
    expect(fromNodeRed({ pauseType: "delay", timeout: "2", timeoutUnits: "minutes" })).toMatchObject({ delay_ms: 120_000 });
    expect(fromNodeRed({ pauseType: "delay", timeout: "250", timeoutUnits: "milliseconds" })).toMatchObject({ delay_ms: 250 });
    expect(fromNodeRed({ pauseType: "delayv", timeout: "1" })).toMatchObject({ mode: "variable", delay_ms: 1000 });
    expect(fromNodeRed({ pauseType: "random", randomFirst: "950", randomLast: "1050", randomUnits: "milliseconds" })).toMatchObject({ mode: "random", random_min_ms: 950, random_max_ms: 1050 });
    // rate messages per nbRateUnits × unit
    expect(fromNodeRed({ pauseType: "rate", rate: "2", nbRateUnits: "3", rateUnits: "minute" })).toMatchObject({ mode: "rate", rate: 2, rate_period_ms: 180_000 });
    expect(fromNodeRed({ pauseType: "queue", rate: "1", rateUnits: "hour" })).toMatchObject({ mode: "rate_each_topic", rate_period_ms: 3_600_000 });
    expect(fromNodeRed({ pauseType: "timed", rate: "1" })).toMatchObject({ mode: "rate_all_topics" });
    expect(fromNodeRed({ pauseType: "rate", drop: true, outputs: 2, allowrate: true })).toMatchObject({ drop: true, outputs: 2, allow_rate_override: true });
  });

  it("no longer reads msg.delay's node (delayv) as a fixed 5 s delay", () => {
    expect(fromNodeRed({ pauseType: "delayv", timeout: "5", timeoutUnits: "seconds" }).mode).toBe("variable");
  });

  it("refuses a pause type Node-RED 4.1 lacks and a rate of 0", () => {
    expect(() => delayNode.nodeRed!.fromNodeRed({ pauseType: "teleport" })).toThrow(/pauseType/);
    expect(delayNode.configSchema.safeParse(delayNode.nodeRed!.fromNodeRed({ pauseType: "rate", rate: "0" })).success).toBe(false);
  });

  it("exports back to the same behaviour", () => {
    for (const props of [
      { pauseType: "delay", timeout: "5", timeoutUnits: "seconds" },
      { pauseType: "delayv", timeout: "250", timeoutUnits: "milliseconds" },
      { pauseType: "random", randomFirst: "1", randomLast: "5", randomUnits: "seconds" },
      { pauseType: "rate", rate: "3", nbRateUnits: "2", rateUnits: "second", drop: true, outputs: 2, allowrate: true },
      { pauseType: "timed", rate: "1", nbRateUnits: "60", rateUnits: "second" },
    ]) {
      const config = fromNodeRed(props);
      expect(fromNodeRed(delayNode.nodeRed!.toNodeRed(config as never))).toEqual(config);
      expect(delayNode.nodeRed!.toNodeRed(config as never)).toMatchObject(props);
    }
  });

  it("has two output ports when dropped messages go to a second output", () => {
    expect(delayNode.outputs).toEqual({ value_of: "outputs" });
  });
});

describe("delay: behaviour", () => {
  it("shows how many messages wait (delays over a second), and 0 after a reset", async () => {
    const h = await loadTestFlow([{ id: "d", type: "delay", config: { delay_ms: 2000 } }, { id: "s", type: "sink" }], [{ source: "d", target: "s" }]);
    h.send("d", { payload: 1 });
    h.send("d", { payload: 2 });
    h.send("d", { reset: true });
    await sleep(20);
    expect(h.statuses.map((s) => s.status)).toEqual([
      { fill: "blue", shape: "dot", text: "1" },
      { fill: "blue", shape: "dot", text: "2" },
      { fill: "blue", shape: "ring", text: "0" },
    ]);
  });

  it("holds at most max_queue messages: a delay refuses more with Node-RED's error, to the catch node", async () => {
    const h = await loadTestFlow(
      [
        { id: "d", type: "delay", config: { delay_ms: 100, max_queue: 2 } },
        { id: "s", type: "sink" },
        { id: "c", type: "catch" },
        { id: "errors", type: "sink" },
      ],
      [
        { source: "d", target: "s" },
        { source: "c", target: "errors" },
      ],
    );
    for (let i = 1; i <= 3; i++) h.send("d", { payload: i });
    await h.waitFor(3);
    expect(h.arrivals.map((a) => [a.sink, a.msg.payload])).toEqual([
      ["errors", 3],
      ["s", 1],
      ["s", 2],
    ]);
    expect(h.errors[0]!.error).toMatch(/too many pending messages in delay node/);
  });

  it("a rate-limit queue past max_queue is cleared with that error, as Node-RED's nodeMessageBufferMaxLength", async () => {
    const h = await loadTestFlow([{ id: "d", type: "delay", config: { mode: "rate", rate: 1, rate_period_ms: 200, max_queue: 2 } }, { id: "s", type: "sink" }], [{ source: "d", target: "s" }]);
    for (let i = 1; i <= 4; i++) h.send("d", { payload: i });
    await sleep(500);
    // 1 passes; 2 and 3 wait; 4 finds the queue full: it is refused and the queue cleared.
    expect(h.received.map((m) => m.payload)).toEqual([1]);
    expect(h.errors).toHaveLength(1);
    expect(h.errors[0]!.error).toMatch(/too many pending/);
  });

  it("spreads a rate limit over the period: one message every period ÷ rate", async () => {
    const h = await loadTestFlow([{ id: "d", type: "delay", config: { mode: "rate", rate: 5, rate_period_ms: 500 } }, { id: "s", type: "sink" }], [{ source: "d", target: "s" }]);
    const start = Date.now();
    for (let i = 0; i < 3; i++) h.send("d", { payload: i });
    await h.waitFor(3);
    const elapsed = Date.now() - start;
    expect(elapsed).toBeGreaterThanOrEqual(180);
    expect(h.received.map((m) => m.payload)).toEqual([0, 1, 2]);
  });

  it("stops its timers when the flow stops: nothing is sent after close", async () => {
    const h = await loadTestFlow([{ id: "d", type: "delay", config: { delay_ms: 50 } }, { id: "s", type: "sink" }], [{ source: "d", target: "s" }]);
    h.send("d", { payload: 1 });
    await h.close();
    await sleep(100);
    expect(h.received).toEqual([]);
  });
});
