/**
 * Two app instances on one PostgreSQL schema and one Redis prefix act as one broker (runs with
 * DATABASE_URL + REDIS_URL; the in-process store is one instance by definition):
 * - the organization's publish rate is one budget for both (publish-rate.ts), devices on each,
 *   flows publishing too (durability.integration.test.ts covers the one-instance bucket);
 * - an MQTT 5 session that left one instance and came back on the other is not expired by the
 *   first one's timer;
 * - an admin's DELETE /mqtt/sessions/{id} on one instance ends a session whose client is connected
 *   to the other;
 * - the broker's channels on Redis carry the key prefix, as the store's keys do (README:
 *   REDIS_KEY_PREFIX lets several deployments share one Redis).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { parseEnv } from "@/env";
import { createAppServices } from "@/server/compose";
import { createLogger } from "@/server/logger";
import type { AppServices } from "@/server/app-services";
import { restClient } from "@/test/app";
import { signUp } from "@/test/accounts";
import { connectMqtt, serveMqtt, sleep, type MqttEndpoints, type TestMqttClient } from "@/test/mqtt";

/** The live copies' encoding on Redis: mqemitter-redis's own msgpack. */
const fromEmitter = createRequire(createRequire(import.meta.url).resolve("mqemitter-redis"));
const msgpack = fromEmitter("msgpack-lite") as { encode(value: unknown): Buffer; decode(buffer: Buffer): unknown };
const shared = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const suffix = randomBytes(6).toString("hex");
// Made by the first instance: on the embedded backend every test here is skipped and no afterAll runs.
let dataDir: string | undefined;
const dir = () => (dataDir ??= mkdtempSync(path.join(os.tmpdir(), "fp-mqtt-rate-")));
const schema = `test_mqtt_rate_${suffix}`;
const RATE = 40;

/** A new organization's owner on `app`, and a device key of it (both MQTT scopes). */
async function orgWithDeviceKey(app: AppServices) {
  const owner = await signUp(restClient(app));
  const key = (await restClient(app)("POST", "/api-keys", { token: owner.accessToken, body: { name: "d", kind: "device" } })).body.secret as string;
  return { owner, key };
}

async function instance(name: string): Promise<AppServices> {
  const env = parseEnv({
    NODE_ENV: "test",
    DATA_DIR: dir(),
    DATABASE_URL: process.env.DATABASE_URL,
    REDIS_URL: process.env.REDIS_URL,
    INSTANCE_ID: name,
    JWT_SECRET: "test-jwt-secret-that-is-at-least-32-characters",
    ENCRYPTION_KEY: "test-encryption-key-at-least-32-characters",
    PUBLIC_URL: "http://app.test",
    LOG_LEVEL: "silent",
    BCRYPT_COST: "4",
    MQTT_PUBLISH_RATE_PER_ORGANIZATION: String(RATE),
  });
  return createAppServices({
    env,
    dataDirForDb: path.join(dir(), "db"),
    dbSchema: schema,
    storeKeyPrefix: `fp-test-${suffix}:`,
    logger: createLogger({ level: "silent" }),
    allowSeveralPerProcess: true,
  });
}

afterAll(async () => {
  if (shared) {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** QoS 1 publishes at once; how many the broker took (PUBACK 0) and the codes of the others. */
async function burst(c: TestMqttClient, n: number, tag: string) {
  const results = await Promise.allSettled(Array.from({ length: n }, (_, i) => c.publish("rate/t", `${tag}-${i}`, { qos: 1 })));
  const refusedCodes = results.flatMap((r) => (r.status === "rejected" ? [(r.reason as { code?: number }).code] : []));
  return { taken: n - refusedCodes.length, refusedCodes };
}

describe.skipIf(!shared)("built-in MQTT broker across instances and deployments (PostgreSQL + Redis)", () => {
  it("two instances share the organization's budget: together they take at most the rate in a second; another organization has its own", { timeout: 60_000 }, async () => {
    const a = await instance("rate-a");
    const b = await instance("rate-b");
    const endpoints: MqttEndpoints[] = [await serveMqtt(a), await serveMqtt(b)];
    const clients: TestMqttClient[] = [];
    try {
      const { owner, key } = await orgWithDeviceKey(a);
      const other = await signUp(restClient(b));
      const otherKey = (await restClient(b)("POST", "/api-keys", { token: other.accessToken, body: { name: "d", kind: "device" } })).body.secret as string;
      const onA = await connectMqtt(endpoints[0]!.tcp, { password: key, clientId: "on-a", protocolVersion: 5 });
      const onB = await connectMqtt(endpoints[1]!.ws, { password: key, clientId: "on-b", protocolVersion: 5 });
      const otherOnB = await connectMqtt(endpoints[1]!.tcp, { password: otherKey, clientId: "o", protocolVersion: 5 });
      const watcher = await connectMqtt(endpoints[1]!.tcp, { password: key, clientId: "watcher", protocolVersion: 5 });
      clients.push(onA, onB, otherOnB, watcher);
      await watcher.subscribe("rate/#", 1);
      // Each instance alone would take RATE of these; together they share RATE (a lease of
      // RATE / 50 per instance may spill into the next second: at most 1 each here).
      const [fromA, fromB] = await Promise.all([burst(onA, RATE, "a"), burst(onB, RATE, "b")]);
      expect(fromA.taken + fromB.taken).toBeLessThanOrEqual(RATE + 2);
      expect(fromA.taken + fromB.taken).toBeGreaterThanOrEqual(RATE / 2);
      expect(new Set([...fromA.refusedCodes, ...fromB.refusedCodes])).toEqual(new Set([0x97]));
      // Flows of the organization, on either instance, are within the same budget right now.
      await expect(b.mqtt.builtIn.publish(owner.organizationId, { topic: "rate/flow", payload: Buffer.from("x"), qos: 0, retain: false })).rejects.toThrow(/faster than/);
      // Another organization is not slowed down by it.
      expect((await burst(otherOnB, 10, "o")).taken).toBe(10);
      await sleep(300);
      expect(watcher.messages.length).toBe(fromA.taken + fromB.taken);
      // The next second the budget is there again, on both.
      await sleep(1_100);
      await onA.publish("rate/t", "later-a", { qos: 1 });
      await onB.publish("rate/t", "later-b", { qos: 1 });
    } finally {
      for (const c of clients) c.client.end(true);
      for (const e of endpoints) await e.close();
      await a.close();
      await b.close();
    }
  });

  it("an MQTT 5 session resumed on another instance is not expired by the timer of the instance it left", { timeout: 60_000 }, async () => {
    const a = await instance("expiry-a");
    const b = await instance("expiry-b");
    const endpoints: MqttEndpoints[] = [await serveMqtt(a), await serveMqtt(b)];
    const clients: TestMqttClient[] = [];
    try {
      const { key } = await orgWithDeviceKey(a);
      const connect = async (url: string, expiry: number) => {
        const c = await connectMqtt(url, { password: key, clientId: "roamer", clean: false, protocolVersion: 5, properties: { sessionExpiryInterval: expiry } });
        clients.push(c);
        return c;
      };
      // On A with a 2 s expiry, then away: A times the session.
      const first = await connect(endpoints[0]!.tcp, 2);
      await first.subscribe("roam/#", 1);
      await first.end();
      // Back within it on B, asking for an hour now; then away again.
      const onB = await connect(endpoints[1]!.ws, 3600);
      expect(onB.connack.sessionPresent).toBe(true);
      await onB.end();
      // A's 2 s have passed: the session must still be there, with what was queued for it.
      await sleep(2_500);
      const sender = await connectMqtt(endpoints[0]!.tcp, { password: key, clientId: "sender", protocolVersion: 5 });
      clients.push(sender);
      await sender.publish("roam/x", "kept", { qos: 1 });
      const back = await connect(endpoints[1]!.tcp, 3600);
      expect(back.connack.sessionPresent).toBe(true);
      expect((await back.next()).payload).toBe("kept");
    } finally {
      for (const c of clients) c.client.end(true);
      for (const e of endpoints) await e.close();
      await a.close();
      await b.close();
    }
  });

  it("an MQTT 5 will delayed on the instance a client left goes from Redis when the client comes back on the other one", { timeout: 60_000 }, async () => {
    const a = await instance("will-a");
    const b = await instance("will-b");
    const endpoints: MqttEndpoints[] = [await serveMqtt(a), await serveMqtt(b)];
    const clients: TestMqttClient[] = [];
    const redis = new Redis(process.env.REDIS_URL!);
    try {
      const { key } = await orgWithDeviceKey(a);
      const options = { password: key, clientId: "wanderer", clean: false, protocolVersion: 5 as const, properties: { sessionExpiryInterval: 3600 } };
      const onA = await connectMqtt(endpoints[0]!.tcp, { ...options, will: { topic: "wills/wanderer", payload: Buffer.from("gone"), qos: 1, retain: false, properties: { willDelayInterval: 3600 } } });
      // Dropped without DISCONNECT: A delays its will an hour, and keeps it in Redis.
      onA.client.stream.destroy();
      await onA.closed;
      await sleep(200);
      const wills = () => redis.keys(`fp-test-${suffix}:mqtt:will:*wanderer`);
      expect(await wills()).toHaveLength(1);
      const onB = await connectMqtt(endpoints[1]!.tcp, options);
      clients.push(onB);
      // Kept, any instance would publish it once A's broker id is gone (A's next restart), with the client online.
      await expect.poll(wills, { timeout: 5_000 }).toEqual([]);
    } finally {
      redis.disconnect();
      for (const c of clients) c.client.end(true);
      for (const e of endpoints) await e.close();
      await a.close();
      await b.close();
    }
  });

  it("an admin ends a session through one instance while its client is connected to the other: the client is told (0x98) and returns to a new session", { timeout: 60_000 }, async () => {
    const a = await instance("end-a");
    const b = await instance("end-b");
    const endpoints: MqttEndpoints[] = [await serveMqtt(a), await serveMqtt(b)];
    const clients: TestMqttClient[] = [];
    try {
      const { owner, key } = await orgWithDeviceKey(a);
      const onB = await connectMqtt(endpoints[1]!.tcp, { password: key, clientId: "far-away", clean: false, protocolVersion: 5, properties: { sessionExpiryInterval: 3600 } });
      clients.push(onB);
      await onB.subscribe("far/#", 1);
      await sleep(200);
      const viaA = restClient(a);
      const listed = await viaA("GET", "/mqtt/sessions", { token: owner.accessToken });
      const session = (listed.body.sessions as Array<{ id: string; client_id: string; connected: boolean }>).find((s) => s.client_id === "far-away")!;
      expect(session.connected).toBe(true);
      const ended = await viaA("DELETE", `/mqtt/sessions/${session.id}`, { token: owner.accessToken });
      expect(ended.status, ended.text).toBe(204);
      await onB.closed;
      expect(onB.disconnects.map((d) => d.reasonCode)).toEqual([0x98]);
      expect((await restClient(b)("GET", "/mqtt/sessions", { token: owner.accessToken })).body.sessions).toEqual([]);
      const back = await connectMqtt(endpoints[0]!.tcp, { password: key, clientId: "far-away", clean: false, protocolVersion: 5, properties: { sessionExpiryInterval: 3600 } });
      clients.push(back);
      expect(back.connack.sessionPresent).toBe(false);
    } finally {
      for (const c of clients) c.client.end(true);
      for (const e of endpoints) await e.close();
      await a.close();
      await b.close();
    }
  });

  it("a returning persistent session gets each queued QoS 1/2 message once, though its live copy comes back from Redis after the session was restored", { timeout: 60_000 }, async () => {
    const app = await instance("replay");
    const endpoints = await serveMqtt(app);
    // The live copies the broker sends out through Redis while the session is away.
    const spy = new Redis(process.env.REDIS_URL!);
    const copies: Array<{ channel: Buffer; message: Buffer }> = [];
    spy.on("pmessageBuffer", (_pattern: Buffer, channel: Buffer, message: Buffer) => copies.push({ channel, message }));
    await spy.psubscribe(`fp-test-${suffix}:mqtt/*`);
    const late = new Redis(process.env.REDIS_URL!);
    const clients: TestMqttClient[] = [];
    try {
      const { key } = await orgWithDeviceKey(app);
      const session = { password: key, clientId: "returning", clean: false } as const;
      const first = await connectMqtt(endpoints.tcp, session);
      expect(await first.subscribe("q/#", 2)).toEqual([2]);
      await first.end();
      const sender = await connectMqtt(endpoints.ws, { password: key, clientId: "q-sender" });
      clients.push(sender);
      const sent = Array.from({ length: 12 }, (_, i) => `m${i}`);
      for (const [i, payload] of sent.entries()) await sender.publish(`q/${i}`, payload, { qos: i % 2 === 0 ? 1 : 2 });
      await expect.poll(() => copies.filter((c) => c.channel.toString().includes("/q/")).length).toBe(sent.length);
      const live = copies.filter((c) => c.channel.toString().includes("/q/"));
      // A live copy still in flight: sent again on its channel, under a new emitter id.
      const arriveLate = async (c: { channel: Buffer; message: Buffer }) => {
        const copy = msgpack.decode(c.message) as { id: string; msg: unknown };
        await late.publish(c.channel, msgpack.encode({ ...copy, id: `late-${copy.id}` }));
      };
      // Back: the CONNACK, then the queue's replay. The first half's live copies come back at once
      // (before the replay reaches them: it leaves them out), the second half's once the replay
      // has sent them (the live copy is not forwarded).
      const back = await connectMqtt(endpoints.tcp, session);
      clients.push(back);
      expect(back.connack.sessionPresent).toBe(true);
      for (const c of live.slice(0, 6)) await arriveLate(c);
      await expect.poll(() => new Set(back.messages.map((m) => m.payload)).size).toBe(sent.length);
      for (const c of live.slice(6)) await arriveLate(c);
      await sleep(500);
      expect(back.messages.map((m) => m.payload).sort()).toEqual([...sent].sort());
      // Every one was acknowledged once, whichever road it came by: nothing is left in the queue.
      await back.end();
      const again = await connectMqtt(endpoints.tcp, session);
      clients.push(again);
      await sleep(500);
      expect(again.messages).toEqual([]);
    } finally {
      for (const c of clients) c.client.end(true);
      spy.disconnect();
      late.disconnect();
      await endpoints.close();
      await app.close();
    }
  });

  it("a persistent session's SUBSCRIBE is answered and queued for though its announcement was lost while the subscriber connection reconnected", { timeout: 60_000 }, async () => {
    const app = await instance("announce");
    const endpoints = await serveMqtt(app);
    const admin = new Redis(process.env.REDIS_URL!);
    const clients: TestMqttClient[] = [];
    try {
      const { key } = await orgWithDeviceKey(app);
      const session = { password: key, clientId: "announcer", clean: false } as const;
      const first = await connectMqtt(endpoints.tcp, session);
      clients.push(first);
      // The broker's subscriber connection (named `<key prefix>mqtt-sub`) drops just before the
      // SUBSCRIBE: the `$SYS/sub/add` announcement goes out while nobody of this instance listens.
      const list = (await admin.call("CLIENT", "LIST")) as string;
      const subscriber = list.split("\n").find((line) => line.includes(` name=fp-test-${suffix}:mqtt-sub `));
      expect(subscriber, list).toBeDefined();
      await admin.call("CLIENT", "KILL", "ID", /\bid=(\d+)/.exec(subscriber!)![1]!);
      expect(await first.subscribe("k/#", 1)).toEqual([1]);
      await first.end();
      // The subscription is in the tree that queues messages for a session while it is away.
      const sender = await connectMqtt(endpoints.ws, { password: key, clientId: "k-sender" });
      clients.push(sender);
      await sender.publish("k/1", "queued", { qos: 1 });
      const back = await connectMqtt(endpoints.tcp, session);
      clients.push(back);
      expect((await back.next()).payload).toBe("queued");
    } finally {
      for (const c of clients) c.client.end(true);
      admin.disconnect();
      await endpoints.close();
      await app.close();
    }
  });

  it("the broker's Redis channels carry the deployment's key prefix, so deployments sharing a Redis do not hear each other", { timeout: 60_000 }, async () => {
    const app = await instance("prefix-a");
    const endpoints = await serveMqtt(app);
    // Everything published on this Redis meanwhile (other test files' too).
    const spy = new Redis(process.env.REDIS_URL!);
    const channels: string[] = [];
    spy.on("pmessage", (_pattern: string, channel: string) => channels.push(channel));
    await spy.psubscribe("*");
    const clients: TestMqttClient[] = [];
    try {
      const { owner, key } = await orgWithDeviceKey(app);
      const listener = await connectMqtt(endpoints.tcp, { password: key, clientId: "listener" });
      clients.push(listener);
      await listener.subscribe("plant/#", 1);
      const sender = await connectMqtt(endpoints.ws, { password: key, clientId: "sender" });
      clients.push(sender);
      await sender.publish("plant/line-1", "on", { qos: 1 });
      expect((await listener.next()).payload).toBe("on");
      await sleep(200);
      // The message (its internal topic names the organization) and the broker's own $SYS news.
      const ours = channels.filter((c) => c.includes(owner.organizationId) || c.includes("$SYS/prefix-a-"));
      expect(ours.some((c) => c.endsWith("/plant/line-1"))).toBe(true);
      expect(ours.some((c) => c.includes("/new/clients"))).toBe(true);
      expect(ours.filter((c) => !c.startsWith(`fp-test-${suffix}:mqtt/`))).toEqual([]);
    } finally {
      for (const c of clients) c.client.end(true);
      spy.disconnect();
      await endpoints.close();
      await app.close();
    }
  });
});
