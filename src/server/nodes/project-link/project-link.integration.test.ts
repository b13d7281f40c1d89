/**
 * FlowFuse's project link nodes through the doors a user uses: a flows.json with FlowFuse's
 * `project link in/out/call` (as FlowFuse's Remote Buffering blueprint and its own examples write
 * them) imported over REST, deployed as separate flows, driven by an inject and a webhook; the
 * messages cross the organization's built-in broker, where a device of the organization sees them
 * and another organization's flows and devices do not. Embedded by default; DATABASE_URL +
 * REDIS_URL run it on PostgreSQL + Redis (the broker's messages then go through Redis).
 */
import { afterAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { setUpTestHub, connect, type TestSocket } from "@/test/ws";
import { signUp } from "@/test/accounts";
import { handleWebhookUrl } from "@/server/api/rest/webhook-handler";
import { setUpTestMqtt, sleep } from "@/test/mqtt";

const testApp = setUpTestApp();
const hub = setUpTestHub(testApp);
const mq = setUpTestMqtt(testApp);
const request = testApp.request;
const sockets: TestSocket[] = [];
afterAll(() => {
  for (const s of sockets) s.ws.close();
});

const FOREIGN_INSTANCE = "23d79df8-183c-4104-aa97-8915e1897326";
const TOPIC = "acme_manufacturing/plant_01/floor_2/cell_a/machine_A12/measurements";

/** Four tabs as FlowFuse's editor exports them: a broadcaster, a listener, a caller behind a webhook, and the called flow. */
function flowsJson() {
  return [
    { id: "aa01aa01aa01aa01", type: "tab", label: "Machine A12", disabled: false, info: "" },
    { id: "aa02aa02aa02aa02", type: "tab", label: "Buffer", disabled: false, info: "" },
    { id: "aa03aa03aa03aa03", type: "tab", label: "Price API", disabled: false, info: "" },
    { id: "aa04aa04aa04aa04", type: "tab", label: "Price lookup", disabled: false, info: "" },
    { id: "b1b1b1b1b1b1b1b1", type: "inject", z: "aa01aa01aa01aa01", name: "reading", props: [{ p: "payload" }], repeat: "", crontab: "", once: false, onceDelay: 0.1, topic: "", payload: '{"temperature":61.5}', payloadType: "json", x: 120, y: 80, wires: [["b2b2b2b2b2b2b2b2"]] },
    { id: "b2b2b2b2b2b2b2b2", type: "project link out", z: "aa01aa01aa01aa01", name: "machine_A12 measurements", mode: "link", broadcast: true, project: "", topic: TOPIC, x: 380, y: 80, wires: [] },
    { id: "c1c1c1c1c1c1c1c1", type: "project link in", z: "aa02aa02aa02aa02", name: "machine_A12 measurements", project: "all", broadcast: true, topic: TOPIC, x: 200, y: 80, wires: [["c2c2c2c2c2c2c2c2"]] },
    { id: "c2c2c2c2c2c2c2c2", type: "debug", z: "aa02aa02aa02aa02", name: "", active: true, tosidebar: true, console: false, tostatus: false, complete: "true", targetType: "full", statusVal: "", statusType: "auto", x: 420, y: 80, wires: [] },
    { id: "d1d1d1d1d1d1d1d1", type: "http in", z: "aa03aa03aa03aa03", name: "", url: "/price", method: "get", upload: false, swaggerDoc: "", x: 100, y: 80, wires: [["d2d2d2d2d2d2d2d2"]] },
    { id: "d2d2d2d2d2d2d2d2", type: "project link call", z: "aa03aa03aa03aa03", name: "", project: FOREIGN_INSTANCE, topic: "lookup/price", timeout: "10", x: 300, y: 80, wires: [["d3d3d3d3d3d3d3d3"]] },
    { id: "d3d3d3d3d3d3d3d3", type: "http response", z: "aa03aa03aa03aa03", name: "", statusCode: "", headers: {}, x: 500, y: 80, wires: [] },
    { id: "e1e1e1e1e1e1e1e1", type: "project link in", z: "aa04aa04aa04aa04", name: "", project: "", broadcast: false, topic: "lookup/price", x: 120, y: 80, wires: [["e2e2e2e2e2e2e2e2"]] },
    {
      id: "e2e2e2e2e2e2e2e2",
      type: "change",
      z: "aa04aa04aa04aa04",
      name: "price",
      rules: [{ t: "set", p: "payload", pt: "msg", to: '{"sku": payload.sku, "price": 4.5, "req_was": req}', tot: "jsonata" }],
      x: 300,
      y: 80,
      wires: [["e3e3e3e3e3e3e3e3"]],
    },
    { id: "e3e3e3e3e3e3e3e3", type: "project link out", z: "aa04aa04aa04aa04", name: "", mode: "return", broadcast: false, project: "", topic: "", x: 480, y: 80, wires: [] },
  ];
}

async function slugOf(organizationId: string) {
  return (await testApp.app.db.prisma.organization.findUniqueOrThrow({ where: { id: organizationId } })).slug;
}

describe("FlowFuse's project link nodes, imported and deployed", () => {
  it("import (supported, the FlowFuse instance reported), deploy, broadcast to a listener in another flow, and a call behind a webhook answered by a third", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    const dry = await request("POST", "/flows/import?dry_run=true", { token, body: { flows: flowsJson() } });
    expect(dry.status, dry.text).toBe(200);
    for (const r of dry.body.report) expect(r.support, JSON.stringify(r)).toBe("supported");
    const call = dry.body.report.find((r: { type: string }) => r.type === "project link call");
    expect(JSON.stringify(call)).toContain(`FlowFuse instance ${FOREIGN_INSTANCE}`);

    const imported = await request("POST", "/flows/import", { token, body: { flows: flowsJson() } });
    expect(imported.status, imported.text).toBe(201);
    const flows = imported.body.flows as Array<{ id: string; name: string; nodes: Array<{ id: string; type: string; config: Record<string, unknown> }> }>;
    expect(flows).toHaveLength(4);
    const byName = Object.fromEntries(flows.map((f) => [f.name, f]));
    expect(byName["Price API"]!.nodes.find((n) => n.type === "project-link-call")!.config).toEqual({ project: "flows", topic: "lookup/price", timeout_seconds: 10 });
    expect(byName["Machine A12"]!.nodes.find((n) => n.type === "project-link-out")!.config).toEqual({ mode: "link", broadcast: true, project: "flows", topic: TOPIC });

    // A device of the organization watches every broadcast; another organization's device and flow listen on the same topic.
    const key = (await request("POST", "/api-keys", { token, body: { name: "edge", kind: "device" } })).body.secret as string;
    const device = await mq.connect(mq.tcp, { password: key, clientId: "edge-1", protocolVersion: 5 });
    await device.subscribe(`ff/v1/${owner.organizationId}/p/+/out/#`, 1);
    const other = await signUp(request);
    const otherKey = (await request("POST", "/api-keys", { token: other.accessToken, body: { name: "edge", kind: "device" } })).body.secret as string;
    const otherDevice = await mq.connect(mq.tcp, { password: otherKey, clientId: "edge-x", protocolVersion: 5 });
    await otherDevice.subscribe("#", 1);
    const otherFlow = await request("POST", "/flows", {
      token: other.accessToken,
      body: {
        name: "eavesdropper",
        nodes: [
          { id: "oin", type: "project-link-in", config: { broadcast: true, project: "all", topic: TOPIC } },
          { id: "odebug", type: "debug", config: {} },
        ],
        connections: [{ source: "oin", target: "odebug" }],
      },
    });
    expect(otherFlow.status, otherFlow.text).toBe(201);
    expect((await request("POST", `/flows/${otherFlow.body.flow.id}/deploy`, { token: other.accessToken })).status).toBe(200);
    const otherSocket = connect(hub.url, { authorization: `Bearer ${other.accessToken}` });
    sockets.push(otherSocket);
    await otherSocket.next((f) => f.type === "ready");

    const socket = connect(hub.url, { authorization: `Bearer ${token}` });
    sockets.push(socket);
    await socket.next((f) => f.type === "ready");
    for (const f of flows) {
      const deployed = await request("POST", `/flows/${f.id}/deploy`, { token });
      expect(deployed.status, deployed.text).toBe(200);
    }
    const listener = byName["Buffer"]!;
    const listenerIn = listener.nodes.find((n) => n.type === "project-link-in")!;
    await socket.next((f) => f.topic === "node.status" && f.data?.node_id === listenerIn.id && f.data?.status?.text === "connected");
    // With Redis, subscriptions reach the other side of the bus a moment after they are made.
    await sleep(200);

    const inject = byName["Machine A12"]!.nodes.find((n) => n.type === "inject")!;
    expect((await request("POST", `/nodes/${inject.id}/inject`, { token, body: {} })).status).toBe(200);
    const debugNode = listener.nodes.find((n) => n.type === "debug")!;
    const arrived = await socket.next((f) => f.topic === "debug" && f.data?.node_id === debugNode.id);
    expect(arrived.flow_id).toBe(listener.id);
    expect(arrived.data.msg).toMatchObject({ payload: { temperature: 61.5 }, projectLink: { instanceId: "flows", projectId: "flows", applicationId: "", topic: TOPIC } });

    const seen = await device.next((m) => m.topic.endsWith(TOPIC));
    expect(seen.topic).toBe(`ff/v1/${owner.organizationId}/p/flows/out/${TOPIC}`);
    expect(JSON.parse(seen.payload)).toMatchObject({ payload: { temperature: 61.5 } });
    expect(seen.properties).toMatchObject({ contentType: "application/json", userProperties: { _projectID: "flows" } });

    // A device broadcasts too, as FlowFuse's topics say: the flow's listener takes it.
    await device.publish(`ff/v1/${owner.organizationId}/p/dev:edge-1/out/${TOPIC}`, JSON.stringify({ payload: { temperature: 70 } }), {
      qos: 1,
      properties: { userProperties: { _deviceId: "edge-1", _deviceName: "Edge 1" } },
    });
    const fromDevice = await socket.next((f) => f.topic === "debug" && f.data?.node_id === debugNode.id && f.data?.msg?.payload?.temperature === 70);
    expect(fromDevice.data.msg.projectLink).toMatchObject({ deviceId: "edge-1", deviceName: "Edge 1", topic: TOPIC });

    // The call: http in → project link call → (the lookup flow) → project link out (return) → http response.
    const slug = await slugOf(owner.organizationId);
    const answer = await handleWebhookUrl(testApp.app, new Request(`http://app.test/hooks/${slug}/price?sku=X-1`));
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { sku: string; price: number; req_was: string };
    expect(body).toMatchObject({ sku: "X-1", price: 4.5 });
    // The called flow saw FlowFuse's marker string REQ:<event id>, not the request.
    expect(body.req_was).toMatch(/^REQ:[0-9a-f]{28}$/);

    // Another organization's device aims at this organization's topic: it lands in its own space.
    await otherDevice.publish(`ff/v1/${owner.organizationId}/p/dev:x/out/${TOPIC}`, JSON.stringify({ payload: { temperature: -1 } }), { qos: 1 });
    await sleep(300);
    expect(socket.frames.filter((f) => f.topic === "debug" && f.data?.msg?.payload?.temperature === -1)).toEqual([]);
    expect(otherSocket.frames.filter((f) => f.topic === "debug")).toEqual([]);
    expect(otherDevice.messages.map((m) => m.topic)).toEqual([`ff/v1/${owner.organizationId}/p/dev:x/out/${TOPIC}`]);

    // Each message a project in received started an execution of the listening flow (SPEC §15).
    await expect
      .poll(async () => (await request("GET", `/flows/${listener.id}/executions`, { token })).body.executions.filter((e: { trigger_node_id: string }) => e.trigger_node_id === listenerIn.id).length)
      .toBeGreaterThanOrEqual(2);

    const exported = await request("GET", `/flows/${byName["Price API"]!.id}/export`, { token });
    expect(exported.status).toBe(200);
    expect((exported.body as Array<Record<string, unknown>>).find((n) => n.type === "project link call")).toMatchObject({ project: "flows", topic: "lookup/price", timeout: "10" });
  });

  it("a flow saved with a wildcard topic, or a call to all instances, is refused with the property named, and nothing is saved", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    const before = (await request("GET", "/flows", { token })).body.flows.length;
    for (const [node, property] of [
      [{ id: "n1", type: "project-link-in", config: { topic: "plant/#" } }, "topic"],
      [{ id: "n1", type: "project-link-call", config: { project: "all", topic: "x" } }, "project"],
      [{ id: "n1", type: "project-link-out", config: { mode: "link", topic: "" } }, "topic"],
    ] as const) {
      const res = await request("POST", "/flows", { token, body: { name: "bad", nodes: [node], connections: [] } });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_FAILED");
      expect(res.text).toContain(property);
    }
    expect((await request("GET", "/flows", { token })).body.flows.length).toBe(before);
  });
});
