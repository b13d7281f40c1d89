/**
 * MQTT 5 on the built-in broker (SPEC §20, issue 36): a real MQTT 5 client (the `mqtt` package,
 * `protocolVersion: 5`) over WebSocket at /mqtt and over TCP (MQTT_PORT), against the real app
 * (embedded backend by default; DATABASE_URL + REDIS_URL run it on PostgreSQL + Redis): properties
 * arrive, refusals carry MQTT 5 reason codes and leave the connection up, sessions expire, topic
 * aliases resolve, and organizations stay apart as they do for 3.1.1 clients.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import mqttPacket from "mqtt-packet";
import { WebSocket } from "ws";
import type { IClientOptions } from "mqtt";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import { connectMqtt, refusedWith, serveMqtt, sleep, type MqttEndpoints, type TestMqttClient } from "@/test/mqtt";
import type { BuiltInMqttMessage } from "@/server/runtime/types";

const testApp = setUpTestApp({
  MQTT_MAX_SUBSCRIPTIONS_PER_CLIENT: "3",
  MQTT_MAX_MESSAGE_BYTES: "2048",
  MQTT_MAX_CONNECTIONS_PER_ORGANIZATION: "4",
  MQTT_PUBLISH_RATE_PER_ORGANIZATION: "20",
});
const request = testApp.request;
let mq: MqttEndpoints;
const open: TestMqttClient[] = [];
const V5 = { protocolVersion: 5 } as const;

beforeAll(async () => {
  mq = await serveMqtt(testApp.app);
});
afterAll(async () => {
  for (const c of open) c.client.end(true);
  await mq.close();
});

async function v5(url: string, options: IClientOptions) {
  const client = await connectMqtt(url, { ...V5, ...options });
  open.push(client);
  return client;
}

/** An MQTT 5 client on a bare WebSocket: each send is one frame, whole; the packets it got and its close code. */
async function rawWebSocketV5(url: string, password: string, clientId: string) {
  const ws = new WebSocket(url, "mqtt");
  const parser = mqttPacket.parser({ protocolVersion: 5 });
  const packets: mqttPacket.Packet[] = [];
  parser.on("packet", (p) => packets.push(p));
  ws.on("message", (data: Buffer) => parser.parse(data));
  const closed = new Promise<{ code: number }>((resolve) => ws.on("close", (code) => resolve({ code })));
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  ws.send(mqttPacket.generate({ cmd: "connect", protocolId: "MQTT", protocolVersion: 5, clean: true, clientId, keepalive: 30, username: "u", password: Buffer.from(password) }));
  await expect.poll(() => packets.length, { timeout: 5_000 }).toBe(1);
  return { ws, packets, closed };
}

async function org() {
  const owner = await signUp(request);
  const key = await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "sensor", kind: "device" } });
  expect(key.status, key.text).toBe(201);
  const scoped = async (scopes: string[]) => {
    const created = await request("POST", "/api-keys", { token: owner.accessToken, body: { name: scopes.join(" "), scopes } });
    expect(created.status, created.text).toBe(201);
    return created.body.secret as string;
  };
  return { owner, key: key.body.secret as string, scoped };
}

describe("built-in MQTT broker: MQTT 5", () => {
  it("connects over WebSocket and TCP; user properties, content type, response topic and correlation data arrive, retained ones too, and 3.1.1 clients get the message", async () => {
    const { key } = await org();
    const sub = await v5(mq.tcp, { password: key, clientId: "v5-sub" });
    // The CONNACK says what this broker does: no shared subscriptions, its packet size and topic aliases.
    expect(sub.connack.reasonCode).toBe(0);
    expect(sub.connack.properties).toMatchObject({ sharedSubscriptionAvailable: false, topicAliasMaximum: 100, maximumPacketSize: 2048 + 64 * 1024 });
    expect(await sub.subscribe("rpc/#", 1)).toEqual([1]);
    const old = await connectMqtt(mq.ws, { password: key, clientId: "v311-sub" });
    open.push(old);
    await old.subscribe("rpc/#", 1);
    const pub = await v5(mq.ws, { password: key, clientId: "v5-pub" });
    const properties = {
      userProperties: { site: "north", tag: ["a", "b"] },
      contentType: "application/json",
      responseTopic: "rpc/replies/v5-pub",
      correlationData: Buffer.from("req-1"),
      payloadFormatIndicator: true,
    };
    await pub.publish("rpc/requests", '{"n":1}', { qos: 1, properties });
    const m = await sub.next((x) => x.topic === "rpc/requests");
    expect(m.payload).toBe('{"n":1}');
    expect(m.properties).toMatchObject({ userProperties: { site: "north", tag: ["a", "b"] }, contentType: "application/json", responseTopic: "rpc/replies/v5-pub", payloadFormatIndicator: true });
    expect(Buffer.from(m.properties!.correlationData as Buffer).toString()).toBe("req-1");
    // The 3.1.1 client gets the message (without properties: 3.1.1 has none).
    expect(await old.next((x) => x.topic === "rpc/requests")).toMatchObject({ payload: '{"n":1}' });
    // A reply to the response topic reaches the requester, in the same organization's space.
    await pub.subscribe("rpc/replies/v5-pub", 1);
    await sub.publish(m.properties!.responseTopic as string, "ok", { qos: 1, properties: { correlationData: m.properties!.correlationData } });
    const reply = await pub.next((x) => x.topic === "rpc/replies/v5-pub");
    expect(Buffer.from(reply.properties!.correlationData as Buffer).toString()).toBe("req-1");
    // A retained message keeps its properties for a later subscriber.
    await pub.publish("rpc/state", "up", { qos: 1, retain: true, properties: { userProperties: { since: "boot" } } });
    const late = await v5(mq.tcp, { password: key, clientId: "v5-late" });
    await late.subscribe("rpc/state", 1);
    expect(await late.next()).toMatchObject({ topic: "rpc/state", payload: "up", retain: true, properties: { userProperties: { since: "boot" } } });
  });

  it("an empty client id gets one assigned (CONNACK Assigned Client Identifier), and takes part in the organization's clients", async () => {
    const { key } = await org();
    const c = await v5(mq.ws, { password: key, clientId: "", clean: true });
    const assigned = c.connack.properties?.assignedClientIdentifier;
    expect(assigned).toMatch(/^auto-/);
    // The organization's id is never shown to the client.
    expect(assigned).not.toContain(":");
  });

  it("refused connections carry MQTT 5 CONNACK reason codes: 0x86 wrong key, 0x87 no MQTT scope, 0x85 reserved client id, 0x97 over the organization's connections", async () => {
    const { key, scoped } = await org();
    expect(await refusedWith(mq.ws, { ...V5, password: "not-a-key" })).toBe(0x86);
    expect(await refusedWith(mq.tcp, { ...V5, password: `device_${"A".repeat(43)}` })).toBe(0x86);
    expect(await refusedWith(mq.tcp, { ...V5, password: await scoped(["flows:read"]) })).toBe(0x87);
    expect(await refusedWith(mq.tcp, { ...V5, password: key, clientId: "$reserved" })).toBe(0x85);
    for (let i = 0; i < 4; i++) await v5(i % 2 ? mq.tcp : mq.ws, { password: key, clientId: `full-${i}` });
    expect(await refusedWith(mq.ws, { ...V5, password: key, clientId: "one-too-many" })).toBe(0x97);
    // A client id already connected may come back (a takeover), so the limit does not lock it out.
    const again = await v5(mq.tcp, { password: key, clientId: "full-0" });
    expect(again.connack.reasonCode).toBe(0);
  });

  it("refused subscriptions get their own SUBACK codes (0x87, 0x8F, 0x9E, 0x97) and the connection stays", async () => {
    const { key, scoped } = await org();
    const c = await v5(mq.tcp, { password: key, clientId: "subs" });
    expect(await c.subscribe(["ok/1", "$SYS/#", "$share/g/ok/#", "ok/2"], 1)).toEqual([1, 0x8f, 0x9e, 1]);
    expect(await c.subscribe(["ok/3", "ok/4"], 0)).toEqual([0, 0x97]);
    // Resubscribing to a filter it holds is not a new one.
    expect(await c.subscribe("ok/1", 0)).toEqual([0]);
    expect(c.client.connected).toBe(true);
    const publishOnly = await v5(mq.ws, { password: await scoped(["mqtt:publish"]), clientId: "pub-only" });
    expect(await publishOnly.subscribe(["ok/#"], 1)).toEqual([0x87]);
    expect(publishOnly.client.connected).toBe(true);
  });

  it("refused publishes: PUBACK 0x87 without mqtt:publish, 0x90 to a $ topic, 0x97 over the organization's rate; the connection stays; nothing is delivered", async () => {
    const { key, scoped } = await org();
    const watcher = await v5(mq.ws, { password: key, clientId: "watcher" });
    await watcher.subscribe("#", 1);
    const subscribeOnly = await v5(mq.tcp, { password: await scoped(["mqtt:subscribe"]), clientId: "sub-only" });
    await expect(subscribeOnly.publish("a", "no", { qos: 1 })).rejects.toMatchObject({ code: 0x87 });
    expect(subscribeOnly.client.connected).toBe(true);
    const device = await v5(mq.tcp, { password: key, clientId: "device" });
    await expect(device.publish("$SYS/fake", "no", { qos: 1 })).rejects.toMatchObject({ code: 0x90 });
    await expect(device.publish("$SYS/fake", "no", { qos: 2 })).rejects.toMatchObject({ code: 0x90 });
    expect(device.client.connected).toBe(true);
    // 20 a second for the organization: a burst of 30 QoS 1 publishes, the last ones refused with 0x97.
    const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => device.publish("burst", String(i), { qos: 1 })));
    const refused = results.filter((r) => r.status === "rejected");
    expect(refused.length).toBeGreaterThanOrEqual(5);
    for (const r of refused) expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 0x97 });
    expect(device.client.connected).toBe(true);
    await sleep(300);
    expect(watcher.messages.filter((m) => m.topic === "burst").length).toBe(30 - refused.length);
    expect(watcher.messages.some((m) => m.payload === "no")).toBe(false);
    // A second later the bucket has refilled.
    await sleep(1_100);
    await device.publish("burst", "later", { qos: 1 });
  });

  it("a message over MQTT_MAX_MESSAGE_BYTES, or a packet over the packet limit (TCP and WebSocket), gets DISCONNECT 0x95; nothing is delivered", async () => {
    const { key } = await org();
    const watcher = await v5(mq.ws, { password: key, clientId: "watcher" });
    await watcher.subscribe("big", 1);
    const a = await v5(mq.tcp, { password: key, clientId: "big-a" });
    a.client.publish("big", Buffer.alloc(4096, 1), { qos: 1 });
    await a.closed;
    // mqtt.js can emit "close" before it has handled the packet that arrived with the FIN (its
    // parser works on a later tick): the DISCONNECT is looked for until it has been.
    await expect.poll(() => a.disconnects.map((d) => d.reasonCode), { timeout: 2_000 }).toEqual([0x95]);
    // Over the packet limit: refused from its header on, before the payload is read.
    const b = await v5(mq.tcp, { password: key, clientId: "big-b" });
    b.client.publish("big", Buffer.alloc(2048 + 80 * 1024, 1), { qos: 0 });
    await b.closed;
    await expect.poll(() => b.disconnects.map((d) => d.reasonCode), { timeout: 2_000 }).toEqual([0x95]);
    // Over WebSocket a frame that large is refused by the WebSocket layer from its header on
    // (close 1009, nothing buffered); the client is told why first, as over TCP.
    const c = await v5(mq.ws, { password: key, clientId: "big-c" });
    c.client.publish("big", Buffer.alloc(2048 + 80 * 1024, 1), { qos: 0 });
    await c.closed;
    await expect.poll(() => c.disconnects.map((d) => d.reasonCode), { timeout: 2_000 }).toEqual([0x95]);
    // mqtt.js sends a packet's header in a frame of its own, which the size guard refuses; a client
    // that sends the whole packet in one frame is refused by the WebSocket layer, and told as well.
    const d = await rawWebSocketV5(mq.ws, key, "big-d");
    d.ws.send(mqttPacket.generate({ cmd: "publish", topic: "big", payload: Buffer.alloc(2048 + 80 * 1024, 1), qos: 0, dup: false, retain: false }));
    const { code } = await d.closed;
    expect(code).toBe(1009);
    expect(d.packets.map((p) => [p.cmd, "reasonCode" in p ? p.reasonCode : undefined])).toEqual([
      ["connack", 0],
      ["disconnect", 0x95],
    ]);
    await sleep(200);
    expect(watcher.messages).toEqual([]);
  });

  it("topic aliases resolve within the client's organization", async () => {
    const { key } = await org();
    const other = await org();
    const spy = await v5(mq.tcp, { password: other.key, clientId: "spy" });
    await spy.subscribe("#", 1);
    const sub = await v5(mq.tcp, { password: key, clientId: "alias-sub" });
    await sub.subscribe("telemetry/#", 1);
    const pub = await v5(mq.ws, { password: key, clientId: "alias-pub" });
    await pub.publish("telemetry/engine/rpm", "900", { qos: 1, properties: { topicAlias: 7 } });
    await pub.publish("", "950", { qos: 1, properties: { topicAlias: 7 } });
    await sub.next((m) => m.payload === "950");
    expect(sub.messages.map((m) => [m.topic, m.payload])).toEqual([
      ["telemetry/engine/rpm", "900"],
      ["telemetry/engine/rpm", "950"],
    ]);
    // The subscriber sees no alias of the publisher's connection.
    expect(sub.messages.every((m) => m.properties?.topicAlias === undefined)).toBe(true);
    await sleep(200);
    expect(spy.messages).toEqual([]);
  });

  it("a session lives for its Session Expiry Interval: queued messages wait for the client, then the session is gone", async () => {
    const { key } = await org();
    const sender = await v5(mq.ws, { password: key, clientId: "sender" });
    const first = await v5(mq.tcp, { password: key, clientId: "sleepy", clean: false, properties: { sessionExpiryInterval: 2 } });
    await first.subscribe("wake/#", 1);
    await first.end();
    await sender.publish("wake/1", "while away", { qos: 1 });
    const back = await v5(mq.tcp, { password: key, clientId: "sleepy", clean: false, properties: { sessionExpiryInterval: 1 } });
    expect(back.connack.sessionPresent).toBe(true);
    expect((await back.next()).payload).toBe("while away");
    await back.end();
    await sleep(1_600);
    await sender.publish("wake/2", "after expiry", { qos: 1 });
    const fresh = await v5(mq.tcp, { password: key, clientId: "sleepy", clean: false, properties: { sessionExpiryInterval: 1 } });
    expect(fresh.connack.sessionPresent).toBe(false);
    await sleep(300);
    expect(fresh.messages).toEqual([]);
  });

  it("a will with a Will Delay Interval is published after the delay, and not at all when the client comes back in time", async () => {
    const { key } = await org();
    const observer = await v5(mq.ws, { password: key, clientId: "observer" });
    await observer.subscribe("status/#", 1);
    const will = (name: string) => ({ topic: `status/${name}`, payload: Buffer.from(`${name} lost`), qos: 1 as const, retain: false, properties: { willDelayInterval: 1, userProperties: { why: "lost" } } });
    const session = { clean: false, properties: { sessionExpiryInterval: 60 } };
    const lost = await v5(mq.tcp, { password: key, clientId: "lost", will: will("lost"), ...session });
    const back = await v5(mq.tcp, { password: key, clientId: "back", will: will("back"), ...session });
    const dropped = Date.now();
    lost.client.stream.destroy();
    back.client.stream.destroy();
    await v5(mq.ws, { password: key, clientId: "back", ...session });
    const m = await observer.next((x) => x.topic === "status/lost", 5_000);
    expect(Date.now() - dropped).toBeGreaterThanOrEqual(900);
    expect(m).toMatchObject({ payload: "lost lost", properties: { userProperties: { why: "lost" } } });
    await sleep(1_000);
    expect(observer.messages.map((x) => x.topic)).toEqual(["status/lost"]);
  });

  it("a revoked key's MQTT 5 connection is told why (DISCONNECT 0x87) and closed within 2 s; its will is not published", async () => {
    const { owner, key } = await org();
    const created = await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "doomed", kind: "device" } });
    const observer = await v5(mq.ws, { password: key, clientId: "observer" });
    await observer.subscribe("status/#", 1);
    const doomed = await v5(mq.tcp, { password: created.body.secret, clientId: "doomed", will: { topic: "status/doomed", payload: Buffer.from("gone"), qos: 1, retain: false } });
    const started = Date.now();
    expect((await request("DELETE", `/api-keys/${created.body.api_key.id}`, { token: owner.accessToken })).status).toBe(204);
    await doomed.closed;
    expect(Date.now() - started).toBeLessThan(2_000);
    await expect.poll(() => doomed.disconnects.map((d) => d.reasonCode), { timeout: 2_000 }).toEqual([0x87]);
    await sleep(300);
    expect(observer.messages).toEqual([]);
  });

  it("UNSUBSCRIBE ends a subscription (MQTT 5 UNSUBACK 0x00, then 0x11 for one it no longer holds), 3.1.1 too", async () => {
    const { key } = await org();
    const pub = await v5(mq.ws, { password: key, clientId: "pub" });
    for (const version of [5, 4] as const) {
      const c = await connectMqtt(mq.tcp, { password: key, clientId: `unsub-${version}`, protocolVersion: version });
      open.push(c);
      await c.subscribe("u/#", 1);
      await pub.publish("u/1", `before-${version}`, { qos: 1 });
      await c.next((m) => m.payload === `before-${version}`);
      const unsubscribe = () => new Promise<unknown>((resolve, reject) => c.client.unsubscribe("u/#", (err, packet) => (err ? reject(err) : resolve((packet as { granted?: unknown } | undefined)?.granted))));
      const codes = await unsubscribe();
      if (version === 5) expect(codes).toEqual([0]);
      await pub.publish("u/1", `after-${version}`, { qos: 1 });
      await sleep(300);
      expect(c.messages.map((m) => m.payload)).toEqual([`before-${version}`]);
      if (version === 5) expect(await unsubscribe()).toEqual([0x11]);
    }
  });

  it("organizations never see each other with MQTT 5 either: #, +/#, shared subscriptions, retained messages", async () => {
    const a = await org();
    const b = await org();
    const aPub = await v5(mq.tcp, { password: a.key, clientId: "a" });
    await aPub.publish("secret/x", "retained-a", { qos: 1, retain: true, properties: { userProperties: { who: "a" } } });
    const spy = await v5(mq.ws, { password: b.key, clientId: "a" });
    expect(await spy.subscribe(["#", "+/#", "secret/x"], 1)).toEqual([1, 1, 1]);
    expect(await spy.subscribe(["$share/g/#", "$SYS/#"], 1)).toEqual([0x9e, 0x8f]);
    await aPub.publish("secret/x", "live-a", { qos: 1 });
    // Org B's client "a" did not take over org A's.
    expect(aPub.client.connected).toBe(true);
    await sleep(300);
    expect(spy.messages).toEqual([]);
  });

  it("flows receive a device's MQTT 5 properties and publish theirs to devices", async () => {
    const { owner, key } = await org();
    const got: BuiltInMqttMessage[] = [];
    const stop = await testApp.app.mqtt.builtIn.subscribe(owner.organizationId, "in/#", { qos: 1 }, (m) => {
      got.push(m);
    });
    const device = await v5(mq.tcp, { password: key, clientId: "dev" });
    await device.subscribe("out/#", 1);
    await device.publish("in/x", "hello", { qos: 1, properties: { userProperties: { unit: "C" }, contentType: "text/plain", messageExpiryInterval: 60 } });
    await expect.poll(() => got.length).toBe(1);
    expect(got[0]!.properties).toMatchObject({ userProperties: { unit: "C" }, contentType: "text/plain" });
    expect(got[0]!.properties!.messageExpiryInterval).toBeGreaterThan(55);
    await testApp.app.mqtt.builtIn.publish(owner.organizationId, { topic: "out/y", payload: Buffer.from("back"), qos: 1, retain: false, properties: { userProperties: { from: "flow" }, correlationData: Buffer.from("c1") } });
    const m = await device.next((x) => x.topic === "out/y");
    expect(m.properties).toMatchObject({ userProperties: { from: "flow" } });
    expect(Buffer.from(m.properties!.correlationData as Buffer).toString()).toBe("c1");
    await stop();
  });
});
