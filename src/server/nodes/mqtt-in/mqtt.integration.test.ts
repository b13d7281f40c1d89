import { execFileSync } from "node:child_process";
import https from "node:https";
import net from "node:net";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import mqtt from "mqtt";
import { WebSocketServer, createWebSocketStream, type WebSocket } from "ws";
import { closingTestFlows, gateNode, variablesFrom } from "@/test/runtime-harness";
import { createOutboundRules } from "@/server/runtime/outbound";
import { ConnectionPool } from "@/server/runtime/connections";
import { VariableSet, type VariableValue } from "@/server/runtime/variables";
import type { NodeFactory, RuntimeServices } from "@/server/runtime/types";
import type { ConfigNodeSnapshot } from "@/shared/config-nodes";
import { makeTestCertificates, type TestCertificates } from "@/test/tls-fixtures";
import { MOSQUITTO_URL, startMosquitto, type OwnMosquitto } from "@/test/mosquitto";
import { TcpProxy } from "@/test/tcp-proxy";

/**
 * mqtt-in, mqtt-out and mqtt-broker through deployed flows against real Mosquitto brokers (issue 35):
 * the machine's shared one (topics under wt_mqtt/) and ones of the tests' own on ports 4410-4419
 * for TLS, WebSocket and passwords (and 4202, wss://). The message-for-message comparison with Node-RED is
 * mqtt-diff.integration.test.ts.
 */

const loadTestFlow = closingTestFlows();
const T = `wt_mqtt/it/${process.pid}-${Date.now().toString(36)}`;
const seal = (value: string) => `sealed:${Buffer.from(value).toString("base64")}`;
const services = (allowPrivate = true, extra: RuntimeServices = {}): RuntimeServices => ({
  outbound: createOutboundRules({ allowPrivate }),
  openCredential: (sealed) => Buffer.from(sealed.slice("sealed:".length), "base64").toString("utf8"),
  instanceId: "inst-a",
  ...extra,
});
const broker = (id: string, config: Record<string, unknown>, credentials: Record<string, string> = {}, revision = 1, type = "mqtt-broker"): ConfigNodeSnapshot => ({
  id,
  type,
  name: "",
  config,
  revision,
  sealed_credentials: Object.fromEntries(Object.entries(credentials).map(([k, v]) => [k, seal(v)])),
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** mqtt-out → broker → mqtt-in in one flow; returns the flow. */
async function roundTrip(configNodes: Record<string, ConfigNodeSnapshot>, topic: string, options: { services?: RuntimeServices; vars?: ReturnType<typeof variables>; inConfig?: Record<string, unknown> } = {}) {
  return loadTestFlow(
    [
      { id: "in", type: "mqtt-in", config: { broker: "b1", topic, qos: 1, datatype: "utf8", ...options.inConfig } },
      { id: "out", type: "mqtt-out", config: { broker: "b1" } },
      { id: "sink", type: "sink" },
    ],
    [{ source: "in", target: "sink" }],
    options.services ?? services(),
    {},
    { configNodes, ...(options.vars ? variablesFrom(options.vars) : {}) },
  );
}
type Flow = Awaited<ReturnType<typeof roundTrip>>;
const connected = (flow: Flow, node = "in") => flow.statuses.some((s) => s.nodeId === node && s.status?.text === "connected");
const lastStatus = (flow: Flow, node = "in") => flow.statuses.filter((s) => s.nodeId === node).at(-1)?.status?.text;

function variables(vars: Record<string, VariableValue>) {
  let current = new VariableSet(new Map(Object.entries(vars)), new Map());
  return { current: () => current, replace: (next: Record<string, VariableValue>) => (current = new VariableSet(new Map(Object.entries(next)), new Map())) };
}

describe("mqtt nodes against the shared Mosquitto", () => {
  it("publishes and receives through one broker, with the status dots of Node-RED", async () => {
    const flow = await roundTrip({ b1: broker("b1", { broker: "127.0.0.1", port: 1883 }) }, `${T}/rt`);
    await expect.poll(() => connected(flow) && connected(flow, "out"), { timeout: 5000 }).toBe(true);
    expect(flow.statuses.find((s) => s.nodeId === "in")?.status).toEqual({ fill: "red", shape: "ring", text: "disconnected" });
    expect(flow.statuses.some((s) => s.nodeId === "in" && s.status?.text === "connecting" && s.status.fill === "yellow")).toBe(true);
    await sleep(100);
    flow.send("out", { topic: `${T}/rt`, payload: { a: 1 }, qos: 1 });
    await flow.waitFor(1);
    expect(flow.received[0]).toMatchObject({ topic: `${T}/rt`, payload: '{"a":1}', qos: 1, retain: false });
  });

  it("every node of a broker shows connecting until the connection is made, also an mqtt-in whose flow starts after it began", async () => {
    // mqtt-out registers as it is created and starts the connection; mqtt-in registers when the flow starts.
    const proxy = new TcpProxy({ host: "127.0.0.1", port: 1883 }, { connectDelayMs: 300 });
    const port = await proxy.start();
    try {
      // A node slow to be created holds the flow's start (so mqtt-in's registration) 50 ms after mqtt-out's.
      const slow: NodeFactory = async () => (await sleep(50), {});
      const flow = await loadTestFlow(
        [
          { id: "out", type: "mqtt-out", config: { broker: "b1" } },
          { id: "slow", type: "slow" },
          { id: "in", type: "mqtt-in", config: { broker: "b1", topic: `${T}/slow`, qos: 1, datatype: "utf8" } },
        ],
        [],
        services(),
        { slow },
        { configNodes: { b1: broker("b1", { broker: "127.0.0.1", port }) } },
      );
      await expect.poll(() => connected(flow) && connected(flow, "out"), { timeout: 5000 }).toBe(true);
      for (const node of ["in", "out"]) {
        // As in Node-RED, the node that starts the connection is told "connecting" twice (at once and 1 ms later).
        const texts = flow.statuses.filter((s) => s.nodeId === node).map((s) => s.status?.text);
        expect(texts.filter((t, i) => t !== texts[i - 1]), node).toEqual(["disconnected", "connecting", "connected"]);
      }
    } finally {
      await proxy.stop();
    }
  });

  it("refuses a private broker address unless the operator allows private targets (OUTBOUND_ALLOW_PRIVATE)", async () => {
    const literal = await roundTrip({ b1: broker("b1", { broker: "127.0.0.1", port: 1883 }) }, `${T}/priv`, { services: services(false) });
    await expect.poll(() => literal.errors.map((e) => e.error).join("\n"), { timeout: 3000 }).toMatch(/127\.0\.0\.1 is a private or reserved address/);
    const named = await roundTrip({ b1: broker("b1", { broker: "mqtt://localhost:1883" }) }, `${T}/priv`, { services: services(false) });
    await expect.poll(() => named.errors.map((e) => e.error).join("\n"), { timeout: 3000 }).toMatch(/localhost resolves to .*private or reserved/);
    await sleep(300);
    expect(connected(literal)).toBe(false);
    expect(connected(named)).toBe(false);
    // Every node of the connection says why, the one that registered after the failure too (mqtt-in registers when its flow starts).
    for (const flow of [literal, named]) {
      expect(new Set(flow.errors.filter((e) => /private or reserved/.test(e.error)).map((e) => e.nodeId))).toEqual(new Set(["in", "out"]));
      expect(lastStatus(flow, "in")).toBe("disconnected");
    }
  });

  it("shares one connection per broker revision on an instance between flows, and a new revision opens another", async () => {
    const pool = new ConnectionPool();
    const b1 = broker("b1", { broker: "127.0.0.1", port: 1883 });
    const flows = await Promise.all(
      ["flw_a", "flw_b"].map((flowId) =>
        loadTestFlow(
          [
            { id: "in", type: "mqtt-in", config: { broker: "b1", topic: `${T}/shared`, qos: 0, datatype: "utf8" } },
            { id: "sink", type: "sink" },
          ],
          [{ source: "in", target: "sink" }],
          services(),
          {},
          { configNodes: { b1 }, connections: pool, flowId },
        ),
      ),
    );
    expect(pool.size()).toBe(1);
    await expect.poll(() => flows.every((f) => connected(f)), { timeout: 5000 }).toBe(true);
    const publisher = await mqtt.connectAsync(MOSQUITTO_URL);
    await sleep(100);
    await publisher.publishAsync(`${T}/shared`, "both");
    for (const f of flows) await f.waitFor(1);
    expect(flows.map((f) => f.received.map((m) => m.payload))).toEqual([["both"], ["both"]]);
    const next = await loadTestFlow([{ id: "out", type: "mqtt-out", config: { broker: "b1" } }], [], services(), {}, { configNodes: { b1: { ...b1, revision: 2 } }, connections: pool, flowId: "flw_c" });
    expect(pool.size()).toBe(2);
    await next.close();
    expect(pool.size()).toBe(1);
    await publisher.endAsync();
  });

  it.each([0, 1] as const)("publishes a burst larger than the socket takes at once, in order and none lost (QoS %i)", async (qos) => {
    const flow = await loadTestFlow([{ id: "out", type: "mqtt-out", config: { broker: "b1" } }], [], services(), {}, { configNodes: { b1: broker("b1", { broker: "127.0.0.1", port: 1883 }) } });
    await expect.poll(() => connected(flow, "out"), { timeout: 5000 }).toBe(true);
    const receiver = await mqtt.connectAsync(MOSQUITTO_URL);
    const got: number[] = [];
    receiver.on("message", (_t, p) => got.push(p.readUInt32BE(0)));
    await receiver.subscribeAsync(`${T}/burst/${qos}`, { qos: 1 });
    // 600 messages of 64 KiB (about 38 MiB) sent at once: the socket is full long before the last,
    // so most are written while it is full (QoS 0: done when it drains, behind one listener).
    const N = 600;
    for (let i = 0; i < N; i++) {
      const payload = Buffer.alloc(64 * 1024, i % 251);
      payload.writeUInt32BE(i, 0);
      flow.send("out", { topic: `${T}/burst/${qos}`, payload, qos });
    }
    await expect.poll(() => got.length, { timeout: 20_000 }).toBe(N);
    expect(got).toEqual(Array.from({ length: N }, (_, i) => i));
    await receiver.endAsync();
  });

  it("a persistent session's stored messages wait for the flow that subscribes to them, started after the connection", async () => {
    const clientId = `fp-settle-${process.pid}-${Date.now().toString(36)}`;
    const topic = `${T}/settle`;
    // The session as a previous instance left it: subscribed, then gone without unsubscribing.
    const before = await mqtt.connectAsync(MOSQUITTO_URL, { clientId, clean: false });
    await before.subscribeAsync(topic, { qos: 1 });
    await before.endAsync();
    const publisher = await mqtt.connectAsync(MOSQUITTO_URL);
    for (const p of ["s1", "s2", "s3"]) await publisher.publishAsync(topic, p, { qos: 1 });
    await publisher.endAsync();
    // The next instance: a flow with only an mqtt-out starts first and connects the session (the
    // broker sends the stored messages at once); the flow with the mqtt-in starts 1.5 s later.
    const pool = new ConnectionPool();
    const b1 = broker("b1", { broker: "127.0.0.1", port: 1883, clientid: clientId, cleansession: false });
    const first = await loadTestFlow([{ id: "out", type: "mqtt-out", config: { broker: "b1" } }], [], services(), {}, { configNodes: { b1 }, connections: pool, flowId: "flw_first" });
    await expect.poll(() => connected(first, "out"), { timeout: 5000 }).toBe(true);
    await sleep(1500);
    const second = await loadTestFlow(
      [
        { id: "in", type: "mqtt-in", config: { broker: "b1", topic, qos: 1, datatype: "utf8" } },
        { id: "sink", type: "sink" },
      ],
      [{ source: "in", target: "sink" }],
      services(),
      {},
      { configNodes: { b1 }, connections: pool, flowId: "flw_second" },
    );
    expect(pool.size()).toBe(1);
    await second.waitFor(3, 5000);
    expect(second.received.map((m) => m.payload)).toEqual(["s1", "s2", "s3"]);
  });

  it("while the flow is busy, reading QoS 1 messages pauses; as it catches up the rest arrive, none lost, in order", async () => {
    const gate = gateNode();
    const flow = await loadTestFlow(
      [
        { id: "in", type: "mqtt-in", config: { broker: "b1", topic: `${T}/bp`, qos: 1, datatype: "utf8" } },
        { id: "hold", type: "hold" },
        { id: "sink", type: "sink" },
      ],
      [
        { source: "in", target: "hold" },
        { source: "hold", target: "sink" },
      ],
      services(),
      { hold: gate.factory },
      { configNodes: { b1: broker("b1", { broker: "127.0.0.1", port: 1883 }) }, highWaterMark: 4 },
    );
    await expect.poll(() => connected(flow), { timeout: 5000 }).toBe(true);
    await sleep(100);
    const publisher = await mqtt.connectAsync(MOSQUITTO_URL);
    for (let i = 0; i < 40; i++) await publisher.publishAsync(`${T}/bp`, `m${i}`, { qos: 1 });
    await sleep(600);
    // Paused: the flow holds about its high-water mark; the rest waits at the broker.
    expect(gate.held()).toBeGreaterThanOrEqual(4);
    expect(gate.held()).toBeLessThan(8);
    gate.release();
    await flow.waitFor(40, 5000);
    expect(flow.received.map((m) => m.payload)).toEqual(Array.from({ length: 40 }, (_, i) => `m${i}`));
    await publisher.endAsync();
  });
});

describe("mqtt-broker: TLS, WebSocket, passwords, will and reconnects (brokers of the tests' own)", () => {
  let pem: TestCertificates;
  let tlsBroker: OwnMosquitto;
  let authBroker: OwnMosquitto;
  let wsBridge: WebSocketServer;
  let wsPort = 0;
  /** wss://: a TLS terminator (the test CA's localhost certificate) in front of the same WebSocket bridge. */
  let wssServer: https.Server;
  let wssBridge: WebSocketServer;
  const WSS_PORT = 4202;
  const passwd = (dir: string, user: string, password: string) => execFileSync("mosquitto_passwd", ["-b", "-c", path.join(dir, "passwd"), user, password]);

  beforeAll(async () => {
    pem = makeTestCertificates();
    tlsBroker = await startMosquitto(4411, (dir) => {
      writeFileSync(path.join(dir, "ca.pem"), pem.ca);
      writeFileSync(path.join(dir, "server.pem"), pem.serverCert);
      writeFileSync(path.join(dir, "server.key"), pem.serverKey);
      return ["listener 4411 127.0.0.1", `cafile ${dir}/ca.pem`, `certfile ${dir}/server.pem`, `keyfile ${dir}/server.key`, "allow_anonymous true", "persistence false"];
    });
    authBroker = await startMosquitto(4412, (dir) => {
      passwd(dir, "flow-user", "first-secret");
      return ["listener 4412 127.0.0.1", `password_file ${dir}/passwd`, "allow_anonymous false", "persistence false"];
    });
    // Debian's Mosquitto 2.0.11 cannot open a websockets listener here: a WebSocket server that
    // carries each connection's binary frames to the shared Mosquitto plays the WebSocket broker.
    const bridge = (socket: WebSocket) => {
      const stream = createWebSocketStream(socket);
      const tcp = net.connect(1883, "127.0.0.1");
      stream.pipe(tcp).pipe(stream);
      const end = () => {
        tcp.destroy();
        socket.terminate();
      };
      tcp.on("error", end).on("close", end);
      stream.on("error", end).on("close", end);
    };
    wsBridge = new WebSocketServer({ host: "127.0.0.1", port: 4413, handleProtocols: () => "mqtt" });
    wsBridge.on("connection", bridge);
    await new Promise<void>((resolve) => wsBridge.once("listening", () => resolve()));
    wsPort = 4413;
    wssServer = https.createServer({ cert: pem.serverCert, key: pem.serverKey });
    wssBridge = new WebSocketServer({ server: wssServer, handleProtocols: () => "mqtt" });
    wssBridge.on("connection", bridge);
    await new Promise<void>((resolve) => wssServer.listen(WSS_PORT, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    await tlsBroker?.stop();
    await authBroker?.stop();
    for (const c of wsBridge?.clients ?? []) c.terminate();
    await new Promise<void>((resolve) => (wsBridge ? wsBridge.close(() => resolve()) : resolve()));
    for (const c of wssBridge?.clients ?? []) c.terminate();
    wssServer?.closeAllConnections();
    await new Promise<void>((resolve) => (wssServer ? wssServer.close(() => resolve()) : resolve()));
  });

  const tlsConfig = (config: Record<string, unknown>, credentials: Record<string, string>) => broker("tls1", config, credentials, 1, "tls-config");

  it("connects over TLS with the tls-config's CA and server name, and not without a trusted CA", async () => {
    const ok = await roundTrip(
      { b1: broker("b1", { broker: "127.0.0.1", port: 4411, usetls: true, tls: "tls1" }), tls1: tlsConfig({ servername: "localhost" }, { cadata: pem.ca }) },
      `${T}/tls`,
    );
    await expect.poll(() => connected(ok) && connected(ok, "out"), { timeout: 5000 }).toBe(true);
    await sleep(100);
    ok.send("out", { topic: `${T}/tls`, payload: "over tls" });
    await ok.waitFor(1);
    expect(ok.received[0]).toMatchObject({ payload: "over tls" });

    const untrusted = await roundTrip(
      { b1: broker("b1", { broker: "mqtts://127.0.0.1:4411", tls: "tls1", usetls: true }), tls1: tlsConfig({ servername: "localhost" }, { cadata: pem.otherCa }) },
      `${T}/tls`,
    );
    await expect.poll(() => untrusted.errors.map((e) => e.error).join("\n"), { timeout: 5000 }).toMatch(/self[- ]signed|unable to (verify|get)|certificate/i);
    expect(connected(untrusted)).toBe(false);

    const wrongName = await roundTrip(
      { b1: broker("b1", { broker: "127.0.0.1", port: 4411, usetls: true, tls: "tls1" }), tls1: tlsConfig({}, { cadata: pem.ca }) },
      `${T}/tls`,
    );
    await expect.poll(() => wrongName.errors.map((e) => e.error).join("\n"), { timeout: 5000 }).toMatch(/127\.0\.0\.1|altnames|IP/i);
    expect(connected(wrongName)).toBe(false);
  });

  it("connects to a ws:// broker", async () => {
    const flow = await roundTrip({ b1: broker("b1", { broker: `ws://127.0.0.1:${wsPort}/mqtt` }) }, `${T}/ws`);
    await expect.poll(() => connected(flow) && connected(flow, "out"), { timeout: 5000 }).toBe(true);
    await sleep(100);
    flow.send("out", { topic: `${T}/ws`, payload: "over websocket", qos: 2 });
    await flow.waitFor(1);
    expect(flow.received[0]).toMatchObject({ payload: "over websocket", qos: 1 });
  });

  it("connects to a wss:// broker with the tls-config's CA, and not with an untrusted one", async () => {
    const flow = await roundTrip(
      { b1: broker("b1", { broker: `wss://localhost:${WSS_PORT}/mqtt`, usetls: true, tls: "tls1" }), tls1: tlsConfig({}, { cadata: pem.ca }) },
      `${T}/wss`,
    );
    await expect.poll(() => connected(flow) && connected(flow, "out"), { timeout: 5000 }).toBe(true);
    // Through the TLS terminator: the bridge holds this flow's connections.
    expect(wssBridge.clients.size).toBeGreaterThan(0);
    await sleep(100);
    flow.send("out", { topic: `${T}/wss`, payload: "over secure websocket", qos: 1 });
    await flow.waitFor(1);
    expect(flow.received[0]).toMatchObject({ payload: "over secure websocket", qos: 1 });

    const untrusted = await roundTrip(
      { b1: broker("b1", { broker: `wss://localhost:${WSS_PORT}/mqtt`, usetls: true, tls: "tls1" }), tls1: tlsConfig({}, { cadata: pem.otherCa }) },
      `${T}/wss`,
    );
    await expect.poll(() => untrusted.errors.map((e) => e.error).join("\n"), { timeout: 5000 }).toMatch(/self[- ]signed|unable to (verify|get)|certificate/i);
    expect(connected(untrusted)).toBe(false);
  });

  it("logs in with ${NAME} credentials, and a rotated secret is used at the next connect without a redeploy", async () => {
    const vars = variables({ MQTT_USER: { value: "flow-user", secret: false }, MQTT_PASS: { value: "first-secret", secret: true } });
    const flow = await roundTrip({ b1: broker("b1", { broker: "127.0.0.1", port: 4412 }, { user: "${MQTT_USER}", password: "${MQTT_PASS}" }) }, `${T}/auth`, { vars });
    await expect.poll(() => connected(flow), { timeout: 5000 }).toBe(true);
    // The broker's password changes, and so does the secret; the broker restarts (connections drop).
    passwd(authBroker.dir, "flow-user", "second-secret");
    vars.replace({ MQTT_USER: { value: "flow-user", secret: false }, MQTT_PASS: { value: "second-secret", secret: true } });
    const before = flow.statuses.length;
    await authBroker.restart();
    await expect.poll(() => flow.statuses.slice(before).some((s) => s.nodeId === "in" && s.status?.text === "disconnected"), { timeout: 5000 }).toBe(true);
    await expect.poll(() => lastStatus(flow), { timeout: 10_000 }).toBe("connected");
    await sleep(100);
    flow.send("out", { topic: `${T}/auth`, payload: "after rotation" });
    await flow.waitFor(1);
    expect(flow.received[0]).toMatchObject({ payload: "after rotation" });

    const refused = await roundTrip({ b1: broker("b1", { broker: "127.0.0.1", port: 4412 }, { user: "flow-user", password: "wrong" }) }, `${T}/auth`);
    await expect.poll(() => refused.errors.map((e) => e.error).join("\n"), { timeout: 5000 }).toMatch(/Not authorized|Bad user name or password/i);
    expect(refused.errors.map((e) => e.error).join("\n")).not.toContain("wrong");
  });

  it("a password from a secret with allowed hosts goes to its broker only: another host, or a connect action's, gets it empty (SPEC §14)", async () => {
    // This test's own password (another test rotates it).
    passwd(authBroker.dir, "flow-user", "hosts-secret");
    await authBroker.restart();
    const b1 = { b1: broker("b1", { broker: "127.0.0.1", port: 4412 }, { user: "flow-user", password: "${MQTT_PASS}" }) };
    const allowed = variables({ MQTT_PASS: { value: "hosts-secret", secret: true, allowedHosts: ["127.0.0.1"] } });
    const ok = await roundTrip(b1, `${T}/hosts`, { vars: allowed, inConfig: { inputs: 1 } });
    await expect.poll(() => connected(ok), { timeout: 5000 }).toBe(true);
    expect(ok.errors).toEqual([]);
    // A connect action points the connection at another host: the password is not read for it.
    ok.send("in", { action: "connect", broker: { broker: "127.0.0.2", port: 4412, force: true } });
    await expect.poll(() => ok.errors.map((e) => e.error).join("\n"), { timeout: 5000 }).toContain('credential "password" was left empty: secret MQTT_PASS may only be sent to 127.0.0.1: not to 127.0.0.2');
    expect(JSON.stringify(ok.errors)).not.toContain("hosts-secret");

    // Allowed for another host only: the configured broker gets it empty and refuses the login.
    const elsewhere = variables({ MQTT_PASS: { value: "hosts-secret", secret: true, allowedHosts: ["mqtt.example.com"] } });
    const refused = await roundTrip(b1, `${T}/hosts`, { vars: elsewhere });
    await expect.poll(() => refused.errors.map((e) => e.error).join("\n"), { timeout: 5000 }).toContain("secret MQTT_PASS may only be sent to mqtt.example.com: not to 127.0.0.1");
    await expect.poll(() => refused.errors.map((e) => e.error).join("\n"), { timeout: 5000 }).toMatch(/Not authorized|Bad user name or password/i);
    expect(connected(refused)).toBe(false);
    expect(JSON.stringify(refused.errors)).not.toContain("hosts-secret");
  });

  it("the broker publishes the will when the connection is lost; the node reconnects (status connecting, then connected)", async () => {
    const proxy = new TcpProxy({ host: "127.0.0.1", port: 1883 });
    await proxy.start(4414);
    const watcher = await mqtt.connectAsync(MOSQUITTO_URL);
    const wills: string[] = [];
    watcher.on("message", (_t, p) => wills.push(p.toString()));
    await watcher.subscribeAsync(`${T}/will`);
    try {
      const flow = await roundTrip({ b1: broker("b1", { broker: "127.0.0.1", port: 4414, willTopic: `${T}/will`, willPayload: "gone", willQos: 1 }) }, `${T}/w`);
      await expect.poll(() => connected(flow), { timeout: 5000 }).toBe(true);
      await proxy.stop();
      await expect.poll(() => wills, { timeout: 5000 }).toEqual(["gone"]);
      await expect.poll(() => lastStatus(flow), { timeout: 5000 }).toMatch(/disconnected|connecting/);
      await proxy.start(4414);
      await expect.poll(() => lastStatus(flow), { timeout: 10_000 }).toBe("connected");
      expect(flow.statuses.some((s) => s.nodeId === "in" && s.status?.text === "connecting")).toBe(true);
      await sleep(100);
      flow.send("out", { topic: `${T}/w`, payload: "back" });
      await flow.waitFor(1);
      expect(flow.received[0]).toMatchObject({ payload: "back" });
    } finally {
      await proxy.stop();
      await watcher.endAsync();
    }
  });
});
