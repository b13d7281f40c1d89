/**
 * The execution tracker inside the real engine (runtime harness, no database): what an execution
 * is made of, when it ends, what a catch node, a split and a stopped flow do to it, and what
 * sampling keeps.
 */
import { afterEach, describe, expect, it } from "vitest";
import { loadTestFlow, type HarnessNode } from "@/test/runtime-harness";
import { ExecutionTracker, MAX_STEPS, type TrackedExecution } from "./tracker";

const open: Array<{ close(): Promise<void> }> = [];
const trackers: ExecutionTracker[] = [];
afterEach(async () => {
  for (const f of open.splice(0)) await f.close();
  for (const t of trackers.splice(0)) t.close();
});

function recorder(options: { sampleAllPerSec?: number; sampleOneIn?: number; longRunningMs?: number } = {}) {
  const finished: TrackedExecution[] = [];
  const running: TrackedExecution[] = [];
  const unrecorded: string[] = [];
  const tracker = new ExecutionTracker({
    sink: { running: (e) => running.push(e), finished: (e) => finished.push(e), unrecorded: (_org, flowId) => unrecorded.push(flowId) },
    sampleAllPerSec: options.sampleAllPerSec ?? 1000,
    sampleOneIn: options.sampleOneIn ?? 1,
    longRunningMs: options.longRunningMs,
  });
  trackers.push(tracker);
  return { tracker, finished, running, unrecorded };
}

async function load(nodes: HarnessNode[], connections: Array<{ source: string; target: string; source_port?: number }>, tracker: ExecutionTracker) {
  const flow = await loadTestFlow(nodes, connections, {}, {}, { executions: tracker });
  open.push(flow);
  return flow;
}

async function until(check: () => boolean, what: string) {
  const deadline = Date.now() + 3000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("execution tracker", () => {
  it("an inject starts an execution; every node it reaches is a step; it ends when nothing of it is pending", async () => {
    const r = recorder();
    const flow = await load(
      [
        { id: "inj", type: "inject" },
        { id: "chg", type: "change", config: { rules: [{ t: "set", p: "topic", to: "t" }] } },
        { id: "out", type: "sink" },
      ],
      [
        { source: "inj", target: "chg" },
        { source: "chg", target: "out" },
      ],
      r.tracker,
    );
    flow.engine.inject("flw_test", "inj", { payload: 5 });
    await until(() => r.finished.length === 1, "one execution");
    const [e] = r.finished;
    expect(e).toMatchObject({ flowId: "flw_test", organizationId: "org_test", triggerNodeId: "inj", status: "success", pending: 0, sampled: true });
    expect(e!.steps.map((s) => s.nodeId)).toEqual(["inj", "chg", "out"]);
    expect(e!.steps.map((s) => s.outputs)).toEqual([[1], [1], []]);
    expect(JSON.parse(e!.steps[1]!.input!)).toMatchObject({ payload: 5 });
    expect(JSON.parse(e!.steps[2]!.input!)).toMatchObject({ payload: 5, topic: "t" });
    expect(JSON.parse(e!.triggerMessage!)).toMatchObject({ payload: 5 });
  });

  it("a failing node makes it an error, and what the catch node sends continues it", async () => {
    const r = recorder();
    const flow = await load(
      [
        { id: "inj", type: "inject" },
        { id: "fn", type: "function", config: { code: "throw new Error('boom')" } },
        { id: "c", type: "catch" },
        { id: "out", type: "sink" },
      ],
      [
        { source: "inj", target: "fn" },
        { source: "c", target: "out" },
      ],
      r.tracker,
    );
    flow.engine.inject("flw_test", "inj", {});
    await until(() => r.finished.length === 1, "one execution");
    const [e] = r.finished;
    expect(e!.status).toBe("error");
    expect(e!.steps.map((s) => s.nodeId)).toEqual(["inj", "fn", "c", "out"]);
    expect(e!.steps[1]!.error).toContain("boom");
    expect(JSON.parse(e!.steps[3]!.input!).error.message).toContain("boom");
  });

  it("keeps at most MAX_STEPS steps and counts the rest (a split of 300)", async () => {
    const r = recorder();
    const flow = await load(
      [
        { id: "inj", type: "inject", config: { payload_type: "json", payload: JSON.stringify(Array.from({ length: 300 }, (_, i) => i)) } },
        { id: "split", type: "split" },
        { id: "out", type: "sink" },
      ],
      [
        { source: "inj", target: "split" },
        { source: "split", target: "out" },
      ],
      r.tracker,
    );
    flow.engine.inject("flw_test", "inj", {});
    await flow.waitFor(300);
    await until(() => r.finished.length === 1, "one execution");
    const [e] = r.finished;
    expect(e!.steps).toHaveLength(MAX_STEPS);
    expect(e!.stepsOmitted).toBe(302 - MAX_STEPS);
    expect(e!.steps[1]!.outputs).toEqual([300]);
  });

  it("a delay holding a message keeps it running; stopping the flow ends it in error", async () => {
    const r = recorder({ longRunningMs: 100 });
    const flow = await load(
      [
        { id: "inj", type: "inject" },
        { id: "d", type: "delay", config: { mode: "delay", delay_ms: 60_000 } },
        { id: "out", type: "sink" },
      ],
      [
        { source: "inj", target: "d" },
        { source: "d", target: "out" },
      ],
      r.tracker,
    );
    flow.engine.inject("flw_test", "inj", {});
    await until(() => r.running.length === 1, "announced as running");
    expect(r.finished).toHaveLength(0);
    await flow.engine.stop("flw_test");
    expect(r.finished).toHaveLength(1);
    expect(r.finished[0]).toMatchObject({ status: "error", error: expect.stringContaining("stopped while it ran"), announced: true });
  });

  it("not sampled: a success is only counted, an error is kept with its trigger's and failing step's messages only", async () => {
    const r = recorder({ sampleAllPerSec: 0, sampleOneIn: 1_000_000 });
    const flow = await load(
      [
        { id: "inj", type: "inject" },
        { id: "fn", type: "function", config: { code: "if (msg.payload === 2) throw new Error('two'); return msg;" } },
        { id: "out", type: "sink" },
      ],
      [
        { source: "inj", target: "fn" },
        { source: "fn", target: "out" },
      ],
      r.tracker,
    );
    flow.engine.inject("flw_test", "inj", { payload: 1 });
    await until(() => r.unrecorded.length === 1, "the success counted");
    flow.engine.inject("flw_test", "inj", { payload: 2 });
    await until(() => r.finished.length === 1, "the error kept");
    const [e] = r.finished;
    expect(e).toMatchObject({ status: "error", sampled: false });
    expect(e!.steps.map((s) => [s.nodeId, s.input !== undefined])).toEqual([
      ["inj", true],
      ["fn", true],
    ]);
  });

  it("replay: the message leaves the trigger node as a new execution naming the one it replays", async () => {
    const r = recorder({ sampleAllPerSec: 0, sampleOneIn: 1_000_000 });
    const flow = await load(
      [
        { id: "inj", type: "inject" },
        { id: "out", type: "sink" },
      ],
      [{ source: "inj", target: "out" }],
      r.tracker,
    );
    const id = flow.engine.replay("flw_test", "inj", { _msgid: "old", payload: "again" }, "exe_before");
    await until(() => r.finished.length === 1, "the replay kept (replays are always kept)");
    expect(r.finished[0]).toMatchObject({ id, replayOf: "exe_before", status: "success", sampled: true });
    expect(flow.received[0]).toMatchObject({ payload: "again" });
    expect(flow.received[0]!._msgid).not.toBe("old");
    expect(() => flow.engine.replay("flw_test", "nope", { _msgid: "x" }, "exe_before")).toThrow();
  });
});

describe("a link call that times out", () => {
  it("ends its execution as failed (\"timeout\") without telling a complete node, as Node-RED never calls done there", async () => {
    const r = recorder();
    const flow = await load(
      [
        { id: "inj", type: "inject" },
        { id: "call", type: "link-call", config: { links: ["nobody"], timeout_seconds: 0.1 } },
        { id: "nobody", type: "link-in" },
        { id: "done", type: "complete", config: { scope: ["call"] } },
        { id: "sink", type: "sink" },
      ],
      [
        { source: "inj", target: "call" },
        { source: "done", target: "sink" },
      ],
      r.tracker,
    );
    // The target exists but nothing answers: the call waits for its timeout.
    flow.engine.inject("flw_test", "inj", { payload: 1 });
    // The link-in starts an execution of its own (ended at once); the caller's ends at the timeout.
    await until(() => r.finished.some((e) => e.triggerNodeId === "inj"), "the caller's execution ended");
    expect(r.finished.find((e) => e.triggerNodeId === "inj")).toMatchObject({ status: "error", ended: true, pending: 0 });
    await new Promise((res) => setTimeout(res, 50));
    expect(flow.received).toHaveLength(0);
  });

  it("so does a call whose target cannot be found", async () => {
    const r = recorder();
    await load(
      [
        { id: "inj", type: "inject" },
        { id: "call", type: "link-call", config: { link_type: "dynamic", timeout_seconds: 5 } },
      ],
      [{ source: "inj", target: "call" }],
      r.tracker,
    ).then((flow) => flow.engine.inject("flw_test", "inj", { payload: 1 }));
    await until(() => r.finished.length === 1, "the execution ended");
    expect(r.finished[0]).toMatchObject({ status: "error", ended: true });
  });
});

describe("which execution a message object belongs to", () => {
  const spec = { organizationId: "org_t", flowId: "flw_t" };

  it("is found by the object while the execution is open, whatever its _msgid, and forgotten when it ends", () => {
    const r = recorder();
    const trigger = { _msgid: "m-trigger", payload: 1 };
    const exec = r.tracker.begin(spec, "in", trigger, { sent: true });
    expect(r.tracker.execOf(trigger, "flw_t")).toBe(exec);
    // A node's new message object (another _msgid) received within the execution belongs to it too.
    const derived = { _msgid: "m-derived", payload: 2 };
    exec.pending++;
    const step = r.tracker.step(exec, "next", 1, derived);
    expect(r.tracker.execOf(derived, "flw_t")).toBe(exec);
    r.tracker.done(exec, step, derived, undefined);
    expect(exec.ended).toBe(true);
    expect(r.tracker.execOf(derived, "flw_t")).toBeUndefined();
    expect(r.tracker.execOf(trigger, "flw_t")).toBeUndefined();
    // A later execution of the same object takes it over.
    const again = r.tracker.begin(spec, "in", derived, { sent: true });
    expect(r.tracker.execOf(derived, "flw_t")).toBe(again);
  });

  it("leaves no trace a flow, a clone or the stored text can see", () => {
    const r = recorder();
    const msg = { _msgid: "m-1", payload: { n: 1 }, topic: "t" };
    const before = JSON.stringify(msg);
    const exec = r.tracker.begin(spec, "in", msg, { sent: true });
    expect(JSON.stringify(msg)).toBe(before);
    expect(Object.keys(msg)).toEqual(["_msgid", "payload", "topic"]);
    expect(structuredClone(msg)).toEqual(msg);
    const spread = { ...msg, _msgid: "m-2" };
    expect(r.tracker.execOf(spread, "flw_t")).toBeUndefined();
    expect(r.tracker.execOf(msg, "flw_t")).toBe(exec);
    expect(exec.triggerMessage).toBe(before);
  });

  it("a message whose execution ended stays out of another open one with its _msgid (it starts its own)", () => {
    const r = recorder();
    const stale = { _msgid: "m-shared", payload: "old" };
    const first = r.tracker.begin(spec, "in", stale, { sent: true });
    r.tracker.settle(first);
    expect(first.ended).toBe(true);
    const open = r.tracker.begin(spec, "in", { _msgid: "m-shared", payload: "new" }, { sent: true });
    expect(r.tracker.execOf({ _msgid: "m-shared" }, "flw_t")).toBe(open);
    expect(r.tracker.execOf(stale, "flw_t")).toBeUndefined();
  });

  it("a _msgid alone never joins another flow's execution (another organization's least of all)", () => {
    const r = recorder();
    const open = r.tracker.begin({ organizationId: "org_a", flowId: "flw_a" }, "in", { _msgid: "m-sent", payload: 1 }, { sent: true });
    // The same _msgid arriving in another flow (over a project link, MQTT, a socket) is another message.
    expect(r.tracker.execOf({ _msgid: "m-sent", payload: 1 }, "flw_b")).toBeUndefined();
    expect(r.tracker.execOf({ _msgid: "m-sent", payload: 1 }, "flw_a")).toBe(open);
  });

  it("a frozen message is followed by the object too, and one frozen after its mark moves on with it", () => {
    const r = recorder();
    const frozen = Object.freeze({ _msgid: "m-frozen", payload: 1 });
    const exec = r.tracker.begin(spec, "in", frozen, { sent: true });
    expect(r.tracker.execOf(frozen, "flw_t")).toBe(exec);
    const frozenDerived = Object.freeze({ _msgid: "m-other", payload: 2 });
    exec.pending++;
    r.tracker.step(exec, "next", 1, frozenDerived);
    expect(r.tracker.execOf(frozenDerived, "flw_t")).toBe(exec);
    // Marked, then frozen, then part of another execution.
    const later = { _msgid: "m-later", payload: 3 };
    const before = r.tracker.begin(spec, "in", later, { sent: true });
    Object.freeze(later);
    const after = r.tracker.begin(spec, "in", later, { sent: true });
    expect(after).not.toBe(before);
    expect(r.tracker.execOf(later, "flw_t")).toBe(after);
  });
});

describe("two trackers in one process (two engines)", () => {
  it("a message one tracker marked is not another's: it is looked up there by its _msgid only", () => {
    const a = recorder();
    const b = recorder();
    const spec = { organizationId: "org_t", flowId: "flw_t" };
    const msg = { _msgid: "m-a", payload: 1 };
    const inA = a.tracker.begin(spec, "in", msg, { sent: true });
    expect(a.tracker.execOf(msg, "flw_t")).toBe(inA);
    expect(b.tracker.execOf(msg, "flw_t")).toBeUndefined();
    // B has an execution of that _msgid, made from another object: the message is found in it by its _msgid.
    const sameId = b.tracker.begin(spec, "in", { _msgid: "m-a", payload: 2 }, { sent: true });
    expect(b.tracker.execOf(msg, "flw_t")).toBe(sameId);
    const inB = b.tracker.begin(spec, "in", msg, { sent: true });
    expect(b.tracker.execOf(msg, "flw_t")).toBe(inB);
    expect(a.tracker.execOf(msg, "flw_t")).toBe(inA);
  });

  it("a frozen message one tracker keeps aside is not another's either", () => {
    const a = recorder();
    const b = recorder();
    const spec = { organizationId: "org_t", flowId: "flw_t" };
    const frozen = Object.freeze({ _msgid: "m-frozen", payload: 1 });
    const inA = a.tracker.begin(spec, "in", frozen, { sent: true });
    expect(a.tracker.execOf(frozen, "flw_t")).toBe(inA);
    expect(b.tracker.execOf(frozen, "flw_t")).toBeUndefined();
  });
});

describe("message marks", () => {
  it("a proxy that answers every key is not taken as marked: it is found by its _msgid", () => {
    const r = recorder();
    const spec = { organizationId: "org_t", flowId: "flw_t" };
    const base: Record<PropertyKey, unknown> = { _msgid: "m-proxy", payload: 1 };
    const anything = new Proxy(base, { get: (target, key) => (key in target ? target[key] : "default") }) as unknown as { _msgid: string; payload: unknown };
    const exec = r.tracker.begin(spec, "in", { _msgid: "m-proxy", payload: 0 }, { sent: true });
    expect(r.tracker.execOf(anything, "flw_t")).toBe(exec);
  });

  it("a message kept past its tracker's close keeps no execution", () => {
    const r = recorder();
    const spec = { organizationId: "org_t", flowId: "flw_t" };
    const kept = { _msgid: "m-kept", payload: 1 };
    const exec = r.tracker.begin(spec, "in", kept, { sent: true }) as unknown as { ref: { execution: unknown } };
    expect(exec.ref.execution).toBe(exec);
    r.tracker.close();
    expect(exec.ref.execution).toBeUndefined();
  });
});

describe("a node that reports its error and carries on (http request's failed request)", () => {
  it("the execution is an error with the failing step kept though it was not sampled, and the message still goes on", async () => {
    const { createSafeFetch } = await import("@/server/runtime/safe-fetch");
    const http = await import("node:http");
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as import("node:net").AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const r = recorder({ sampleAllPerSec: 0, sampleOneIn: 1_000_000 });
    const flow = await loadTestFlow(
      [
        { id: "inj", type: "inject" },
        { id: "req", type: "http-request", config: { url: `http://127.0.0.1:${port}/x` } },
        { id: "out", type: "sink" },
      ],
      [
        { source: "inj", target: "req" },
        { source: "req", target: "out" },
      ],
      { httpRequest: createSafeFetch({ allowPrivate: true }) },
      {},
      { executions: r.tracker },
    );
    open.push(flow);
    flow.engine.inject("flw_test", "inj", { payload: 1 });
    await until(() => r.finished.length === 1, "one execution");
    const [e] = r.finished;
    expect(e).toMatchObject({ status: "error", sampled: false });
    expect(e!.steps.find((s) => s.nodeId === "req")).toMatchObject({ error: expect.stringContaining("ECONNREFUSED") });
    expect(flow.received).toHaveLength(1);
    expect(flow.received[0]).toMatchObject({ statusCode: "ECONNREFUSED" });
  });
});
