import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { connect, rawSocket, startUpgrades, upgradeStatus } from "@/test/ws";
import { signUp } from "@/test/accounts";

/**
 * websocket-listener with websocket-in / websocket-out (SPEC §23), through the door a user uses: a
 * real `ws` client connecting to /ws/hooks/{org}/{path} of a running app, flows created and deployed
 * over REST. Replies by `_session`, broadcasts, whole messages, binary frames, the status dots,
 * unknown paths (404), tenant isolation, the frame bound, and a stop closing the clients.
 */

const testApp = setUpTestApp();
const request = testApp.request;
let upgrades: Awaited<ReturnType<typeof startUpgrades>>;

beforeAll(async () => {
  upgrades = await startUpgrades(testApp.app, { maxFrameBytes: 64 * 1024 });
});
afterAll(async () => {
  await upgrades.close();
});

async function owner() {
  const user = await signUp(request);
  const org = await testApp.app.db.prisma.organization.findUniqueOrThrow({ where: { id: user.organizationId } });
  return { ...user, token: user.accessToken, slug: org.slug };
}

async function listener(token: string, path: string, wholemsg: "true" | "false" = "false"): Promise<string> {
  const res = await request("POST", "/config-nodes", { token, body: { type: "websocket-listener", name: path, config: { path, wholemsg } } });
  expect(res.status, res.text).toBe(201);
  return res.body.config_node.id as string;
}

async function deployFlow(token: string, body: { name: string; nodes: unknown[]; connections: unknown[] }): Promise<string> {
  const created = await request("POST", "/flows", { token, body });
  expect(created.status, created.text).toBe(201);
  const flowId = created.body.flow.id as string;
  const deployed = await request("POST", `/flows/${flowId}/deploy`, { token });
  expect(deployed.status, deployed.text).toBe(200);
  expect(deployed.body.deployment).toMatchObject({ state: "running" });
  return flowId;
}

const at = (x: number) => ({ x, y: 0 });

/** websocket-in → websocket-out on one listener (an echo to the sender), and an inject → websocket-out (a broadcast). */
async function echoFlow(token: string, prefix: string, listenerId: string) {
  return deployFlow(token, {
    name: `echo ${prefix}`,
    nodes: [
      { id: `${prefix}_in`, type: "websocket-in", position: at(0), config: { server: listenerId } },
      { id: `${prefix}_out`, type: "websocket-out", position: at(200), config: { server: listenerId } },
      { id: `${prefix}_inj`, type: "inject", position: at(0), config: { payload: "to everyone", payload_type: "string" } },
      { id: `${prefix}_bc`, type: "websocket-out", position: at(200), config: { server: listenerId } },
      { id: `${prefix}_dbg`, type: "debug", position: at(400), config: { property: "msg" } },
    ],
    connections: [
      { source: `${prefix}_in`, target: `${prefix}_out` },
      { source: `${prefix}_in`, target: `${prefix}_dbg` },
      { source: `${prefix}_inj`, target: `${prefix}_bc` },
    ],
  });
}

describe("websocket listener", () => {
  it("answers the sending client only while the message keeps _session, and every client without it", async () => {
    const me = await owner();
    const id = await listener(me.token, "/echo");
    const flowId = await echoFlow(me.token, "e1", id);
    const hub = connect(upgrades.url, { authorization: `Bearer ${me.token}` });
    await hub.next((f) => f.type === "ready");

    const a = rawSocket(`${upgrades.base}/ws/hooks/${me.slug}/echo`);
    const b = rawSocket(`${upgrades.base}/ws/hooks/${me.slug}/echo`);
    await Promise.all([a.opened, b.opened]);
    a.ws.send("hello from a");
    expect(await a.received(1)).toEqual(["hello from a"]);
    const debug = await hub.next((f) => f.topic === "debug" && f.data?.node_id === "e1_dbg");
    expect(debug.data.msg).toMatchObject({ payload: "hello from a", _session: { type: "websocket", id: expect.stringMatching(/^[0-9a-f]{16}$/) } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(b.frames).toEqual([]);

    // Node-RED's status: the number of connected clients on each node of the listener.
    const statuses = await testApp.app.flowRuntime.nodeStatuses(flowId);
    expect(statuses.get("e1_in")).toEqual({ fill: "green", shape: "dot", text: "connected 2" });

    expect((await request("POST", "/nodes/e1_inj/inject", { token: me.token, body: {} })).status).toBe(200);
    expect(await a.received(2)).toEqual(["hello from a", "to everyone"]);
    expect(await b.received(1)).toEqual(["to everyone"]);

    b.ws.close();
    await b.closed;
    await expect.poll(async () => (await testApp.app.flowRuntime.nodeStatuses(flowId)).get("e1_out")).toEqual({ fill: "green", shape: "dot", text: "connected 1" });
    a.ws.close();
    await expect.poll(async () => (await testApp.app.flowRuntime.nodeStatuses(flowId)).get("e1_out")).toEqual({ fill: "red", shape: "ring", text: "disconnected" });
    hub.ws.close();
  });

  it("refuses a path no running flow serves with 404, and another organization's path is not this one's", async () => {
    const a = await owner();
    const b = await owner();
    const idA = await listener(a.token, "/shared");
    await echoFlow(a.token, "t1", idA);
    expect(await upgradeStatus(`${upgrades.base}/ws/hooks/${a.slug}/nothing-here`)).toBe(404);
    // Organization B serves nothing at /shared: A's listener is not reachable through B's slug.
    expect(await upgradeStatus(`${upgrades.base}/ws/hooks/${b.slug}/shared`)).toBe(404);
    expect(await upgradeStatus(`${upgrades.base}/ws/hooks/no-such-org-slug/shared`)).toBe(404);

    // B gets its own /shared: what B's clients send never reaches A's flow, nor A's broadcasts B's clients.
    const idB = await listener(b.token, "/shared");
    await echoFlow(b.token, "t2", idB);
    const clientA = rawSocket(`${upgrades.base}/ws/hooks/${a.slug}/shared`);
    const clientB = rawSocket(`${upgrades.base}/ws/hooks/${b.slug}/shared`);
    await Promise.all([clientA.opened, clientB.opened]);
    expect((await request("POST", "/nodes/t1_inj/inject", { token: a.token, body: {} })).status).toBe(200);
    expect(await clientA.received(1)).toEqual(["to everyone"]);
    clientB.ws.send("b only");
    expect(await clientB.received(1)).toEqual(["b only"]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(clientA.frames).toEqual(["to everyone"]);
    expect(clientB.frames).toEqual(["b only"]);
    clientA.ws.close();
    clientB.ws.close();
  });

  it("sends and parses entire messages as JSON, and keeps binary frames binary", async () => {
    const me = await owner();
    const whole = await listener(me.token, "/whole", "true");
    const plain = await listener(me.token, "/bin");
    await deployFlow(me.token, {
      name: "whole and binary",
      nodes: [
        { id: "w_in", type: "websocket-in", position: at(0), config: { server: whole } },
        { id: "w_set", type: "change", position: at(100), config: { rules: [{ t: "set", p: "topic", pt: "msg", to: "changed", tot: "str" }] } },
        { id: "w_out", type: "websocket-out", position: at(200), config: { server: whole } },
        { id: "b_in", type: "websocket-in", position: at(0), config: { server: plain } },
        { id: "b_out", type: "websocket-out", position: at(200), config: { server: plain } },
      ],
      connections: [
        { source: "w_in", target: "w_set" },
        { source: "w_set", target: "w_out" },
        { source: "b_in", target: "b_out" },
      ],
    });
    const w = rawSocket(`${upgrades.base}/ws/hooks/${me.slug}/whole`);
    await w.opened;
    w.ws.send(JSON.stringify({ payload: { n: 1 }, topic: "t", extra: true }));
    w.ws.send("42");
    w.ws.send("not json");
    const [first, second, third] = (await w.received(3)).map((f) => JSON.parse(String(f)) as Record<string, unknown>);
    expect(first).toMatchObject({ payload: { n: 1 }, topic: "changed", extra: true });
    expect(first).not.toHaveProperty("_session");
    expect(second).toMatchObject({ payload: 42, topic: "changed" });
    expect(third).toMatchObject({ payload: "not json", topic: "changed" });

    const bin = rawSocket(`${upgrades.base}/ws/hooks/${me.slug}/bin`);
    await bin.opened;
    bin.ws.send(Buffer.from([0, 1, 2, 255]));
    const [echoed] = await bin.received(1);
    expect(Buffer.isBuffer(echoed)).toBe(true);
    expect([...(echoed as Buffer)]).toEqual([0, 1, 2, 255]);
    w.ws.close();
    bin.ws.close();
  });

  it("closes a client that sends a frame past the bound (1009), and every client when the flow stops", async () => {
    const me = await owner();
    const id = await listener(me.token, "/bounded");
    const flowId = await echoFlow(me.token, "bd", id);
    const big = rawSocket(`${upgrades.base}/ws/hooks/${me.slug}/bounded`);
    await big.opened;
    big.ws.send("x".repeat(64 * 1024 + 1));
    expect((await big.closed).code).toBe(1009);

    const kept = rawSocket(`${upgrades.base}/ws/hooks/${me.slug}/bounded`);
    await kept.opened;
    expect((await request("DELETE", `/flows/${flowId}`, { token: me.token })).status).toBe(204);
    expect((await kept.closed).code).toBe(1001);
    expect(await upgradeStatus(`${upgrades.base}/ws/hooks/${me.slug}/bounded`)).toBe(404);
  });

  it("lets one client address hold at most WS_HOOK_SOCKETS_PER_IP of the organization's sockets (429 past it); a closed one frees its place", async () => {
    const me = await owner();
    const id = await listener(me.token, "/per-ip");
    await echoFlow(me.token, "pi", id);
    const narrow = await startUpgrades(testApp.app, { maxSocketsPerIp: 2 });
    try {
      const url = `${narrow.base}/ws/hooks/${me.slug}/per-ip`;
      const first = rawSocket(url);
      const second = rawSocket(url);
      await Promise.all([first.opened, second.opened]);
      expect(await upgradeStatus(url)).toBe(429);
      first.ws.close();
      await first.closed;
      // The server counts the close when its side of the socket ends (a moment after the client's).
      await expect.poll(() => upgradeStatus(url), { timeout: 3_000 }).toBe("open");
      second.ws.close();
    } finally {
      await narrow.close();
    }
  });

  it("keeps a frame no running flow takes at first (the flow moving to another instance) until it is served, instead of closing the client", async () => {
    const me = await owner();
    const id = await listener(me.token, "/moving");
    await echoFlow(me.token, "mv", id);
    const client = rawSocket(`${upgrades.base}/ws/hooks/${me.slug}/moving`);
    await client.opened;
    // For about a second the runtime finds no flow on the listener: what a hand-over or a failover
    // looks like from the edge (the lease names the new holder before the flow runs there).
    const runtime = testApp.app.flowRuntime;
    const real = runtime.handleWebhook.bind(runtime);
    const until = performance.now() + 1_000;
    let refusedCalls = 0;
    runtime.handleWebhook = async (slug, req) => {
      if (performance.now() < until) {
        refusedCalls++;
        return null;
      }
      return real(slug, req);
    };
    try {
      client.ws.send("one");
      client.ws.send("two");
      expect(await client.received(2, 8_000)).toEqual(["one", "two"]);
      expect(refusedCalls).toBeGreaterThan(1);
      expect(client.ws.readyState).toBe(client.ws.OPEN);
    } finally {
      runtime.handleWebhook = real;
      client.ws.close();
    }
  });

  it("refuses a second listener on a path the organization already serves (Node-RED's duplicate path)", async () => {
    const me = await owner();
    const first = await listener(me.token, "/dup");
    const second = await listener(me.token, "/dup");
    await echoFlow(me.token, "d1", first);
    const created = await request("POST", "/flows", {
      token: me.token,
      body: { name: "second", nodes: [{ id: "d2_in", type: "websocket-in", position: at(0), config: { server: second } }], connections: [] },
    });
    const deployed = await request("POST", `/flows/${created.body.flow.id}/deploy`, { token: me.token });
    expect(deployed.status, deployed.text).toBe(200);
    const statuses = await testApp.app.flowRuntime.nodeStatuses(created.body.flow.id as string);
    expect(statuses.get("d2_in")).toMatchObject({ fill: "red", shape: "ring", text: expect.stringContaining("another WebSocket listener already serves /dup") });
    // The first listener still serves the path.
    const client = rawSocket(`${upgrades.base}/ws/hooks/${me.slug}/dup`);
    await client.opened;
    client.ws.send("still here");
    expect(await client.received(1)).toEqual(["still here"]);
    client.ws.close();
  });
});
