/**
 * Several instances as real processes on loopback against the machine's PostgreSQL and Redis
 * (SPEC §11): each deployed flow runs once, whichever instance a request lands on, and moves on
 * kill -9, SIGTERM and SIGSTOP. Runs in the `cluster` vitest project (npm run test:cluster), which
 * exists only when DATABASE_URL and REDIS_URL are set; .ci/run runs it in its real-services step.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp } from "@/test/accounts";
import { Sink, TestCluster, sleep, until, type ClusterNode } from "@/test/cluster";
import { connect } from "@/test/ws";
import pg from "pg";
import http from "node:http";
import { readFileSync } from "node:fs";
import { Redis } from "ioredis";

// Ports: overridable, so several checkouts on one machine can run this file at once.
const BASE_PORT = Number(process.env.CLUSTER_TEST_BASE_PORT ?? 3700);
const SINK_PORT = Number(process.env.CLUSTER_TEST_SINK_PORT ?? 3790);
const REFUSED_PORT = 3799;
const TICK_SECONDS = 1;

let cluster: TestCluster;
const sink = new Sink();
let token: string;
let slug: string;
const flows: Record<string, string> = {};
let seq = 0;
const tag = Math.random().toString(36).slice(2, 8);
const nid = (prefix: string) => `${prefix}-${tag}-${++seq}`;
const injectIds: Record<string, string> = {};

const sinkUrl = (name: string) => `http://127.0.0.1:${SINK_PORT}/${name}`;

function injectToSink(name: string, pathName: string, repeatSeconds: number | null = null) {
  const inject = nid("inject");
  const post = nid("post");
  injectIds[name] = inject;
  return {
    name,
    nodes: [
      { id: inject, type: "inject", config: repeatSeconds ? { repeat_seconds: repeatSeconds, payload_type: "timestamp" } : { payload_type: "string", payload: "default" } },
      { id: post, type: "http-request", config: { method: "POST", url: sinkUrl(pathName), timeout_ms: 5_000 } },
    ],
    connections: [{ source: inject, target: post }],
  };
}

function webhookFlow(name: string, webhookPath: string) {
  const httpIn = nid("in");
  const out = nid("out");
  return {
    name,
    nodes: [
      { id: httpIn, type: "http-in", config: { method: "post", path: webhookPath } },
      { id: out, type: "http-response", config: { status_code: 201 } },
    ],
    connections: [{ source: httpIn, target: out }],
  };
}

function statusFlow(name: string) {
  const inject = nid("inject");
  const post = nid("refused");
  injectIds[name] = inject;
  return {
    name,
    nodes: [
      { id: inject, type: "inject", config: { payload_type: "string", payload: "x" } },
      { id: post, type: "http-request", config: { method: "POST", url: `http://127.0.0.1:${REFUSED_PORT}/nothing`, timeout_ms: 2_000 } },
    ],
    connections: [{ source: inject, target: post }],
  };
}

const node = (name: string) => cluster.node(name);
const anyLive = () => cluster.live()[0]!;

async function runtimeOf(flowId: string, via: ClusterNode = anyLive()): Promise<{ instance_id: string; since: string } | null> {
  const res = await via.request("GET", `/flows/${flowId}`, { token });
  expect(res.status).toBe(200);
  return res.body.flow.runtime;
}

/** The node running the flow, once it runs somewhere (optionally: somewhere other than `notOn`). */
async function ownerOf(flowId: string, options: { notOn?: string; timeoutMs?: number } = {}): Promise<ClusterNode> {
  const runtime = await until(
    `flow ${flowId} placed${options.notOn ? ` away from ${options.notOn}` : ""}`,
    async () => {
      const r = await runtimeOf(flowId);
      return r && r.instance_id !== options.notOn ? r : undefined;
    },
    options.timeoutMs ?? 15_000,
    50,
  );
  return cluster.byInstance(runtime.instance_id);
}

async function injectVia(via: ClusterNode, flowName: string, payload: string) {
  return via.request("POST", `/nodes/${injectIds[flowName]}/inject`, { token, body: { payload } });
}

/** Injects until one succeeds (the flow is being placed); resolves to when it first succeeded. */
async function firstInjectAccepted(via: () => ClusterNode, flowName: string, payload: string, timeoutMs: number): Promise<number> {
  return until(
    `inject into ${flowName}`,
    async () => {
      const res = await injectVia(via(), flowName, payload);
      return res.status === 200 ? Date.now() : undefined;
    },
    timeoutMs,
    25,
  );
}

async function heldCounts(): Promise<Map<string, number>> {
  const counts = new Map<string, number>(cluster.live().map((n) => [n.instanceId, 0]));
  for (const id of Object.values(flows)) {
    const r = await runtimeOf(id);
    if (r) counts.set(r.instance_id, (counts.get(r.instance_id) ?? 0) + 1);
  }
  return counts;
}

/**
 * Tick timestamps (as the sending inject node stamped them) must be about a tick apart: a second
 * instance ticking the same flow would put ticks at a random phase between them. The margin allows
 * for timers that fire late on a loaded machine (Node reschedules an interval from the time its
 * batch of timers started, so one late run can shorten the next gap by the delay).
 */
function assertOneTicker(pathName: string) {
  const stamps = sink
    .bodies(pathName)
    .map(Number)
    .sort((a, b) => a - b);
  const gaps = stamps.slice(1).map((t, i) => t - stamps[i]!);
  const limit = TICK_SECONDS * 1000 * 0.35;
  const tooClose = gaps.filter((g) => g < limit);
  expect(tooClose, `ticks closer than ${limit} ms apart: ${JSON.stringify(tooClose)} (${stamps.length} ticks)`).toEqual([]);
  return stamps;
}

/** Ticks stamped between `from` and `to` (ms since the epoch). */
const ticksBetween = (pathName: string, from: number, to: number) => sink.bodies(pathName).map(Number).filter((t) => t >= from && t < to).length;

function exactlyOnce(pathName: string, payloads: string[]) {
  const got = sink.bodies(pathName);
  for (const p of payloads) expect(got.filter((b) => b === p), `payload ${p} on ${pathName}`).toHaveLength(1);
}

beforeAll(async () => {
  cluster = new TestCluster({ basePort: BASE_PORT });
  await sink.start(SINK_PORT);
  await Promise.all([cluster.start("a", 0), cluster.start("b", 1)]);
  const user = await signUp(node("a").request);
  token = user.accessToken;
  slug = (await node("b").request("GET", `/organizations/${user.organizationId}`, { token })).body.organization?.slug;
  if (!slug) slug = (await node("a").request("GET", "/organizations", { token })).body.organizations[0].slug;
}, 90_000);

afterAll(async () => {
  await sink.close();
  await cluster?.dispose();
}, 60_000);

/** Whether `node`'s log says it placed `flowId` (started it as its holder) at or after `since` (ms). */
function placedSince(node: ClusterNode, flowId: string, since: number): boolean {
  return readFileSync(node.logFile, "utf8")
    .split("\n")
    .some((line) => {
      let entry: { msg?: string; flowId?: string; time?: string };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        return false; // not a log entry (the harness's own lines), or one still being written
      }
      return entry.msg === "flow placed here" && entry.flowId === flowId && Date.parse(entry.time ?? "") >= since;
    });
}

describe("several instances on one PostgreSQL and Redis", () => {
  it("places each flow on one instance, shares them fairly, and answers from any instance", async () => {
    try {
      const defs = [
        injectToSink("manual", "manual"),
        injectToSink("ticker", "tick", TICK_SECONDS),
        webhookFlow("webhook", "/echo"),
        statusFlow("status"),
        injectToSink("spare1", "spare1"),
        injectToSink("spare2", "spare2"),
      ];
      for (const [i, def] of defs.entries()) {
        const via = i % 2 === 0 ? node("a") : node("b");
        const created = await via.request("POST", "/flows", { token, body: def });
        expect(created.status, created.text).toBe(201);
        expect(created.body.flow.runtime).toBeNull();
        flows[def.name] = created.body.flow.id;
        const dep = await via.request("POST", `/flows/${created.body.flow.id}/deploy`, { token });
        expect(dep.status, dep.text).toBe(200);
        expect(dep.body.deployment.state).toBe("running");
      }
      // /health names each instance; every flow runs on one of them.
      const ids = await Promise.all(["a", "b"].map(async (n) => (await node(n).request("GET", "/health")).body.instance_id));
      expect(ids).toEqual([node("a").instanceId, node("b").instanceId]);
      for (const id of Object.values(flows)) expect(ids).toContain((await runtimeOf(id))!.instance_id);
      // Both instances see the same placement.
      for (const id of Object.values(flows)) expect(await runtimeOf(id, node("a"))).toEqual(await runtimeOf(id, node("b")));
      // Fair share: 6 flows on 2 instances, 3 each (rebalanced within a few ticks).
      await until("3 flows each", async () => ([...(await heldCounts()).values()].every((c) => c === 3) ? true : undefined), 15_000, 250);

      // Forwarded calls go straight to the instance running the flow, over the connection between
      // the two (peer-link.ts), not over its Redis channel: only a first call, made before the
      // sender has read where the other instance is, may take the channel.
      const bus = new Redis(process.env.REDIS_URL!);
      const overRedis: string[] = [];
      bus.on("message", (_channel: string, message: string) => {
        const envelope = JSON.parse(message) as { k: string; op?: string };
        if (envelope.k === "req" && (envelope.op === "inject" || envelope.op === "webhook")) overRedis.push(envelope.op);
      });
      await bus.subscribe(...["a", "b"].map((n) => `${cluster.keyPrefix}cluster:node:${node(n).instanceId}`));

      // Injects made on every instance reach the flow exactly once.
      const payloads: string[] = [];
      for (let i = 0; i < 20; i++) {
        const payload = `m-${i}`;
        payloads.push(payload);
        const res = await injectVia(i % 2 === 0 ? node("a") : node("b"), "manual", payload);
        expect(res.status, res.text).toBe(200);
        expect(res.body.flow_id).toBe(flows.manual);
      }
      await until("20 injects delivered", async () => (sink.bodies("manual").length >= 20 ? true : undefined));
      await sleep(300);
      exactlyOnce("manual", payloads);
      expect(sink.bodies("manual")).toHaveLength(20);

      // Webhooks reach the flow from either instance.
      for (const via of [node("a"), node("b")]) {
        const res = await via.request("POST", `/hooks/${slug}/echo`, { body: { from: via.name } });
        expect(res.status, res.text).toBe(201);
        expect(res.body).toEqual({ from: via.name });
      }
      expect((await node("a").request("POST", `/hooks/${slug}/nowhere`, { body: {} })).status).toBe(404);
      expect(overRedis.length, `requests over Redis: ${overRedis.join(", ")}`).toBeLessThanOrEqual(2);
      bus.disconnect();

      // The connection between instances needs the cluster's signature: anyone else is refused.
      const refused = await new Promise<number>((resolve, reject) => {
        const req = http.request(`${node("a").url}/_cluster/peer`, { headers: { connection: "Upgrade", upgrade: "flowplane-peer/1", "x-flowplane-peer-to": node("a").instanceId, "x-flowplane-peer": `${Date.now()}.forged` } });
        req.on("upgrade", (_res, socket) => {
          socket.destroy();
          resolve(101);
        });
        req.on("response", (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on("error", reject);
        req.end();
      });
      expect(refused).toBe(401);

      // Node statuses are the owner's, asked from the other instance too.
      const statusOwner = await ownerOf(flows.status!);
      const other = statusOwner.name === "a" ? node("b") : node("a");
      expect((await injectVia(other, "status", "x")).status).toBe(200);
      const statuses = await until("red status", async () => {
        const res = await other.request("GET", `/flows/${flows.status}/nodes`, { token });
        const red = res.body.nodes.find((n: { status: { fill: string } | null }) => n.status?.fill === "red");
        return red ? res.body.nodes : undefined;
      });
      expect((await statusOwner.request("GET", `/flows/${flows.status}/nodes`, { token })).body.nodes).toEqual(statuses);

      // A repeating inject ticks on one instance only.
      await sleep(3_000);
      const stamps = assertOneTicker("tick");
      expect(stamps.length).toBeGreaterThanOrEqual(3);
    } catch (err) {
      console.error(JSON.stringify(sink.received.filter((r) => r.path !== "/tick")));
      console.error((await node("a").request("GET", `/flows/${flows.manual}/nodes`, { token })).text);
      console.error(cluster.logs());
      throw err;
    }
  }, 120_000);

  it("carries device messages and events across instances: each reaches the flow, the device or a client once", async () => {
    const device = (await node("a").request("POST", "/api-keys", { token, body: { name: "sensor", kind: "device" } })).body;
    const devIn = nid("dev-in");
    const devPost = nid("dev-post");
    const devInject = nid("dev-inject");
    const devOut = nid("dev-out");
    const created = await node("a").request("POST", "/flows", {
      token,
      body: {
        name: "devices",
        nodes: [
          { id: devIn, type: "device-in", config: { topic: "sensors/+" } },
          { id: devPost, type: "http-request", config: { method: "POST", url: sinkUrl("device"), timeout_ms: 5_000 } },
          { id: devInject, type: "inject", config: { payload_type: "string", payload: "reboot" } },
          { id: devOut, type: "device-out", config: { topic: "commands" } },
        ],
        connections: [
          { source: devIn, target: devPost },
          { source: devInject, target: devOut },
        ],
      },
    });
    flows.devices = created.body.flow.id;
    expect((await node("a").request("POST", `/flows/${flows.devices}/deploy`, { token })).status).toBe(200);
    const owner = await ownerOf(flows.devices!);
    const other = owner.name === "a" ? node("b") : node("a");
    // The device and a browser on the instance that does not run the flow, another browser on the one that does.
    const ws = (n: ClusterNode) => `ws://127.0.0.1:${n.port}/ws`;
    const sensor = connect(ws(other), { "x-api-key": device.secret });
    const uiOther = connect(ws(other), { authorization: `Bearer ${token}` });
    const uiOwner = connect(ws(owner), { authorization: `Bearer ${token}` });
    for (const s of [sensor, uiOther, uiOwner]) await s.next((f) => f.type === "ready");
    for (const s of [uiOther, uiOwner]) {
      s.send({ type: "subscribe" });
      await s.next((f) => f.type === "subscribed");
    }
    const payloads = ["d1", "d2", "d3", "d4", "d5"];
    for (const p of payloads) sensor.send({ type: "device.publish", topic: "sensors/temp", payload: p });
    await until("device messages delivered", async () => (sink.bodies("device").length >= payloads.length ? true : undefined));
    await sleep(500);
    exactlyOnce("device", payloads);
    expect(sink.bodies("device")).toHaveLength(payloads.length);
    // A device-out message from the flow reaches the device on the other instance, once.
    expect((await other.request("POST", `/nodes/${devInject}/inject`, { token, body: {} })).status).toBe(200);
    expect(await sensor.next((f) => f.type === "device.message")).toEqual({ type: "device.message", topic: "commands", payload: "reboot" });
    // The inject event reaches each browser once, on either instance.
    await sleep(500);
    expect(sensor.frames.filter((f) => f.type === "device.message")).toHaveLength(1);
    const injects = (s: typeof uiOwner) => s.frames.filter((f) => f.type === "event" && f.topic === "inject" && f.flow_id === flows.devices);
    expect(injects(uiOwner)).toHaveLength(1);
    expect(injects(uiOther)).toHaveLength(1);
    for (const s of [sensor, uiOther, uiOwner]) s.ws.close();
  }, 60_000);

  it("deploys, rolls back, disables and deletes through an instance that does not run the flow", async () => {
    const owner = await ownerOf(flows.manual!);
    const other = owner.name === "a" ? node("b") : node("a");
    const flow = (await other.request("GET", `/flows/${flows.manual}`, { token })).body.flow;
    const first = (await other.request("GET", `/flows/${flows.manual}/deployments`, { token })).body.deployments[0];
    flow.nodes[1].config.url = sinkUrl("manual-v2");
    expect((await other.request("PUT", `/flows/${flows.manual}`, { token, body: { nodes: flow.nodes } })).status).toBe(200);
    const dep = await other.request("POST", `/flows/${flows.manual}/deploy`, { token });
    expect(dep.status, dep.text).toBe(200);
    expect(dep.body.deployment.state).toBe("running");
    // Still on its owner, now running version 2.
    expect((await runtimeOf(flows.manual!))!.instance_id).toBe(owner.instanceId);
    expect((await injectVia(other, "manual", "v2")).status).toBe(200);
    await until("v2 delivered", async () => (sink.bodies("manual-v2").includes("v2") ? true : undefined));

    const back = await other.request("POST", `/flows/${flows.manual}/rollback`, { token, body: { deployment_id: first.id } });
    expect(back.status, back.text).toBe(200);
    expect((await injectVia(other, "manual", "v1-again")).status).toBe(200);
    await until("rolled back", async () => (sink.bodies("manual").includes("v1-again") ? true : undefined));
    exactlyOnce("manual", ["v1-again"]);
    expect(sink.bodies("manual-v2")).toEqual(["v2"]);

    const off = await other.request("PUT", `/flows/${flows.manual}`, { token, body: { enabled: false } });
    expect(off.body.flow).toMatchObject({ state: "stopped", runtime: null });
    expect((await injectVia(owner, "manual", "off")).status).toBe(409);
    const on = await other.request("PUT", `/flows/${flows.manual}`, { token, body: { enabled: true } });
    expect(on.body.flow.state).toBe("running");
    expect(on.body.flow.runtime).toMatchObject({ instance_id: expect.any(String) });
    expect((await injectVia(other, "manual", "on")).status).toBe(200);

    // A deleted flow stops wherever it ran.
    const spareOwner = await ownerOf(flows.spare2!);
    const spareOther = spareOwner.name === "a" ? node("b") : node("a");
    expect((await spareOther.request("DELETE", `/flows/${flows.spare2}`, { token })).status).toBe(204);
    expect((await injectVia(spareOwner, "spare2", "gone")).status).toBe(404);
    delete flows.spare2;
  }, 60_000);

  it("a deployment committed by an instance that died before telling the flow's owner runs at the owner's next tick", async () => {
    const owner = await ownerOf(flows.manual!);
    // What activate() commits, written as the dying instance would have: a new deployment made
    // current, and no message to the owner.
    const db = new pg.Client({ connectionString: process.env.DATABASE_URL, options: `-c search_path="${cluster.schema}"` });
    await db.connect();
    let previous: string;
    try {
      const { rows } = await db.query<{ current_deployment_id: string }>("SELECT current_deployment_id FROM flows WHERE id = $1", [flows.manual]);
      previous = rows[0]!.current_deployment_id;
      const current = (await db.query<{ snapshot: { nodes: Array<{ config: Record<string, unknown> }> }; revision: number; organization_id: string; deployed_by_id: string }>("SELECT * FROM deployments WHERE id = $1", [previous])).rows[0]!;
      const snapshot = structuredClone(current.snapshot);
      snapshot.nodes[1]!.config.url = sinkUrl("manual-lost");
      const id = `dep_lost${tag}`;
      await db.query("BEGIN");
      await db.query("INSERT INTO deployments (id, flow_id, organization_id, revision, snapshot, deployed_by_id) VALUES ($1, $2, $3, $4, $5, $6)", [id, flows.manual, current.organization_id, current.revision, JSON.stringify(snapshot), current.deployed_by_id]);
      await db.query("UPDATE flows SET current_deployment_id = $1 WHERE id = $2", [id, flows.manual]);
      await db.query("COMMIT");
    } finally {
      await db.end();
    }
    // The owner notices at a tick (1 s here) and puts the current deployment in effect.
    await until("the committed deployment runs", async () => {
      await injectVia(owner, "manual", "after-lost-deploy");
      return sink.bodies("manual-lost").includes("after-lost-deploy") ? true : undefined;
    }, 15_000, 500);
    expect((await runtimeOf(flows.manual!))!.instance_id).toBe(owner.instanceId);
    // Back to the version the other tests expect.
    expect((await owner.request("POST", `/flows/${flows.manual}/rollback`, { token, body: { deployment_id: previous } })).status).toBe(200);
  }, 60_000);

  it("revokes an API key on one instance and the other refuses it on its very next request (access cache)", async () => {
    const created = await node("a").request("POST", "/api-keys", { token, body: { name: "cluster bot" } });
    expect(created.status, created.text).toBe(201);
    const key = { "x-api-key": created.body.secret as string };
    // Both instances have the key and its creator's role cached.
    for (const n of [node("a"), node("b")]) expect((await n.request("GET", "/flows", { headers: key })).status).toBe(200);
    expect((await node("a").request("DELETE", `/api-keys/${created.body.api_key.id}`, { token })).status).toBe(204);
    const refused = await node("b").request("GET", "/flows", { headers: key });
    expect(refused.status, refused.text).toBe(401);
    expect((await node("a").request("GET", "/flows", { headers: key })).status).toBe(401);
  }, 30_000);

  it("takes a new instance into the share", async () => {
    await cluster.start("c", 2);
    // Every flow placed, and spread evenly: c holds its share, nobody more than one above another.
    const total = Object.keys(flows).length;
    await until(
      "a share for c",
      async () => {
        const counts = [...(await heldCounts()).values()];
        const sum = counts.reduce((a, b) => a + b, 0);
        return counts.length === 3 && sum === total && Math.max(...counts) - Math.min(...counts) <= 1 ? true : undefined;
      },
      25_000,
      250,
    );
    expect((await heldCounts()).get(node("c").instanceId)).toBeGreaterThanOrEqual(Math.floor(total / 3));
  }, 60_000);

  it("runs a killed instance's flows elsewhere within 10 s, and a returning instance runs nothing twice", async () => {
    const owner = await ownerOf(flows.ticker!);
    const killedAt = Date.now();
    cluster.signal(owner.name, "SIGKILL");
    await owner.exited;
    const next = await ownerOf(flows.ticker!, { notOn: owner.instanceId, timeoutMs: 10_000 });
    const moved = Date.now() - killedAt;
    expect(moved).toBeLessThan(10_000);
    // Ticking again, from the new instance.
    const before = sink.bodies("tick").length;
    await until("ticks again", async () => (sink.bodies("tick").length > before ? true : undefined), 5_000);
    // The dead instance comes back under the same id: it runs nothing it does not hold.
    const index = owner.name === "a" ? 0 : owner.name === "b" ? 1 : 2;
    await cluster.start(owner.name, index, owner.instanceId);
    const payloads = ["r1", "r2", "r3", "r4"];
    for (const [i, p] of payloads.entries()) expect((await injectVia(cluster.live()[i % cluster.live().length]!, "manual", p)).status).toBe(200);
    await sleep(3_000);
    exactlyOnce("manual", payloads);
    assertOneTicker("tick");
    expect(next.instanceId).not.toBe(owner.instanceId);
  }, 60_000);

  it("hands a flow over in under 2 s on SIGTERM", async () => {
    const owner = await ownerOf(flows.manual!);
    const via = () => cluster.live().find((n) => n.name !== owner.name)!;
    const stoppedAt = Date.now();
    cluster.signal(owner.name, "SIGTERM");
    const acceptedAt = await firstInjectAccepted(via, "manual", "after-term", 5_000);
    const handover = acceptedAt - stoppedAt;
    await owner.exited;
    expect(handover).toBeLessThan(2_000);
    try {
      await until("delivered after hand-over", async () => (sink.bodies("manual").includes("after-term") ? true : undefined));
      exactlyOnce("manual", ["after-term"]);
    } catch (err) {
      // Seen once in a loaded CI run (accepted, never delivered): which instance took it, and what each said.
      console.error(`SIGTERM to ${owner.name} (${owner.instanceId}) at ${stoppedAt}, inject accepted through ${via().name} at ${acceptedAt}; sink "manual": ${JSON.stringify(sink.bodies("manual").slice(-5))}`);
      console.error(cluster.logs());
      throw err;
    }
    expect((await runtimeOf(flows.manual!))!.instance_id).not.toBe(owner.instanceId);
    // Back to three instances for the next test.
    const index = owner.name === "a" ? 0 : owner.name === "b" ? 1 : 2;
    await cluster.start(owner.name, index);
  }, 60_000);

  it("stops the copy of an instance paused past its lease (SIGSTOP/SIGCONT): it never ticks alongside the new owner", async () => {
    const owner = await ownerOf(flows.ticker!);
    const tickerCountBefore = sink.bodies("tick").length;
    cluster.signal(owner.name, "SIGSTOP");
    const stoppedAt = Date.now();
    const next = await ownerOf(flows.ticker!, { notOn: owner.instanceId, timeoutMs: 10_000 });
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    await until("new owner ticks", async () => (sink.bodies("tick").length > tickerCountBefore + 1 ? true : undefined), 5_000);
    const wokenAt = Date.now();
    cluster.signal(owner.name, "SIGCONT");
    // Let the woken instance's overdue timers fire and its tick notice the loss.
    await sleep(4_000);
    try {
      assertOneTicker("tick");
      // One ticker: about one tick a second since the wake-up, not two.
      expect(ticksBetween("tick", wokenAt, wokenAt + 3_000)).toBeLessThanOrEqual(Math.ceil(3 / TICK_SECONDS) + 1);
      const holder = (await runtimeOf(flows.ticker!))!.instance_id;
      // The new owner keeps it, unless the cluster rebalanced meanwhile (the woken instance, now
      // with fewer flows, is handed some): then its holder placed it afresh after the wake, never
      // by keeping the copy it had when it was paused.
      if (holder !== next.instanceId) expect(placedSince(cluster.byInstance(holder), flows.ticker!, wokenAt), `the ticker is on ${holder}, not on ${next.instanceId}, without a placement there since the wake`).toBe(true);
      // Injects made on the woken instance still reach the flow once.
      const payloads = ["w1", "w2", "w3"];
      for (const p of payloads) expect((await injectVia(owner, "manual", p)).status).toBe(200);
      await sleep(1_000);
      exactlyOnce("manual", payloads);
      // Every instance agrees on where each flow runs.
      for (const id of Object.values(flows)) {
        const seen = new Set<string>();
        for (const n of cluster.live()) seen.add(JSON.stringify(await runtimeOf(id, n)));
        expect(seen.size).toBe(1);
      }
    } catch (err) {
      // Seen once in several loaded runs, never alone: what the instances said, and when each tick came.
      console.error(`stopped ${owner.instanceId} at ${stoppedAt}, woken at ${wokenAt}, new owner ${next.instanceId}; ticks ${JSON.stringify(sink.bodies("tick").map(Number).slice(-20))}`);
      console.error(cluster.logs());
      throw err;
    }
  }, 60_000);
});
