import { afterEach, describe, expect, it } from "vitest";
import { MemoryStore } from "../store";
import { createLogger } from "../logger";
import { ClusterBus, GONE_CHECK_MS, HandledRequests, RpcTimeout } from "./cluster-bus";

const logger = createLogger({ level: "silent" });
const stores: MemoryStore[] = [];
const buses: ClusterBus[] = [];

afterEach(async () => {
  await Promise.all(buses.splice(0).map((b) => b.close()));
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A MemoryStore whose subscriptions deliver every message twice (a double subscription, a publish made again). */
function twiceDeliveringStore(): MemoryStore {
  const store = new MemoryStore();
  stores.push(store);
  const subscribe = store.subscribe.bind(store);
  store.subscribe = (channel, handler) =>
    subscribe(channel, (message) => {
      handler(message);
      handler(message);
    });
  return store;
}

/** A MemoryStore whose subscribe calls wait for the test (and can be made to fail); counts them per channel. */
function gatedStore() {
  const store = new MemoryStore();
  stores.push(store);
  const subscribe = store.subscribe.bind(store);
  const calls = new Map<string, number>();
  const gates: Array<{ channel: string; gate: ReturnType<typeof deferred<void>> }> = [];
  store.subscribe = async (channel, handler) => {
    calls.set(channel, (calls.get(channel) ?? 0) + 1);
    const gate = deferred<void>();
    gates.push({ channel, gate });
    await gate.promise;
    return subscribe(channel, handler);
  };
  /** Lets the pending subscribe calls through (failing those on the channels `fails` names), turn after turn until none is left. */
  const release = async (fails: (channel: string) => boolean = () => false) => {
    for (let i = 0; i < 10; i++) {
      for (const { channel, gate } of gates.splice(0)) {
        if (fails(channel)) gate.reject(new Error("store unavailable"));
        else gate.resolve();
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { store, calls, release, pending: () => gates.length };
}

function bus(store: MemoryStore, instanceId: string, onEvent: ConstructorParameters<typeof ClusterBus>[3] = () => undefined) {
  const b = new ClusterBus(store, instanceId, logger, onEvent);
  buses.push(b);
  return b;
}

describe("ClusterBus requests to an instance that goes away", () => {
  it("fail at once when nobody listens on its channel: the request reached no one", async () => {
    const store = new MemoryStore();
    stores.push(store);
    const a = bus(store, "a");
    await a.start();
    const err = await a.request("nobody", "inject", {}, 5_000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcTimeout);
    expect(err).toMatchObject({ notListening: true, targetGone: false });
  });

  it("fail soon after it stops listening while they wait, not at their timeout", async () => {
    const store = new MemoryStore();
    stores.push(store);
    const a = bus(store, "a");
    const b = bus(store, "b");
    const received = deferred();
    // b takes the request and never answers: it is killed while handling it.
    b.handle("inject", () => {
      received.resolve();
      return new Promise(() => undefined);
    });
    await Promise.all([a.start(), b.start()]);
    const started = performance.now();
    const pending = a.request("b", "inject", {}, 30_000).catch((e: unknown) => e);
    await received.promise;
    await b.close();
    const err = await pending;
    expect(err).toBeInstanceOf(RpcTimeout);
    // It may have run there: not "nobody listened".
    expect(err).toMatchObject({ notListening: false, targetGone: true });
    expect(performance.now() - started).toBeLessThan(GONE_CHECK_MS * 2 + 1_000);
  });

  it("keep waiting on an instance that still listens", async () => {
    const store = new MemoryStore();
    stores.push(store);
    const a = bus(store, "a");
    const b = bus(store, "b");
    let answer!: () => void;
    b.handle("inject", () => new Promise((resolve) => (answer = () => resolve("late"))));
    await Promise.all([a.start(), b.start()]);
    const pending = a.request("b", "inject", {}, 30_000);
    await new Promise((resolve) => setTimeout(resolve, GONE_CHECK_MS * 3));
    answer();
    await expect(pending).resolves.toBe("late");
  });
});

describe("ClusterBus on a store that delivers each message twice", () => {
  it("runs each request once and answers it once", async () => {
    const store = twiceDeliveringStore();
    const a = bus(store, "a");
    const b = bus(store, "b");
    let runs = 0;
    b.handle("inject", async (args) => {
      runs++;
      return { got: args, run: runs };
    });
    await Promise.all([a.start(), b.start()]);
    const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => a.request<{ got: unknown; run: number }>("b", "inject", { i }, 1_000)));
    expect(runs).toBe(50);
    expect(replies.map((r) => r.got)).toEqual(Array.from({ length: 50 }, (_, i) => ({ i })));
    expect(new Set(replies.map((r) => r.run)).size).toBe(50);
  });

  it("a duplicate that arrives while the first handling runs is left to that handling's reply; one that arrives later gets the same reply", async () => {
    const store = new MemoryStore();
    stores.push(store);
    const b = bus(store, "b");
    const gate = deferred<string>();
    let runs = 0;
    b.handle("slow", async () => {
      runs++;
      return gate.promise;
    });
    await b.start();
    const replies: string[] = [];
    await store.subscribe("cluster:node:a", (m) => replies.push(m));
    const request = JSON.stringify({ k: "req", id: "x-1", from: "a", op: "slow", args: null });
    await store.publish("cluster:node:b", request);
    await store.publish("cluster:node:b", request);
    await new Promise((resolve) => setImmediate(resolve));
    expect(runs).toBe(1);
    expect(replies).toEqual([]);
    gate.resolve("done");
    await expect.poll(() => replies.length).toBe(1);
    // Sent again after it was answered (a retried publish): the first reply again, not a second run.
    await store.publish("cluster:node:b", request);
    await expect.poll(() => replies.length).toBe(2);
    expect(runs).toBe(1);
    expect(replies.map((r) => JSON.parse(r))).toEqual([
      { k: "res", id: "x-1", ok: true, value: "done" },
      { k: "res", id: "x-1", ok: true, value: "done" },
    ]);
    // The same id from another sender is another request.
    await store.publish("cluster:node:b", JSON.stringify({ k: "req", id: "x-1", from: "c", op: "slow", args: null }));
    await expect.poll(() => runs).toBe(2);
  });

  it("cluster events still reach the handler (twice: events are idempotent nudges)", async () => {
    const store = twiceDeliveringStore();
    const seen: string[] = [];
    const a = bus(store, "a", (e) => seen.push(e.type));
    const b = bus(store, "b");
    await Promise.all([a.start(), b.start()]);
    await b.broadcast({ type: "joined", from: "b" });
    await a.broadcast({ type: "joined", from: "a" });
    await expect.poll(() => seen).toEqual(["joined", "joined"]);
  });
});

describe("ClusterBus subscriptions", () => {
  it("start() calls made while subscribing share one subscription per channel", async () => {
    const { store, calls, release } = gatedStore();
    const b = bus(store, "b");
    let runs = 0;
    b.handle("op", async () => ++runs);
    // start-up and the ticks that run while the store is slow to connect
    const starts = [b.start(), b.start(), b.start()];
    expect(b.ready).toBe(false);
    await release();
    await Promise.all(starts);
    await b.start();
    expect(b.ready).toBe(true);
    expect([...calls.entries()]).toEqual([
      ["cluster:node:b", 1],
      ["cluster:events", 1],
    ]);
    // One listener on the channel, so one run per request.
    expect(await store.publish("cluster:node:b", JSON.stringify({ k: "req", id: "1", from: "a", op: "op", args: null }))).toBe(1);
    await expect.poll(() => runs).toBe(1);
  });

  it("a failed subscribe is tried again by the next start(), keeping what succeeded", async () => {
    const { store, calls, release } = gatedStore();
    const b = bus(store, "b");
    const first = b.start().catch((err: unknown) => err);
    await release((channel) => channel === "cluster:events");
    expect(await first).toEqual(new Error("store unavailable"));
    expect(b.ready).toBe(false);
    const second = b.start();
    await release();
    await second;
    expect(b.ready).toBe(true);
    expect(calls.get("cluster:node:b")).toBe(1);
    expect(calls.get("cluster:events")).toBe(2);
    expect(await store.publish("cluster:node:b", "{}")).toBe(1);
    expect(await store.publish("cluster:events", "{}")).toBe(1);
  });

  it("close() while a subscribe is pending leaves nothing subscribed", async () => {
    const { store, release, pending } = gatedStore();
    const b = bus(store, "b");
    const started = b.start().catch((err: unknown) => err);
    expect(pending()).toBe(1);
    const closed = b.close();
    await release();
    await closed;
    expect(await started).toEqual(new Error("the cluster bus is closed"));
    expect(b.ready).toBe(false);
    expect(await store.publish("cluster:node:b", "{}")).toBe(0);
    expect(await store.publish("cluster:events", "{}")).toBe(0);
    await expect(b.start()).rejects.toThrow("closed");
  });

  it("close() after start() ends both subscriptions", async () => {
    const store = new MemoryStore();
    stores.push(store);
    const b = bus(store, "b");
    await b.start();
    await b.close();
    expect(await store.publish("cluster:node:b", "{}")).toBe(0);
    expect(await store.publish("cluster:events", "{}")).toBe(0);
  });
});

describe("HandledRequests", () => {
  const limits = { ttlMs: 1_000, maxIds: 3, maxReplyChars: 10, maxKeptChars: 25 };

  it("remembers an id until its TTL, then forgets it", () => {
    let now = 0;
    const handled = new HandledRequests(limits, () => now);
    expect(handled.firstSeen("a 1")).toBeUndefined();
    handled.answered("a 1", "reply");
    now = 999;
    expect(handled.firstSeen("a 1")).toEqual({ at: 0, reply: "reply" });
    now = 1_001;
    expect(handled.firstSeen("a 1")).toBeUndefined();
  });

  it("holds at most maxIds, forgetting the oldest first, and keeps only small replies within the budget", () => {
    const handled = new HandledRequests(limits, () => 0);
    for (const id of ["1", "2", "3", "4"]) expect(handled.firstSeen(id)).toBeUndefined();
    expect(handled.size).toBe(3);
    expect(handled.firstSeen("2")).toBeDefined();
    expect(handled.size).toBe(3);
    handled.answered("2", "x".repeat(11));
    expect(handled.firstSeen("2")).toEqual({ at: 0, reply: null });
    handled.answered("3", "y".repeat(10));
    handled.answered("4", "z".repeat(10));
    expect(handled.size).toBe(3);
    // A third kept reply passes the 25-character budget: the oldest entries go.
    expect(handled.firstSeen("5")).toBeUndefined();
    handled.answered("5", "w".repeat(10));
    expect(handled.firstSeen("2")).toBeUndefined();
    expect(handled.firstSeen("5")).toEqual({ at: 0, reply: "w".repeat(10) });
  });
});
