/**
 * The built-in MQTT broker through its real doors (SPEC §20): a real MQTT client (the `mqtt`
 * package) over WebSocket at /mqtt and over TCP (MQTT_PORT), against the real app (embedded
 * backend by default; DATABASE_URL + REDIS_URL run it on PostgreSQL + Redis).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import mqttPacket from "mqtt-packet";
import { WebSocket } from "ws";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp, joinAs } from "@/test/accounts";
import { connectMqtt, refusedWith, serveMqtt, sleep, type MqttEndpoints, type TestMqttClient } from "@/test/mqtt";
import { makeTestCertificates } from "@/test/tls-fixtures";
import { DurablePersistence } from "./durable-persistence";
import { onlineMqttClients, onlineSetKey } from "./online";
import type { BuiltInMqttMessage } from "@/server/runtime/types";

const testApp = setUpTestApp({ MQTT_MAX_SUBSCRIPTIONS_PER_CLIENT: "5", MQTT_MAX_MESSAGE_BYTES: "2048", MQTT_MAX_CONNECTIONS_PER_ORGANIZATION: "6" });
const request = testApp.request;
let mq: MqttEndpoints;
const open: TestMqttClient[] = [];

beforeAll(async () => {
  mq = await serveMqtt(testApp.app);
});
afterAll(async () => {
  await Promise.all(open.map((c) => c.end().catch(() => undefined)));
  await mq.close();
});

async function track(c: Promise<TestMqttClient>) {
  const client = await c;
  open.push(client);
  return client;
}

/** The prototype whose delWill the broker's persistence uses (Redis with REDIS_URL, else the durable one). */
async function persistencePrototype(): Promise<{ delWill(client: { id: string }): Promise<unknown> }> {
  if (process.env.REDIS_URL) return (await import("aedes-persistence-redis/asyncPersistence.js")).default.prototype as never;
  return DurablePersistence.prototype as never;
}

async function orgWithDeviceKey() {
  const owner = await signUp(request);
  const key = await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "sensor", kind: "device" } });
  expect(key.status, key.text).toBe(201);
  return { owner, key: key.body.secret as string, keyId: key.body.api_key.id as string };
}

/** A TCP connection to the broker that sends nothing by itself; resolves once connected (a refused one is closed at once). */
async function rawSocket(port: number, options: { allowHalfOpen?: boolean } = {}): Promise<net.Socket> {
  const socket = net.connect({ port, host: "127.0.0.1", allowHalfOpen: options.allowHalfOpen ?? false });
  socket.on("error", () => {});
  await new Promise((r) => socket.once("connect", r));
  return socket;
}

/** Whether the broker closed `socket` within `ms`. */
function closedWithin(socket: net.Socket, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    if (socket.destroyed) return resolve(true);
    const timer = setTimeout(() => resolve(false), ms);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** The HTTP status a WebSocket upgrade to /mqtt is answered with (101: taken). */
function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const ws = new WebSocket(url, "mqtt", { headers });
    ws.on("upgrade", (res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on("error", reject);
  });
}

describe("built-in MQTT broker: devices publish and subscribe with their keys", () => {
  it("a device key publishes over WebSocket and another subscribes over TCP, with wildcards; a device key has both scopes", async () => {
    const { owner, key } = await orgWithDeviceKey();
    const listed = await request("GET", "/api-keys", { token: owner.accessToken });
    const keys = (Array.isArray(listed.body) ? listed.body : Object.values(listed.body as object).find(Array.isArray)) as { scopes: string[] }[];
    expect(keys[0]!.scopes).toEqual(["device:connect", "mqtt:publish", "mqtt:subscribe"]);
    const sub = await track(connectMqtt(mq.tcp, { password: key, clientId: "listener" }));
    expect(await sub.subscribe("sensors/+/temp", 1)).toEqual([1]);
    const pub = await track(connectMqtt(mq.ws, { password: key, clientId: "sensor-1" }));
    await pub.publish("sensors/1/temp", "21.5", { qos: 1 });
    const m = await sub.next();
    expect(m).toMatchObject({ topic: "sensors/1/temp", payload: "21.5", qos: 1, retain: false });
    // Retained messages come to a later subscriber, with the retain flag.
    await pub.publish("sensors/1/state", "on", { retain: true, qos: 1 });
    const late = await track(connectMqtt(mq.ws, { password: key, clientId: "late" }));
    await late.subscribe("sensors/#");
    expect(await late.next((x) => x.topic === "sensors/1/state")).toMatchObject({ payload: "on", retain: true });
  });

  it("a wrong key is refused with CONNACK 4, a key without MQTT scopes with 5; MQTT 3.1 and 5 clients are accepted too", async () => {
    const { owner, key } = await orgWithDeviceKey();
    expect(await refusedWith(mq.ws, { password: "not-a-key" })).toBe(4);
    expect(await refusedWith(mq.tcp, { password: `device_${"A".repeat(43)}` })).toBe(4);
    expect(await refusedWith(mq.tcp, {})).toBe(4);
    const flowsOnly = await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "flows", scopes: ["flows:read"] } });
    expect(await refusedWith(mq.tcp, { password: flowsOnly.body.secret })).toBe(5);
    // MQTT 5 (mqtt5.integration.test.ts has its reason codes).
    expect(await refusedWith(mq.tcp, { password: key, protocolVersion: 5 })).toBe("accepted");
    // MQTT 3.1 (protocol level 3) is accepted.
    const v31 = await track(connectMqtt(mq.tcp, { password: key, protocolId: "MQIsdp", protocolVersion: 3, clientId: "old-device" }));
    expect(v31.client.connected).toBe(true);
  });

  it("a viewer's service key only subscribes: its publish ends the connection; a member's publishes", async () => {
    const { owner, key: device } = await orgWithDeviceKey();
    const viewer = await joinAs(testApp.app, request, owner, "viewer");
    const viewerKey = await request("POST", "/api-keys", { token: viewer.token, body: { name: "dash" } });
    // Viewers cannot create keys (member+); an admin's key for the viewer is not possible either, so a
    // viewer's key is one whose creator was demoted to viewer.
    expect(viewerKey.status).toBe(403);
    const member = await joinAs(testApp.app, request, owner, "member");
    const memberKey = await request("POST", "/api-keys", { token: member.token, body: { name: "svc" } });
    expect(memberKey.status, memberKey.text).toBe(201);
    const asMember = await track(connectMqtt(mq.ws, { password: memberKey.body.secret, clientId: "svc" }));
    const watcher = await track(connectMqtt(mq.ws, { password: device, clientId: "watcher" }));
    await watcher.subscribe("svc/#");
    await asMember.publish("svc/out", "hello");
    expect((await watcher.next()).payload).toBe("hello");
    // Demoted to viewer: the key keeps only mqtt:subscribe; the open connection, which published, ends.
    await testApp.app.db.prisma.membership.updateMany({ where: { userId: member.userId, organizationId: owner.organizationId }, data: { role: "viewer" } });
    await testApp.app.access.changed({ organizationId: owner.organizationId });
    await asMember.closed;
    const asViewer = await track(connectMqtt(mq.ws, { password: memberKey.body.secret, clientId: "svc" }));
    expect(await asViewer.subscribe("svc/#")).toEqual([0]);
    await asViewer.client.publish("svc/out", "not allowed");
    await asViewer.closed;
    await sleep(200);
    expect(watcher.messages.map((m) => m.payload)).toEqual(["hello"]);
  });

  it("organizations never see each other: #, +/#, $SYS/#, $share/…, retained messages and client ids", async () => {
    const a = await orgWithDeviceKey();
    const b = await orgWithDeviceKey();
    const aSub = await track(connectMqtt(mq.tcp, { password: a.key, clientId: "c1" }));
    await aSub.subscribe("#");
    await aSub.publish("a/b", "retained-a", { retain: true, qos: 1 });
    await aSub.next((m) => m.payload === "retained-a");
    const spy = await track(connectMqtt(mq.ws, { password: b.key, clientId: "spy" }));
    expect(await spy.subscribe(["#", "+/#", "a/b", "$SYS/#", "$share/g/#", "$share/g/a/b"], 1)).toEqual([1, 1, 1, 128, 128, 128]);
    // Org B's own c1 does not take over org A's c1.
    const bC1 = await track(connectMqtt(mq.tcp, { password: b.key, clientId: "c1" }));
    await bC1.publish("b/own", "b-message", { qos: 1 });
    const aPub = await track(connectMqtt(mq.ws, { password: a.key, clientId: "a-pub" }));
    await aPub.publish("a/b", "live-a", { qos: 1 });
    await aPub.publish("x/y/z", "live-a2", { qos: 1 });
    await aSub.next((m) => m.payload === "live-a2");
    await spy.next((m) => m.payload === "b-message");
    await sleep(300);
    // Only its own organization's message (once per matching subscription at most: aedes delivers it once).
    expect(new Set(spy.messages.map((m) => m.payload))).toEqual(new Set(["b-message"]));
    expect(aSub.messages.map((m) => m.payload)).not.toContain("b-message");
    expect(aSub.client.connected).toBe(true);
    // Publishing into $SYS is refused (the connection ends), and reaches no one.
    const sysPub = await track(connectMqtt(mq.tcp, { password: b.key, clientId: "sys" }));
    sysPub.client.publish("$SYS/broker/clients", "fake");
    await sysPub.closed;
  });

  it("a revoked key is cut off within 2 s, an expired one when it expires; its will is not published", async () => {
    const { owner, key, keyId } = await orgWithDeviceKey();
    const other = await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "observer", kind: "device" } });
    const observer = await track(connectMqtt(mq.ws, { password: other.body.secret, clientId: "observer" }));
    await observer.subscribe("status/#");
    const device = await track(connectMqtt(mq.tcp, { password: key, clientId: "doomed", will: { topic: "status/doomed", payload: Buffer.from("gone"), qos: 0, retain: false } }));
    const started = Date.now();
    expect((await request("DELETE", `/api-keys/${keyId}`, { token: owner.accessToken })).status).toBe(204);
    await device.closed;
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await refusedWith(mq.tcp, { password: key })).toBe(4);

    const soon = await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "short", kind: "device", expires_at: new Date(Date.now() + 1_500).toISOString() } });
    expect(soon.status, soon.text).toBe(201);
    const shortLived = await track(connectMqtt(mq.ws, { password: soon.body.secret, clientId: "short" }));
    const t0 = Date.now();
    await shortLived.closed;
    expect(Date.now() - t0).toBeLessThan(3_000);
    await sleep(200);
    expect(observer.messages).toEqual([]);
  });

  it("a client's will reaches its organization when its connection drops", async () => {
    const { key } = await orgWithDeviceKey();
    const observer = await track(connectMqtt(mq.ws, { password: key, clientId: "obs" }));
    await observer.subscribe("status/#");
    const device = await connectMqtt(mq.tcp, { password: key, clientId: "willing", will: { topic: "status/willing", payload: Buffer.from("offline"), qos: 1, retain: false } });
    device.client.stream.destroy();
    expect(await observer.next((m) => m.topic === "status/willing")).toMatchObject({ payload: "offline" });
  });

  it("limits: subscriptions per client (SUBACK 0x80), message size and connections per organization", async () => {
    const { key } = await orgWithDeviceKey();
    const c = await track(connectMqtt(mq.tcp, { password: key, clientId: "many" }));
    expect(await c.subscribe(["a/1", "a/2", "a/3", "a/4", "a/5", "a/6"])).toEqual([0, 0, 0, 0, 0, 128]);
    // Subscribing again to one it holds is no new subscription.
    expect(await c.subscribe("a/1", 1)).toEqual([1]);
    const big = await track(connectMqtt(mq.ws, { password: key, clientId: "big" }));
    big.client.publish("a/1", Buffer.alloc(4096));
    await big.closed;
    expect(c.messages).toEqual([]);
    // 6 connections per organization: "many" plus five more; the seventh is refused with 3.
    for (let i = 0; i < 5; i++) await track(connectMqtt(mq.tcp, { password: key, clientId: `n${i}` }));
    expect(await refusedWith(mq.tcp, { password: key, clientId: "n-extra" })).toBe(3);
    // A client id already connected may take its own connection over.
    const again = await track(connectMqtt(mq.tcp, { password: key, clientId: "n0" }));
    expect(again.client.connected).toBe(true);
  });

  it("a burst of CONNECTs at once gets no more than the organization's connection limit", async () => {
    const { key } = await orgWithDeviceKey();
    // The organization's connection count (admit's onlineMqttClients) is held until all ten wait on it: each would read the same count.
    const store = testApp.app.store;
    const setMembers = store.setMembers.bind(store);
    let waiting = 0;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    store.setMembers = async (name: string) => {
      if (name.includes("mqtt:online:") && ++waiting >= 10) release();
      await held;
      return setMembers(name);
    };
    let outcomes: PromiseSettledResult<TestMqttClient>[];
    try {
      outcomes = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => connectMqtt(i % 2 ? mq.ws : mq.tcp, { password: key, clientId: `burst-${i}` })));
    } finally {
      release();
      store.setMembers = setMembers;
    }
    const accepted = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
    for (const c of accepted) open.push(c);
    expect(accepted).toHaveLength(6);
    expect(outcomes.filter((o) => o.status === "rejected").map((o) => ((o as PromiseRejectedResult).reason as { code?: number }).code)).toEqual([3, 3, 3, 3]);
  });

  it("clients an instance killed a moment ago still name in the organization's online set do not count against its limit", async () => {
    const { owner, key } = await orgWithDeviceKey();
    // Six clients of an instance killed: in the set, their entries lapsed (never renewed).
    await testApp.app.store.setAdd(onlineSetKey(owner.organizationId), ...Array.from({ length: 6 }, (_, i) => `ghost-${i}`));
    const device = await track(connectMqtt(mq.tcp, { password: key, clientId: "after-ghosts" }));
    expect(device.client.connected).toBe(true);
    // The exact count dropped them from the set.
    expect(await testApp.app.store.setMembers(onlineSetKey(owner.organizationId))).not.toContain("ghost-0");
  });

  it("a persistent session's SUBSCRIBE of several filters is answered and kept; a filter refused over the limit is not", async () => {
    const { key } = await orgWithDeviceKey();
    const keeper = await connectMqtt(mq.tcp, { password: key, clientId: "several", clean: false });
    // Several filters in one packet (on Redis this SUBACK never came).
    expect(await keeper.subscribe(["a/#", "b/#", "c/#"], 1)).toEqual([1, 1, 1]);
    // The limit is 5: of these, f/# is refused; its granted siblings are stored without it.
    expect(await keeper.subscribe(["d/#", "e/#", "f/#"], 1)).toEqual([1, 1, 128]);
    await keeper.end();
    const sender = await track(connectMqtt(mq.tcp, { password: key, clientId: "several-sender" }));
    for (const topic of ["a/1", "c/1", "e/1", "f/1"]) await sender.publish(topic, topic, { qos: 1 });
    const back = await track(connectMqtt(mq.tcp, { password: key, clientId: "several", clean: false }));
    expect(back.connack.sessionPresent).toBe(true);
    await back.next((m) => m.topic === "e/1");
    // Live again: the five granted filters, not the refused one.
    await sender.publish("b/2", "b/2", { qos: 1 });
    await sender.publish("f/2", "f/2", { qos: 1 });
    await back.next((m) => m.topic === "b/2");
    await sleep(300);
    // Each once: on Redis a message published just before the client came back also returns live
    // after its session was restored, and reaches it by one road only (replay-guard.ts).
    expect(back.messages.map((m) => m.topic).sort()).toEqual(["a/1", "b/2", "c/1", "e/1"]);
  });

  it("a returning persistent session gets its CONNACK first though a message reaches it while its session is restored (MQTT-3.2.0-1)", async () => {
    const { key } = await orgWithDeviceKey();
    const session = { password: key, clientId: "connack-first", clean: false } as const;
    const first = await connectMqtt(mq.tcp, session);
    expect(await first.subscribe("live/#", 1)).toEqual([1]);
    await first.end();
    const sender = await track(connectMqtt(mq.ws, { password: key, clientId: "connack-sender" }));
    // Aedes restores the session's subscriptions, then stores its will (delWill), then writes the
    // CONNACK: a message published in between reaches the restored subscription at once (on Redis,
    // one published just before the client came back and returning through pub/sub does).
    const proto = await persistencePrototype();
    const own = Object.getOwnPropertyDescriptor(proto, "delWill");
    const delWill = proto.delWill;
    proto.delWill = async function (this: unknown, client: { id: string }) {
      if (client.id.endsWith(":connack-first")) {
        await sender.publish("live/1", "during-restore", { qos: 1 });
        await sleep(200);
      }
      return delWill.call(this, client);
    };
    try {
      // Written before its CONNACK, the PUBLISH made mqtt.js wait for a CONNACK it never read.
      const back = await track(connectMqtt(mq.tcp, session));
      expect(back.connack.sessionPresent).toBe(true);
      expect((await back.next((m) => m.topic === "live/1")).payload).toBe("during-restore");
      await sleep(300);
      expect(back.messages.map((m) => m.payload)).toEqual(["during-restore"]);
    } finally {
      if (own) Object.defineProperty(proto, "delWill", own);
      else delete (proto as { delWill?: unknown }).delWill;
    }
  });

  it("a packet announced larger than the limit closes the connection before it is read, CONNECT included", async () => {
    const { port } = new URL(mq.tcp);
    const socket = net.connect(Number(port), "127.0.0.1");
    await new Promise((r) => socket.once("connect", r));
    const closed = new Promise((r) => socket.once("close", r));
    // A CONNECT whose remaining length says 256 MB.
    socket.write(Buffer.from([0x10, 0xff, 0xff, 0xff, 0x7f]));
    await closed;
    expect(socket.destroyed).toBe(true);
  });

  it("one address gets at most 20 connections not admitted yet: more are closed at once over TCP and answered 429 over WebSocket (whatever headers say); admitted and closed ones free their slot", { timeout: 30_000 }, async () => {
    const { key } = await orgWithDeviceKey();
    const port = Number(new URL(mq.tcp).port);
    const idle: net.Socket[] = [];
    const raw = async () => {
      const socket = await rawSocket(port);
      idle.push(socket);
      return socket;
    };
    try {
      for (let i = 0; i < 20; i++) await raw();
      // The broker counts a socket once it has it: let the last ones land before the 21st.
      await sleep(100);
      expect(await closedWithin(await raw(), 2_000)).toBe(true);
      expect(await upgradeStatus(mq.ws)).toBe(429);
      // A header naming another address is not the client's address.
      expect(await upgradeStatus(mq.ws, { "x-forwarded-for": "203.0.113.9", "x-flowplane-client-ip": "203.0.113.9" })).toBe(429);
      // A refused upgrade's socket is the server's to close: a peer that keeps its side open does not
      // hold it (its writes then meet a reset), and one that resets it crashes nothing.
      const wsPort = Number(new URL(mq.ws).port);
      const upgrade = `GET /mqtt HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${Buffer.from("0123456789abcdef").toString("base64")}\r\nSec-WebSocket-Protocol: mqtt\r\n\r\n`;
      const lingering = await rawSocket(wsPort, { allowHalfOpen: true });
      const answer = new Promise<string>((resolve) => lingering.once("data", (d) => resolve(d.toString())));
      lingering.write(upgrade);
      expect(await answer).toMatch(/^HTTP\/1\.1 429 /);
      await sleep(300);
      const lingered = closedWithin(lingering, 3_000);
      for (let i = 0; i < 5 && !lingering.destroyed; i++) {
        lingering.write("x");
        await sleep(100);
      }
      expect(await lingered).toBe(true);
      const resetting = await rawSocket(wsPort);
      const refusedAnswer = new Promise((resolve) => resetting.once("data", resolve));
      resetting.write(upgrade);
      await refusedAnswer;
      resetting.resetAndDestroy();
      await sleep(200);
      // One closed frees its slot; a device that then connects is admitted and holds none.
      idle.shift()!.destroy();
      await sleep(100);
      const device = await track(connectMqtt(mq.tcp, { password: key, clientId: "after-crowd" }));
      expect(device.client.connected).toBe(true);
      await sleep(100);
      const twentieth = await raw();
      expect(await closedWithin(twentieth, 500)).toBe(false);
      expect(await closedWithin(await raw(), 2_000)).toBe(true);
    } finally {
      for (const socket of idle) socket.destroy();
    }
    // Freed: connections come in again.
    await sleep(100);
    expect(await upgradeStatus(mq.ws)).toBe(101);
    const again = await track(connectMqtt(mq.ws, { password: key, clientId: "after-crowd-ws" }));
    expect(again.client.connected).toBe(true);
  });

  it("a refused MQTT 5 CONNECT's connection is closed by the broker even if the client keeps its side open, freeing its slot", { timeout: 30_000 }, async () => {
    const port = Number(new URL(mq.tcp).port);
    // A peer that keeps its side open after the broker's FIN (Node's own sockets close theirs).
    const socket = await rawSocket(port, { allowHalfOpen: true });
    const answered = new Promise<Buffer>((resolve) => socket.once("data", resolve));
    socket.write(mqttPacket.generate({ cmd: "connect", protocolId: "MQTT", protocolVersion: 5, clean: true, clientId: "refused-5", keepalive: 60, username: "x", password: Buffer.from("not-a-key") }, { protocolVersion: 5 }));
    const connack = mqttPacket.parser({ protocolVersion: 5 });
    const packet = new Promise<{ cmd: string; reasonCode: number }>((resolve) => connack.once("packet", resolve));
    connack.parse(await answered);
    expect(await packet).toMatchObject({ cmd: "connack", reasonCode: 0x86 });
    // The client never closes its side; the broker closes its own within a few seconds, which the
    // client learns when it writes again (a reset: nothing listens there any more).
    await sleep(3_000);
    const closed = closedWithin(socket, 3_000);
    // The first write is answered by a reset, the next one fails on it.
    for (let i = 0; i < 5 && !socket.destroyed; i++) {
      socket.write(Buffer.from([0xc0, 0x00]));
      await sleep(100);
    }
    expect(await closed).toBe(true);
  });

  it("MQTT_PORT speaks TLS with MQTT_TLS_CERT / MQTT_TLS_KEY (PEM text or a file path)", { timeout: 40_000 }, async () => {
    const certs = makeTestCertificates();
    const dir = mkdtempSync(path.join(os.tmpdir(), "fp-mqtt-tls-"));
    try {
      writeFileSync(path.join(dir, "key.pem"), certs.serverKey);
      const port = await testApp.app.mqtt.listen({ port: 0, host: "127.0.0.1", tls: { cert: certs.serverCert, key: path.join(dir, "key.pem") } });
      const { key } = await orgWithDeviceKey();
      const secure = await track(connectMqtt(`mqtts://127.0.0.1:${port}`, { password: key, clientId: "tls", ca: certs.ca, servername: "localhost" }));
      await secure.subscribe("t");
      await secure.publish("t", "over tls");
      expect((await secure.next()).payload).toBe("over tls");
      // A client that does not trust the certificate does not get in.
      await expect(connectMqtt(`mqtts://127.0.0.1:${port}`, { password: key, ca: certs.otherCa, servername: "localhost" })).rejects.toThrow();
      // Connections that never start their handshake count against their address before it: the 21st is closed at once.
      const idle: net.Socket[] = [];
      try {
        for (let i = 0; i < 20; i++) idle.push(await rawSocket(port));
        await sleep(100);
        const extra = await rawSocket(port);
        idle.push(extra);
        expect(await closedWithin(extra, 2_000)).toBe(true);
        expect(await closedWithin(idle[0]!, 300)).toBe(false);
        // Their handshake has 10 s (the CONNECT's time): then they are closed, and their slots free.
        expect(await closedWithin(idle[0]!, 12_000)).toBe(true);
      } finally {
        for (const socket of idle) socket.destroy();
      }
      await sleep(100);
      const afterwards = await track(connectMqtt(`mqtts://127.0.0.1:${port}`, { password: key, clientId: "tls-2", ca: certs.ca, servername: "localhost" }));
      expect(afterwards.client.connected).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("onlineMqttClients lists the organization's connected clients, GET /devices shows them (kind mqtt), and forgets those that left", async () => {
    const { owner, key, keyId } = await orgWithDeviceKey();
    const before = Date.now();
    const c = await connectMqtt(mq.tcp, { password: key, clientId: "pump-7" });
    const other = await orgWithDeviceKey();
    const o = await track(connectMqtt(mq.tcp, { password: other.key, clientId: "pump-7" }));
    await sleep(100);
    const online = await onlineMqttClients(testApp.app, owner.organizationId);
    expect(online).toHaveLength(1);
    expect(online[0]).toMatchObject({ key_id: keyId, client_id: "pump-7" });
    expect(Date.parse(online[0]!.connected_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(online[0]!.last_seen_at)).toBeGreaterThanOrEqual(Date.parse(online[0]!.connected_at));
    // Through the door: GET /devices lists it as kind "mqtt" beside the key's own device, and never
    // the other organization's client of the same id.
    const listed = (await request("GET", "/devices", { token: owner.accessToken })).body.devices as Array<{ id: string; key_id: string; kind: string; name: string; online: boolean }>;
    const mqttListed = listed.filter((d) => d.kind === "mqtt");
    expect(mqttListed).toEqual([expect.objectContaining({ key_id: keyId, name: "pump-7", online: true, id: expect.stringMatching(/^dev_/) })]);
    const theirs = (await request("GET", "/devices", { token: other.owner.accessToken })).body.devices as Array<{ id: string; kind: string }>;
    expect(theirs.filter((d) => d.kind === "mqtt").map((d) => d.id)).not.toContain(mqttListed[0]!.id);
    await c.end();
    await sleep(200);
    expect(await onlineMqttClients(testApp.app.store, owner.organizationId)).toEqual([]);
    expect(await onlineMqttClients(testApp.app, other.owner.organizationId)).toHaveLength(1);
    await o.end();
  });
});

describe("built-in MQTT broker for flows (BuiltInMqtt)", () => {
  it("a flow subscribes within its organization (retained first), publishes to devices, and sees no other organization", async () => {
    const a = await orgWithDeviceKey();
    const b = await orgWithDeviceKey();
    const builtIn = testApp.app.mqtt.builtIn;
    const device = await track(connectMqtt(mq.ws, { password: a.key, clientId: "dev" }));
    await device.publish("plant/level", "40", { retain: true, qos: 1 });
    // With Redis the live copy goes round through Redis: let it pass before the flow subscribes.
    await sleep(300);
    const got: BuiltInMqttMessage[] = [];
    const stop = await builtIn.subscribe(a.owner.organizationId, "plant/#", { qos: 1 }, (m) => void got.push(m));
    const otherOrg: BuiltInMqttMessage[] = [];
    const stopB = await builtIn.subscribe(b.owner.organizationId, "#", { qos: 1 }, (m) => void otherOrg.push(m));
    await device.publish("plant/level", "41", { qos: 1 });
    await sleep(200);
    expect(got.map((m) => [m.topic, m.payload.toString(), m.retain])).toEqual([
      ["plant/level", "40", true],
      ["plant/level", "41", false],
    ]);
    await device.subscribe("cmd/#", 1);
    await builtIn.publish(a.owner.organizationId, { topic: "cmd/pump", payload: Buffer.from("start"), qos: 1, retain: false });
    expect(await device.next((m) => m.topic === "cmd/pump")).toMatchObject({ payload: "start" });
    await expect(builtIn.publish(a.owner.organizationId, { topic: "$SYS/x", payload: Buffer.from("no"), qos: 0, retain: false })).rejects.toThrow(/not allowed/);
    await expect(builtIn.subscribe(a.owner.organizationId, "$share/g/#", { qos: 0 }, () => undefined)).rejects.toThrow(/not allowed/);
    await stop();
    await device.publish("plant/level", "42", { qos: 1 });
    await sleep(200);
    expect(got).toHaveLength(2);
    expect(otherOrg).toEqual([]);
    await stopB();
  });
});
