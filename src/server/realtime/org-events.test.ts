import { afterEach, describe, expect, it } from "vitest";
import { MemoryStore } from "../store";
import { createLogger } from "../logger";
import { orgEventsChannel } from "../../shared/realtime";
import { eventLines, OrgEventPublisher } from "./org-events";

const stores: MemoryStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

async function setUp() {
  const store = new MemoryStore();
  stores.push(store);
  const published: Array<{ channel: string; message: string }> = [];
  const publish = store.publish.bind(store);
  store.publish = (channel, message) => {
    published.push({ channel, message });
    return publish(channel, message);
  };
  const received: string[] = [];
  await store.subscribe(orgEventsChannel("org_a"), (m) => received.push(m));
  return { store, published, received, events: new OrgEventPublisher(store, createLogger({ level: "silent" })) };
}

describe("OrgEventPublisher", () => {
  it("sends the events of one turn as one message per organization, one event per line, in order", async () => {
    const { store, published, received, events } = await setUp();
    await store.subscribe(orgEventsChannel("org_b"), () => undefined);
    events.publish("org_a", "inject", "flw_1", { node_id: "n1", message_id: "m1", by: "usr_1" });
    events.publish("org_b", "flow.deleted", "flw_9", { name: "B", by: "usr_2" });
    events.publish("org_a", "debug", "flw_1", { node_id: "n2", name: "", property: "payload", msg: "x\ny", format: "string" });
    expect(published).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(published.map((p) => p.channel)).toEqual([orgEventsChannel("org_a"), orgEventsChannel("org_b")]);
    await expect.poll(() => received.length).toBe(1);
    const lines = eventLines(received[0]!);
    // A newline inside a value is escaped by JSON, so it never splits an event.
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ type: "event", topic: "inject", flow_id: "flw_1", data: { node_id: "n1", message_id: "m1", by: "usr_1" } }),
      expect.objectContaining({ type: "event", topic: "debug", data: expect.objectContaining({ msg: "x\ny" }) }),
    ]);
  });

  it("a single event is the plain JSON it always was, and flush sends what is queued at once", async () => {
    const { published, events } = await setUp();
    events.publish("org_a", "flow.deleted", "flw_1", { name: "A", by: "usr_1" });
    await events.flush();
    expect(published).toHaveLength(1);
    expect(JSON.parse(published[0]!.message)).toMatchObject({ type: "event", topic: "flow.deleted", flow_id: "flw_1" });
    await new Promise((resolve) => setImmediate(resolve));
    expect(published).toHaveLength(1);
  });

  it("sent() and published() wait for the batch holding what is queued: its PUBLISH issued, then acknowledged", async () => {
    const { store, published, events } = await setUp();
    await expect(events.published()).resolves.toBeUndefined();
    // A store that acknowledges only when the test says so.
    let acknowledge!: () => void;
    const acknowledged = new Promise<void>((resolve) => (acknowledge = resolve));
    const publish = store.publish;
    store.publish = async (channel, message) => {
      const listeners = await publish(channel, message);
      await acknowledged;
      return listeners;
    };
    const order: string[] = [];
    events.publish("org_a", "inject", "flw_1", { node_id: "n1", message_id: "m1", by: "usr_1" });
    void events.sent().then(() => order.push(`sent after ${published.length} PUBLISH`));
    void events.published().then(() => order.push("published"));
    events.publish("org_a", "inject", "flw_1", { node_id: "n1", message_id: "m2", by: "usr_1" });
    void events.published().then(() => order.push("published"));
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    // One PUBLISH for both injects; issued, not yet acknowledged.
    expect(order).toEqual(["sent after 1 PUBLISH"]);
    expect(eventLines(published[0]!.message)).toHaveLength(2);
    acknowledge();
    await expect.poll(() => order).toEqual(["sent after 1 PUBLISH", "published", "published"]);
    // Nothing queued any more: at once.
    await expect(events.sent()).resolves.toBeUndefined();
  });

  it("an event nobody would receive is not made: the in-process store knows its subscribers", async () => {
    const { store, published, received, events } = await setUp();
    events.publish("org_b", "flow.deleted", "flw_9", { name: "B", by: "usr_2" });
    // Nothing queued: an inject answers at once.
    await expect(events.published()).resolves.toBeUndefined();
    await events.flush();
    expect(published).toEqual([]);
    // Once someone listens there, the organization's events go out again; and stop when they leave.
    const heard: string[] = [];
    const unsubscribe = await store.subscribe(orgEventsChannel("org_b"), (m) => heard.push(m));
    events.publish("org_b", "flow.deleted", "flw_9", { name: "B", by: "usr_2" });
    await events.flush();
    await expect.poll(() => heard.length).toBe(1);
    await unsubscribe();
    events.publish("org_b", "flow.deleted", "flw_9", { name: "B", by: "usr_2" });
    events.publish("org_a", "flow.deleted", "flw_1", { name: "A", by: "usr_1" });
    await events.flush();
    expect(published.map((p) => p.channel)).toEqual([orgEventsChannel("org_b"), orgEventsChannel("org_a")]);
    await expect.poll(() => received.length).toBe(1);
    expect(heard).toHaveLength(1);
  });

  it("a store that fails loses the events, never the caller", async () => {
    const { store, events } = await setUp();
    await store.close();
    events.publish("org_a", "flow.deleted", "flw_1", { name: "A", by: "usr_1" });
    await expect(events.published()).resolves.toBeUndefined();
    events.publish("org_a", "flow.deleted", "flw_1", { name: "A", by: "usr_1" });
    await expect(events.flush()).resolves.toBeUndefined();
  });
});
