/**
 * Benchmark 4, Node-RED's side: Node-RED 5.0 on Node >= 22.9, else 4.1 (bench/node-red-5 or bench/node-red, not a project
 * dependency) embedded in a fresh process, running the ANCHORS.md benchmark flow. Usage:
 * node-red-child.ts <switch|no-switch> <N> <time limit ms>; the result goes to the parent over IPC.
 *
 * Node-RED's own function nodes do the work, as in ANCHORS.md: the generator records t0 and sends N
 * messages in batches of 1,000 (a synchronous send loop, then setTimeout 0); the counter emits one
 * completion message at the Nth; the recorder stores t1. Both marks go through a `bench` object
 * handed to the runtime in `functionGlobalContext` (read with `global.get("bench")`).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { startRssSampler } from "./lib/rss";
import { LINK_CALLS } from "./lib/link-calls";
import { comparedNodeRedDir } from "./node-red";
import { SQLITE_INSERT_CODE, sqliteSetup } from "./lib/sqlite-bench";
import { PG_INSERT_QUERY } from "./lib/pg-bench";
import { DB_INSERT_KINDS } from "./lib/db-insert-kinds";

/**
 * switch / no-switch: the ANCHORS.md chain. flow-set / flow-increment (benchmark 4c): the no-switch
 * chain with a function node between the generator and the change node that writes flow context on
 * every message, with Node-RED's default (in-memory) context store.
 */
export type NodeRedScenario = "switch" | "no-switch" | "sequence" | "link-call" | "flow-set" | "flow-increment" | "sqlite-insert" | "mysql-insert" | "pg-insert";


/** Node-RED has no flow.increment: the same count with get and set. */
const CONTEXT_CODE: Record<"flow-set" | "flow-increment", string> = {
  "flow-set": "flow.set('last', msg.payload); return msg;",
  "flow-increment": "msg.count = (flow.get('count') || 0) + 1; flow.set('count', msg.count); return msg;",
};


export interface NodeRedResult {
  type: "result";
  scenario: NodeRedScenario;
  version: string;
  n: number;
  /** Messages counted by the counter (N when complete). */
  arrived: number;
  complete: boolean;
  ms: number;
  msgPerSec: number;
  cpuMs: number;
  idleRss: number;
  peakRss: number;
}

/** The parts of the `node-red` module this file uses (the package ships no types). */
interface NodeRedModule {
  init(server: http.Server, settings: Record<string, unknown>): void;
  start(): PromiseLike<void>;
  stop(): PromiseLike<void>;
  nodes: { getNode(id: string): { receive(msg?: Record<string, unknown>): void } | null };
}

/** What the function nodes call through `global.get("bench")`. */
interface BenchHooks {
  t0(run: string): void;
  count(c: number): void;
  t1(run: string): void;
}

const NODE_RED_DIR = comparedNodeRedDir();

const GENERATOR = `
const n = msg.payload.n;
const run = msg.payload.run;
const bench = global.get("bench");
bench.t0(run);
let i = 0;
function batch() {
  const end = Math.min(i + 1000, n);
  for (; i < end; i++) node.send({ payload: i, seq: i, parity: i & 1, run });
  if (i < n) setTimeout(batch, 0);
}
batch();
return null;`;

const counter = (n: number) => `
const c = (context.get("c") || 0) + 1;
context.set("c", c);
if (c % 10000 === 0) global.get("bench").count(c);
return c === ${n} ? { payload: c, run: msg.run } : null;`;

const RECORDER = `global.get("bench").t1(msg.run); return null;`;

function flowFor(scenario: NodeRedScenario, n: number, run: string) {
  const fn = (id: string, func: string, wires: string[][]) => ({ id, type: "function", z: "tab", name: id, func, outputs: 1, timeout: 0, noerr: 0, initialize: "", finalize: "", libs: [], x: 100, y: 100, wires });
  const afterChange = scenario === "switch" ? "sw" : "cnt";
  const flow: Array<Record<string, unknown>> = [
    { id: "tab", type: "tab", label: "bench", disabled: false, info: "" },
    { id: "inj", type: "inject", z: "tab", name: "", props: [{ p: "payload" }], repeat: "", crontab: "", once: false, onceDelay: 0.1, topic: "", payload: JSON.stringify({ n, run }), payloadType: "json", x: 100, y: 100, wires: [["gen"]] },
    fn("gen", GENERATOR, [[scenario === "flow-set" || scenario === "flow-increment" ? "ctx" : scenario === "sqlite-insert" || scenario === "mysql-insert" || scenario === "pg-insert" ? "pre" : "chg"]]),
    { id: "chg", type: "change", z: "tab", name: "", rules: [{ t: "set", p: "payload", pt: "msg", to: "seq", tot: "msg" }], action: "", property: "", from: "", to: "", reg: false, x: 100, y: 100, wires: [[afterChange]] },
    fn("cnt", counter(n), [["rec"]]),
    fn("rec", RECORDER, []),
  ];
  if (scenario === "flow-set" || scenario === "flow-increment") flow.push(fn("ctx", CONTEXT_CODE[scenario], [["chg"]]));
  if (scenario === "sqlite-insert") {
    flow.push(
      fn("pre", SQLITE_INSERT_CODE, [["sql"]]),
      { id: "db", type: "sqlitedb", db: "bench.db", mode: "RWC" },
      { id: "sql", type: "sqlite", z: "tab", name: "", mydb: "db", sqlquery: "msg.topic", sql: "", x: 100, y: 100, wires: [["chg"]] },
    );
  }
  if (scenario === "mysql-insert") {
    const t = DB_INSERT_KINDS.mysql.target();
    flow.push(
      fn("pre", DB_INSERT_KINDS.mysql.code, [["sql"]]),
      { id: "db", type: "MySQLdatabase", name: "", host: t.host, port: String(t.port), db: t.database, tz: "", charset: "UTF8" },
      { id: "sql", type: "mysql", z: "tab", name: "", mydb: "db", x: 100, y: 100, wires: [["chg"]] },
    );
  }
  if (scenario === "pg-insert") {
    const t = DB_INSERT_KINDS.postgresql.target();
    flow.push(
      fn("pre", DB_INSERT_KINDS.postgresql.code, [["sql"]]),
      { id: "db", type: "postgreSQLConfig", name: "", host: t.host, hostFieldType: "str", port: t.port, portFieldType: "num", database: t.database, databaseFieldType: "str", ssl: false, sslFieldType: "bool", applicationName: "", applicationNameType: "str", max: 10, maxFieldType: "num", idle: 1000, idleFieldType: "num", connectionTimeout: 10000, connectionTimeoutFieldType: "num", userFieldType: "cred", passwordFieldType: "cred" },
      { id: "sql", type: "postgresql", z: "tab", name: "", query: PG_INSERT_QUERY, postgreSQLConfig: "db", split: false, rowsPerMsg: 1, outputs: 1, x: 100, y: 100, wires: [["chg"]] },
    );
  }
  if (scenario === "link-call") {
    // chg → call1 → … → callK → counter; callk calls lik → change (set hopk) → link out (return).
    const chg = flow.find((n) => n.id === "chg")!;
    chg.wires = [["call1"]];
    for (let k = 1; k <= LINK_CALLS; k++) {
      flow.push(
        { id: `call${k}`, type: "link call", z: "tab", name: "", links: [`li${k}`], linkType: "static", timeout: "30", x: 100, y: 100, wires: [[k < LINK_CALLS ? `call${k + 1}` : "cnt"]] },
        { id: `li${k}`, type: "link in", z: "tab", name: "", links: [], x: 100, y: 100, wires: [[`set${k}`]] },
        { id: `set${k}`, type: "change", z: "tab", name: "", rules: [{ t: "set", p: `hop${k}`, pt: "msg", to: "done", tot: "str" }], action: "", property: "", from: "", to: "", reg: false, x: 100, y: 100, wires: [[`lo${k}`]] },
        { id: `lo${k}`, type: "link out", z: "tab", name: "", mode: "return", links: [], x: 100, y: 100, wires: [] },
      );
    }
  }
  if (scenario === "switch") {
    flow.push({ id: "sw", type: "switch", z: "tab", name: "", property: "parity", propertyType: "msg", rules: [{ t: "eq", v: "0", vt: "num" }, { t: "else" }], checkall: "false", repair: false, outputs: 2, x: 100, y: 100, wires: [["cnt"], ["cnt"]] });
  }
  return flow;
}

/**
 * The sequence scenario, as ours (bench/runtime-child.ts): inject (a 1,000-number array) → split →
 * change → join → loop. A function node records t0 as the inject's message passes; the loop (a
 * function node) sends the next array to the split until n / 1,000 arrays were joined, then
 * records t1. One array is in flight at a time.
 */
function sequenceFlow(n: number, run: string) {
  const rounds = Math.max(1, Math.round(n / 1000));
  const template = JSON.stringify(Array.from({ length: 1000 }, (_, i) => i));
  const loop = `
const c = (context.get("c") || 0) + 1;
context.set("c", c);
if (msg.payload.length !== 1000) { node.error("joined " + msg.payload.length + " elements", msg); return null; }
if (c % 10 === 0) global.get("bench").count(c * 1000);
if (c < ${rounds}) return { payload: ${template} };
global.get("bench").t1("${run}");
return null;`;
  const start = `global.get("bench").t0("${run}"); return msg;`;
  const fn = (id: string, func: string, wires: string[][]) => ({ id, type: "function", z: "tab", name: id, func, outputs: 1, timeout: 0, noerr: 0, initialize: "", finalize: "", libs: [], x: 100, y: 100, wires });
  return [
    { id: "tab", type: "tab", label: "bench", disabled: false, info: "" },
    { id: "inj", type: "inject", z: "tab", name: "", props: [{ p: "payload" }], repeat: "", crontab: "", once: false, onceDelay: 0.1, topic: "", payload: template, payloadType: "json", x: 100, y: 100, wires: [["start"]] },
    fn("start", start, [["split"]]),
    { id: "split", type: "split", z: "tab", name: "", splt: "\\n", spltType: "str", arraySplt: 1, arraySpltType: "len", stream: false, addname: "", property: "payload", x: 100, y: 100, wires: [["chg"]] },
    { id: "chg", type: "change", z: "tab", name: "", rules: [{ t: "set", p: "value", pt: "msg", to: "payload", tot: "msg" }], action: "", property: "", from: "", to: "", reg: false, x: 100, y: 100, wires: [["join"]] },
    { id: "join", type: "join", z: "tab", name: "", mode: "auto", build: "object", property: "payload", propertyType: "msg", key: "topic", joiner: "\\n", joinerType: "str", useparts: false, accumulate: "false", timeout: "", count: "", reduceRight: false, x: 100, y: 100, wires: [["rec"]] },
    fn("rec", loop, [["split"]]),
  ];
}

/** A contrib package of bench/node-red-5 as a package of Node-RED's user directory. */
function linkContrib(userDir: string, name: string) {
  const contrib = path.join(NODE_RED_DIR, "node_modules", name);
  mkdirSync(path.join(userDir, "node_modules"), { recursive: true });
  symlinkSync(contrib, path.join(userDir, "node_modules", name), "dir");
  const version = (JSON.parse(readFileSync(path.join(contrib, "package.json"), "utf8")) as { version: string }).version;
  writeFileSync(path.join(userDir, "package.json"), JSON.stringify({ name: "bench", version: "0.0.0", dependencies: { [name]: version } }));
}

async function main() {
  const [scenarioArg, nArg, limitArg] = process.argv.slice(2);
  const scenario = scenarioArg as NodeRedScenario;
  const n = Number(nArg);
  const limitMs = Number(limitArg ?? 60_000);
  if (!["switch", "no-switch", "sequence", "link-call", "flow-set", "flow-increment", "sqlite-insert", "mysql-insert", "pg-insert"].includes(scenario) || !Number.isInteger(n) || n <= 0) {
    throw new Error("usage: node-red-child.ts <switch|no-switch|sequence|link-call|flow-set|flow-increment|sqlite-insert|mysql-insert|pg-insert> <N> [time limit ms]");
  }

  const require = createRequire(path.join(NODE_RED_DIR, "package.json"));
  const RED = require("node-red") as NodeRedModule;
  const version = (require("node-red/package.json") as { version: string }).version;

  const run = `run-${process.pid}-${Date.now()}`;
  let t0 = 0;
  let t1 = 0;
  let arrived = 0;
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const bench: BenchHooks = {
    t0: (r) => {
      if (r === run) t0 = performance.now();
    },
    count: (c) => {
      arrived = c;
    },
    t1: (r) => {
      if (r !== run) return;
      t1 = performance.now();
      arrived = n;
      finish();
    },
  };

  const userDir = mkdtempSync(path.join(os.tmpdir(), "bench-node-red-"));
  try {
    writeFileSync(path.join(userDir, "flows.json"), JSON.stringify(scenario === "sequence" ? sequenceFlow(n, run) : flowFor(scenario, n, run)));
    if (scenario === "sqlite-insert") {
      // The table (and its preload), made with the node's own sqlite3 before Node-RED starts; the
      // database file is relative to Node-RED's working directory, as the node opens it.
      process.chdir(userDir);
      // node-red-node-sqlite, installed beside Node-RED 5.0 (bench/node-red-5), as a package of the user directory.
      linkContrib(userDir, "node-red-node-sqlite");
      const sqlite3 = require("sqlite3") as { Database: new (file: string) => { exec(sql: string, cb: (err: Error | null) => void): void; close(cb: () => void): void } };
      const db = new sqlite3.Database(path.join(userDir, "bench.db"));
      await new Promise<void>((resolve, reject) => db.exec(sqliteSetup(), (err) => (err ? reject(err) : resolve())));
      await new Promise<void>((resolve) => db.close(resolve));
    }
    if (scenario === "mysql-insert" || scenario === "pg-insert") {
      // The database's contrib package beside Node-RED 5.0 (bench/node-red-5), its credentials in
      // flows_cred.json (plain: credentialSecret false); the parent made the database (bench/db-inserts.ts).
      const kind = DB_INSERT_KINDS[scenario === "mysql-insert" ? "mysql" : "postgresql"];
      linkContrib(userDir, kind.contrib);
      const t = kind.target();
      writeFileSync(path.join(userDir, "flows_cred.json"), JSON.stringify({ db: { user: t.user, password: t.password } }));
    }
    const server = http.createServer();
    RED.init(server, {
      userDir,
      flowFile: "flows.json",
      httpAdminRoot: false,
      httpNodeRoot: false,
      disableEditor: true,
      credentialSecret: false,
      logging: { console: { level: "warn", metrics: false, audit: false } },
      functionGlobalContext: { bench },
      diagnostics: { enabled: false },
      runtimeState: { enabled: false },
      telemetry: { enabled: false },
      externalModules: { autoInstall: false, palette: { allowInstall: false }, modules: { allowInstall: false } },
    });
    await RED.start();
    const deadline = Date.now() + 30_000;
    while (!RED.nodes.getNode("rec")) {
      if (Date.now() > deadline) throw new Error("Node-RED did not start the benchmark flow within 30 s");
      await sleep(50);
    }
    await sleep(500);

    const rss = startRssSampler();
    const cpu0 = process.cpuUsage();
    const started = performance.now();
    RED.nodes.getNode("inj")!.receive({});
    const timedOut = await Promise.race([finished.then(() => false), sleep(limitMs, true, { ref: false })]);
    const cpu = process.cpuUsage(cpu0);
    const { idleRss, peakRss } = rss.stop();
    const complete = !timedOut && t1 > 0;
    const ms = complete ? t1 - t0 : performance.now() - (t0 || started);
    const result: NodeRedResult = {
      type: "result",
      scenario,
      version,
      n,
      arrived,
      complete,
      ms,
      msgPerSec: complete ? n / (ms / 1000) : Number.NaN,
      cpuMs: (cpu.user + cpu.system) / 1000,
      idleRss,
      peakRss,
    };
    process.send?.(result);
  } finally {
    rmSync(userDir, { recursive: true, force: true });
  }
  // Not stopping Node-RED: a timed-out run may still hold a backlog; the process just ends.
  process.exit(0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
