/**
 * What one organization may keep on the built-in broker: its sessions (a new persistent one past the
 * limit is refused), the bytes its persistent sessions have queued (queued-bytes.ts: newer messages
 * dropped for sessions without room), and its retained messages (retained-quota.ts), through real
 * MQTT clients and a flow's publishes: a count and a byte total per organization, a replacement
 * costing the difference, an empty retained message giving its room back; MQTT 5 is told 0x97 and
 * its connection stays, MQTT 3.1.1 is closed; another organization has room of its own. Embedded by
 * default; with DATABASE_URL + REDIS_URL on PostgreSQL + Redis (the count is kept in Redis then).
 */
import { afterAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import { refusedWith, setUpTestMqtt, sleep } from "@/test/mqtt";
import { setUpTestHub, connect, type TestSocket } from "@/test/ws";

const testApp = setUpTestApp({
  MQTT_MAX_RETAINED_PER_ORGANIZATION: "3",
  MQTT_MAX_RETAINED_BYTES_PER_ORGANIZATION: "1000",
  MQTT_MAX_SESSIONS_PER_ORGANIZATION: "3",
  MQTT_MAX_QUEUED_BYTES_PER_ORGANIZATION: "3000",
});
const request = testApp.request;
const mq = setUpTestMqtt(testApp);
const hub = setUpTestHub(testApp);
const sockets: TestSocket[] = [];
afterAll(() => {
  for (const s of sockets) s.ws.close();
});

async function deviceKey() {
  const owner = await signUp(request);
  const key = await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "sensor", kind: "device" } });
  expect(key.status, key.text).toBe(201);
  return { owner, key: key.body.secret as string };
}

describe("retained messages an organization may keep", () => {
  it("at most the count: the next one is refused with 0x97 (MQTT 5), a replacement and a clear are not; a later subscriber gets the kept ones", async () => {
    const { key } = await deviceKey();
    const pub = await mq.connect(mq.tcp, { password: key, clientId: "v5", protocolVersion: 5 });
    for (const room of ["a", "b", "c"]) await pub.publish(`state/${room}`, "on", { qos: 1, retain: true });
    await expect(pub.publish("state/d", "on", { qos: 1, retain: true })).rejects.toThrow(/151|Quota exceeded|retained/i);
    // The connection stays; replacing a kept one is no new message, a message that is not retained is not counted.
    await pub.publish("state/a", "off", { qos: 1, retain: true });
    await pub.publish("state/d", "live", { qos: 1 });
    // An empty retained message clears one and gives its room back.
    await pub.publish("state/b", "", { qos: 1, retain: true });
    await pub.publish("state/d", "on", { qos: 1, retain: true });
    const late = await mq.connect(mq.ws, { password: key, clientId: "late" });
    await late.subscribe("state/#", 1);
    for (const topic of ["state/a", "state/c", "state/d"]) await late.next((m) => m.topic === topic);
    await sleep(100);
    expect(late.messages.map((m) => `${m.topic}=${m.payload}`).sort()).toEqual(["state/a=off", "state/c=on", "state/d=on"]);
  });

  it("a retained will takes its room when it is published: with none left it is not kept; with room it is", async () => {
    const { key } = await deviceKey();
    const pub = await mq.connect(mq.tcp, { password: key, clientId: "filler" });
    for (const room of ["a", "b", "c"]) await pub.publish(`full/${room}`, "on", { qos: 1, retain: true });
    const dies = async (clientId: string, topic: string) => {
      const device = await mq.connect(mq.tcp, { password: key, clientId, will: { topic, payload: Buffer.from("offline"), qos: 1, retain: true } });
      const closed = device.closed;
      device.client.stream.destroy();
      await closed;
      await sleep(300);
    };
    await dies("dying-1", "status/dying-1");
    const first = await mq.connect(mq.ws, { password: key, clientId: "first-look" });
    await first.subscribe("status/#", 1);
    await sleep(300);
    expect(first.messages).toEqual([]);
    // One cleared: the next will is kept.
    await pub.publish("full/a", "", { qos: 1, retain: true });
    await dies("dying-2", "status/dying-2");
    const second = await mq.connect(mq.ws, { password: key, clientId: "second-look" });
    await second.subscribe("status/#", 1);
    expect(await second.next((m) => m.topic === "status/dying-2")).toMatchObject({ payload: "offline", retain: true });
    expect(second.messages.map((m) => m.topic)).not.toContain("status/dying-1");
  });

  it("at most the bytes: a larger replacement over the total is refused and closes an MQTT 3.1.1 client; another organization has its own room", async () => {
    const { key } = await deviceKey();
    const pub = await mq.connect(mq.tcp, { password: key, clientId: "v4" });
    await pub.publish("blob/1", Buffer.alloc(600), { qos: 1, retain: true });
    await pub.publish("blob/1", Buffer.alloc(900), { qos: 1, retain: true });
    const closed = pub.closed;
    void pub.publish("blob/2", Buffer.alloc(200), { qos: 1, retain: true }).catch(() => undefined);
    await closed;
    const again = await mq.connect(mq.tcp, { password: key, clientId: "v4-again" });
    await again.publish("blob/2", Buffer.alloc(100), { qos: 1, retain: true });

    const other = await deviceKey();
    const theirs = await mq.connect(mq.tcp, { password: other.key, clientId: "theirs" });
    await theirs.publish("blob/1", Buffer.alloc(950), { qos: 1, retain: true });
  });

  it("a flow's retained publish over the quota is the node's error on /ws; the others arrive", async () => {
    const { owner, key } = await deviceKey();
    const token = owner.accessToken;
    const watcher = await mq.connect(mq.tcp, { password: key, clientId: "watcher" });
    await watcher.subscribe("flow/#", 0);
    const tab = "f1f1f1f1f1f1f1f1";
    const imported = await request("POST", "/flows/import", {
      token,
      body: {
        flows: [
          { id: tab, type: "tab", label: "Retains", disabled: false, info: "" },
          { id: "b0b0b0b0b0b0b0b0", type: "mqtt-broker", name: "own", broker: "built-in", port: "1883", clientid: "", autoConnect: true, usetls: false, protocolVersion: "4", keepalive: "60", cleansession: true },
          { id: "a1a1a1a1a1a1a1a1", type: "inject", z: tab, name: "go", props: [{ p: "payload" }], repeat: "", once: false, topic: "", payload: "x", payloadType: "str", x: 100, y: 80, wires: [["a2a2a2a2a2a2a2a2"]] },
          { id: "a2a2a2a2a2a2a2a2", type: "mqtt out", z: tab, name: "", topic: "", qos: "0", retain: "true", broker: "b0b0b0b0b0b0b0b0", x: 300, y: 80, wires: [] },
        ],
      },
    });
    expect(imported.status, imported.text).toBe(201);
    const flow = imported.body.flows[0] as { id: string; nodes: Array<{ id: string; type: string }> };
    const inject = flow.nodes.find((n) => n.type === "inject")!.id;
    const out = flow.nodes.find((n) => n.type === "mqtt-out")!.id;
    const socket = connect(hub.url, { authorization: `Bearer ${token}` });
    sockets.push(socket);
    await socket.next((f) => f.type === "ready");
    expect((await request("POST", `/flows/${flow.id}/deploy`, { token })).status).toBe(200);
    await socket.next((f) => f.topic === "node.status" && f.data?.node_id === out && f.data?.status?.text === "connected");
    for (const topic of ["flow/1", "flow/2", "flow/3", "flow/4"]) {
      const res = await request("POST", `/nodes/${inject}/inject`, { token, body: { topic } });
      expect(res.status, res.text).toBe(200);
    }
    const refused = await socket.next((f) => f.topic === "node.status" && f.data?.node_id === out && typeof f.data?.error === "string");
    expect(refused.data.error).toMatch(/limit of retained messages \(3 messages, 1000 bytes\)/);
    const seen = new Set<string>();
    for (let i = 0; i < 3; i++) seen.add((await watcher.next((m) => !seen.has(m.topic))).topic);
    expect([...seen].sort()).toEqual(["flow/1", "flow/2", "flow/3"]);
    await sleep(200);
    expect(watcher.messages.map((m) => m.topic)).not.toContain("flow/4");
  });
});

describe("sessions an organization may keep", () => {
  it("a new persistent session past the limit is refused (3, MQTT 5 0x97); a clean one, or one resumed, is not; ending one frees its place", async () => {
    const { key } = await deviceKey();
    for (const id of ["s1", "s2", "s3"]) {
      const kept = await mq.connect(mq.tcp, { password: key, clientId: id, clean: false });
      await kept.subscribe(`kept/${id}`, 1);
      await kept.end();
    }
    expect(await refusedWith(mq.tcp, { password: key, clientId: "s4", clean: false })).toBe(3);
    expect(await refusedWith(mq.ws, { password: key, clientId: "s4-v5", protocolVersion: 5, properties: { sessionExpiryInterval: 60 } })).toBe(151);
    // A clean session keeps nothing once it leaves; a kept session comes back.
    expect(await refusedWith(mq.tcp, { password: key, clientId: "passing", clean: true })).toBe("accepted");
    const back = await mq.connect(mq.tcp, { password: key, clientId: "s1", clean: false });
    expect(back.connack.sessionPresent).toBe(true);
    await back.end();
    // Connecting s1 with a clean session ends its kept one: s4 may keep one now.
    expect(await refusedWith(mq.tcp, { password: key, clientId: "s1", clean: true })).toBe("accepted");
    await expect.poll(() => refusedWith(mq.tcp, { password: key, clientId: "s4", clean: false }), { timeout: 3_000 }).toBe("accepted");
  });
});

describe("bytes an organization's persistent sessions may have queued", () => {
  it("all sessions together: a message past the room is dropped for the sessions without room, never refused to its publisher nor kept from connected clients; taken queues give their room back; another organization has its own", async () => {
    const { key } = await deviceKey();
    const away = async (clientId: string) => {
      const session = await mq.connect(mq.tcp, { password: key, clientId, clean: false });
      await session.subscribe("queue/#", 1);
      await session.end();
    };
    await away("q1");
    await away("q2");
    const live = await mq.connect(mq.tcp, { password: key, clientId: "queue-live" });
    await live.subscribe("queue/#", 1);
    const pub = await mq.connect(mq.tcp, { password: key, clientId: "queue-pub" });
    // 3000 bytes of room: three copies of 1000. m1 is queued for both sessions, m2 for one of them, m3 for none.
    for (const n of [1, 2, 3]) await pub.publish(`queue/m${n}`, Buffer.alloc(1000, 48 + n), { qos: 1 });
    for (const n of [1, 2, 3]) await live.next((m) => m.topic === `queue/m${n}`);
    // Another organization's sessions have room of their own meanwhile.
    const other = await deviceKey();
    const theirs = await mq.connect(mq.tcp, { password: other.key, clientId: "theirs", clean: false });
    await theirs.subscribe("queue/#", 1);
    await theirs.end();
    const theirPub = await mq.connect(mq.tcp, { password: other.key, clientId: "their-pub" });
    await theirPub.publish("queue/theirs", Buffer.alloc(1000), { qos: 1 });
    const theirsBack = await mq.connect(mq.tcp, { password: other.key, clientId: "theirs", clean: false });
    await theirsBack.next((m) => m.topic === "queue/theirs");

    const back = async (clientId: string) => {
      const session = await mq.connect(mq.tcp, { password: key, clientId, clean: false });
      await sleep(400);
      return session;
    };
    const q1 = await back("q1");
    const q2 = await back("q2");
    const taken = [...q1.messages, ...q2.messages].map((m) => m.topic).sort();
    expect(taken).toEqual(["queue/m1", "queue/m1", "queue/m2"]);
    // Taken and acknowledged: the room is back, for both sessions away again.
    await q1.end();
    await q2.end();
    await pub.publish("queue/m4", Buffer.alloc(1000), { qos: 1 });
    await pub.publish("queue/m5", Buffer.alloc(1000), { qos: 1 });
    const q1Again = await back("q1");
    const q2Again = await back("q2");
    expect([...q1Again.messages, ...q2Again.messages].map((m) => m.topic).sort()).toEqual(["queue/m4", "queue/m4", "queue/m5"]);
  });
});
