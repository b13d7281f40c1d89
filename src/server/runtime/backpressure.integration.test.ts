/**
 * Backpressure through the doors a user uses (issue 26): a flow holding more waiting messages than
 * FLOW_HIGH_WATER_MARK refuses new ones instead of queueing them without bound or dropping them
 * inside the flow. REST inject and webhooks answer 429 with Retry-After, a device is told with a
 * `device.rejected` frame, a repeating inject skips and says so in its status; nothing accepted is
 * lost, and the flow takes messages again once half of its backlog is done.
 *
 * The flows hold messages in a slow function node (a busy loop in its sandbox): its calls are
 * asynchronous, so they count as waiting until each one is done.
 */
import { describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import { connect, setUpTestHub, type TestSocket } from "@/test/ws";
import { handleWebhook } from "@/server/api/rest/webhook-handler";

const HIGH_WATER = 4;
const testApp = setUpTestApp({ FLOW_HIGH_WATER_MARK: String(HIGH_WATER) });
const request = testApp.request;
const hub = setUpTestHub(testApp);

/** A function node that takes `ms` of CPU per message, then passes it on. */
const slow = (id: string, ms: number) => ({ id, type: "function", config: { code: `const t = Date.now(); while (Date.now() - t < ${ms}) {} return msg;`, timeout_ms: 5000 } });

type Owner = Awaited<ReturnType<typeof signUp>>;

async function deploy(owner: Owner, nodes: unknown[], connections: unknown[]) {
  const created = await request("POST", "/flows", { token: owner.accessToken, body: { name: `bp-${Date.now()}`, nodes, connections } });
  expect(created.status, created.text).toBe(201);
  const deployed = await request("POST", `/flows/${created.body.flow.id}/deploy`, { token: owner.accessToken });
  expect(deployed.body.deployment?.state, deployed.text).toBe("running");
  return created.body.flow as { id: string };
}

/** An owner's socket that receives only this flow's debug events. */
async function debugSocket(owner: Owner, flowId: string): Promise<TestSocket> {
  const socket = connect(hub.url, { authorization: `Bearer ${owner.accessToken}` });
  await socket.next((f) => f.type === "ready");
  socket.send({ type: "subscribe", topics: ["debug"], flow_id: flowId });
  await socket.next((f) => f.type === "subscribed");
  return socket;
}

const debugCount = (socket: TestSocket) => socket.frames.filter((f) => f.type === "event" && f.topic === "debug").length;

async function eventually(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("a busy flow", () => {
  it("REST inject: 429 RATE_LIMITED with Retry-After past the mark, every accepted message delivered once, and 200 again once it drained", async () => {
    const owner = await signUp(request);
    const flow = await deploy(owner, [{ id: "bp-inj", type: "inject" }, slow("bp-slow", 400), { id: "bp-dbg", type: "debug" }], [
      { source: "bp-inj", target: "bp-slow" },
      { source: "bp-slow", target: "bp-dbg" },
    ]);
    const socket = await debugSocket(owner, flow.id);
    const answers = [];
    for (let i = 0; i < HIGH_WATER + 2; i++) answers.push(await request("POST", "/nodes/bp-inj/inject", { token: owner.accessToken, body: { payload: i } }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 429, 429]);
    const refused = answers[HIGH_WATER]!;
    expect(refused.body.error.code).toBe("RATE_LIMITED");
    expect(refused.body.error.message).toMatch(/flow is busy \(4 messages waiting\); nothing was sent/);
    expect(refused.headers.get("retry-after")).toBe("1");
    // Every accepted message comes out, in order; the refused ones never entered.
    await eventually("the accepted messages", () => debugCount(socket) >= HIGH_WATER);
    await new Promise((r) => setTimeout(r, 300));
    const payloads = socket.frames.filter((f) => f.type === "event" && f.topic === "debug").map((f) => f.data.msg);
    expect(payloads).toEqual([0, 1, 2, 3]);
    const again = await request("POST", "/nodes/bp-inj/inject", { token: owner.accessToken, body: { payload: "again" } });
    expect(again.status, again.text).toBe(200);
    socket.ws.close();
  });

  it("webhooks: 429 with Retry-After while the flow is busy; the requests it took are all answered", async () => {
    const owner = await signUp(request);
    const slug = (await testApp.app.db.prisma.organization.findUniqueOrThrow({ where: { id: owner.organizationId } })).slug;
    await deploy(owner, [{ id: "bp-in", type: "http-in", config: { method: "get", path: "/slow" } }, slow("bp-work", 150), { id: "bp-out", type: "http-response" }], [
      { source: "bp-in", target: "bp-work" },
      { source: "bp-work", target: "bp-out" },
    ]);
    const call = () => handleWebhook(testApp.app, new Request(`http://app.test/hooks/${slug}/slow`), slug, ["slow"]);
    const taken = Array.from({ length: HIGH_WATER }, () => call());
    // Each taken request is one waiting message (queued, then in the sandbox) until it is answered.
    await new Promise((r) => setTimeout(r, 20));
    const refused = await call();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("RATE_LIMITED");
    expect((await Promise.all(taken)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect((await call()).status).toBe(200);
  });

  it("devices: a refused device.publish is answered with device.rejected to that device; accepted ones are delivered", async () => {
    const owner = await signUp(request);
    const flow = await deploy(owner, [{ id: "bp-dev", type: "device-in", config: { topic: "sensors/#" } }, slow("bp-dslow", 150), { id: "bp-ddbg", type: "debug" }], [
      { source: "bp-dev", target: "bp-dslow" },
      { source: "bp-dslow", target: "bp-ddbg" },
    ]);
    const watcher = await debugSocket(owner, flow.id);
    const key = await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "sensor", kind: "device" } });
    expect(key.status, key.text).toBe(201);
    const device = connect(hub.url, { "x-api-key": key.body.secret });
    await device.next((f) => f.type === "ready");
    for (let i = 0; i < HIGH_WATER + 1; i++) device.send({ type: "device.publish", topic: `sensors/t${i}`, payload: i });
    const rejected = await device.next((f) => f.type === "device.rejected");
    expect(rejected).toEqual({ type: "device.rejected", topic: `sensors/t${HIGH_WATER}`, reason: "flow_busy", retry_after: 1 });
    await eventually("the accepted device messages", () => debugCount(watcher) >= HIGH_WATER);
    await new Promise((r) => setTimeout(r, 300));
    expect(watcher.frames.filter((f) => f.type === "event" && f.topic === "debug").map((f) => f.data.msg)).toEqual([0, 1, 2, 3]);
    expect(device.frames.filter((f) => f.type === "device.rejected")).toHaveLength(1);
    device.ws.close();
    watcher.ws.close();
  });

  it("a repeating inject skips while the flow is busy and says so in its status", async () => {
    const owner = await signUp(request);
    const flow = await deploy(owner, [{ id: "bp-rep", type: "inject", config: { repeat_seconds: 0.1 } }, slow("bp-rslow", 250)], [{ source: "bp-rep", target: "bp-rslow" }]);
    const statusOf = async () => {
      const nodes = (await request("GET", `/flows/${flow.id}/nodes`, { token: owner.accessToken })).body.nodes as Array<{ id: string; status: { text: string } | null }>;
      return nodes.find((n) => n.id === "bp-rep")?.status ?? null;
    };
    await eventually("a skipped tick", async () => /^skipped \d+: flow busy$/.test((await statusOf())?.text ?? ""));
    expect(await statusOf()).toMatchObject({ fill: "yellow", shape: "ring" });
    await request("PUT", `/flows/${flow.id}`, { token: owner.accessToken, body: { enabled: false } });
  });
});
