/**
 * Devices and the agent protocol through the doors a user and an agent use (SPEC §22): REST for
 * GET/PUT /devices and device flows, /ws for a `device_` key speaking the agent frames (a scripted
 * agent here; packages/agent/test runs the real one as a process).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKeyPairSync, createPublicKey } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { createTestApp, restClient } from "@/test/app";
import { joinAs, signUp } from "@/test/accounts";
import { connect, startHub, type TestSocket } from "@/test/ws";
import type { AppServices } from "@/server/app-services";
// The agent's own half of the sealing (plain JS, shipped in packages/agent).
import { openSealed } from "../../../../packages/agent/lib/seal.js";

let app: AppServices;
let request: ReturnType<typeof restClient>;
let hub: Awaited<ReturnType<typeof startHub>>;

beforeAll(async () => {
  app = await createTestApp();
  request = restClient(app);
  hub = await startHub(app);
});
afterAll(async () => {
  await hub?.close();
  await app?.close();
});

const ready = (f: Record<string, unknown>) => f.type === "ready";

async function deviceKey(token: string, name: string) {
  const key = (await request("POST", "/api-keys", { token, body: { name, kind: "device" } })).body;
  const device = (await request("GET", "/devices", { token })).body.devices.find((d: { key_id: string }) => d.key_id === key.api_key.id);
  return { secret: key.secret as string, keyId: key.api_key.id as string, deviceId: device.id as string };
}

function agentKeys() {
  const { privateKey } = generateKeyPairSync("x25519");
  return { privateKey, publicKey: createPublicKey(privateKey).export({ format: "der", type: "spki" }).toString("base64") };
}

async function helloAgent(secret: string, publicKey: string, applied: Record<string, string> = {}, revision?: string): Promise<TestSocket> {
  const s = connect(hub.url, { "x-api-key": secret });
  await s.next(ready);
  s.send({ type: "agent.hello", agent_version: "0.1.0", node_red_version: "5.0.7", node_types: ["inject", "debug", "counter", "ha-entity"], public_key: publicKey, applied, ...(revision ? { revision } : {}) });
  return s;
}

describe("GET /devices and PUT /devices/{id}", () => {
  it("lists a device per device key, with an agent's versions and node types once it said hello; admins rename and tag it", async () => {
    const owner = await signUp(request);
    const { secret, deviceId, keyId } = await deviceKey(owner.accessToken, "pi-1");
    const listed = (await request("GET", "/devices", { token: owner.accessToken })).body.devices;
    expect(listed).toEqual([{ id: deviceId, key_id: keyId, name: "pi-1", kind: "channel", online: false, last_seen_at: null, tags: [] }]);

    const { publicKey } = agentKeys();
    const agent = await helloAgent(secret, publicKey);
    const device = await waitFor(async () => {
      const d = (await request("GET", "/devices", { token: owner.accessToken })).body.devices[0];
      return d.kind === "agent" ? d : undefined;
    });
    expect(device).toMatchObject({ online: true, agent_version: "0.1.0", node_red_version: "5.0.7", node_types: ["counter", "debug", "ha-entity", "inject"], last_seen_at: expect.any(String) });

    const member = await joinAs(app, request, owner, "member");
    const refused = await request("PUT", `/devices/${deviceId}`, { token: member.token, body: { name: "x" } });
    expect(refused.status).toBe(403);
    const bad = await request("PUT", `/devices/${deviceId}`, { token: owner.accessToken, body: { tags: [""] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe("tags[0]");
    const renamed = await request("PUT", `/devices/${deviceId}`, { token: owner.accessToken, body: { name: "kitchen pi", tags: ["kitchen", "kitchen", "pi"] } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.device).toMatchObject({ id: deviceId, name: "kitchen pi", tags: ["kitchen", "pi"], online: true });
    expect((await request("GET", "/devices/dev_doesnotexist0000", { token: owner.accessToken })).status).toBe(404);

    // Import for the device: its types count as supported, and the flows target it with those nodes enabled.
    const nodeRed = [
      { id: "t1", type: "tab", label: "home" },
      { id: "n1", type: "ha-entity", z: "t1", name: "lamp", x: 100, y: 100, wires: [] },
      { id: "n2", type: "teleport", z: "t1", x: 200, y: 100, wires: [] },
      { id: "n3", type: "mqtt in", z: "t1", topic: "home/#", broker: "b9", x: 100, y: 200, wires: [[]] },
      { id: "b9", type: "mqtt-broker", broker: "localhost", port: "1883" },
    ];
    const hostedReport = await request("POST", "/flows/import?dry_run=true", { token: owner.accessToken, body: { flows: nodeRed } });
    expect(hostedReport.body.report.find((r: { node_id: string }) => r.node_id === "n1")).toMatchObject({ support: "unsupported" });
    const report = await request("POST", `/flows/import?dry_run=true&target_device=${deviceId}`, { token: owner.accessToken, body: { flows: nodeRed } });
    expect(report.status).toBe(200);
    expect(report.body.report.find((r: { node_id: string }) => r.node_id === "n1")).toMatchObject({ type: "ha-entity", support: "supported", reason: expect.stringContaining(deviceId) });
    expect(report.body.report.find((r: { node_id: string }) => r.node_id === "n2")).toMatchObject({ support: "unsupported" });
    // A broker on the device's own network is reached from there: only the hosted import says it is not.
    expect(hostedReport.body.warnings.join("\n")).toMatch(/mqtt-broker \(b9\): its broker localhost is this machine's own name/);
    expect(report.body.warnings.join("\n")).not.toMatch(/localhost/);
    const imported = await request("POST", `/flows/import?target_device=${deviceId}`, { token: owner.accessToken, body: { flows: nodeRed } });
    expect(imported.status).toBe(201);
    expect(imported.body.flows[0].target).toEqual({ device_id: deviceId });
    const lamp = imported.body.flows[0].nodes.find((n: { id: string }) => n.id === "n1");
    expect(lamp).toMatchObject({ type: "unknown", disabled: false, config: { original_type: "ha-entity" } });
    expect((await request("POST", "/flows/import?dry_run=true&target_device=dev_notmine0000000", { token: owner.accessToken, body: { flows: nodeRed } })).status).toBe(404);
    agent.ws.close();
  });
});

describe("a flow that targets a device", () => {
  it("takes the device's node types, never runs hosted, deploys to the agent with its secrets sealed, and publishes the agent's debug with device_id, secrets redacted", async () => {
    const owner = await signUp(request);
    const { secret, deviceId } = await deviceKey(owner.accessToken, "pi-2");
    const keys = agentKeys();
    const agent = await helloAgent(secret, keys.publicKey);
    await waitFor(async () => ((await request("GET", "/devices", { token: owner.accessToken })).body.devices[0].kind === "agent" ? true : undefined));

    const nodes = [
      { id: "dv-inject", type: "inject", config: { payload_type: "string", payload: "tick" } },
      // The counter names API_TOKEN (as a Node-RED flow would: `${API_TOKEN}` in a property).
      { id: "dv-counter", type: "counter", config: { step: 2, token: "${API_TOKEN}" } },
      { id: "dv-debug", type: "debug" },
    ];
    const connections = [
      { source: "dv-inject", source_port: 0, target: "dv-counter" },
      { source: "dv-counter", source_port: 0, target: "dv-debug" },
    ];
    // A type neither we nor the device have is refused; a hosted flow refuses the device's type.
    expect((await request("POST", "/flows", { token: owner.accessToken, body: { name: "x", nodes: [{ id: "q1", type: "teleport" }], target: { device_id: deviceId } } })).status).toBe(400);
    expect((await request("POST", "/flows", { token: owner.accessToken, body: { name: "x", nodes, connections } })).status).toBe(400);
    expect((await request("POST", "/flows", { token: owner.accessToken, body: { name: "x", target: { device_id: "dev_notmine0000000" } } })).status).toBe(400);
    const created = await request("POST", "/flows", { token: owner.accessToken, body: { name: "on the pi", nodes, connections, target: { device_id: deviceId } } });
    expect(created.status).toBe(201);
    const flowId = created.body.flow.id as string;
    expect(created.body.flow.nodes[1]).toMatchObject({ id: "dv-counter", type: "unknown", config: { original_type: "counter", properties: { step: 2 }, outputs: 1 } });
    await request("POST", "/variables", { token: owner.accessToken, body: { name: "API_TOKEN", value: "s3cret-value-xyz", secret: true, flow_id: flowId } });
    await request("POST", "/variables", { token: owner.accessToken, body: { name: "SITE", value: "kitchen", flow_id: flowId } });
    // Secrets the flow does not name stay on the server: a device's Node-RED would hand them to any node.
    await request("POST", "/variables", { token: owner.accessToken, body: { name: "UNUSED_KEY", value: "never-on-the-pi", secret: true } });
    await request("POST", "/variables", { token: owner.accessToken, body: { name: "API_TOKEN_OLD", value: "old-token-value", secret: true } });

    const deploying = request("POST", `/flows/${flowId}/deploy`, { token: owner.accessToken });
    const frame = await agent.next((f) => f.type === "agent.deploy", 10_000);
    expect(Object.keys(frame.deployments)).toEqual([flowId]);
    const tab = frame.flows.find((n: { id: string }) => n.id === flowId);
    expect(tab).toMatchObject({ type: "tab", label: "on the pi", env: [{ name: "SITE", value: "kitchen", type: "str" }] });
    expect(frame.flows.find((n: { id: string }) => n.id === "dv-counter")).toMatchObject({ type: "counter", z: flowId, step: 2, wires: [["dv-debug"]] });
    expect(JSON.stringify(frame)).not.toContain("s3cret-value-xyz");
    expect(JSON.parse(openSealed(keys.privateKey, frame.sealed))).toEqual({ credentials: {}, env: { [flowId]: { API_TOKEN: "s3cret-value-xyz" } } });
    expect(JSON.stringify(frame)).not.toContain("UNUSED_KEY");
    agent.send({ type: "agent.applied", applied: frame.deployments });
    const deployed = await deploying;
    expect(deployed.status).toBe(200);
    expect(deployed.body).toMatchObject({ pending: [], devices: [{ device_id: deviceId, state: "applied", online: true, deployment_id: frame.deployments[flowId] }] });
    // The hosted runtime does not run it.
    expect(await app.flowRuntime.placement(flowId)).toBeNull();

    const ui = connect(hub.url, { authorization: `Bearer ${owner.accessToken}` });
    await ui.next(ready);
    const inject = await request("POST", "/nodes/dv-inject/inject", { token: owner.accessToken, body: { payload: 7 } });
    expect(inject.status).toBe(200);
    const injectFrame = await agent.next((f) => f.type === "agent.inject");
    expect(injectFrame).toEqual({ type: "agent.inject", flow_id: flowId, node_id: "dv-inject", message_id: inject.body.message_id, payload: 7 });

    agent.send({ type: "agent.debug", flow_id: flowId, node_id: "dv-debug", name: "", property: "payload", msg: { token: "s3cret-value-xyz", n: 2 }, format: "Object" });
    const debug = await ui.next((f) => f.type === "event" && f.topic === "debug");
    expect(debug).toMatchObject({ flow_id: flowId, device_id: deviceId, data: { node_id: "dv-debug", msg: { token: "***", n: 2 } } });
    agent.send({ type: "agent.status", flow_id: flowId, node_id: "dv-counter", status: { fill: "green", shape: "dot", text: "2" } });
    expect(await ui.next((f) => f.topic === "node.status")).toMatchObject({ device_id: deviceId, data: { node_id: "dv-counter", status: { text: "2" } } });

    // Another organization's flow is not the device's to report on.
    const other = await signUp(request);
    const foreign = (await request("POST", "/flows", { token: other.accessToken, body: { name: "theirs" } })).body.flow.id;
    agent.send({ type: "agent.debug", flow_id: foreign, node_id: "n", msg: "spoof" });
    expect(await agent.next((f) => f.type === "error")).toMatchObject({ code: "NOT_FOUND" });

    // Offline: 202 with the device pending; it gets the deployment when it says hello again.
    agent.ws.close();
    await agent.closed;
    await waitFor(async () => ((await request("GET", "/devices", { token: owner.accessToken })).body.devices[0].online ? undefined : true));
    const offline = await request("POST", `/flows/${flowId}/deploy`, { token: owner.accessToken });
    expect(offline.status).toBe(202);
    expect(offline.body.pending).toEqual([deviceId]);
    const back = await helloAgent(secret, keys.publicKey, frame.deployments);
    const redeploy = await back.next((f) => f.type === "agent.deploy");
    expect(redeploy.deployments).toEqual({ [flowId]: offline.body.deployment.id });
    back.send({ type: "agent.applied", applied: redeploy.deployments });
    await waitFor(async () => ((await request("GET", "/devices", { token: owner.accessToken })).body.devices[0].deployment_id === offline.body.deployment.id ? true : undefined));
    const state = (await request("GET", `/flows/${flowId}`, { token: owner.accessToken })).body.flow;
    expect(state).toMatchObject({ target: { device_id: deviceId }, devices: [{ device_id: deviceId, state: "applied" }] });

    // Back to hosted: the device drops it on that deploy; a deleted device flow is dropped too.
    const hosted = await request("PUT", `/flows/${flowId}`, { token: owner.accessToken, body: { target: "hosted", nodes: [{ id: "dv-inject", type: "inject" }], connections: [] } });
    expect(hosted.status).toBe(200);
    expect(hosted.body.flow.target).toBe("hosted");
    const seen = back.frames.length;
    expect((await request("POST", `/flows/${flowId}/deploy`, { token: owner.accessToken })).status).toBe(200);
    const dropped = await back.next((f) => f.type === "agent.deploy" && back.frames.indexOf(f) >= seen);
    expect(dropped).toMatchObject({ deployments: {}, flows: [] });
    back.ws.close();
    ui.ws.close();
  });

  it("a deployment the device cannot run is refused with why, answered at once; the device goes on with what it ran, and takes it once it can", async () => {
    const owner = await signUp(request);
    const { secret, deviceId } = await deviceKey(owner.accessToken, "pi-4");
    const keys = agentKeys();
    const agent = await helloAgent(secret, keys.publicKey); // inject, debug, counter, ha-entity: no `change`
    await waitFor(async () => ((await request("GET", "/devices", { token: owner.accessToken })).body.devices[0].kind === "agent" ? true : undefined));
    const created = await request("POST", "/flows", {
      token: owner.accessToken,
      body: { name: "pi four", nodes: [{ id: "rf-inject", type: "inject" }, { id: "rf-debug", type: "debug" }], connections: [{ source: "rf-inject", target: "rf-debug" }], target: { device_id: deviceId } },
    });
    expect(created.status, created.text).toBe(201);
    const flowId = created.body.flow.id as string;
    const deploying = request("POST", `/flows/${flowId}/deploy`, { token: owner.accessToken });
    const first = await agent.next((f) => f.type === "agent.deploy");
    agent.send({ type: "agent.applied", applied: first.deployments });
    expect((await deploying).status).toBe(200);
    const v1 = first.deployments[flowId] as string;

    // A `change` node (ours, so the flow saves), which this device did not report.
    const flow = (await request("GET", `/flows/${flowId}`, { token: owner.accessToken })).body.flow;
    const withChange = await request("PUT", `/flows/${flowId}`, {
      token: owner.accessToken,
      body: {
        revision: flow.revision,
        nodes: [...flow.nodes, { id: "rf-change", type: "change", config: { rules: [{ t: "set", p: "payload", p_type: "msg", to: "x", to_type: "str" }] } }],
        connections: [
          { source: "rf-inject", target: "rf-change" },
          { source: "rf-change", target: "rf-debug" },
        ],
      },
    });
    expect(withChange.status, withChange.text).toBe(200);
    const seen = agent.frames.length;
    // An open flow page hears every change of the devices' states (flow.devices), as it happens.
    const ui = connect(hub.url, { authorization: `Bearer ${owner.accessToken}` });
    await ui.next(ready);
    const deviceEvents = () => ui.frames.filter((f) => f.type === "event" && f.topic === "flow.devices" && f.flow_id === flowId).map((f) => f.data.devices[0]);
    // The agent does not answer at all: the refusal is the server's, so the deploy does not wait for it.
    const refused = await request("POST", `/flows/${flowId}/deploy`, { token: owner.accessToken });
    expect(refused.status).toBe(202);
    expect(refused.body.pending).toEqual([deviceId]);
    expect(refused.body.devices).toEqual([
      { device_id: deviceId, name: "pi-4", online: true, state: "refused", deployment_id: v1, error: expect.stringMatching(/^this device has no node type change: install it/) },
    ]);
    const v2 = refused.body.deployment.id as string;
    // What it is sent is what it ran: the flow's earlier deployment, never one its Node-RED would wait on.
    const kept = await agent.next((f) => f.type === "agent.deploy" && agent.frames.indexOf(f) >= seen);
    expect(kept.deployments).toEqual({ [flowId]: v1 });
    expect(kept.flows.map((n: { type: string }) => n.type)).not.toContain("change");
    expect((await request("GET", `/flows/${flowId}`, { token: owner.accessToken })).body.flow.devices).toEqual([expect.objectContaining({ state: "refused", deployment_id: v1 })]);
    // The Devices list says it too, with the flow's name.
    const listed = (await request("GET", "/devices", { token: owner.accessToken })).body.devices[0];
    expect(listed).toMatchObject({ deployment_id: v1, refused: [{ flow_id: flowId, flow_name: "pi four", deployment_id: v2, error: expect.stringContaining("no node type change") }] });

    // With `change` installed it says hello again, and gets the refused deployment.
    agent.ws.close();
    await agent.closed;
    const back = connect(hub.url, { "x-api-key": secret });
    await back.next(ready);
    back.send({ type: "agent.hello", agent_version: "0.1.0", node_red_version: "5.0.7", node_types: ["inject", "debug", "change"], public_key: keys.publicKey, applied: { [flowId]: v1 } });
    const now = await back.next((f) => f.type === "agent.deploy");
    expect(now.deployments).toEqual({ [flowId]: v2 });
    back.send({ type: "agent.applied", applied: now.deployments });
    const applied = await waitFor(async () => {
      const devices = (await request("GET", `/flows/${flowId}`, { token: owner.accessToken })).body.flow.devices;
      return devices[0].state === "applied" ? devices : undefined;
    });
    expect(applied).toEqual([{ device_id: deviceId, name: "pi-4", online: true, state: "applied", deployment_id: v2, error: null }]);
    await waitFor(async () => (deviceEvents().some((d) => d.state === "applied") ? true : undefined));
    // Refused; then, said hello with `change`, no longer refused but not yet applied (pending); then applied.
    expect(deviceEvents().map((d) => [d.state, d.deployment_id])).toEqual([
      ["refused", v1],
      ["pending", v1],
      ["applied", v2],
    ]);
    expect((await request("GET", `/devices/${deviceId}`, { token: owner.accessToken })).body.device).toMatchObject({ deployment_id: v2, refused: [] });

    // The agent's own refusal (its Node-RED threw): shown the same way, with its words, the organization's secrets redacted.
    expect((await request("POST", "/variables", { token: owner.accessToken, body: { name: "PI_PASSWORD", value: "hunter2-pi-4", secret: true } })).status).toBe(201);
    const seenBack = back.frames.length;
    const v3deploy = request("POST", `/flows/${flowId}/deploy`, { token: owner.accessToken });
    const third = await back.next((f) => f.type === "agent.deploy" && back.frames.indexOf(f) >= seenBack);
    back.send({ type: "agent.applied", applied: { [flowId]: v2 }, error: "Error: boom in a node's constructor (password hunter2-pi-4)", failed: third.deployments });
    const v3 = await v3deploy;
    expect(v3.status).toBe(202);
    expect(v3.body.devices).toEqual([{ device_id: deviceId, name: "pi-4", online: true, state: "refused", deployment_id: v2, error: "the device's Node-RED could not apply it: Error: boom in a node's constructor (password ***)" }]);
    expect(JSON.stringify((await request("GET", "/devices", { token: owner.accessToken })).body)).not.toContain("hunter2-pi-4");
    await waitFor(async () => (deviceEvents().length === 4 ? true : undefined));
    expect(deviceEvents()[3]).toMatchObject({ state: "refused", deployment_id: v2, error: "the device's Node-RED could not apply it: Error: boom in a node's constructor (password ***)" });
    expect(JSON.stringify(ui.frames)).not.toContain("hunter2-pi-4");
    ui.ws.close();
    back.ws.close();
  });

  it("never sends a device a secret that has allowed hosts: a deployment naming one is refused with why, and the device keeps what it ran", async () => {
    const owner = await signUp(request);
    const { secret, deviceId } = await deviceKey(owner.accessToken, "pi-5");
    const keys = agentKeys();
    let agent = await helloAgent(secret, keys.publicKey);
    await waitFor(async () => ((await request("GET", "/devices", { token: owner.accessToken })).body.devices[0].kind === "agent" ? true : undefined));
    expect((await request("POST", "/variables", { token: owner.accessToken, body: { name: "MQTT_PASS", value: "plain-secret-5", secret: true } })).status).toBe(201);
    const paykey = await request("POST", "/variables", { token: owner.accessToken, body: { name: "PAYKEY", value: "pay-secret-5", secret: true, allowed_hosts: ["api.example.com"] } });
    expect(paykey.status, paykey.text).toBe(201);
    const counter = (config: Record<string, unknown>) => ({ id: "ah-counter", type: "counter", config: { step: 1, ...config } });
    const created = await request("POST", "/flows", {
      token: owner.accessToken,
      // Its name mentions PAYKEY, which is not a use of it: neither refused nor sent.
      body: { name: "pi five", nodes: [{ id: "ah-inject", type: "inject", name: "no PAYKEY here" }, counter({ password: "${MQTT_PASS}" })], connections: [{ source: "ah-inject", target: "ah-counter" }], target: { device_id: deviceId } },
    });
    expect(created.status, created.text).toBe(201);
    const flowId = created.body.flow.id as string;
    const deploying = request("POST", `/flows/${flowId}/deploy`, { token: owner.accessToken });
    const first = await agent.next((f) => f.type === "agent.deploy");
    expect(JSON.parse(openSealed(keys.privateKey, first.sealed))).toEqual({ credentials: {}, env: { [flowId]: { MQTT_PASS: "plain-secret-5" } } });
    agent.send({ type: "agent.applied", applied: first.deployments });
    expect((await deploying).status).toBe(200);
    const v1 = first.deployments[flowId] as string;

    // A new value of a secret the flow names reaches the device without a redeploy (SPEC §14); one it does not name sends nothing.
    let seen = agent.frames.length;
    expect((await request("PUT", "/variables/MQTT_PASS", { token: owner.accessToken, body: { value: "rotated-secret-5" } })).status).toBe(200);
    const rotated = await agent.next((f) => f.type === "agent.deploy" && agent.frames.indexOf(f) >= seen);
    expect(rotated.deployments).toEqual({ [flowId]: v1 });
    expect(JSON.parse(openSealed(keys.privateKey, rotated.sealed))).toEqual({ credentials: {}, env: { [flowId]: { MQTT_PASS: "rotated-secret-5" } } });
    agent.send({ type: "agent.applied", applied: rotated.deployments });
    seen = agent.frames.length;
    expect((await request("POST", "/variables", { token: owner.accessToken, body: { name: "OTHER_5", value: "x" } })).status).toBe(201);
    await sleep(500);
    expect(agent.frames.slice(seen).filter((f) => f.type === "agent.deploy")).toEqual([]);

    // Away while it changes again: its hello says which frame it applied (same deployments, old
    // values), so it is sent the new one; saying the current one, it is sent nothing.
    agent.ws.close();
    await agent.closed;
    expect((await request("PUT", "/variables/MQTT_PASS", { token: owner.accessToken, body: { value: "rotated-while-away" } })).status).toBe(200);
    agent = await helloAgent(secret, keys.publicKey, { [flowId]: v1 }, rotated.revision);
    const caughtUp = await agent.next((f) => f.type === "agent.deploy");
    expect(caughtUp.deployments).toEqual({ [flowId]: v1 });
    expect(caughtUp.revision).not.toBe(rotated.revision);
    expect(JSON.parse(openSealed(keys.privateKey, caughtUp.sealed))).toEqual({ credentials: {}, env: { [flowId]: { MQTT_PASS: "rotated-while-away" } } });
    agent.send({ type: "agent.applied", applied: caughtUp.deployments });
    agent.ws.close();
    await agent.closed;
    agent = await helloAgent(secret, keys.publicKey, { [flowId]: v1 }, caughtUp.revision);
    await sleep(500);
    expect(agent.frames.filter((f) => f.type === "agent.deploy")).toEqual([]);

    // The flow now reads PAYKEY as a device's function would: the server refuses it for the device, at once.
    const flow = (await request("GET", `/flows/${flowId}`, { token: owner.accessToken })).body.flow;
    const saved = await request("PUT", `/flows/${flowId}`, { token: owner.accessToken, body: { revision: flow.revision, nodes: [flow.nodes[0], counter({ password: "${MQTT_PASS}", code: 'env.get("PAYKEY")' })] } });
    expect(saved.status, saved.text).toBe(200);
    seen = agent.frames.length;
    const refused = await request("POST", `/flows/${flowId}/deploy`, { token: owner.accessToken });
    expect(refused.status).toBe(202);
    expect(refused.body.devices).toEqual([
      { device_id: deviceId, name: "pi-5", online: true, state: "refused", deployment_id: v1, error: expect.stringMatching(/^the secret PAYKEY \(api\.example\.com\) may be sent only to its allowed hosts, which a device cannot promise/) },
    ]);
    const kept = await agent.next((f) => f.type === "agent.deploy" && agent.frames.indexOf(f) >= seen);
    expect(kept.deployments).toEqual({ [flowId]: v1 });
    expect(JSON.parse(openSealed(keys.privateKey, kept.sealed))).toEqual({ credentials: {}, env: { [flowId]: { MQTT_PASS: "rotated-while-away" } } });

    // Without its allowed hosts (an admin's decision) it may go: the device takes the refused deployment at once, the secret sealed.
    seen = agent.frames.length;
    expect((await request("PUT", "/variables/PAYKEY", { token: owner.accessToken, body: { value: "pay-secret-5", allowed_hosts: null } })).status).toBe(200);
    const now = await agent.next((f) => f.type === "agent.deploy" && agent.frames.indexOf(f) >= seen);
    expect(now.deployments).toEqual({ [flowId]: refused.body.deployment.id });
    expect(JSON.parse(openSealed(keys.privateKey, now.sealed))).toEqual({ credentials: {}, env: { [flowId]: { MQTT_PASS: "rotated-while-away", PAYKEY: "pay-secret-5" } } });
    agent.send({ type: "agent.applied", applied: now.deployments });
    const applied = await waitFor(async () => {
      const devices = (await request("GET", `/flows/${flowId}`, { token: owner.accessToken })).body.flow.devices;
      return devices[0].state === "applied" ? devices : undefined;
    });
    expect(applied).toEqual([expect.objectContaining({ state: "applied", deployment_id: refused.body.deployment.id, error: null })]);

    // Given allowed hosts again, the device drops the flow at once (both what it runs and what it should run name PAYKEY), and says why.
    seen = agent.frames.length;
    expect((await request("PUT", "/variables/PAYKEY", { token: owner.accessToken, body: { value: "pay-secret-5", allowed_hosts: ["api.example.com"] } })).status).toBe(200);
    const dropped = await agent.next((f) => f.type === "agent.deploy" && agent.frames.indexOf(f) >= seen);
    expect(dropped).toMatchObject({ deployments: {}, flows: [], sealed: null });
    agent.ws.close();
  });

  it("refuses agent frames from anything but a device key", async () => {
    const owner = await signUp(request);
    const ui = connect(hub.url, { authorization: `Bearer ${owner.accessToken}` });
    await ui.next(ready);
    ui.send({ type: "agent.hello", agent_version: "1", node_red_version: "5", node_types: [], public_key: "x", applied: {} });
    expect(await ui.next((f) => f.type === "error")).toMatchObject({ code: "FORBIDDEN" });
    const { secret } = await deviceKey(owner.accessToken, "pi-3");
    const dev = connect(hub.url, { "x-api-key": secret });
    await dev.next(ready);
    dev.send({ type: "agent.debug", flow_id: "flw_x", node_id: "n", msg: 1 });
    expect(await dev.next((f) => f.type === "error")).toMatchObject({ code: "INVALID_FRAME" });
    dev.send({ type: "agent.hello", agent_version: "1", node_red_version: "5", node_types: [], public_key: "bm90LWEta2V5", applied: {} });
    expect(await dev.next((f) => f.type === "error" && f.code === "VALIDATION_FAILED")).toMatchObject({ message: expect.stringContaining("public_key") });
    ui.ws.close();
    dev.ws.close();
  });
});

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error("not within the time");
    await new Promise((r) => setTimeout(r, 50));
  }
}
