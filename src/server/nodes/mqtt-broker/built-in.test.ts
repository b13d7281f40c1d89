import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import type { NodeFactory, RuntimeServices } from "@/server/runtime/types";
import type { ConfigNodeSnapshot } from "@/shared/config-nodes";
import { FakeBuiltInMqtt } from "@/test/fake-built-in-mqtt";

/**
 * mqtt-in and mqtt-out on the app's own broker (`broker: "built-in"`, SPEC §20) through the
 * BuiltInMqtt interface, here a small in-memory fake (the real broker is branch broker's, issue 36).
 */

const loadTestFlow = closingTestFlows();

class FakeBuiltIn extends FakeBuiltInMqtt {}

const builtIn: ConfigNodeSnapshot = { id: "b1", type: "mqtt-broker", name: "", config: { broker: "built-in" }, revision: 1, sealed_credentials: {} };
const builtInV5: ConfigNodeSnapshot = { ...builtIn, config: { broker: "built-in", protocolVersion: 5 } };

async function flowWith(fake: FakeBuiltIn | undefined, inConfig: Record<string, unknown>, extra: { types?: Record<string, NodeFactory>; highWaterMark?: number; via?: string; broker?: ConfigNodeSnapshot } = {}) {
  const services: RuntimeServices = fake ? { builtInMqtt: fake } : {};
  const via = extra.via;
  return loadTestFlow(
    [
      { id: "in", type: "mqtt-in", config: { broker: "b1", datatype: "auto-detect", ...inConfig } },
      { id: "out", type: "mqtt-out", config: { broker: "b1" } },
      ...(via ? [{ id: via, type: via }] : []),
      { id: "sink", type: "sink" },
    ],
    via
      ? [
          { source: "in", target: via },
          { source: via, target: "sink" },
        ]
      : [{ source: "in", target: "sink" }],
    services,
    extra.types ?? {},
    { configNodes: { b1: extra.broker ?? builtIn }, organizationId: "org_a", ...(extra.highWaterMark ? { highWaterMark: extra.highWaterMark } : {}) },
  );
}

describe("mqtt nodes on the built-in broker", () => {
  it("publish and subscribe in the flow's organization, without address or credentials", async () => {
    const fake = new FakeBuiltIn();
    const flow = await flowWith(fake, { topic: "sensors/+/t", qos: 1 });
    await expect.poll(() => flow.statuses.some((s) => s.nodeId === "in" && s.status?.text === "connected")).toBe(true);
    await expect.poll(() => fake.subscriptions.length).toBe(1);
    expect(fake.subscriptions[0]).toMatchObject({ organizationId: "org_a", filter: "sensors/+/t", options: { qos: 1 } });
    flow.send("out", { topic: "sensors/kitchen/t", payload: { c: 21 }, qos: 1, retain: true });
    await flow.waitFor(1);
    expect(fake.published[0]).toMatchObject({ organizationId: "org_a", message: { topic: "sensors/kitchen/t", payload: Buffer.from('{"c":21}'), qos: 1, retain: true } });
    expect(flow.received[0]).toMatchObject({ topic: "sensors/kitchen/t", payload: { c: 21 }, qos: 1, retain: true });
    await fake.deliver("org_a", { topic: "sensors/hall/t", payload: Buffer.from("19"), qos: 0, retain: false });
    await flow.waitFor(2);
    expect(flow.received[1]).toMatchObject({ topic: "sensors/hall/t", payload: 19, qos: 0 });
  });

  it("with Protocol 5 the nodes send and receive MQTT 5 properties there (3.1.1: none, as Node-RED)", async () => {
    for (const [broker, v5] of [[builtInV5, true], [builtIn, false]] as const) {
      const fake = new FakeBuiltIn();
      const flow = await flowWith(fake, { topic: "p/#", qos: 1 }, { broker });
      await expect.poll(() => fake.subscriptions.length).toBe(1);
      flow.send("out", { topic: "p/out", payload: "x", qos: 1, userProperties: { site: "north" }, contentType: "text/plain", correlationData: Buffer.from("c1") });
      await flow.waitFor(1);
      if (v5) expect(fake.published[0]!.message.properties).toMatchObject({ userProperties: { site: "north" }, contentType: "text/plain", correlationData: Buffer.from("c1") });
      else expect(fake.published[0]!.message.properties).toBeUndefined();
      await fake.deliver("org_a", { topic: "p/in", payload: Buffer.from("y"), qos: 1, retain: false, properties: { userProperties: { from: "device" }, responseTopic: "p/reply" } });
      await flow.waitFor(2);
      if (v5) expect(flow.received[1]).toMatchObject({ topic: "p/in", userProperties: { from: "device" }, responseTopic: "p/reply" });
      else expect(flow.received[1]!.userProperties).toBeUndefined();
    }
  });

  it("dynamic subscriptions subscribe and unsubscribe there", async () => {
    const fake = new FakeBuiltIn();
    const flow = await flowWith(fake, { topic: "", inputs: 1 });
    flow.send("in", { action: "subscribe", topic: { topic: "a/#", qos: 0 } as unknown as string });
    await expect.poll(() => fake.subscriptions.filter((s) => s.active).map((s) => s.filter)).toEqual(["a/#"]);
    await fake.deliver("org_a", { topic: "a/b", payload: Buffer.from("x"), qos: 0, retain: false });
    await flow.waitFor(1);
    flow.send("in", { action: "unsubscribe", topic: "a/#" });
    await expect.poll(() => fake.subscriptions.filter((s) => s.active).length).toBe(0);
  });

  it("a message is taken (the broker's handler settles) only once the busy flow can take more", async () => {
    const fake = new FakeBuiltIn();
    const gate: Array<() => void> = [];
    const hold: NodeFactory = () => ({ input: (msg, send, done) => new Promise<void>((resolve) => gate.push(() => (send(msg), done(), resolve()))) });
    const flow = await flowWith(fake, { topic: "q", qos: 1, datatype: "utf8" }, { types: { hold }, highWaterMark: 2, via: "hold" });
    await expect.poll(() => fake.subscriptions.length).toBe(1);
    const settled: number[] = [];
    const deliveries = [0, 1, 2, 3].map((i) => fake.deliver("org_a", { topic: "q", payload: Buffer.from(`m${i}`), qos: 1, retain: false }).then(() => settled.push(i)));
    await new Promise((r) => setTimeout(r, 100));
    expect(gate.length).toBeGreaterThanOrEqual(2);
    // The flow is busy: the broker has not been told its messages were taken.
    expect(settled.length).toBeLessThan(4);
    while (gate.length > 0 || settled.length < 4) {
      gate.splice(0).forEach((release) => release());
      await new Promise((r) => setTimeout(r, 10));
    }
    await Promise.all(deliveries);
    await flow.waitFor(4);
    expect(flow.received.map((m) => m.payload)).toEqual(["m0", "m1", "m2", "m3"]);
  });

  it("without a built-in broker on this server the nodes say so", async () => {
    const flow = await flowWith(undefined, { topic: "x" });
    await expect.poll(() => flow.errors.map((e) => e.error).join("\n")).toMatch(/built-in MQTT broker is not available/);
    expect(flow.statuses.some((s) => s.status?.text === "built-in broker not available")).toBe(true);
  });

  it("a connect action on a broker that cannot connect (no built-in broker here) ends with the node's error, which a catch node gets; it does not wait for ever", async () => {
    const broker: ConfigNodeSnapshot = { ...builtIn, config: { broker: "built-in", autoConnect: false } };
    const flow = await loadTestFlow(
      [
        { id: "in", type: "mqtt-in", config: { broker: "b1", topic: "", inputs: 1 } },
        { id: "caught", type: "catch", config: { scope: ["in"] } },
        { id: "sink", type: "sink" },
      ],
      [{ source: "caught", target: "sink" }],
      {},
      {},
      { configNodes: { b1: broker }, organizationId: "org_a" },
    );
    flow.send("in", { action: "connect", n: 1 });
    flow.send("in", { action: "connect", n: 2 });
    // done(err) for each: the catch node has both messages, with the reason.
    const caught = await flow.waitFor(2);
    expect(caught.map((m) => m.n)).toEqual([1, 2]);
    for (const m of caught) expect((m.error as { message: string }).message).toContain("the built-in MQTT broker is not available on this server");
  });
});
