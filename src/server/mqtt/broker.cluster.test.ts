/**
 * Two app processes against one PostgreSQL and one Redis are one MQTT broker (SPEC §20): a client
 * on instance A and one on B see each other's messages once, retained messages and persistent
 * sessions are the same on both, a client id connecting on B takes its session over from A, and a
 * key revoked through B is cut off on A within 2 s. Ports 4510-4521 (this branch's range).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp } from "@/test/accounts";
import { TestCluster } from "@/test/cluster";
import { connectMqtt, sleep, type TestMqttClient } from "@/test/mqtt";

const BASE_PORT = 4510;
const MQTT_BASE_PORT = 4520;

let cluster: TestCluster;
let token: string;
const open: TestMqttClient[] = [];

const ws = (name: string) => `ws://127.0.0.1:${cluster.node(name).port}/mqtt`;
const tcp = (index: number) => `mqtt://127.0.0.1:${MQTT_BASE_PORT + index}`;

async function track(c: Promise<TestMqttClient>) {
  const client = await c;
  open.push(client);
  return client;
}

async function deviceKey(name: string): Promise<{ secret: string; id: string }> {
  const res = await cluster.node("a").request("POST", "/api-keys", { token, body: { name, kind: "device" } });
  expect(res.status, res.text).toBe(201);
  return { secret: res.body.secret, id: res.body.api_key.id };
}

beforeAll(async () => {
  cluster = new TestCluster({ basePort: BASE_PORT });
  await Promise.all([cluster.start("a", 0, undefined, { MQTT_PORT: String(MQTT_BASE_PORT) }), cluster.start("b", 1, undefined, { MQTT_PORT: String(MQTT_BASE_PORT + 1) })]);
  token = (await signUp(cluster.node("a").request)).accessToken;
}, 90_000);

afterAll(async () => {
  await Promise.all(open.map((c) => c.end().catch(() => undefined)));
  await cluster?.dispose();
});

describe("two instances are one MQTT broker", () => {
  it("a client on A and one on B see each other's messages exactly once; retained messages are shared", async () => {
    const { secret } = await deviceKey("pair");
    const onA = await track(connectMqtt(tcp(0), { password: secret, clientId: "on-a" }));
    const onB = await track(connectMqtt(ws("b"), { password: secret, clientId: "on-b" }));
    await onA.subscribe("plant/#", 1);
    await onB.subscribe("plant/#", 1);
    await sleep(300);
    await onB.publish("plant/from-b", "1", { qos: 1 });
    await onA.publish("plant/from-a", "2", { qos: 1 });
    await onA.publish("plant/state", "running", { qos: 1, retain: true });
    await onA.next((m) => m.topic === "plant/state");
    await onB.next((m) => m.topic === "plant/state");
    await sleep(500);
    for (const c of [onA, onB]) expect(c.messages.map((m) => m.topic).sort()).toEqual(["plant/from-a", "plant/from-b", "plant/state"]);
    const late = await track(connectMqtt(tcp(1), { password: secret, clientId: "late-on-b" }));
    await late.subscribe("plant/#");
    expect(await late.next()).toMatchObject({ topic: "plant/state", payload: "running", retain: true });
  });

  it("a persistent session left on A continues on B with what was queued meanwhile; the same client id on B takes over from A", async () => {
    const { secret } = await deviceKey("session");
    const first = await connectMqtt(tcp(0), { password: secret, clientId: "keeper", clean: false });
    await first.subscribe("alerts/#", 1);
    await first.end();
    const publisher = await track(connectMqtt(ws("a"), { password: secret, clientId: "alarm" }));
    await publisher.publish("alerts/high", "queued", { qos: 1 });
    await sleep(300);
    const onB = await track(connectMqtt(tcp(1), { password: secret, clientId: "keeper", clean: false }));
    expect(await onB.next((m) => m.topic === "alerts/high")).toMatchObject({ payload: "queued", qos: 1 });

    const dup = await connectMqtt(tcp(0), { password: secret, clientId: "twin" });
    await sleep(300);
    const twin = await track(connectMqtt(ws("b"), { password: secret, clientId: "twin" }));
    await dup.closed;
    expect(twin.client.connected).toBe(true);
  });

  it("a key revoked through B is cut off on A within 2 s", async () => {
    const { secret, id } = await deviceKey("doomed");
    const onA = await track(connectMqtt(tcp(0), { password: secret, clientId: "doomed" }));
    const started = Date.now();
    expect((await cluster.node("b").request("DELETE", `/api-keys/${id}`, { token })).status).toBe(204);
    await onA.closed;
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
