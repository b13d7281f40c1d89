/**
 * Benchmark 2's Node-RED side: Node-RED installed under `<dir>` (bench/node-red-5 for 5.0 on Node
 * >= 22.9, else bench/node-red for 4.1; not a project dependency) with its admin HTTP API on a port
 * and no adminAuth, as a user runs it out of the box. Usage: node-red-http-child.ts <port> <tabs>
 * <dir>. Loads <tabs> tabs, each an inject → debug pair (the same size as the flows our side
 * serves), and one more with the webhooks (POST /wh-change: http-in → change → http-response;
 * POST /wh-function: http-in → function → http-response, on Node-RED's httpNode app), then tells
 * the parent over IPC that it is listening.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { WEBHOOK_FUNCTION } from "./lib/webhooks";

export interface NodeRedHttpReady {
  type: "ready";
  version: string;
  /** Ids of the tabs and of one inject node, for the parent's URLs. */
  tabIds: string[];
  injectId: string;
}

interface NodeRedModule {
  init(server: http.Server, settings: Record<string, unknown>): void;
  start(): PromiseLike<void>;
  stop(): PromiseLike<void>;
  httpAdmin: http.RequestListener;
  httpNode: http.RequestListener;
  nodes: { getNode(id: string): unknown };
}

const DEFAULT_DIR = fileURLToPath(new URL("./node-red/", import.meta.url));

/** Inject → debug per tab, with the fields Node-RED's editor writes for them. */
export function nodeRedTabs(count: number) {
  const flow: Array<Record<string, unknown>> = [];
  for (let i = 0; i < count; i++) {
    const tab = `tab${i}`;
    flow.push({ id: tab, type: "tab", label: `Flow ${i + 1}`, disabled: false, info: "" });
    flow.push({ id: `${tab}-inject`, type: "inject", z: tab, name: "", props: [{ p: "payload" }], repeat: "", crontab: "", once: false, onceDelay: 0.1, topic: "", payload: "hello", payloadType: "str", x: 120, y: 80, wires: [[`${tab}-debug`]] });
    flow.push({ id: `${tab}-debug`, type: "debug", z: tab, name: "", active: true, tosidebar: true, console: false, tostatus: false, complete: "payload", targetType: "msg", statusVal: "", statusType: "auto", x: 320, y: 80, wires: [] });
  }
  return flow;
}

/** The webhook flows of benchmark 2, as Node-RED's editor writes them: the same as setUp's in http.ts. */
export function nodeRedWebhooks() {
  const z = "tab-hooks";
  const hook = (name: string, middle: Record<string, unknown>, y: number) => [
    { id: `${name}-in`, type: "http in", z, name: "", url: `/wh-${name}`, method: "post", upload: false, swaggerDoc: "", x: 120, y, wires: [[`${name}-mid`]] },
    { id: `${name}-mid`, z, name: "", x: 300, y, wires: [[`${name}-out`]], ...middle },
    { id: `${name}-out`, type: "http response", z, name: "", statusCode: "", headers: {}, x: 480, y, wires: [] },
  ];
  return [
    { id: z, type: "tab", label: "Webhooks", disabled: false, info: "" },
    ...hook("change", { type: "change", rules: [{ t: "set", p: "payload", pt: "msg", to: "done", tot: "str" }], action: "", property: "", from: "", to: "", reg: false }, 80),
    ...hook("function", { type: "function", func: WEBHOOK_FUNCTION, outputs: 1, timeout: 0, noerr: 0, initialize: "", finalize: "", libs: [] }, 140),
  ];
}

async function main() {
  const port = Number(process.argv[2]);
  const tabs = Number(process.argv[3] ?? 20);
  const dir = process.argv[4] ?? DEFAULT_DIR;
  if (!Number.isInteger(port) || !Number.isInteger(tabs)) throw new Error("usage: node-red-http-child.ts <port> <tabs> [<dir>]");
  const require = createRequire(path.join(dir, "package.json"));
  const RED = require("node-red") as NodeRedModule;
  const version = (require("node-red/package.json") as { version: string }).version;

  const userDir = mkdtempSync(path.join(os.tmpdir(), "bench-node-red-http-"));
  process.on("exit", () => rmSync(userDir, { recursive: true, force: true }));
  writeFileSync(path.join(userDir, "flows.json"), JSON.stringify([...nodeRedTabs(tabs), ...nodeRedWebhooks()]));
  const server = http.createServer();
  RED.init(server, {
    userDir,
    flowFile: "flows.json",
    httpAdminRoot: "/",
    httpNodeRoot: "/",
    disableEditor: true,
    credentialSecret: false,
    logging: { console: { level: "warn", metrics: false, audit: false } },
    diagnostics: { enabled: false },
    runtimeState: { enabled: false },
    telemetry: { enabled: false },
    externalModules: { autoInstall: false, palette: { allowInstall: false }, modules: { allowInstall: false } },
  });
  server.on("request", (req, res) => (req.url?.startsWith("/wh-") ? RED.httpNode(req, res) : RED.httpAdmin(req, res)));
  await RED.start();
  const deadline = Date.now() + 30_000;
  while (!RED.nodes.getNode(`tab${tabs - 1}-debug`) || !RED.nodes.getNode("function-out")) {
    if (Date.now() > deadline) throw new Error("Node-RED did not start its flows within 30 s");
    await sleep(50);
  }
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const ready: NodeRedHttpReady = { type: "ready", version, tabIds: Array.from({ length: tabs }, (_, i) => `tab${i}`), injectId: "tab0-inject" };
  process.send?.(ready);
  process.on("SIGTERM", () => process.exit(0));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
