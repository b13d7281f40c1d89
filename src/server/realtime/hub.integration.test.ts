import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, restClient } from "@/test/app";
import { signUp } from "@/test/accounts";
import { connect, startHub } from "@/test/ws";
import type { AppServices } from "@/server/app-services";
import { orgEventsChannel, debugBatchFrameSchema, WS_LIMITS } from "@/shared/realtime";

let app: AppServices;
let request: ReturnType<typeof restClient>;
let hub: Awaited<ReturnType<typeof startHub>>;

beforeAll(async () => {
  app = await createTestApp();
  request = restClient(app);
  hub = await startHub(app, { authTimeoutMs: 300 });
});
afterAll(async () => {
  await hub?.close();
  await app?.close();
});

const ready = (f: Record<string, unknown>) => f.type === "ready";

type Frame = Record<string, any>;

/** The client has read what was sent: no new frame for 300 ms (draining 6 MB on a loaded machine takes a while). */
async function caughtUp(s: { frames: Frame[] }) {
  let seen = -1;
  await expect
    .poll(
      () => {
        const quiet = s.frames.length === seen;
        seen = s.frames.length;
        return quiet && seen > 0;
      },
      { timeout: 15_000, interval: 300 },
    )
    .toBe(true);
}

/**
 * Events 0..400 (`data.msg.seq`) went to a client that stopped reading: every one either arrived,
 * in order, or is counted by a `dropped` frame sent before the next event that arrived, each gap
 * exactly. How many went before the first drop depends on what the kernel's socket buffers took
 * meanwhile (loopback buffers grow under load), so a client can be told of drops more than once.
 */
function expectGapsAnnounced(frames: Frame[], eventsOf: (f: Frame) => Frame[]) {
  let next = 0;
  let announced = 0;
  let delivered = 0;
  let dropped = 0;
  for (const f of frames) {
    if (f.type === "dropped") {
      expect(f.count).toBeGreaterThan(0);
      announced += f.count;
      dropped += f.count;
      continue;
    }
    for (const e of eventsOf(f)) {
      expect(e.data.msg.seq).toBe(next + announced);
      next = e.data.msg.seq + 1;
      announced = 0;
      delivered++;
    }
  }
  expect(next).toBe(401);
  // 6.4 MB to a client that did not read, past a bound of 1 MiB: some were dropped.
  expect(dropped).toBeGreaterThan(0);
  expect(delivered + dropped).toBe(401);
}

describe("WebSocket authentication", () => {
  it("accepts a bearer token on the upgrade and says ready", async () => {
    const user = await signUp(request);
    const s = connect(hub.url, { authorization: `Bearer ${user.accessToken}` });
    expect(await s.next(ready)).toEqual({ type: "ready", user_id: user.userId, organization_id: user.organizationId });
    s.ws.close();
  });

  it("accepts an API key header and an auth frame", async () => {
    const user = await signUp(request);
    const key = (await request("POST", "/api-keys", { token: user.accessToken, body: { name: "ws" } })).body.secret;
    const viaHeader = connect(hub.url, { "x-api-key": key });
    await viaHeader.next(ready);
    const viaFrame = connect(hub.url);
    viaFrame.send({ type: "auth", token: user.accessToken });
    expect((await viaFrame.next(ready)).organization_id).toBe(user.organizationId);
    viaHeader.ws.close();
    viaFrame.ws.close();
  });

  it("closes with 4401 for bad credentials, no auth in time, or frames before auth — before any event", async () => {
    const bad = connect(hub.url, { authorization: "Bearer nope.nope.nope" });
    expect((await bad.closed).code).toBe(4401);
    const badFrame = connect(hub.url);
    badFrame.send({ type: "auth", token: "garbage" });
    expect((await badFrame.closed).code).toBe(4401);
    const silent = connect(hub.url);
    expect((await silent.closed).code).toBe(4401);
    const early = connect(hub.url);
    early.send({ type: "subscribe" });
    expect((await early.closed).code).toBe(4401);
    for (const s of [bad, badFrame, silent, early]) expect(s.frames.filter((f) => f.type === "event")).toEqual([]);
  });

  it("answers malformed frames with an error frame and keeps the connection", async () => {
    const user = await signUp(request);
    const s = connect(hub.url, { authorization: `Bearer ${user.accessToken}` });
    await s.next(ready);
    s.send("not json");
    expect((await s.next((f) => f.type === "error")).code).toBe("INVALID_FRAME");
    s.send({ type: "ping" });
    await s.next((f) => f.type === "pong");
    s.ws.close();
  });

  it("closes the socket when its session is revoked or the user logs out", async () => {
    const user = await signUp(request);
    const s = connect(hub.url, { authorization: `Bearer ${user.accessToken}` });
    await s.next(ready);
    await request("POST", "/auth/logout", { token: user.accessToken });
    expect((await s.closed).code).toBe(4401);
  });

  it("closes sockets of a member who is removed", async () => {
    const owner = await signUp(request);
    const member = await signUp(request);
    await app.db.prisma.membership.create({ data: { userId: member.userId, organizationId: owner.organizationId, role: "member" } });
    const login = await request("POST", "/auth/login", { body: { email: member.email, password: member.password, organization_id: owner.organizationId } });
    const s = connect(hub.url, { authorization: `Bearer ${login.body.access_token}` });
    await s.next(ready);
    await request("DELETE", `/organizations/${owner.organizationId}/members/${member.userId}`, { token: owner.accessToken });
    expect((await s.closed).code).toBe(4401);
  });
});

describe("WebSocket events", () => {
  it("delivers flow events to the organization only, and narrows by topic and flow", async () => {
    const a = await signUp(request);
    const b = await signUp(request);
    const sa = connect(hub.url, { authorization: `Bearer ${a.accessToken}` });
    const sb = connect(hub.url, { authorization: `Bearer ${b.accessToken}` });
    await Promise.all([sa.next(ready), sb.next(ready)]);
    const created = await request("POST", "/flows", { token: a.accessToken, body: { name: "watched" } });
    const ev = await sa.next((f) => f.type === "event" && f.topic === "flow.created");
    expect(ev).toMatchObject({ flow_id: created.body.flow.id, data: { name: "watched" } });
    expect(typeof ev.ts).toBe("string");

    sa.send({ type: "subscribe", topics: ["flow.deleted"] });
    await sa.next((f) => f.type === "subscribed");
    await request("PUT", `/flows/${created.body.flow.id}`, { token: a.accessToken, body: { name: "renamed" } });
    await request("DELETE", `/flows/${created.body.flow.id}`, { token: a.accessToken });
    await sa.next((f) => f.topic === "flow.deleted");
    expect(sa.frames.some((f) => f.topic === "flow.updated")).toBe(false);
    // Concurrent traffic in B never reaches A and vice versa.
    await Promise.all(Array.from({ length: 20 }, (_, i) => request("POST", "/flows", { token: b.accessToken, body: { name: `b${i}` } })));
    await expect.poll(() => sb.frames.filter((f) => f.topic === "flow.created").length).toBe(20);
    expect(sb.frames.some((f) => f.flow_id === created.body.flow.id)).toBe(false);
    expect(sa.frames.filter((f) => f.type === "event").every((f) => f.flow_id === created.body.flow.id)).toBe(true);
    sa.ws.close();
    sb.ws.close();
  });

  it("configuration node changes reach the organization's sockets, a flow-filtered editor's too, with no credential in them", async () => {
    const a = await signUp(request);
    const b = await signUp(request);
    const flow = await request("POST", "/flows", { token: a.accessToken, body: { name: "editor open" } });
    const editor = connect(hub.url, { authorization: `Bearer ${a.accessToken}` });
    const other = connect(hub.url, { authorization: `Bearer ${b.accessToken}` });
    await Promise.all([editor.next(ready), other.next(ready)]);
    // As the editor subscribes: one flow, every topic.
    editor.send({ type: "subscribe", flow_id: flow.body.flow.id });
    await editor.next((f) => f.type === "subscribed");
    const secret = "marker-password-9b1e";
    const created = await request("POST", "/config-nodes", { token: a.accessToken, body: { type: "mqtt-broker", name: "plant", config: { broker: "mqtt.example.com" }, credentials: { password: secret } } });
    expect(created.status, created.text).toBe(201);
    const id = created.body.config_node.id as string;
    expect(await editor.next((f) => f.topic === "config_node.created")).toMatchObject({
      type: "event",
      flow_id: null,
      data: { config_node_id: id, type: "mqtt-broker", name: "plant", revision: 1, by: a.userId },
    });
    const updated = await request("PUT", `/config-nodes/${id}`, { token: a.accessToken, body: { name: "plant floor" } });
    expect(updated.status, updated.text).toBe(200);
    expect(await editor.next((f) => f.topic === "config_node.updated")).toMatchObject({ flow_id: null, data: { config_node_id: id, name: "plant floor", revision: 2 } });
    expect((await request("DELETE", `/config-nodes/${id}`, { token: a.accessToken })).status).toBe(204);
    expect(await editor.next((f) => f.topic === "config_node.deleted")).toMatchObject({ flow_id: null, data: { config_node_id: id, type: "mqtt-broker", name: "plant floor" } });
    expect(JSON.stringify(editor.frames)).not.toContain(secret);
    // Another organization hears nothing of it; a refused write announces nothing.
    expect((await request("PUT", `/config-nodes/${id}`, { token: b.accessToken, body: { name: "taken" } })).status).toBe(404);
    const mine = await request("POST", "/config-nodes", { token: b.accessToken, body: { type: "mqtt-broker", name: "b's", config: { broker: "b.example.com" } } });
    await other.next((f) => f.topic === "config_node.created" && f.data.config_node_id === mine.body.config_node.id);
    expect(other.frames.some((f) => f.type === "event" && f.data?.config_node_id === id)).toBe(false);
    expect(editor.frames.filter((f) => f.topic?.startsWith("config_node.")).map((f) => f.topic)).toEqual(["config_node.created", "config_node.updated", "config_node.deleted"]);
    editor.ws.close();
    other.ws.close();
  });

  it("drops debug events for a slow client and tells it how many", async () => {
    const user = await signUp(request);
    const s = connect(hub.url, { authorization: `Bearer ${user.accessToken}` });
    await s.next(ready);
    // Stop reading: the server's send buffer for this client fills up.
    (s.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
    const big = "x".repeat(16 * 1024);
    const event = (seq: number) => JSON.stringify({ type: "event", topic: "debug", flow_id: "flw_x", data: { msg: { seq, big } }, ts: new Date().toISOString() });
    for (let i = 0; i < 400; i++) await app.store.publish(orgEventsChannel(user.organizationId), event(i));
    (s.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    await caughtUp(s);
    await app.store.publish(orgEventsChannel(user.organizationId), event(400));
    await s.next((f) => f.topic === "debug" && f.data.msg.seq === 400);
    // Every one of the 401 events was either delivered or counted as dropped, each gap announced.
    expectGapsAnnounced(s.frames, (f) => (f.topic === "debug" ? [f] : []));
    s.ws.close();
  });
});

describe("device channel", () => {
  it("delivers device-out messages to the device and device.publish frames into device-in nodes", async () => {
    const owner = await signUp(request);
    const device = (await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "sensor-1", kind: "device" } })).body;
    const d = connect(hub.url, { "x-api-key": device.secret });
    expect((await d.next(ready)).device_key_id).toBe(device.api_key.id);
    const online = await request("GET", "/devices", { token: owner.accessToken });
    expect(online.body.devices).toEqual([expect.objectContaining({ key_id: device.api_key.id, name: "sensor-1", kind: "channel", online: true, last_seen_at: expect.any(String), tags: [] })]);

    const ui = connect(hub.url, { authorization: `Bearer ${owner.accessToken}` });
    await ui.next(ready);
    const flow = (
      await request("POST", "/flows", {
        token: owner.accessToken,
        body: {
          name: "devices",
          nodes: [
            { id: "dev-in-1", type: "device-in", config: { topic: "sensors/+" } },
            { id: "dev-dbg-1", type: "debug" },
            { id: "dev-inj-1", type: "inject", config: { payload_type: "string", payload: "reboot" } },
            { id: "dev-out-1", type: "device-out", config: { topic: "commands" } },
          ],
          connections: [
            { source: "dev-in-1", target: "dev-dbg-1" },
            { source: "dev-inj-1", target: "dev-out-1" },
          ],
        },
      })
    ).body.flow;
    await request("POST", `/flows/${flow.id}/deploy`, { token: owner.accessToken });

    d.send({ type: "device.publish", topic: "sensors/temp", payload: { c: 21 } });
    const debug = await ui.next((f) => f.topic === "debug");
    expect(debug.data).toMatchObject({ node_id: "dev-dbg-1", msg: { c: 21 } });
    d.send({ type: "device.publish", topic: "other/topic", payload: 1 });

    await request("POST", "/nodes/dev-inj-1/inject", { token: owner.accessToken, body: {} });
    expect(await d.next((f) => f.type === "device.message")).toEqual({ type: "device.message", topic: "commands", payload: "reboot" });
    // A device never sees the organization's events.
    expect(d.frames.some((f) => f.type === "event")).toBe(false);
    expect(ui.frames.filter((f) => f.topic === "debug")).toHaveLength(1);
    d.ws.close();
    ui.ws.close();
  });
});

describe("presence", () => {
  it("tells everyone with a flow open who else has it open, across instances, within the organization only", async () => {
    const owner = await signUp(request, { first_name: "Olga", last_name: "Owner" });
    const member = await signUp(request, { first_name: "Mia", last_name: "Member" });
    const stranger = await signUp(request);
    await app.db.prisma.membership.create({ data: { userId: member.userId, organizationId: owner.organizationId, role: "viewer" } });
    const memberLogin = await request("POST", "/auth/login", { body: { email: member.email, password: member.password, organization_id: owner.organizationId } });
    const flow = (await request("POST", "/flows", { token: owner.accessToken, body: { name: "shared" } })).body.flow;
    // A second hub on the same store stands for a second instance.
    const other = await startHub(app);
    try {
      const a = connect(hub.url, { authorization: `Bearer ${owner.accessToken}` });
      const b = connect(other.url, { authorization: `Bearer ${memberLogin.body.access_token}` });
      const x = connect(hub.url, { authorization: `Bearer ${stranger.accessToken}` });
      await Promise.all([a.next(ready), b.next(ready), x.next(ready)]);
      a.send({ type: "presence", flow_id: flow.id });
      expect(await a.next((f) => f.type === "presence")).toEqual({ type: "presence", flow_id: flow.id, users: [{ user_id: owner.userId, name: "Olga Owner" }] });
      b.send({ type: "presence", flow_id: flow.id });
      const both = [
        { user_id: member.userId, name: "Mia Member" },
        { user_id: owner.userId, name: "Olga Owner" },
      ];
      await a.next((f) => f.type === "presence" && f.users.length === 2);
      expect(a.frames.at(-1)).toEqual({ type: "presence", flow_id: flow.id, users: both });
      await b.next((f) => f.type === "presence" && f.users.length === 2);
      // Another organization guessing the id learns nothing.
      x.send({ type: "presence", flow_id: flow.id });
      expect((await x.next((f) => f.type === "presence")).users).toEqual([{ user_id: stranger.userId, name: expect.any(String) }]);

      // Leaving (a frame) and disconnecting both count.
      b.send({ type: "presence", flow_id: null });
      await a.next((f) => f.type === "presence" && f.users.length === 1 && a.frames.indexOf(f) > a.frames.findIndex((g) => g.type === "presence" && g.users.length === 2));
      b.send({ type: "presence", flow_id: flow.id });
      await expect.poll(() => a.frames.filter((f) => f.type === "presence").at(-1)?.users.length).toBe(2);
      b.ws.close();
      await expect.poll(() => a.frames.filter((f) => f.type === "presence").at(-1)?.users).toEqual([{ user_id: owner.userId, name: "Olga Owner" }]);
      expect(a.frames.some((f) => f.type === "presence" && f.users.some((u: { user_id: string }) => u.user_id === stranger.userId))).toBe(false);
      a.ws.close();
      x.ws.close();
    } finally {
      await other.close();
    }
  });

  it("says ready only once the organization's events reach this instance (its SUBSCRIBE answered late)", async () => {
    const owner = await signUp(request);
    // Another instance whose store answers the subscription to this organization's events late,
    // as Redis does under load: a client that reads the state on `ready` must miss no event after.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const store = new Proxy(app.store, {
      get(target, prop) {
        if (prop === "subscribe") {
          return async (channel: string, handler: (message: string) => void) => {
            if (channel === orgEventsChannel(owner.organizationId)) await held;
            return target.subscribe(channel, handler);
          };
        }
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const slow = await startHub(Object.create(app, { store: { value: store } }) as AppServices);
    try {
      const s = connect(slow.url, { authorization: `Bearer ${owner.accessToken}` });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(s.frames.some(ready)).toBe(false);
      release();
      await s.next(ready);
      const created = await request("POST", "/flows", { token: owner.accessToken, body: { name: "right after ready" } });
      expect((await s.next((f) => f.type === "event" && f.topic === "flow.created")).flow_id).toBe(created.body.flow.id);
      s.ws.close();
    } finally {
      release();
      await slow.close();
    }
  });

  it("forgets an instance that shuts down, and refuses presence from devices", async () => {
    const owner = await signUp(request);
    const flow = (await request("POST", "/flows", { token: owner.accessToken, body: { name: "crash" } })).body.flow;
    const other = await startHub(app);
    const a = connect(hub.url, { authorization: `Bearer ${owner.accessToken}` });
    const b = connect(other.url, { authorization: `Bearer ${owner.accessToken}` });
    await Promise.all([a.next(ready), b.next(ready)]);
    b.send({ type: "presence", flow_id: flow.id });
    await b.next((f) => f.type === "presence");
    a.send({ type: "presence", flow_id: flow.id });
    expect((await a.next((f) => f.type === "presence")).users).toHaveLength(1);
    // A graceful shutdown says goodbye at once; the same user on this instance still counts.
    await other.close();
    a.send({ type: "presence", flow_id: null });
    a.send({ type: "presence", flow_id: flow.id });
    await expect.poll(() => a.frames.filter((f) => f.type === "presence").at(-1)?.users).toEqual([{ user_id: owner.userId, name: expect.any(String) }]);

    const device = (await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "d", kind: "device" } })).body;
    const d = connect(hub.url, { "x-api-key": device.secret });
    await d.next(ready);
    d.send({ type: "presence", flow_id: flow.id });
    expect((await d.next((f) => f.type === "error")).code).toBe("FORBIDDEN");
    a.ws.close();
    d.ws.close();
  });
});

describe("who changed a flow", () => {
  it("flow.updated and flow.deployed carry the revision and the actor", async () => {
    const user = await signUp(request);
    const s = connect(hub.url, { authorization: `Bearer ${user.accessToken}` });
    await s.next(ready);
    const flow = (await request("POST", "/flows", { token: user.accessToken, body: { name: "who" } })).body.flow;
    await request("PUT", `/flows/${flow.id}`, { token: user.accessToken, body: { name: "who 2", revision: 1 } });
    expect((await s.next((f) => f.topic === "flow.updated")).data).toEqual({ name: "who 2", revision: 2, enabled: true, by: user.userId, by_name: expect.any(String) });
    const dep = (await request("POST", `/flows/${flow.id}/deploy`, { token: user.accessToken })).body.deployment;
    expect((await s.next((f) => f.topic === "flow.deployed")).data).toEqual({ deployment_id: dep.id, revision: 2, state: "running", error: null, by: user.userId, by_name: expect.any(String), rolled_back_from: null });
    s.ws.close();
  });

  it("flow.deployed of a flow that could not start says why, as flow.state does: whichever an editor gets last, it keeps the reason", async () => {
    const user = await signUp(request);
    const s = connect(hub.url, { authorization: `Bearer ${user.accessToken}` });
    await s.next(ready);
    const id = `slow-${Date.now().toString(36)}`;
    const flow = (await request("POST", "/flows", { token: user.accessToken, body: { name: "cannot start", nodes: [{ id, type: "function", config: { code: "return msg;", initialize: "while (true) {}", timeout_ms: 200 } }] } })).body.flow;
    const dep = await request("POST", `/flows/${flow.id}/deploy`, { token: user.accessToken });
    expect(dep.body.deployment.state).toBe("error");
    const deployed = (await s.next((f) => f.topic === "flow.deployed" && f.flow_id === flow.id)).data;
    expect(deployed).toMatchObject({ state: "error", error: dep.body.state_error });
    expect(deployed.error).toMatch(new RegExp(`^${id}: `));
    s.ws.close();
  });
});

describe("debug batches (subscribe with batch: true)", () => {
  const debugRaw = (flowId: string, seq: number, msg: unknown = { seq }) =>
    JSON.stringify({ type: "event", topic: "debug", flow_id: flowId, data: { node_id: "dbg", name: "dbg", property: "payload", msg, format: "object" }, ts: new Date().toISOString() });
  const statusRaw = (flowId: string) => JSON.stringify({ type: "event", topic: "node.status", flow_id: flowId, data: { node_id: "n1", status: { text: "half way" } }, ts: new Date().toISOString() });
  /** The events a connection received, batched or not, in arrival order. */
  const events = (frames: Array<Record<string, any>>) => frames.flatMap((f) => (f.type === "debug.batch" ? (f.events as Array<Record<string, any>>) : f.type === "event" ? [f] : []));

  it("coalesces debug events in order for the connection that asked, and only for it", async () => {
    const user = await signUp(request);
    const batched = connect(hub.url, { authorization: `Bearer ${user.accessToken}` });
    const plain = connect(hub.url, { authorization: `Bearer ${user.accessToken}` });
    await Promise.all([batched.next(ready), plain.next(ready)]);
    batched.send({ type: "subscribe", batch: true });
    plain.send({ type: "subscribe" });
    expect(await batched.next((f) => f.type === "subscribed")).toEqual({ type: "subscribed", topics: "all", flow_id: null, batch: true });
    expect(await plain.next((f) => f.type === "subscribed")).toEqual({ type: "subscribed", topics: "all", flow_id: null });

    const channel = orgEventsChannel(user.organizationId);
    // A burst with a status event in the middle: it must not overtake the debug events before it.
    await Promise.all(Array.from({ length: 600 }, (_, i) => app.store.publish(channel, debugRaw("flw_b", i))));
    await app.store.publish(channel, statusRaw("flw_b"));
    await Promise.all(Array.from({ length: 600 }, (_, i) => app.store.publish(channel, debugRaw("flw_b", 600 + i))));
    await expect.poll(() => events(batched.frames).length, { timeout: 5000 }).toBe(1201);
    await expect.poll(() => events(plain.frames).length, { timeout: 5000 }).toBe(1201);

    const got = events(batched.frames);
    expect(got.filter((e) => e.topic === "debug").map((e) => e.data.msg.seq)).toEqual(Array.from({ length: 1200 }, (_, i) => i));
    expect(got.findIndex((e) => e.topic === "node.status")).toBe(600);
    const batches = batched.frames.filter((f) => f.type === "debug.batch");
    for (const b of batches) expect(debugBatchFrameSchema.safeParse(b).success).toBe(true);
    // Coalesced (far fewer frames than events), and never past the size bound.
    expect(batches.length).toBeLessThan(1200 / 4);
    expect(Math.max(...batches.map((b) => b.events.length))).toBeLessThanOrEqual(WS_LIMITS.debugBatchMaxEvents);
    expect(batched.frames.filter((f) => f.type === "event").map((f) => f.topic)).toEqual(["node.status"]);

    // The connection that did not ask gets exactly today's frames: one per event, byte for byte.
    expect(plain.frames.some((f) => f.type === "debug.batch")).toBe(false);
    expect(events(plain.frames)).toEqual(got);

    // Subscribing again without the flag goes back to one frame per event; unsubscribe keeps it.
    batched.send({ type: "subscribe", batch: true, topics: ["debug"] });
    batched.send({ type: "unsubscribe", flow_id: "flw_none" });
    const narrowed = () => batched.frames.filter((f) => f.type === "subscribed" && Array.isArray(f.topics));
    await expect.poll(() => narrowed().length).toBe(2);
    expect(narrowed()).toEqual([
      { type: "subscribed", topics: ["debug"], flow_id: null, batch: true },
      { type: "subscribed", topics: ["debug"], flow_id: null, batch: true },
    ]);
    batched.send({ type: "subscribe" });
    await batched.next((f) => f.type === "subscribed" && f.topics === "all" && !("batch" in f) && batched.frames.indexOf(f) > 1);
    const before = batched.frames.length;
    await app.store.publish(channel, debugRaw("flw_b", 5000));
    const single = await batched.next((f) => f.type === "event" && f.data?.msg?.seq === 5000);
    expect(batched.frames.indexOf(single)).toBeGreaterThanOrEqual(before);
    batched.ws.close();
    plain.ws.close();
  });

  it("batches only what the connection may see: its organization, its topics, its flow", async () => {
    const a = await signUp(request);
    const b = await signUp(request);
    const sa = connect(hub.url, { authorization: `Bearer ${a.accessToken}` });
    const sb = connect(hub.url, { authorization: `Bearer ${b.accessToken}` });
    const saFlow = connect(hub.url, { authorization: `Bearer ${a.accessToken}` });
    await Promise.all([sa.next(ready), sb.next(ready), saFlow.next(ready)]);
    sa.send({ type: "subscribe", batch: true });
    sb.send({ type: "subscribe", batch: true });
    saFlow.send({ type: "subscribe", batch: true, flow_id: "flw_a1" });
    await Promise.all([sa, sb, saFlow].map((s) => s.next((f) => f.type === "subscribed")));

    // Both organizations' debug traffic interleaved, on two flows each.
    const burst: Promise<number>[] = [];
    for (let i = 0; i < 300; i++) {
      burst.push(app.store.publish(orgEventsChannel(a.organizationId), debugRaw(i % 2 ? "flw_a1" : "flw_a2", i, { org: "a", seq: i })));
      burst.push(app.store.publish(orgEventsChannel(b.organizationId), debugRaw(i % 2 ? "flw_a1" : "flw_b2", i, { org: "b", seq: i })));
    }
    await Promise.all(burst);
    await expect.poll(() => events(sa.frames).length, { timeout: 5000 }).toBe(300);
    await expect.poll(() => events(sb.frames).length, { timeout: 5000 }).toBe(300);
    await expect.poll(() => events(saFlow.frames).length, { timeout: 5000 }).toBe(150);
    expect(events(sa.frames).every((e) => e.data.msg.org === "a")).toBe(true);
    expect(events(sb.frames).every((e) => e.data.msg.org === "b")).toBe(true);
    expect(events(saFlow.frames).every((e) => e.data.msg.org === "a" && e.flow_id === "flw_a1")).toBe(true);
    expect(events(saFlow.frames).map((e) => e.data.msg.seq)).toEqual(Array.from({ length: 150 }, (_, i) => 2 * i + 1));

    // A real debug node through the real door: inject over REST, the event reaches A's batch only.
    const flow = (
      await request("POST", "/flows", {
        token: a.accessToken,
        body: {
          name: "batched",
          nodes: [
            { id: "bat-inj-1", type: "inject", config: { payload_type: "string", payload: "hello batch" } },
            { id: "bat-dbg-1", type: "debug" },
          ],
          connections: [{ source: "bat-inj-1", target: "bat-dbg-1" }],
        },
      })
    ).body.flow;
    await request("POST", `/flows/${flow.id}/deploy`, { token: a.accessToken });
    await request("POST", "/nodes/bat-inj-1/inject", { token: a.accessToken, body: {} });
    const batch = await sa.next((f) => f.type === "debug.batch" && f.events.some((e: Record<string, any>) => e.data.node_id === "bat-dbg-1"));
    expect(batch.events.find((e: Record<string, any>) => e.data.node_id === "bat-dbg-1")).toMatchObject({ flow_id: flow.id, data: { msg: "hello batch" } });
    await new Promise((r) => setTimeout(r, 100));
    expect(events(sb.frames).some((e) => e.flow_id === flow.id || e.data?.node_id === "bat-dbg-1")).toBe(false);
    expect(events(saFlow.frames).some((e) => e.data?.node_id === "bat-dbg-1")).toBe(false);
    for (const s of [sa, sb, saFlow]) s.ws.close();
  });

  it("still drops debug events for a slow batched client, counts them, and keeps the order", async () => {
    const user = await signUp(request);
    const s = connect(hub.url, { authorization: `Bearer ${user.accessToken}` });
    await s.next(ready);
    s.send({ type: "subscribe", batch: true });
    await s.next((f) => f.type === "subscribed");
    (s.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const big = "x".repeat(16 * 1024);
    const channel = orgEventsChannel(user.organizationId);
    for (let i = 0; i < 400; i++) await app.store.publish(channel, debugRaw("flw_x", i, { seq: i, big }));
    (s.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    await caughtUp(s);
    await app.store.publish(channel, debugRaw("flw_x", 400, { seq: 400, big }));
    await s.next((f) => f.type === "debug.batch" && f.events.some((e: Record<string, any>) => e.data.msg.seq === 400));
    expect(s.frames.filter((f) => f.type === "event")).toEqual([]);
    expectGapsAnnounced(s.frames, (f) => (f.type === "debug.batch" ? f.events : []));
    s.ws.close();
  });
});
