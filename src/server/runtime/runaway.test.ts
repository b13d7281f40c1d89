/**
 * Issue 15 #4: a flow cannot freeze the event loop or grow memory without bound.
 */
import { describe, expect, it } from "vitest";
import { loadTestFlow } from "@/test/runtime-harness";
import { maxEventLoopGap } from "@/test/event-loop-gap";
import { changeConfig } from "../nodes/change/definition";
import { switchConfig } from "../nodes/switch/definition";

describe("closing nodes never blocks the event loop", () => {
  it("stopping 3 function nodes whose finalize is `while (true) {}` keeps the loop turning and ends by the deadline", async () => {
    const nodes = [1, 2, 3].map((i) => ({ id: `f${i}`, type: "function", config: { code: "return msg;", finalize: "while (true) {}", timeout_ms: 300 } }));
    const h = await loadTestFlow(nodes, []);
    expect(h.state).toBe("running");
    const started = Date.now();
    const { gap, gcPauses } = await maxEventLoopGap(() => h.engine.stop("flw_test"));
    // The harness' close deadline is 500 ms: the stop never waits longer, and no tick is held up.
    expect(Date.now() - started).toBeLessThan(2000);
    expect(gap, `V8's pauses meanwhile: ${gcPauses.join(", ") || "none"}`).toBeLessThan(250);
    await h.close();
  });
});

describe("runaway messages", () => {
  it("a change node wired to itself (A → A) is stopped by the hop limit and reported", async () => {
    const h = await loadTestFlow([{ id: "a", type: "change", config: { rules: [{ t: "set", p: "topic", to: "loop" }] } }], [{ source: "a", target: "a" }]);
    h.send("a", { payload: 1 });
    await expect.poll(() => h.errors.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(h.errors[0]).toMatchObject({ nodeId: "a", error: expect.stringMatching(/passed through \d+ nodes: the flow loops/) });
    // The loop is over: the queue drains, memory does not grow.
    await new Promise((r) => setTimeout(r, 100));
    const heap = process.memoryUsage().heapUsed;
    await new Promise((r) => setTimeout(r, 300));
    expect(process.memoryUsage().heapUsed - heap).toBeLessThan(50 * 1024 * 1024);
    expect(h.errors).toHaveLength(1);
    await h.close();
  });

  it("a fan-out loop (A → B → A with A wired twice to B) is bounded by the per-flow queue limit", async () => {
    const h = await loadTestFlow(
      [
        { id: "a", type: "change", config: { rules: [{ t: "set", p: "topic", to: "a" }] } },
        { id: "b", type: "change", config: { rules: [{ t: "set", p: "topic", to: "b" }] } },
        { id: "b2", type: "change", config: { rules: [{ t: "set", p: "topic", to: "b2" }] } },
      ],
      [
        { source: "a", target: "b" },
        { source: "a", target: "b2" },
        { source: "b", target: "a" },
        { source: "b2", target: "a" },
      ],
    );
    const heap = process.memoryUsage().heapUsed;
    h.send("a", { payload: "x".repeat(1000) });
    await expect.poll(() => h.errors.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(h.errors[0]!.error).toMatch(/messages are waiting in this flow|the flow loops/);
    await h.close();
    expect(process.memoryUsage().heapUsed - heap).toBeLessThan(300 * 1024 * 1024);
  });
});

describe("a looping flow is bounded in bytes and dies out (issue 40)", () => {
  it("function code returning two new 10 KiB messages to itself: stopped at the flow's byte bound, then nothing waits any more", async () => {
    const h = await loadTestFlow([{ id: "f", type: "function", config: { code: "return [[{ payload: msg.payload }, { payload: msg.payload }]];" } }], [{ source: "f", target: "f" }], {}, {}, { maxQueuedBytesPerFlow: 4 * 1024 * 1024 });
    h.send("f", { payload: "x".repeat(10 * 1024) });
    await expect.poll(() => h.errors.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(h.errors[0]).toMatchObject({ nodeId: "f", error: expect.stringMatching(/more than 4 MiB of messages are waiting in this flow/) });
    // Before: the copies waited in the sandbox's queue, uncounted, and the loop ran until its hop limit.
    await expect.poll(() => h.engine.load("flw_test"), { timeout: 10_000 }).toBe(0);
    await new Promise((r) => setTimeout(r, 200));
    expect(h.engine.load("flw_test")).toBe(0);
    expect(h.errors).toHaveLength(1);
    await h.close();
  });

  it("a change-node fan-out loop of 10 KiB messages stops at the byte bound and drains", async () => {
    const h = await loadTestFlow(
      [
        { id: "a", type: "change", config: { rules: [{ t: "set", p: "topic", to: "a" }] } },
        { id: "b", type: "change", config: { rules: [{ t: "set", p: "topic", to: "b" }] } },
      ],
      [
        { source: "a", target: "b" },
        { source: "a", target: "b" },
        { source: "b", target: "a" },
      ],
      {},
      {},
      { maxQueuedBytesPerFlow: 4 * 1024 * 1024 },
    );
    h.send("a", { payload: "x".repeat(10 * 1024) });
    await expect.poll(() => h.errors.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(h.errors[0]!.error).toMatch(/MiB of messages are waiting in this flow/);
    await expect.poll(() => h.engine.load("flw_test"), { timeout: 10_000 }).toBe(0);
    await new Promise((r) => setTimeout(r, 200));
    expect(h.engine.load("flw_test")).toBe(0);
    await h.close();
  });
});

describe("regular expressions cannot backtrack catastrophically", () => {
  it("a switch rule `^(a+)+$` on a long payload answers at once", async () => {
    const h = await loadTestFlow(
      [
        { id: "s", type: "switch", config: { rules: [{ t: "regex", v: "^(a+)+$" }, { t: "else" }] } },
        { id: "sink", type: "sink" },
      ],
      [{ source: "s", target: "sink", source_port: 1 }],
    );
    const started = performance.now();
    h.send("s", { payload: `${"a".repeat(5000)}!` });
    await h.waitFor(1);
    expect(performance.now() - started).toBeLessThan(1000);
    await h.close();
  });

  it("a change rule with a catastrophic pattern replaces in linear time, and RE2-incompatible patterns are refused at save", async () => {
    const h = await loadTestFlow(
      [
        { id: "c", type: "change", config: { rules: [{ t: "change", p: "payload", from: "(a|aa)+$", from_type: "re", to: "<$1>" }] } },
        { id: "sink", type: "sink" },
      ],
      [{ source: "c", target: "sink" }],
    );
    const started = performance.now();
    h.send("c", { payload: `${"a".repeat(40)}b` });
    await h.waitFor(1);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(h.received[0]!.payload).toBe(`${"a".repeat(40)}b`);
    await h.close();
    expect(changeConfig.safeParse({ rules: [{ t: "change", p: "payload", from: "(a)\\1", from_type: "re" }] }).success).toBe(false);
    expect(switchConfig.safeParse({ rules: [{ t: "regex", v: "(?=a)" }] }).success).toBe(false);
  });
});
