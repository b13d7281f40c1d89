/**
 * A persistent session's queue leaves nothing behind when the session ends: its client comes back
 * with a clean session, its MQTT 5 session expires while it is away (Aedes' own timer, and the
 * ledger's sweep of session-expiry.ts); QoS 2 messages completed; a message queued for two sessions
 * when one of them ends after taking it. Embedded: the queue's rows
 * in `mqtt_session_messages`; with DATABASE_URL + REDIS_URL: aedes-persistence-redis's keys under the app's
 * prefix (`mqtt:outgoing:<client>` lists, `mqtt:packet:<broker>:<counter>` and their counts), where
 * each of these ends had left the queued packets behind for ever (the list deleted first, so
 * nothing counted them down). And the inbound QoS 2 messages an ended session still awaited the
 * PUBREL of: kept, they made the id's next session's message with the same packet id a "duplicate",
 * acknowledged and never published, on both backends.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppServices } from "@/server/app-services";
import { createTestApp, restClient } from "@/test/app";
import { signUp } from "@/test/accounts";
import { connectMqtt, prefixRedis, rawMqttClient, serveMqtt, sleep, type MqttEndpoints } from "@/test/mqtt";

const testRedis = prefixRedis();
const { prefix, redis } = testRedis;

let app: AppServices;
let mq: MqttEndpoints;
let key: string;
let organizationId: string;

beforeAll(async () => {
  // Room for the small queues of these tests, and for one 6 KiB message more.
  app = await createTestApp({ MQTT_MAX_QUEUED_BYTES_PER_ORGANIZATION: String(8 * 1024) }, { storeKeyPrefix: prefix });
  mq = await serveMqtt(app);
  const request = restClient(app);
  const owner = await signUp(request);
  key = (await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "sensor", kind: "device" } })).body.secret as string;
  organizationId = (await request("GET", "/organizations", { token: owner.accessToken })).body.organizations[0].id as string;
});

afterAll(async () => {
  await mq?.close();
  await app?.close();
  await testRedis.close();
});

/**
 * What the persistence keeps of `clientId`'s queue: the messages listed for it, and (Redis) every
 * stored packet of the deployment with its count, which outlives the list when nothing counts it down.
 */
async function kept(clientId: string): Promise<{ listed: number; packets: number }> {
  const internal = `${organizationId}:${clientId}`;
  if (redis) {
    const listed = await redis.llen(`${prefix}mqtt:outgoing:${encodeURIComponent(internal)}`);
    const keys = await redis.keys(`${prefix}mqtt:packet:*`);
    const packets = keys.filter((k) => !k.endsWith(":offlineCount"));
    // Every stored packet has its count, and no count outlives its packet.
    expect(keys.filter((k) => k.endsWith(":offlineCount")).sort()).toEqual(packets.map((k) => `${k}:offlineCount`).sort());
    // No client's own copy of a QoS 2 message is left once its queue is empty.
    if (listed === 0) expect(await redis.keys(`${prefix}mqtt:outgoing:${encodeURIComponent(internal)}:*`)).toEqual([]);
    return { listed, packets: packets.length };
  }
  // The embedded persistence writes a session 20 ms after a change.
  await sleep(100);
  const listed = await app.db.prisma.mqttSessionMessage.count({ where: { clientId: internal } });
  return { listed, packets: await app.db.prisma.mqttSessionMessage.count() };
}

/** A persistent session subscribed to `topic` at QoS 1 whose client has left, and `n` messages queued for it. */
async function awayWithQueue(clientId: string, topic: string, n: number, options: { protocolVersion?: 4 | 5; properties?: Record<string, unknown>; qos?: 1 | 2 } = {}) {
  const { qos = 1, ...connectOptions } = options;
  const device = await connectMqtt(mq.tcp, { password: key, clientId, clean: false, ...connectOptions });
  await device.subscribe(topic, qos);
  await device.end();
  const sender = await connectMqtt(mq.tcp, { password: key, clientId: `${clientId}-sender` });
  for (let i = 0; i < n; i++) await sender.publish(topic, `m${i}`, { qos });
  await sender.end();
  await sleep(100);
  expect(await kept(clientId)).toEqual({ listed: n, packets: n });
}

describe("a persistent session's queue, when the session ends", () => {
  it("its client comes back with a clean session: nothing delivered, nothing kept", async () => {
    await awayWithQueue("clean-return", "q/clean", 5);
    const back = await connectMqtt(mq.tcp, { password: key, clientId: "clean-return", clean: true });
    await sleep(300);
    expect(back.messages).toEqual([]);
    expect(await kept("clean-return")).toEqual({ listed: 0, packets: 0 });
    await back.end();
  });

  it("MQTT 5, its session expires while the client is away: nothing kept", async () => {
    await awayWithQueue("expires", "q/expires", 4, { protocolVersion: 5, properties: { sessionExpiryInterval: 1 } });
    await sleep(1_500);
    expect(await kept("expires")).toEqual({ listed: 0, packets: 0 });
    // And it is a new session when the client returns.
    const back = await connectMqtt(mq.tcp, { password: key, clientId: "expires", clean: false, protocolVersion: 5, properties: { sessionExpiryInterval: 60 } });
    expect(back.connack.sessionPresent).toBe(false);
    await sleep(200);
    expect(back.messages).toEqual([]);
    await back.end();
  });

  it("QoS 2: the queue is delivered when the client returns, and nothing is kept once each message is complete", async () => {
    await awayWithQueue("exactly-once", "q/two", 3, { qos: 2 });
    const back = await connectMqtt(mq.tcp, { password: key, clientId: "exactly-once", clean: false });
    await back.next((m) => m.payload === "m2");
    await sleep(300);
    expect(back.messages.map((m) => `${m.payload}@${m.qos}`)).toEqual(["m0@2", "m1@2", "m2@2"]);
    expect(await kept("exactly-once")).toEqual({ listed: 0, packets: 0 });
    await back.end();
    // And its session ends cleanly after that.
    const clean = await connectMqtt(mq.tcp, { password: key, clientId: "exactly-once", clean: true });
    await clean.end();
    expect(await kept("exactly-once")).toEqual({ listed: 0, packets: 0 });
  });

  it("a message queued for two sessions: one session taking its QoS 2 copies and then ending leaves the other's queue whole", async () => {
    for (const clientId of ["first", "second"]) {
      const device = await connectMqtt(mq.tcp, { password: key, clientId, clean: false });
      await device.subscribe("q/shared", 2);
      await device.end();
    }
    const sender = await connectMqtt(mq.tcp, { password: key, clientId: "shared-sender" });
    for (const payload of ["s0", "s1"]) await sender.publish("q/shared", payload, { qos: 2 });
    await sender.end();
    const first = await connectMqtt(mq.tcp, { password: key, clientId: "first", clean: false });
    await first.next((m) => m.payload === "s1");
    await sleep(300);
    await first.end();
    // first's session ends: what it took must not be counted down again under second.
    const ended = await connectMqtt(mq.tcp, { password: key, clientId: "first", clean: true });
    await ended.end();
    await sleep(100);
    const second = await connectMqtt(mq.tcp, { password: key, clientId: "second", clean: false });
    await second.next((m) => m.payload === "s1");
    expect(second.messages.map((m) => m.payload)).toEqual(["s0", "s1"]);
    await sleep(300);
    await second.end();
    const secondEnds = await connectMqtt(mq.tcp, { password: key, clientId: "second", clean: true });
    await secondEnds.end();
    expect(await kept("second")).toEqual({ listed: 0, packets: 0 });
  });

  it("a client whose filters overlap gets each queued message once, and nothing stays queued after", async () => {
    const device = await connectMqtt(mq.tcp, { password: key, clientId: "overlapping", clean: false });
    await device.subscribe(["q/home/#", "q/home/kitchen"], 1);
    await device.end();
    const sender = await connectMqtt(mq.tcp, { password: key, clientId: "overlapping-sender" });
    for (const payload of ["h0", "h1"]) await sender.publish("q/home/kitchen", payload, { qos: 1 });
    await sender.end();
    await sleep(100);
    expect(await kept("overlapping")).toEqual({ listed: 2, packets: 2 });
    const back = await connectMqtt(mq.tcp, { password: key, clientId: "overlapping", clean: false });
    await back.next((m) => m.payload === "h1");
    await sleep(300);
    expect(back.messages.map((m) => m.payload)).toEqual(["h0", "h1"]);
    expect(await kept("overlapping")).toEqual({ listed: 0, packets: 0 });
    await back.end();
    // Nothing left to replay at the next return either.
    const again = await connectMqtt(mq.tcp, { password: key, clientId: "overlapping", clean: false });
    await sleep(300);
    expect(again.messages).toEqual([]);
    await again.end();
  });

  it("the organization's queued bytes full: a connected persistent subscriber still gets each message live, keeps its connection, and nothing is stored outside a queue", async () => {
    const away = await connectMqtt(mq.tcp, { password: key, clientId: "holder", clean: false });
    await away.subscribe("q/full", 1);
    await away.end();
    const sender = await connectMqtt(mq.tcp, { password: key, clientId: "full-sender" });
    await sender.publish("q/full", Buffer.alloc(6 * 1024, 120), { qos: 1 });
    const live = await connectMqtt(mq.tcp, { password: key, clientId: "live-persistent", clean: false });
    await live.subscribe("q/full", 1);
    await live.subscribe("q/full-two", 2);
    // No room for these in the queues: the connected session gets them live all the same.
    for (const n of [1, 2, 3]) await sender.publish("q/full", Buffer.alloc(4 * 1024, 48 + n), { qos: 1 });
    for (const n of [1, 2]) await sender.publish("q/full-two", Buffer.alloc(4 * 1024, 48 + n), { qos: 2 });
    await live.next((m) => m.topic === "q/full-two" && m.payload.startsWith("2"));
    await sleep(300);
    expect(live.messages.map((m) => `${m.topic}:${m.payload[0]}`)).toEqual(["q/full:1", "q/full:2", "q/full:3", "q/full-two:1", "q/full-two:2"]);
    expect(live.client.connected).toBe(true);
    // Only the away session's message is stored, with its count.
    expect(await kept("live-persistent")).toEqual({ listed: 0, packets: 1 });
    expect(await kept("holder")).toEqual({ listed: 1, packets: 1 });
    await live.end();
    await sender.end();
    for (const clientId of ["holder", "live-persistent"]) await (await connectMqtt(mq.tcp, { password: key, clientId, clean: true })).end();
    expect(await kept("holder")).toEqual({ listed: 0, packets: 0 });
  });

  it("an MQTT 5 message whose user property holds a NUL character is queued (and the messages after it), and delivered with it", async () => {
    const device = await connectMqtt(mq.tcp, { password: key, clientId: "nul-reader", clean: false, protocolVersion: 5, properties: { sessionExpiryInterval: 300 } });
    await device.subscribe("q/nul", 1);
    await device.end();
    const sender = await connectMqtt(mq.tcp, { password: key, clientId: "nul-sender", protocolVersion: 5 });
    await sender.publish("q/nul", "odd", { qos: 1, properties: { userProperties: { k: "v\u0000w" } } });
    await sender.publish("q/nul", "plain", { qos: 1 });
    await sender.end();
    await sleep(200);
    expect((await kept("nul-reader")).listed).toBe(2);
    const back = await connectMqtt(mq.tcp, { password: key, clientId: "nul-reader", clean: false, protocolVersion: 5, properties: { sessionExpiryInterval: 300 } });
    await back.next((m) => m.payload === "plain");
    expect(back.messages.map((m) => m.payload)).toEqual(["odd", "plain"]);
    expect((back.messages[0]!.properties as { userProperties?: Record<string, string> }).userProperties).toEqual({ k: "v\u0000w" });
    await back.end();
    await (await connectMqtt(mq.tcp, { password: key, clientId: "nul-reader", clean: true })).end();
  });

  it("an inbound QoS 2 message still awaiting its PUBREL ends with its session: the next session's message with its packet id is not taken for a duplicate", async () => {
    const watcher = await connectMqtt(mq.tcp, { password: key, clientId: "inbound-watcher" });
    await watcher.subscribe("inbound/#", 1);
    // Aedes publishes a QoS 2 message when it arrives, and keeps its packet id until the PUBREL so
    // that a resent PUBLISH is not published twice. A persistent session sends one and leaves
    // before its PUBREL.
    const half = await rawMqttClient(mq.tcp, "half-sent", key);
    half.send({ cmd: "publish", topic: "inbound/reading", payload: Buffer.from("first"), qos: 2, messageId: 7, retain: false, dup: false });
    expect((await half.next("pubrec")).messageId).toBe(7);
    await watcher.next((m) => m.payload === "first");
    await half.end();
    if (redis) expect(await redis.keys(`${prefix}mqtt:incoming:*half-sent*`)).toHaveLength(1);
    // Its session ends (a clean session of the id): a new message with packet id 7 is new.
    const fresh = await rawMqttClient(mq.tcp, "half-sent", key, true);
    fresh.send({ cmd: "publish", topic: "inbound/reading", payload: Buffer.from("second"), qos: 2, messageId: 7, retain: false, dup: false });
    expect((await fresh.next("pubrec")).messageId).toBe(7);
    await watcher.next((m) => m.payload === "second");
    fresh.send({ cmd: "pubrel", messageId: 7 });
    await fresh.next("pubcomp");
    await fresh.end();
    if (redis) expect(await redis.keys(`${prefix}mqtt:incoming*half-sent*`)).toEqual([]);
    // A session kept: its client's PUBLISH sent again after a reconnection is the same message
    // (published once), completed by its PUBREL.
    const kept = await rawMqttClient(mq.tcp, "resends", key);
    kept.send({ cmd: "publish", topic: "inbound/reading", payload: Buffer.from("once"), qos: 2, messageId: 9, retain: false, dup: false });
    await kept.next("pubrec");
    await kept.end();
    const back = await rawMqttClient(mq.tcp, "resends", key);
    back.send({ cmd: "publish", topic: "inbound/reading", payload: Buffer.from("once"), qos: 2, messageId: 9, retain: false, dup: true });
    await back.next("pubrec");
    back.send({ cmd: "pubrel", messageId: 9 });
    await back.next("pubcomp");
    await sleep(300);
    expect(watcher.messages.map((m) => m.payload)).toEqual(["first", "second", "once"]);
    await back.end();
    if (redis) expect(await redis.keys(`${prefix}mqtt:incoming*resends*`)).toEqual([]);
    await watcher.end();
  });

  it("an MQTT 5 will whose delay its client ended by coming back is neither published nor kept", async () => {
    const watcher = await connectMqtt(mq.tcp, { password: key, clientId: "will-keeper-watcher" });
    await watcher.subscribe("wills/#", 1);
    const options = { password: key, clientId: "will-keeper", clean: false, protocolVersion: 5 as const, properties: { sessionExpiryInterval: 3600 } };
    const first = await connectMqtt(mq.tcp, { ...options, will: { topic: "wills/will-keeper", payload: Buffer.from("gone"), qos: 1, retain: false, properties: { willDelayInterval: 3600 } } });
    // Dropped without DISCONNECT: its will waits its hour.
    first.client.stream.destroy();
    await first.closed;
    await sleep(200);
    if (redis) expect(await redis.keys(`${prefix}mqtt:will:*will-keeper`)).toHaveLength(1);
    const back = await connectMqtt(mq.tcp, options);
    await sleep(300);
    expect(watcher.messages).toEqual([]);
    // Kept, another instance's sweep of a dead broker's wills would publish it one day.
    if (redis) {
      expect(await redis.keys(`${prefix}mqtt:will:*will-keeper`)).toEqual([]);
      expect((await redis.lrange(`${prefix}mqtt:will`, 0, -1)).filter((k) => k.endsWith("will-keeper"))).toEqual([]);
    }
    await back.end();
    await watcher.end();
  });

  it.skipIf(!redis)("Redis: the inbound QoS 2 keys an earlier version left are named at the first start, so that their sessions' ends drop them", async () => {
    const earlier = prefixRedis();
    const leftover = `${earlier.prefix}mqtt:incoming:${encodeURIComponent("org_earlier:meter")}:7`;
    await redis!.set(leftover, "x");
    const upgraded = await createTestApp({}, { storeKeyPrefix: earlier.prefix });
    try {
      // Named as a key written now is (the test above: a session's end drops what its set names).
      expect(await redis!.smembers(`${earlier.prefix}mqtt:incoming-ids:${encodeURIComponent("org_earlier:meter")}`)).toEqual(["7"]);
    } finally {
      await upgraded.close();
      await earlier.close();
    }
  });
});
