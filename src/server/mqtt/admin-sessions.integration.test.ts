/**
 * An organization's persistent MQTT sessions through the REST API (GET /mqtt/sessions, DELETE
 * /mqtt/sessions/{id}): what each keeps while its client is away (subscriptions, queued messages
 * and their bytes, expiry) against the organization's limits, and an admin ending one: its queue
 * and subscriptions dropped, the bytes given back, a connected client disconnected (MQTT 5: 0x98)
 * and starting a new session when it returns. Embedded, and with DATABASE_URL + REDIS_URL on
 * aedes-persistence-redis's keys.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppServices } from "@/server/app-services";
import { createTestApp, restClient } from "@/test/app";
import { joinAs, signUp } from "@/test/accounts";
import { connectMqtt, prefixRedis, serveMqtt, sleep, type MqttEndpoints } from "@/test/mqtt";

const testRedis = prefixRedis();
const { prefix, redis } = testRedis;

let app: AppServices;
let mq: MqttEndpoints;
let request: ReturnType<typeof restClient>;
let owner: Awaited<ReturnType<typeof signUp>>;
let key: string;
let organizationId: string;

beforeAll(async () => {
  app = await createTestApp({ MQTT_PERSISTENT_SESSION_EXPIRY_SECONDS: "3600" }, { storeKeyPrefix: prefix });
  mq = await serveMqtt(app);
  request = restClient(app);
  owner = await signUp(request);
  key = (await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "sensor", kind: "device" } })).body.secret as string;
  organizationId = owner.organizationId;
});

afterAll(async () => {
  await mq?.close();
  await app?.close();
  await testRedis.close();
});

type Session = { id: string; client_id: string; connected: boolean; subscriptions: Array<{ topic: string; qos: number }>; queued_messages: number; queued_bytes: number; expires_at: string | null };

async function listed(token = owner.accessToken): Promise<{ sessions: Session[]; queued_bytes: number; limits: Record<string, number> }> {
  const res = await request("GET", "/mqtt/sessions", { token });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function sessionOf(clientId: string): Promise<Session | undefined> {
  return (await listed()).sessions.find((s) => s.client_id === clientId);
}

/** A persistent session subscribed to `filter` whose client has left, with `n` messages of `bytes` published to `topic` queued for it. */
async function awayWithQueue(clientId: string, filter: string, topic: string, n: number, bytes: number) {
  const device = await connectMqtt(mq.tcp, { password: key, clientId, clean: false });
  await device.subscribe(filter, 1);
  await device.end();
  const sender = await connectMqtt(mq.tcp, { password: key, clientId: `${clientId}-sender` });
  for (let i = 0; i < n; i++) await sender.publish(topic, "x".repeat(bytes), { qos: 1 });
  await sender.end();
  await sleep(100);
}

describe("GET /mqtt/sessions", () => {
  it("lists kept sessions with their subscriptions, queues, bytes and deadlines; a clean connection holds none", async () => {
    await awayWithQueue("away/one", "sensors/+/temp", "sensors/a/temp", 3, 100);
    const clean = await connectMqtt(mq.tcp, { password: key, clientId: "clean-one", clean: true });
    await clean.subscribe("clean/#", 1);
    const kept = await connectMqtt(mq.tcp, { password: key, clientId: "kept-v5", clean: false, protocolVersion: 5, properties: { sessionExpiryInterval: 60 } });
    await kept.subscribe("cmd/kept-v5", 2);
    await sleep(200);
    const list = await listed();
    expect(list.sessions.map((s) => s.client_id)).toEqual(["away/one", "kept-v5"]);
    const [away, connected] = list.sessions;
    expect(away).toMatchObject({ connected: false, subscriptions: [{ topic: "sensors/+/temp", qos: 1 }], queued_messages: 3, queued_bytes: 300 });
    expect(away!.id).toMatch(/^mqs_[\w-]{22}$/);
    // MQTT_PERSISTENT_SESSION_EXPIRY_SECONDS: an hour after its client left.
    expect(Date.parse(away!.expires_at!) - Date.now()).toBeGreaterThan(3_500_000);
    expect(Date.parse(away!.expires_at!) - Date.now()).toBeLessThanOrEqual(3_600_000);
    expect(connected).toMatchObject({ connected: true, subscriptions: [{ topic: "cmd/kept-v5", qos: 2 }], queued_messages: 0, queued_bytes: 0, expires_at: null });
    expect(list.queued_bytes).toBe(300);
    expect(list.limits).toEqual({ sessions: 1000, queued_bytes: 64 * 1024 * 1024, queued_messages_per_session: 1000 });
    // A viewer sees them too (devices:read); another organization sees none of them.
    const viewer = await joinAs(app, request, owner, "viewer");
    expect((await listed(viewer.token)).sessions.map((s) => s.client_id)).toEqual(["away/one", "kept-v5"]);
    const stranger = await signUp(request);
    expect((await listed(stranger.accessToken)).sessions).toEqual([]);
    await clean.end();
    await kept.end();
  });
});

describe("DELETE /mqtt/sessions/{id}", () => {
  it("ends a kept session: its queue and subscriptions dropped, its bytes given back, its client starts anew; audited", async () => {
    await awayWithQueue("abandoned", "plant/#", "plant/line1", 4, 250);
    const session = (await sessionOf("abandoned"))!;
    expect(session).toMatchObject({ queued_messages: 4, queued_bytes: 1000 });
    const before = (await listed()).queued_bytes;
    const res = await request("DELETE", `/mqtt/sessions/${session.id}`, { token: owner.accessToken });
    expect(res.status, res.text).toBe(204);
    expect(await sessionOf("abandoned")).toBeUndefined();
    expect((await listed()).queued_bytes).toBe(before - 1000);
    // Nothing is routed to it any more, and nothing waits for its client.
    const sender = await connectMqtt(mq.tcp, { password: key, clientId: "abandoned-sender-2" });
    await sender.publish("plant/line1", "after", { qos: 1 });
    await sender.end();
    const back = await connectMqtt(mq.tcp, { password: key, clientId: "abandoned", clean: false });
    expect(back.connack.sessionPresent).toBe(false);
    await sleep(300);
    expect(back.messages).toEqual([]);
    await back.end();
    if (redis) expect(await redis.llen(`${prefix}mqtt:outgoing:${encodeURIComponent(`${organizationId}:abandoned`)}`)).toBe(0);
    else {
      await sleep(100);
      expect(await app.db.prisma.mqttSessionMessage.count({ where: { clientId: `${organizationId}:abandoned` } })).toBe(0);
    }
    const audit = await request("GET", "/audit-log", { token: owner.accessToken });
    expect(audit.body.entries).toEqual(
      expect.arrayContaining([expect.objectContaining({ action: "mqtt_session.ended", target_id: session.id, metadata: expect.objectContaining({ client_id: "abandoned", queued_messages: 4, connected: false }) })]),
    );
    // Gone: a second DELETE finds nothing.
    expect((await request("DELETE", `/mqtt/sessions/${session.id}`, { token: owner.accessToken })).status).toBe(404);
  });

  it("a connected MQTT 5 client is told why (DISCONNECT 0x98), its will is published, and it returns to a new session", async () => {
    const watcher = await connectMqtt(mq.tcp, { password: key, clientId: "will-watcher" });
    await watcher.subscribe("status/gateway", 1);
    const gateway = await connectMqtt(mq.tcp, {
      password: key,
      clientId: "gateway",
      clean: false,
      protocolVersion: 5,
      properties: { sessionExpiryInterval: 3600 },
      will: { topic: "status/gateway", payload: Buffer.from("offline"), qos: 1, retain: false },
    });
    await gateway.subscribe("cmd/gateway", 1);
    await sleep(200);
    const session = (await sessionOf("gateway"))!;
    expect(session.connected).toBe(true);
    const res = await request("DELETE", `/mqtt/sessions/${session.id}`, { token: owner.accessToken });
    expect(res.status, res.text).toBe(204);
    await gateway.closed;
    expect(gateway.disconnects.map((d) => d.reasonCode)).toEqual([0x98]);
    expect((await watcher.next((m) => m.topic === "status/gateway")).payload).toBe("offline");
    expect(await sessionOf("gateway")).toBeUndefined();
    const back = await connectMqtt(mq.tcp, { password: key, clientId: "gateway", clean: false, protocolVersion: 5, properties: { sessionExpiryInterval: 3600 } });
    expect(back.connack.sessionPresent).toBe(false);
    await back.end();
    await watcher.end();
  });

  it("a will its client delays (MQTT 5 Will Delay Interval) goes when the session ends, connected or away", async () => {
    const watcher = await connectMqtt(mq.tcp, { password: key, clientId: "delay-watcher" });
    await watcher.subscribe("status/+", 1);
    const withWill = (clientId: string) =>
      connectMqtt(mq.tcp, {
        password: key,
        clientId,
        clean: false,
        protocolVersion: 5,
        properties: { sessionExpiryInterval: 3600 },
        will: { topic: `status/${clientId}`, payload: Buffer.from("gone"), qos: 1, retain: false, properties: { willDelayInterval: 3600 } },
      });
    // Connected: cut by the end, its will delayed by an hour, and sent at once all the same.
    const connected = await withWill("delayed-on");
    await connected.subscribe("cmd/delayed-on", 1);
    // Away: it dropped its connection (no DISCONNECT, so its will waits its hour).
    const away = await withWill("delayed-off");
    await away.subscribe("cmd/delayed-off", 1);
    away.client.stream.destroy();
    await away.closed;
    await sleep(200);
    expect(watcher.messages).toEqual([]);
    for (const clientId of ["delayed-on", "delayed-off"]) {
      const session = (await sessionOf(clientId))!;
      expect((await request("DELETE", `/mqtt/sessions/${session.id}`, { token: owner.accessToken })).status).toBe(204);
      expect((await watcher.next((m) => m.topic === `status/${clientId}`)).payload).toBe("gone");
    }
    await connected.closed;
    await watcher.end();
  });

  it("a CONNECT of the id while its session is being ended is refused for the moment (MQTT 5: 0x88)", async () => {
    await app.store.set(`mqtt:ending:${organizationId}:ending-now`, "1", { ttlMs: 10_000 });
    try {
      const refused = await connectMqtt(mq.tcp, { password: key, clientId: "ending-now", clean: false, protocolVersion: 5, properties: { sessionExpiryInterval: 60 } }).then(
        () => null,
        (err: { code?: number }) => err.code,
      );
      expect(refused).toBe(0x88);
    } finally {
      await app.store.del(`mqtt:ending:${organizationId}:ending-now`);
    }
    const later = await connectMqtt(mq.tcp, { password: key, clientId: "ending-now", clean: true });
    await later.end();
  });

  it("is an admin's: a member gets 403, another organization 404, a malformed id 400, and the session stays", async () => {
    await awayWithQueue("guarded", "guarded/#", "guarded/x", 1, 10);
    const session = (await sessionOf("guarded"))!;
    const member = await joinAs(app, request, owner, "member");
    const refused = await request("DELETE", `/mqtt/sessions/${session.id}`, { token: member.token });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("FORBIDDEN");
    const stranger = await signUp(request);
    const missing = await request("DELETE", `/mqtt/sessions/${session.id}`, { token: stranger.accessToken });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("NOT_FOUND");
    const malformed = await request("DELETE", "/mqtt/sessions/guarded", { token: owner.accessToken });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe("VALIDATION_FAILED");
    expect(await sessionOf("guarded")).toMatchObject({ queued_messages: 1, queued_bytes: 10 });
  });

  it("an organization deleted: its sessions end (queues dropped, bytes given back), its connections close, its retained messages go; another organization's stay", { timeout: 30_000 }, async () => {
    const gone = await signUp(request);
    const goneKey = (await request("POST", "/api-keys", { token: gone.accessToken, body: { name: "tank", kind: "device" } })).body.secret as string;
    const tank = await connectMqtt(mq.tcp, { password: goneKey, clientId: "tank", clean: false });
    await tank.subscribe("tank/#", 1);
    await tank.end();
    const pump = await connectMqtt(mq.tcp, { password: goneKey, clientId: "pump", clean: false, reconnectPeriod: 0 });
    await pump.subscribe("pump/#", 1);
    const sender = await connectMqtt(mq.tcp, { password: goneKey, clientId: "tank-sender" });
    await sender.publish("tank/level", "71", { qos: 1 });
    await sender.publish("tank/level", "72", { qos: 1 });
    await sender.publish("tank/alarm", "high", { qos: 1, retain: true });
    await sender.end();
    // This organization's own session, which must stay.
    await awayWithQueue("elsewhere", "elsewhere/#", "elsewhere/x", 1, 10);
    await sleep(100);
    const before = await app.mqtt.sessions(gone.organizationId);
    expect(before.sessions.map((x) => x.clientId)).toEqual(["pump", "tank"]);
    expect(before.queuedBytes).toBeGreaterThan(0);

    const deleted = await request("DELETE", `/organizations/${gone.organizationId}`, { token: gone.accessToken, body: { confirm: gone.organizationId } });
    expect(deleted.status, deleted.text).toBe(204);
    await pump.closed;
    const after = await app.mqtt.sessions(gone.organizationId);
    expect(after.sessions).toEqual([]);
    expect(after.queuedBytes).toBe(0);
    // No retained message of it left for a subscriber (what a flow of it would have been handed).
    const seen: string[] = [];
    const stop = await app.mqtt.builtIn.subscribe(gone.organizationId, "#", { qos: 0 }, (m) => void seen.push(m.topic));
    await sleep(300);
    await stop();
    expect(seen).toEqual([]);
    expect((await sessionOf("elsewhere"))?.queued_messages).toBe(1);
  });
});
