import { afterAll, describe, expect, it } from "vitest";
import mqtt from "mqtt";
import { setUpTestApp } from "@/test/set-up-test-app";
import { setUpTestHub, connect, type TestSocket } from "@/test/ws";
import { signUp } from "@/test/accounts";
import { MOSQUITTO_URL } from "@/test/mosquitto";

/**
 * Issue 35 through the doors a user uses: a real Node-RED flows.json with MQTT nodes and an
 * mqtt-broker carrying its credentials is imported over REST (supported, no warnings), deployed; a
 * message published on Mosquitto reaches the flow's debug node over the WebSocket, an inject goes
 * out through mqtt-out; the export writes the broker back without its credentials. Without
 * OUTBOUND_ALLOW_PRIVATE the same flow runs but its broker on 127.0.0.1 is refused.
 */

const testApp = setUpTestApp({ OUTBOUND_ALLOW_PRIVATE: "true" });
const hub = setUpTestHub(testApp);
const request = testApp.request;
const T = `wt_mqtt/flows/${process.pid}-${Date.now().toString(36)}`;
const SECRET = "broker-pass-6b1f0e";

let watcher: mqtt.MqttClient | undefined;
afterAll(async () => {
  await watcher?.endAsync();
});

/** As Node-RED 5.0 exports a home-automation flow (with credentials, as "export with credentials" writes them). */
function flowsJson() {
  return [
    { id: "a1a1a1a1.b2b2b2", type: "tab", label: "Home sensors", disabled: false, info: "" },
    { id: "c3c3c3c3.d4d4d4", type: "mqtt in", z: "a1a1a1a1.b2b2b2", name: "temperatures", topic: `${T}/sensors/+/temp`, qos: "1", datatype: "auto-detect", broker: "e5e5e5e5.f6f6f6", nl: false, rap: true, rh: 0, inputs: 0, x: 130, y: 80, wires: [["d7d7d7d7.e8e8e8"]] },
    { id: "d7d7d7d7.e8e8e8", type: "debug", z: "a1a1a1a1.b2b2b2", name: "", active: true, tosidebar: true, console: false, tostatus: false, complete: "true", targetType: "full", statusVal: "", statusType: "auto", x: 370, y: 80, wires: [] },
    { id: "f9f9f9f9.a0a0a0", type: "inject", z: "a1a1a1a1.b2b2b2", name: "command", props: [{ p: "payload" }, { p: "topic", vt: "str" }], repeat: "", crontab: "", once: false, onceDelay: 0.1, topic: `${T}/heater/set`, payload: '{"on":true}', payloadType: "json", x: 120, y: 160, wires: [["b1b1b1b1.c2c2c2"]] },
    { id: "b1b1b1b1.c2c2c2", type: "mqtt out", z: "a1a1a1a1.b2b2b2", name: "", topic: "", qos: "1", retain: "", respTopic: "", contentType: "", userProps: "", correl: "", expiry: "", broker: "e5e5e5e5.f6f6f6", x: 350, y: 160, wires: [] },
    {
      id: "e5e5e5e5.f6f6f6",
      type: "mqtt-broker",
      name: "home mosquitto",
      broker: "127.0.0.1",
      port: "1883",
      clientid: "",
      autoConnect: true,
      usetls: false,
      protocolVersion: "4",
      keepalive: "60",
      cleansession: true,
      autoUnsubscribe: true,
      birthTopic: `${T}/status`,
      birthQos: "0",
      birthRetain: "false",
      birthPayload: "online",
      birthMsg: {},
      closeTopic: "",
      closeQos: "0",
      closeRetain: "false",
      closePayload: "",
      closeMsg: {},
      willTopic: "",
      willQos: "0",
      willRetain: "false",
      willPayload: "",
      willMsg: {},
      userProps: "",
      sessionExpiry: "",
      credentials: { user: "flows", password: SECRET },
    },
  ];
}

describe("MQTT flows imported from Node-RED, deployed and run against Mosquitto", () => {
  it("import (supported), deploy, receive and publish, export without credentials", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    const dry = await request("POST", "/flows/import?dry_run=true", { token, body: { flows: flowsJson() } });
    expect(dry.status, dry.text).toBe(200);
    for (const r of dry.body.report) expect(r, JSON.stringify(r)).toMatchObject({ support: "supported" });

    const imported = await request("POST", "/flows/import", { token, body: { flows: flowsJson() } });
    expect(imported.status, imported.text).toBe(201);
    expect(imported.body.warnings.filter((w: string) => !/was renamed|imported as/.test(w))).toEqual([]);
    const broker = (await request("GET", "/config-nodes/e5e5e5e5-f6f6f6", { token })).body.config_node;
    expect(broker).toMatchObject({ type: "mqtt-broker", name: "home mosquitto", config: { broker: "127.0.0.1", port: 1883, protocolVersion: 4, birthTopic: `${T}/status`, birthPayload: "online" }, credentials: { user: { set: true }, password: { set: true } } });
    const flow = imported.body.flows[0];
    const mqttIn = flow.nodes.find((n: { type: string }) => n.type === "mqtt-in");
    const inject = flow.nodes.find((n: { type: string }) => n.type === "inject");
    const debug = flow.nodes.find((n: { type: string }) => n.type === "debug");
    expect(mqttIn.config).toMatchObject({ topic: `${T}/sensors/+/temp`, qos: 1, datatype: "auto-detect", broker: "e5e5e5e5-f6f6f6" });

    watcher = await mqtt.connectAsync(MOSQUITTO_URL);
    const seen: Array<{ topic: string; payload: string }> = [];
    watcher.on("message", (topic, payload) => seen.push({ topic, payload: payload.toString() }));
    await watcher.subscribeAsync(`${T}/#`);

    const socket: TestSocket = connect(hub.url, { authorization: `Bearer ${token}` });
    await socket.next((f) => f.type === "ready");
    const deployed = await request("POST", `/flows/${flow.id}/deploy`, { token });
    expect(deployed.status, deployed.text).toBe(200);
    expect(deployed.body.deployment).toMatchObject({ state: "running" });
    await socket.next((f) => f.topic === "node.status" && f.data?.node_id === mqttIn.id && f.data?.status?.text === "connected");
    // The birth message announces the connection.
    await expect.poll(() => seen.filter((m) => m.topic === `${T}/status`).map((m) => m.payload)).toEqual(["online"]);

    await watcher.publishAsync(`${T}/sensors/kitchen/temp`, '{"c":21.5}', { qos: 1 });
    const arrived = await socket.next((f) => f.topic === "debug" && f.data?.node_id === debug.id);
    expect(arrived.data.msg).toMatchObject({ topic: `${T}/sensors/kitchen/temp`, payload: { c: 21.5 }, qos: 1, retain: false });

    expect((await request("POST", `/nodes/${inject.id}/inject`, { token, body: {} })).status).toBe(200);
    await expect.poll(() => seen.filter((m) => m.topic === `${T}/heater/set`).map((m) => m.payload)).toEqual(['{"on":true}']);

    const exported = await request("GET", `/flows/${flow.id}/export`, { token });
    expect(exported.status).toBe(200);
    expect(exported.text).not.toContain(SECRET);
    const items = exported.body as Array<Record<string, unknown>>;
    expect(items.find((n) => n.type === "mqtt-broker")).toMatchObject({ id: "e5e5e5e5-f6f6f6", broker: "127.0.0.1", port: 1883, birthTopic: `${T}/status`, birthQos: "0", birthRetain: "false" });
    expect(items.find((n) => n.type === "mqtt in")).toMatchObject({ topic: `${T}/sensors/+/temp`, qos: "1", datatype: "auto-detect", broker: "e5e5e5e5-f6f6f6" });
    expect(items.find((n) => n.type === "mqtt out")).toMatchObject({ qos: "1", broker: "e5e5e5e5-f6f6f6" });
    expect(JSON.stringify(socket.frames)).not.toContain(SECRET);
    socket.ws.close();
  });

  it("a Node-RED 1.x broker with compatmode (legacy MQTT 3.1) imports as protocol 3, reported supported, as Node-RED's runtime connects it", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    const flows = flowsJson().map((n) => (n.type === "mqtt-broker" ? { ...n, id: "c0c0c0c0.d1d1d1", protocolVersion: undefined, compatmode: true } : "broker" in n ? { ...n, broker: "c0c0c0c0.d1d1d1" } : n));
    for (const n of flows) if (n.id !== "c0c0c0c0.d1d1d1") n.id = `${n.id.slice(0, 9)}${Math.random().toString(16).slice(2, 8)}`;
    const dry = await request("POST", "/flows/import?dry_run=true", { token, body: { flows } });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.report.find((r: { type: string }) => r.type === "mqtt-broker")).toEqual({ node_id: "c0c0c0c0.d1d1d1", type: "mqtt-broker", support: "supported" });
    const imported = await request("POST", "/flows/import", { token, body: { flows } });
    expect(imported.status, imported.text).toBe(201);
    expect((await request("GET", "/config-nodes/c0c0c0c0-d1d1d1", { token })).body.config_node.config).toMatchObject({ protocolVersion: 3 });
  });

  it("a broker's port and keep-alive written as ${NAME} (Node-RED's validators.number allows it): imported as references, connected with the variables' values; a variable that is no port is the nodes' error", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    expect((await request("POST", "/variables", { token, body: { name: "MQTT_PORT", value: "1883" } })).status).toBe(201);
    expect((await request("POST", "/variables", { token, body: { name: "MQTT_KEEPALIVE", value: "30" } })).status).toBe(201);
    // Ids of this test's own (every reference renamed with them); the broker's port and keep-alive are references.
    let text = JSON.stringify(flowsJson().map((n) => (n.type === "mqtt-broker" ? { ...n, port: "${MQTT_PORT}", keepalive: "${MQTT_KEEPALIVE}", birthTopic: "", credentials: undefined } : n)));
    for (const id of flowsJson().map((n) => n.id)) text = text.replaceAll(id, id === "e5e5e5e5.f6f6f6" ? "e1e1e1e1.f2f2f2" : `${id.slice(0, 9)}${Math.random().toString(16).slice(2, 8)}`);
    const flows = JSON.parse(text) as ReturnType<typeof flowsJson>;
    const dry = await request("POST", "/flows/import?dry_run=true", { token, body: { flows } });
    expect(dry.status, dry.text).toBe(200);
    for (const r of dry.body.report) expect(r, JSON.stringify(r)).toMatchObject({ support: "supported" });
    const imported = await request("POST", "/flows/import", { token, body: { flows } });
    expect(imported.status, imported.text).toBe(201);
    expect((await request("GET", "/config-nodes/e1e1e1e1-f2f2f2", { token })).body.config_node.config).toMatchObject({ broker: "127.0.0.1", port: "${MQTT_PORT}", keepalive: "${MQTT_KEEPALIVE}" });
    const flow = imported.body.flows[0];
    const mqttIn = flow.nodes.find((n: { type: string }) => n.type === "mqtt-in");
    const debug = flow.nodes.find((n: { type: string }) => n.type === "debug");

    const socket: TestSocket = connect(hub.url, { authorization: `Bearer ${token}` });
    await socket.next((f) => f.type === "ready");
    expect((await request("POST", `/flows/${flow.id}/deploy`, { token })).status).toBe(200);
    await socket.next((f) => f.topic === "node.status" && f.data?.node_id === mqttIn.id && f.data?.status?.text === "connected");
    const publisher = await mqtt.connectAsync(MOSQUITTO_URL);
    try {
      await publisher.publishAsync(`${T}/sensors/hall/temp`, "19", { qos: 1 });
      const arrived = await socket.next((f) => f.topic === "debug" && f.data?.node_id === debug.id);
      expect(arrived.data.msg).toMatchObject({ topic: `${T}/sensors/hall/temp`, payload: 19 });
    } finally {
      await publisher.endAsync();
    }
    const exported = (await request("GET", `/flows/${flow.id}/export`, { token })).body as Array<Record<string, unknown>>;
    expect(exported.find((n) => n.type === "mqtt-broker")).toMatchObject({ port: "${MQTT_PORT}", keepalive: "${MQTT_KEEPALIVE}" });

    // The variable changes to something that is no port: the next connection (a redeploy) says so and is not made.
    expect((await request("PUT", "/variables/MQTT_PORT", { token, body: { value: "eighteen-eighty-three" } })).status).toBe(200);
    expect((await request("POST", `/flows/${flow.id}/deploy`, { token })).status).toBe(200);
    const refused = await socket.next((f) => f.topic === "node.status" && f.data?.node_id === mqttIn.id && typeof f.data?.error === "string");
    expect(refused.data.error).toContain('Port is ${MQTT_PORT}, whose value "eighteen-eighty-three" is not a whole number from 1 to 65535');
    // Deleted: not set.
    expect((await request("DELETE", "/variables/MQTT_PORT", { token })).status).toBe(204);
    expect((await request("POST", `/flows/${flow.id}/deploy`, { token })).status).toBe(200);
    const unset = await socket.next((f) => f.topic === "node.status" && f.data?.node_id === mqttIn.id && /not set/.test(f.data?.error ?? ""));
    expect(unset.data.error).toContain("Port is ${MQTT_PORT}, which is not set");
    socket.ws.close();
  });

  it("a flow's broker config node, saved with a bad reference or values, is refused with the property named", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    const bad = await request("POST", "/config-nodes", { token, body: { type: "mqtt-broker", name: "x", config: { broker: "127.0.0.1", port: 70000 } } });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/port/);
    for (const port of ["1883x", "${MQTT PORT}", "$(MQTT_PORT)", "${MQTT_PORT}:1"]) {
      const notReference = await request("POST", "/config-nodes", { token, body: { type: "mqtt-broker", name: "x", config: { broker: "127.0.0.1", port } } });
      expect(notReference.status, port).toBe(400);
      expect(notReference.body.error.details, port).toContainEqual(expect.objectContaining({ path: expect.stringContaining("port") }));
    }
    const badTls = await request("POST", "/config-nodes", { token, body: { type: "mqtt-broker", name: "x", config: { broker: "127.0.0.1", tls: "nope" } } });
    expect(badTls.status).toBe(400);
    expect(badTls.text).toMatch(/tls/);
    const flowBad = await request("POST", "/flows", { token, body: { name: "x", nodes: [{ id: "m1", type: "mqtt-in", position: { x: 0, y: 0 }, config: { topic: "a", broker: "missing" } }], connections: [] } });
    expect(flowBad.status).toBe(400);
    expect(flowBad.text).toMatch(/broker/);
  });
});
