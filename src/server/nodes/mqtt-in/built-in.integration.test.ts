/**
 * MQTT in on the app's own broker (`broker: "built-in"`, SPEC §20) through the doors a user uses: a
 * Node-RED flows.json imported over REST and deployed, the node's status and errors on /ws, a device
 * publishing with its key. The built-in broker has no shared subscriptions (the mqtt-broker node's
 * help says so): an MQTT in on `$share/…` says why it receives nothing, and the flow's other nodes
 * go on. Embedded by default; DATABASE_URL + REDIS_URL run it on PostgreSQL + Redis.
 */
import { afterAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { setUpTestHub, connect, type TestSocket } from "@/test/ws";
import { signUp } from "@/test/accounts";
import { setUpTestMqtt, sleep } from "@/test/mqtt";

const testApp = setUpTestApp();
const hub = setUpTestHub(testApp);
const mq = setUpTestMqtt(testApp);
const request = testApp.request;
const sockets: TestSocket[] = [];
afterAll(() => {
  for (const s of sockets) s.ws.close();
});

function flowsJson() {
  const tab = "f1f1f1f1f1f1f1f1";
  return [
    { id: tab, type: "tab", label: "Plant", disabled: false, info: "" },
    { id: "b0b0b0b0b0b0b0b0", type: "mqtt-broker", name: "own", broker: "built-in", port: "1883", clientid: "", autoConnect: true, usetls: false, protocolVersion: "4", keepalive: "60", cleansession: true },
    { id: "a1a1a1a1a1a1a1a1", type: "mqtt in", z: tab, name: "shared", topic: "$share/workers/plant/#", qos: "1", datatype: "utf8", broker: "b0b0b0b0b0b0b0b0", nl: false, rap: true, rh: 0, inputs: 0, x: 120, y: 80, wires: [["a2a2a2a2a2a2a2a2"]] },
    { id: "a2a2a2a2a2a2a2a2", type: "debug", z: tab, name: "from shared", active: true, tosidebar: true, console: false, tostatus: false, complete: "payload", targetType: "msg", x: 320, y: 80, wires: [] },
    { id: "c1c1c1c1c1c1c1c1", type: "mqtt in", z: tab, name: "plain", topic: "plant/#", qos: "1", datatype: "utf8", broker: "b0b0b0b0b0b0b0b0", nl: false, rap: true, rh: 0, inputs: 0, x: 120, y: 160, wires: [["c2c2c2c2c2c2c2c2"]] },
    { id: "c2c2c2c2c2c2c2c2", type: "debug", z: tab, name: "from plain", active: true, tosidebar: true, console: false, tostatus: false, complete: "payload", targetType: "msg", x: 320, y: 160, wires: [] },
  ];
}

describe("MQTT in on the built-in broker", () => {
  it("a $share/… topic is refused there with the reason on the node, and the flow's other MQTT in receives", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    const imported = await request("POST", "/flows/import", { token, body: { flows: flowsJson() } });
    expect(imported.status, imported.text).toBe(201);
    const flow = imported.body.flows[0] as { id: string; nodes: Array<{ id: string; type: string; config: Record<string, unknown> }>; connections: Array<{ source: string; target: string }> };
    const ins = flow.nodes.filter((n) => n.type === "mqtt-in");
    const shared = ins.find((n) => n.config.topic === "$share/workers/plant/#")!;
    const plain = ins.find((n) => n.config.topic === "plant/#")!;
    const debugOf = (source: string) => flow.connections.find((c) => c.source === source)!.target;

    const socket = connect(hub.url, { authorization: `Bearer ${token}` });
    sockets.push(socket);
    await socket.next((f) => f.type === "ready");
    const deployed = await request("POST", `/flows/${flow.id}/deploy`, { token });
    expect(deployed.status, deployed.text).toBe(200);

    const refused = await socket.next((f) => f.topic === "node.status" && f.data?.node_id === shared.id && typeof f.data?.error === "string");
    expect(refused.data.error).toMatch(/\$share\/workers\/plant\/#.*not allowed on the built-in broker \(shared\)/);
    await socket.next((f) => f.topic === "node.status" && f.data?.node_id === plain.id && f.data?.status?.text === "connected");
    // With Redis, the flow's subscription reaches the other side of the bus a moment after it is made.
    await sleep(200);

    const key = (await request("POST", "/api-keys", { token, body: { name: "line", kind: "device" } })).body.secret as string;
    const device = await mq.connect(mq.tcp, { password: key, clientId: "line-1" });
    await device.publish("plant/level", "42", { qos: 1 });
    const arrived = await socket.next((f) => f.topic === "debug" && f.data?.node_id === debugOf(plain.id));
    expect(arrived.data.msg).toBe("42");
    // Nothing reaches the shared node's debug.
    await sleep(300);
    expect(socket.frames.filter((f) => f.topic === "debug" && f.data?.node_id === debugOf(shared.id))).toEqual([]);
  });

  it("a topic written as ${NAME} or $(NAME) is the variable's value, as Node-RED maps it when the node starts; mqtt out's too", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    expect((await request("POST", "/variables", { token, body: { name: "LEVEL_TOPIC", value: "tank/level" } })).status).toBe(201);
    expect((await request("POST", "/variables", { token, body: { name: "ECHO_TOPIC", value: "tank/echo" } })).status).toBe(201);
    const tab = "e1e1e1e1e1e1e1e1";
    const file = [
      { id: tab, type: "tab", label: "Tank" },
      { id: "e0e0e0e0e0e0e0e0", type: "mqtt-broker", name: "own", broker: "built-in", port: "1883", clientid: "", autoConnect: true, usetls: false, protocolVersion: "4", keepalive: "60", cleansession: true },
      { id: "e2e2e2e2e2e2e2e2", type: "mqtt in", z: tab, name: "level", topic: "${LEVEL_TOPIC}", qos: "1", datatype: "utf8", broker: "e0e0e0e0e0e0e0e0", nl: false, rap: true, rh: 0, inputs: 0, x: 120, y: 80, wires: [["e3e3e3e3e3e3e3e3", "e4e4e4e4e4e4e4e4"]] },
      { id: "e3e3e3e3e3e3e3e3", type: "debug", z: tab, name: "level seen", active: true, tosidebar: true, console: false, tostatus: false, complete: "payload", targetType: "msg", x: 320, y: 80, wires: [] },
      { id: "e4e4e4e4e4e4e4e4", type: "mqtt out", z: tab, name: "echo", topic: "$(ECHO_TOPIC)", qos: "1", retain: "false", broker: "e0e0e0e0e0e0e0e0", x: 320, y: 140, wires: [] },
    ];
    const imported = await request("POST", "/flows/import", { token, body: { flows: file } });
    expect(imported.status, imported.text).toBe(201);
    const flow = imported.body.flows[0] as { id: string; nodes: Array<{ id: string; type: string; name: string }> };
    const debug = flow.nodes.find((n) => n.type === "debug")!;
    const level = flow.nodes.find((n) => n.type === "mqtt-in")!;
    const socket = connect(hub.url, { authorization: `Bearer ${token}` });
    sockets.push(socket);
    await socket.next((f) => f.type === "ready");
    expect((await request("POST", `/flows/${flow.id}/deploy`, { token })).status).toBe(200);
    await socket.next((f) => f.topic === "node.status" && f.data?.node_id === level.id && f.data?.status?.text === "connected");
    await sleep(200);

    const key = (await request("POST", "/api-keys", { token, body: { name: "tank", kind: "device" } })).body.secret as string;
    const device = await mq.connect(mq.tcp, { password: key, clientId: "tank-1" });
    await device.subscribe("tank/echo", 1);
    await device.publish("tank/level", "73", { qos: 1 });
    const arrived = await socket.next((f) => f.topic === "debug" && f.data?.node_id === debug.id);
    expect(arrived.data.msg).toBe("73");
    expect((await device.next((m) => m.topic === "tank/echo")).payload).toBe("73");
    await device.end();
  });
});
