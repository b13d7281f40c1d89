/**
 * Benchmark 12, Node-RED's side: Node-RED 5 embedded in a Node 22 process of its own, running the
 * flow given as JSON (bench/mqtt-lib/flow.ts). Usage: node node-red-child.mjs <node-red prefix> <flow json>.
 * Prints "ready" once both MQTT nodes are connected; exits on SIGTERM.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

const [prefix, flowJson] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(prefix), "package.json"));
const RED = require("node-red");
const userDir = mkdtempSync(path.join(os.tmpdir(), "bench-mqtt-node-red-"));
mkdirSync(path.join(userDir, "nodes"));
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
await RED.nodes.setFlows(JSON.parse(flowJson), undefined, "full");
const deadline = Date.now() + 10_000;
for (;;) {
  const a = RED.nodes.getNode("bench_in");
  const b = RED.nodes.getNode("bench_out");
  if (a?.brokerConn?.connected && b?.brokerConn?.connected) break;
  if (Date.now() > deadline) throw new Error("Node-RED's MQTT nodes did not connect");
  await sleep(20);
}
await sleep(200);
console.log("ready");
process.on("SIGTERM", async () => {
  await RED.nodes.setFlows([], undefined, "full");
  await RED.stop();
  rmSync(userDir, { recursive: true, force: true });
  process.exit(0);
});
