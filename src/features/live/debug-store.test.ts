import { describe, expect, it } from "vitest";
import type { OrgEvent } from "@/shared/realtime";
import { DebugStore, filterMessages, forgetRowSizes, Ring } from "./debug-store";
import { debugOwner, type DebugTarget } from "./use-debug-feed";

const event = (i: number, over: Partial<OrgEvent<"debug">["data"]> = {}, flowId = "flw_a"): OrgEvent<"debug"> => ({
  type: "event",
  topic: "debug",
  flow_id: flowId,
  ts: new Date(1_700_000_000_000 + i).toISOString(),
  data: { node_id: "dbg1", name: "out", property: "payload", msg: { n: i }, format: "object", ...over },
});

/** A store flushed by hand, like one animation frame. */
function manual(options: { capacity?: number; pauseCapacity?: number } = {}) {
  let pending: (() => void) | null = null;
  const store = new DebugStore({ ...options, schedule: (f) => (pending = f) });
  return { store, frame: () => pending?.() };
}

describe("Ring", () => {
  it("keeps the last N in order", () => {
    const r = new Ring<number>(3);
    expect([1, 2, 3, 4, 5].map((n) => r.push(n))).toEqual([0, 0, 0, 1, 1]);
    expect(r.toArray()).toEqual([3, 4, 5]);
    expect([r.at(0), r.at(2), r.at(3)]).toEqual([3, 5, undefined]);
  });
});

describe("DebugStore", () => {
  it("shows a node's error among the messages, in order, as Node-RED's sidebar shows node.error; a status without one is not a message", () => {
    let pending: (() => void) | null = null;
    const store = new DebugStore({ schedule: (f) => (pending = f), owner: debugOwner({ kind: "flow", flowId: "flw_a" }) });
    const status = (error: string | undefined, flowId = "flw_a"): OrgEvent<"node.status"> => ({
      type: "event",
      topic: "node.status",
      flow_id: flowId,
      ts: new Date(1_700_000_000_500).toISOString(),
      data: { node_id: "mq1", status: { fill: "red", shape: "ring", text: "disconnected" }, ...(error !== undefined ? { error } : {}) },
    });
    store.add(event(1));
    store.addError(status("MQTT broker mqtt://***@localhost:1883: localhost resolves to 127.0.0.1, a private address"));
    store.addError(status(undefined));
    pending!();
    const [first, second] = store.messages();
    expect(store.messages()).toHaveLength(2);
    expect(first!.level).toBeUndefined();
    expect(second).toMatchObject({ level: "error", nodeId: "mq1", ownerId: "mq1", format: "error", msg: expect.stringContaining("private address") });
    expect(filterMessages(store.messages(), { nodeId: null, text: "private", ownOnly: false })).toEqual([second]);
    expect(second!.executionId).toBeNull();
    // An error about a message names its execution: its row links to it.
    const failed = status("boom");
    failed.data.execution_id = "exe_failed";
    store.addError(failed);
    pending!();
    expect(store.messages()[2]).toMatchObject({ level: "error", executionId: "exe_failed" });
  });

  it("keeps the execution a message names (null when none was recorded), for its Show execution link", () => {
    const { store, frame } = manual();
    store.addMany([event(1, { execution_id: "exe_abc" }), event(2, { execution_id: null }), event(3)]);
    frame();
    expect(store.messages().map((m) => m.executionId)).toEqual(["exe_abc", null, null]);
  });

  it("applies a burst in one update and keeps only the last 1,000, newest last", () => {
    const { store, frame } = manual();
    let updates = 0;
    store.subscribe(() => updates++);
    for (let i = 0; i < 1800; i++) store.add(event(i));
    expect(store.messages()).toHaveLength(0);
    frame();
    expect(updates).toBe(1);
    const shown = store.messages();
    expect(shown).toHaveLength(1000);
    expect(shown[0]!.msg).toEqual({ n: 800 });
    expect(shown.at(-1)!.msg).toEqual({ n: 1799 });
    expect(store.getSnapshot().evicted).toBe(800);
  });

  it("takes a hub batch in one go: one update, in order, counted like single arrivals", () => {
    const { store, frame } = manual({ capacity: 5, pauseCapacity: 3 });
    let updates = 0;
    store.subscribe(() => updates++);
    store.addMany([event(0), event(1), event(2)]);
    store.addMany([event(3), event(4), event(5), event(6)]);
    store.addMany([]);
    frame();
    expect(updates).toBe(1);
    expect(store.messages().map((m) => (m.msg as { n: number }).n)).toEqual([2, 3, 4, 5, 6]);
    expect(store.messages().map((m) => m.seq)).toEqual([3, 4, 5, 6, 7]);
    expect(store.getSnapshot().evicted).toBe(2);
    store.pause();
    store.addMany([event(7), event(8), event(9), event(10)]);
    frame();
    expect(store.getSnapshot()).toMatchObject({ newWhilePaused: 4, lostWhilePaused: 1 });
    store.resume();
    expect(store.messages().map((m) => (m.msg as { n: number }).n)).toEqual([5, 6, 8, 9, 10]);
  });

  it("never queues more than twice what it keeps from batches either (a hidden tab)", () => {
    const { store } = manual();
    for (let i = 0; i < 100; i++) store.addMany(Array.from({ length: 500 }, (_, j) => event(i * 500 + j)));
    expect(store.messages()).toHaveLength(1000);
    expect(store.messages().at(-1)!.msg).toEqual({ n: 49_999 });
    expect((store as unknown as { queue: unknown[] }).queue.length).toBeLessThan(2000);
  });

  it("never queues more than twice what it keeps, even with no frames (a hidden tab)", () => {
    const { store } = manual();
    for (let i = 0; i < 50_000; i++) store.add(event(i));
    expect(store.messages()).toHaveLength(1000);
    expect(store.messages().at(-1)!.msg).toEqual({ n: 49_999 });
    expect((store as unknown as { queue: unknown[] }).queue.length).toBeLessThan(2000);
  });

  it("pause keeps arrivals aside with an N new count, up to its bound, and resume shows them", () => {
    const { store, frame } = manual({ capacity: 5, pauseCapacity: 3 });
    store.add(event(0));
    frame();
    store.pause();
    for (let i = 1; i <= 4; i++) store.add(event(i));
    frame();
    expect(store.messages().map((m) => (m.msg as { n: number }).n)).toEqual([0]);
    expect(store.getSnapshot()).toMatchObject({ paused: true, newWhilePaused: 4, lostWhilePaused: 1 });
    store.resume();
    expect(store.messages().map((m) => (m.msg as { n: number }).n)).toEqual([0, 2, 3, 4]);
    expect(store.getSnapshot()).toMatchObject({ paused: false, newWhilePaused: 0 });
  });

  it("counts what the hub dropped, and Clear empties everything", () => {
    const { store, frame } = manual();
    store.add(event(1));
    frame();
    store.addDropped(7);
    store.addDropped(3);
    expect(store.getSnapshot().droppedByServer).toBe(10);
    store.pause();
    store.add(event(2));
    store.clear();
    frame();
    expect(store.messages()).toEqual([]);
    expect(store.getSnapshot()).toMatchObject({ droppedByServer: 0, newWhilePaused: 0 });
  });

  it("filters by node, text (name, topic, payload) and flow", () => {
    let pending: (() => void) | null = null;
    const store = new DebugStore({ schedule: (f) => (pending = f), owner: debugOwner({ kind: "flow", flowId: "flw_a" }) });
    store.add(event(1, { node_id: "a", name: "Alpha", topic: "temperature", msg: 21 }));
    store.add(event(2, { node_id: "b", name: "Beta", msg: "Hello World" }, "flw_b"));
    store.add(event(3, { node_id: "a", name: "Alpha", msg: { deep: { needle: true } } }));
    pending!();
    const all = store.messages();
    expect(filterMessages(all, { nodeId: null, text: "", ownOnly: false })).toHaveLength(3);
    expect(filterMessages(all, { nodeId: "a", text: "", ownOnly: false }).map((m) => m.seq)).toEqual([1, 3]);
    expect(filterMessages(all, { nodeId: null, text: "TEMPER", ownOnly: false }).map((m) => m.seq)).toEqual([1]);
    expect(filterMessages(all, { nodeId: null, text: "needle", ownOnly: false }).map((m) => m.seq)).toEqual([3]);
    expect(filterMessages(all, { nodeId: null, text: "hello", ownOnly: true })).toEqual([]);
    expect(filterMessages(all, { nodeId: null, text: "hello", ownOnly: false }).map((m) => [m.flowId, m.ownerId])).toEqual([["flw_b", null]]);
  });

  it("a message from inside a subflow instance belongs to the instance on a flow's page, and to the definition's node on the subflow's", () => {
    const inside = (flowId: string, subflowId: string) =>
      event(1, { node_id: "inst-dbg", subflow: { instance_id: "inst", instance_path: ["inst"], subflow_id: subflowId, node_id: "dbg", path: `${flowId}/inst` } }, flowId);
    const ownerIds = (target: DebugTarget) => {
      const store = new DebugStore({ schedule: (f) => f(), owner: debugOwner(target) });
      store.addMany([inside("flw_a", "sf_1"), inside("flw_b", "sf_1"), inside("flw_a", "sf_2"), event(2, { node_id: "plain" }, "flw_a")]);
      return store.messages().map((m) => m.ownerId);
    };
    expect(ownerIds({ kind: "flow", flowId: "flw_a" })).toEqual(["inst", null, "inst", "plain"]);
    expect(ownerIds({ kind: "subflow", subflowId: "sf_1" })).toEqual(["dbg", "dbg", null, null]);
  });
});

describe("forgetRowSizes", () => {
  it("drops the heights of rows older than the oldest kept, keeps the rest, and all of them once cleared", () => {
    const sizes = new Map<unknown, number>([1, 2, 3, 4, 5].map((k) => [k, 52]));
    forgetRowSizes(sizes, 4);
    expect([...sizes.keys()]).toEqual([4, 5]);
    forgetRowSizes(sizes, null);
    expect(sizes.size).toBe(0);
  });

  it("keeps the map bounded while a list follows a long stream", () => {
    const { store, frame } = manual({ capacity: 100 });
    const sizes = new Map<unknown, number>();
    for (let round = 0; round < 200; round++) {
      store.addMany(Array.from({ length: 50 }, (_, i) => event(round * 50 + i)));
      frame();
      const shown = store.messages();
      // What the virtualizer does: measures the rows on screen (the newest 20).
      for (const m of shown.slice(-20)) sizes.set(m.seq, 52);
      if (sizes.size > 2 * store.capacity) forgetRowSizes(sizes, shown[0]?.seq ?? null);
    }
    expect(sizes.size).toBeLessThanOrEqual(2 * 100);
    expect(sizes.has(store.messages().at(-1)!.seq)).toBe(true);
  });
});
