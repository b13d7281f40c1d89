/**
 * Runs Node-RED 5.0's own example flows (vendored at src/test/fixtures/node-red-examples) side by
 * side in Node-RED 5.0 (embedded, scripts/lib/node-red-embedded.ts; Node >= 22.9) and in our engine (the differential
 * harness's runOurs), and compares what reaches their debug nodes. A tool and a report, not a test:
 * usage `npm run diff:examples`; prints the report and writes it to docs/NODE-RED-EXAMPLES.md.
 *
 * Per example file: tabs, comments and config nodes are dropped, `z` stripped (groups, junctions and
 * subflow definitions are kept, and go through our import as the rest), debug nodes removed (the
 * wires to them then name collectors, by the debug node's id); inject nodes neither
 * fire at start nor repeat. Each inject node is one case: `{}` delivered into it (both injects then
 * send their configured message), arrivals collected until 1.5 s of quiet (12 s at most). Files with
 * node types we do not offer, or that our import cannot map, are skipped with the reason.
 */
import { readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { SandboxPool } from "../src/server/runtime/sandbox/sandbox-pool";
import { normalizeArrivals } from "../src/test/node-red-diff/normalize";
import { runOurs } from "../src/test/node-red-diff/run-ours";
import { DIFF_ORGANIZATION_SLUG, startOurHost } from "../src/test/node-red-diff/our-host";
import type { Arrival, DiffCase, DiffRequest, NodeRedNode } from "../src/test/node-red-diff/types";
import { requestsDriver } from "../src/test/node-red-diff/http-driver";
import { runNodeRedCase, startNodeRed } from "./lib/node-red-embedded";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const EXAMPLES = path.join(ROOT, "src/test/fixtures/node-red-examples");
const REPORT = path.join(ROOT, "docs/NODE-RED-EXAMPLES.md");
const SETTLE_MS = 1500;
/** At most per case, on each side: the rate-limit example (delay/04) releases 10 messages at 1 a second. */
const CASE_LIMIT_MS = 12_000;

/** Groups, junctions and subflows are kept: they go through our import (groups' members that are debug nodes are then left out). */
const DROPPED = new Set(["tab", "comment"]);
/**
 * Node types we do not offer, each a deliberate absence said in the help of the nodes we offer
 * instead (host access, listening servers).
 */
const UNOFFERED: Array<[RegExp, string]> = [
  [/^exec$/, "exec: no host processes"],
  [/^watch$/, "watch: no host file system (files are the organization's, file nodes' help)"],
  [/^tcp in$/, "tcp in: listening TCP servers are not offered, only clients (tcp request / tcp out help)"],
  [/^udp in$/, "udp in: listening UDP sockets are not offered, only udp out (udp out help)"],
];

/**
 * Where the example flows reach their own Node-RED (`http://localhost:1880/hello`,
 * `ws://localhost:1880/ws1`): on each side the server that serves the case's http-in paths and
 * websocket listeners. Ours serves them under the organization (`/hooks/{slug}`,
 * `/ws/hooks/{slug}`; http in / websocket-listener help).
 */
const NODE_RED_LOCAL = /\b(https?|wss?):\/\/localhost:1880/g;
/** Ports of this script's servers (the range given to this work: 4100-4199). */
const NODE_RED_PORT = 4101;
const OUR_PORT = 4102;
/** The file the storage examples write and read (Node-RED: on the disk; ours: the organization's files). */
const EXAMPLE_FILES = ["/tmp/hello.txt"];

/**
 * What the last run's differences (and notable sames) come from, after reading each one: a
 * deliberate difference (see the node's help, "Differences from Node-RED") or a gap. Shown in the
 * report beside the files that still differ; update when a run changes.
 */
const NOTES: Record<string, string> = {
  "common/catch/01 - Catch error.json":
    "Deliberate: `msg.error.stack` is never set (Node-RED's is V8's stack with the server's file paths; no stack traces, catch node's help). " +
    "Everything else of the caught message is the same: `Error: Error Occured!`, `msg._error` and the message as the function left it.",
  "function/change/04 - Set value from env var.json":
    "Deliberate (tenancy): `env` variables are the flow's and the organization's, never the server's process environment, so `$HOME` reads as empty.",
  "function/function/05 - Handling errors.json":
    "Same since `node.error(text, msg)` in function code reaches the catch nodes with that msg (it was logged only before).",
  "function/function/08 - Using external modules.json":
    "Same only because both fail: Node-RED needs `os` in settings.js `functionGlobalContext`, which this run does not set; ours never offers host modules (deliberate, sandbox).",
  "function/function/10 - Asynchronous setup.json":
    "Same since a Promise returned by *On Start* is awaited before messages are handled (they wait, in order, as in Node-RED).",
  "common/link/03 - Link call.json":
    "Node-RED 5.0's version of this example adds a call from a function (`await node.linkcall('subroutine-1', msg)`): same since the function node has `node.linkcall`.",
};

/** The last real-flows survey (npm run import:survey), kept in the report as written (not regenerated here). */
const REAL_FLOWS = [
  "## Real flows",
  "",
  "45 flows.json files of 41 public GitHub repositories (home automation, industrial monitoring, IoT",
  "coursework) through the import's mapping (`npm run import:survey`), before and after SPEC §23's",
  "limits work. Refusals of core nodes we offer, before: a file refused whole for a node name over 200",
  "characters (1 file); function outputs over 10 (3 nodes: 11, 14, 16); a change node's JSONata regex",
  "with a lookbehind (1); a delay rate period over 2^31 ms (1: one message per 30 days). Partial",
  "imports that lost nothing, before: change `reg` (153 nodes), http request `insecureHTTPParser: false`.",
  "After: none of these. What stays: node types another branch brings (mqtt, websocket, tcp/udp",
  "clients) or that are left out by design (exec, file, listening tcp/udp servers); `function.libs`",
  "(external modules: never in the sandbox), a node's custom `icon`, http request `persist`/`senderr`",
  "switched on, http in `skipBodyParsing` (reported as not carried over). Issue 34's earlier survey",
  "(85 files) also found: an http request header with an empty name (a preset header row), a debug",
  "node's status property, a switch over 32 rules, a function over 100,000 characters, a change value",
  "over 64 KiB and a catch scope `group`: each is imported now, with a fixture and a deployed test",
  "(src/test/fixtures/real-flows, node-red-real-flows.integration.test.ts).",
];

type Status = "same" | "different" | "nondeterministic" | "error";
interface CaseResult {
  inject: string;
  status: Status;
  detail?: string;
  nodeRed: number;
  ours: number;
}
interface FileResult {
  file: string;
  skipped?: string;
  cases: CaseResult[];
}

function exampleFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? exampleFiles(path.join(dir, e.name)) : e.name.endsWith(".json") ? [path.join(dir, e.name)] : []))
    .sort();
}

/** Flows that use randomness: their results need not match run to run. */
function usesRandom(nodes: NodeRedNode[]): boolean {
  return nodes.some((n) => {
    const text = JSON.stringify(n);
    if (/\$random\s*\(/.test(text)) return true;
    if (n.type === "delay" && (n.randomFirst !== undefined && n.pauseType === "random")) return true;
    if (n.type === "function" && /Math\.random/.test(String(n.func ?? "") + String(n.initialize ?? ""))) return true;
    return false;
  });
}

/**
 * Node-RED's ids often hold a dot ("d1073c30.cb321"), which our import renames (ids are
 * [A-Za-z0-9_-]): the same ids on both sides keep the collectors and the input named alike. Every
 * quoted occurrence (wires, links, catch/status scopes) follows.
 */
function renameIds(raw: NodeRedNode[]): NodeRedNode[] {
  let text = JSON.stringify(raw);
  for (const n of raw) {
    const to = n.id.replace(/[^A-Za-z0-9_-]/g, "_");
    if (to !== n.id) text = text.split(JSON.stringify(n.id)).join(JSON.stringify(to));
  }
  return JSON.parse(text) as NodeRedNode[];
}

/**
 * The nodes of an example as a case's nodes (its subflow definitions with the nodes inside them,
 * and its configuration nodes, as they are), or why the file is skipped.
 */
function prepare(original: NodeRedNode[]): { nodes: NodeRedNode[]; subflows: NodeRedNode[]; configNodes: NodeRedNode[] } | { skipped: string } {
  const raw = renameIds(original);
  for (const n of raw) {
    const hit = UNOFFERED.find(([re]) => re.test(n.type));
    if (hit) return { skipped: `${hit[1]} (node "${n.type}")` };
  }
  const definitions = new Set(raw.filter((n) => n.type === "subflow").map((n) => n.id));
  const subflows = raw.filter((n) => definitions.has(n.id) || (typeof n.z === "string" && definitions.has(n.z)));
  const rest = raw.filter((n) => !subflows.includes(n) && !DROPPED.has(n.type));
  // Configuration nodes: no wires, global (no `z`).
  const configNodes = rest.filter((n) => !Array.isArray(n.wires) && n.type !== "debug" && n.type !== "group").map(({ z: _z, ...n }) => n as NodeRedNode);
  const kept = rest.filter((n) => Array.isArray(n.wires) || n.type === "debug" || n.type === "group");
  const debugs = new Set(kept.filter((n) => n.type === "debug").map((n) => n.id));
  const nodes = kept
    .filter((n) => !debugs.has(n.id))
    .map((n) => {
      const { z: _z, ...rest } = n;
      const node: NodeRedNode = { ...rest };
      if (node.type === "inject") Object.assign(node, { once: false, repeat: "", crontab: "" });
      return node;
    });
  // An example served only through its http-in paths (no inject, no debug) is driven by requests to them.
  const served = nodes.some((n) => n.type === "http in");
  if (debugs.size === 0 && !served) return { skipped: "no debug node" };
  if (!nodes.some((n) => n.type === "inject") && !served) return { skipped: "no inject node" };
  return { nodes, subflows, configNodes };
}

/** The example's own server (`localhost:1880`) as each side serves it. */
function pointAt<T>(value: T, side: { http: string; ws: string }): T {
  return JSON.parse(JSON.stringify(value).replace(NODE_RED_LOCAL, (_m, scheme: string) => (scheme.startsWith("ws") ? side.ws : side.http))) as T;
}

/**
 * The requests a served example gets (one per http-in node, in the file's order): its method and
 * path (a route parameter given "Nick"); a POST sends "Nick" as text, or with `upload` a file
 * `hello.txt` as multipart/form-data (http-driver.ts records the answers).
 */
function exampleRequests(nodes: NodeRedNode[]): DiffRequest[] {
  return nodes
    .filter((n) => n.type === "http in")
    .map((n) => {
      const method = String(n.method ?? "get").toUpperCase();
      const path = String(n.url ?? "/").replace(/:(\w+)\??/g, "Nick");
      if (method === "GET" || method === "HEAD") return { method, path };
      return n.upload === true ? { method, path, upload: { field: "file", filename: "hello.txt", content: "Hello, World!" } } : { method, path, body: "Nick" };
    });
}

const isDate = (s: string) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/.test(s);
/** Values that differ run to run: epoch milliseconds and ISO-8601 dates; keys sorted (their order is not compared). */
function fixVolatile(v: unknown): unknown {
  if (typeof v === "number" && v >= 1.5e12 && v <= 4.1e12) return "<timestamp>";
  if (typeof v === "string" && isDate(v)) return "<date>";
  if (Array.isArray(v)) return v.map(fixVolatile);
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, x]) => [k, fixVolatile(x)]));
  return v;
}
/**
 * Arrivals as compared: volatile values fixed, and the side's own server address (in an http
 * request's `responseUrl`, say) written as `<server>`.
 */
const normalize = (c: DiffCase, arrivals: Arrival[], side: { http: string; ws: string }) =>
  sessionsByOrder(normalizeArrivals(c, arrivals)).map((a) => JSON.parse(JSON.stringify(fixVolatile(transportless(a))).split(side.http).join("<server>").split(side.ws).join("<server>")) as Arrival);

/**
 * An http request's answer from the example's own server (it has `statusCode`, `responseUrl` and
 * `headers`): of the server's response headers only `content-type` is compared. The rest are each
 * server's own by design: Express adds `ETag`, `X-Powered-By`, `Date`, `Content-Length`; a webhook
 * of ours answers with the security headers every webhook carries (http response help).
 */
/** A websocket client's session id (random on both sides) as its order of first appearance. */
function sessionsByOrder(arrivals: Arrival[]): Arrival[] {
  const ids = new Map<string, string>();
  return arrivals.map((a) => {
    const session = a.msg._session as { id?: unknown } | undefined;
    if (!session || typeof session !== "object" || typeof session.id !== "string") return a;
    if (!ids.has(session.id)) ids.set(session.id, `session${ids.size + 1}`);
    return { ...a, msg: { ...a.msg, _session: { ...session, id: ids.get(session.id) } } };
  });
}

function transportless(a: Arrival): Arrival {
  const msg = a.msg;
  if (typeof msg.statusCode !== "number" || typeof msg.responseUrl !== "string" || msg.headers === null || typeof msg.headers !== "object") return a;
  const headers = msg.headers as Record<string, unknown>;
  return { ...a, msg: { ...msg, headers: "content-type" in headers ? { "content-type": headers["content-type"] } : {} } };
}

/**
 * Before the first message of an example with websocket nodes: its client connects to its
 * listener as the flow starts, which takes a moment on both sides (a user clicks the inject later).
 */
const SOCKET_CONNECT_MS = 500;

function withLimit<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no end after ${CASE_LIMIT_MS / 1000} s`)), CASE_LIMIT_MS);
  });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}

const short = (v: unknown, max = 160) => {
  const s = JSON.stringify(v) ?? "undefined";
  return s.length > max ? `${s.slice(0, max)}…` : s;
};

function firstDifference(theirs: Arrival[], mine: Arrival[]): string {
  const n = Math.max(theirs.length, mine.length);
  for (let i = 0; i < n; i++) {
    const a = theirs[i];
    const b = mine[i];
    if (JSON.stringify(a) === JSON.stringify(b)) continue;
    const count = theirs.length === mine.length ? "" : ` (${theirs.length} arrivals in Node-RED, ${mine.length} in ours)`;
    // Both arrived at the same collector: only the properties that differ.
    if (a && b && a.collector === b.collector) {
      const keys = [...new Set([...Object.keys(a.msg), ...Object.keys(b.msg)])].filter((k) => JSON.stringify(a.msg[k]) !== JSON.stringify(b.msg[k]));
      const pick = (m: Record<string, unknown>) => Object.fromEntries(keys.filter((k) => k in m).map((k) => [k, m[k]]));
      return `arrival ${i + 1}${count} at ${a.collector}, differing in ${keys.join(", ")}: Node-RED ${short(pick(a.msg))}; ours ${short(pick(b.msg))}`;
    }
    return `arrival ${i + 1}${count}: Node-RED ${a ? `${a.collector} ${short(a.msg)}` : "nothing"}; ours ${b ? `${b.collector} ${short(b.msg)}` : "nothing"}`;
  }
  return "";
}

async function main() {
  const only = process.argv.slice(2).filter((a) => a !== "--");
  const files = exampleFiles(EXAMPLES).filter((f) => only.length === 0 || only.some((o) => f.includes(o)));
  const nodeRed = await startNodeRed(undefined, { http: { port: NODE_RED_PORT } });
  const host = await startOurHost({ port: OUR_PORT });
  const theirSide = { http: nodeRed.base!, ws: nodeRed.base!.replace(/^http/, "ws") };
  const ourSide = { http: host.hooksBase, ws: host.socketsBase };
  const sandboxes = new SandboxPool();
  const results: FileResult[] = [];
  let index = 0;
  try {
    for (const file of files) {
      const rel = path.relative(EXAMPLES, file);
      const prepared = prepare(JSON.parse(readFileSync(file, "utf8")) as NodeRedNode[]);
      if ("skipped" in prepared) {
        results.push({ file: rel, skipped: prepared.skipped, cases: [] });
        console.log(`${rel}: skipped (${prepared.skipped})`);
        continue;
      }
      const random = usesRandom(prepared.nodes);
      const result: FileResult = { file: rel, cases: [] };
      const injects = prepared.nodes.filter((n) => n.type === "inject");
      // One case per inject node; an example without one is driven through its http-in paths.
      const inputs: Array<{ id: string; driven: boolean }> = injects.length > 0 ? injects.map((n) => ({ id: n.id, driven: false })) : [{ id: "http", driven: true }];
      for (const input of inputs) {
        const c: DiffCase = {
          name: `${rel} ${input.id}`,
          nodes: structuredClone(prepared.nodes),
          ...(prepared.subflows.length > 0 ? { subflows: structuredClone(prepared.subflows) } : {}),
          ...(prepared.configNodes.length > 0 ? { configNodes: structuredClone(prepared.configNodes) } : {}),
          input: input.driven ? prepared.nodes[0]!.id : input.id,
          send: input.driven ? [] : [{ msg: {}, ...(prepared.nodes.some((n) => n.type.startsWith("websocket")) ? { delayMs: SOCKET_CONNECT_MS } : {}) }],
          ...(input.driven ? { requests: exampleRequests(prepared.nodes) } : {}),
          settleMs: SETTLE_MS,
        };
        // Each case starts without the example's files, on both sides.
        host.files.files.clear();
        for (const f of EXAMPLE_FILES) rmSync(f, { force: true });
        let ours: Awaited<ReturnType<typeof runOurs>>;
        try {
          const mine = pointAt(c, ourSide);
          ours = await withLimit(runOurs(mine, { ...host.services, sandboxes }, { organizationSlug: DIFF_ORGANIZATION_SLUG, ...(mine.requests ? { drive: requestsDriver(mine.requests, host.hooksBase) } : {}) }), "ours");
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          if (message.startsWith("imported as unknown nodes")) {
            result.skipped = `our import: ${message}`;
            break;
          }
          result.cases.push({ inject: input.id, status: "error", detail: `ours: ${message}`, nodeRed: 0, ours: 0 });
          continue;
        }
        let theirs: Arrival[];
        try {
          const their = pointAt(c, theirSide);
          theirs = await withLimit(
            runNodeRedCase(nodeRed.RED, their, index++, { clearGlobalBeforeDeploy: true, ...(their.requests ? { drive: requestsDriver(their.requests, nodeRed.base!) } : {}) }),
            "Node-RED",
          );
        } catch (err) {
          result.cases.push({ inject: input.id, status: "error", detail: `Node-RED: ${err instanceof Error ? err.message : String(err)}`, nodeRed: 0, ours: ours.arrivals.length });
          continue;
        }
        const a = normalize(c, theirs, theirSide);
        const b = normalize(c, ours.arrivals, ourSide);
        const same = JSON.stringify(a) === JSON.stringify(b);
        const errors = ours.errors.length > 0 ? `; our node errors: ${ours.errors.join("; ")}` : "";
        result.cases.push({
          inject: input.id,
          status: same ? "same" : random ? "nondeterministic" : "different",
          detail: same ? undefined : `${firstDifference(a, b)}${errors}`,
          nodeRed: a.length,
          ours: b.length,
        });
      }
      if (result.skipped) result.cases = [];
      results.push(result);
      console.log(`${rel}: ${result.skipped ? `skipped (${result.skipped})` : fileStatus(result)}`);
      for (const c of result.cases) if (c.status !== "same") console.log(`  ${c.inject}: ${c.status}: ${c.detail}`);
    }
  } finally {
    await sandboxes.close();
    await host.close();
    await nodeRed.stop();
    for (const f of EXAMPLE_FILES) rmSync(f, { force: true });
  }
  const report = markdown(results, nodeRed.version);
  if (only.length === 0) writeFileSync(REPORT, report);
  console.log(`\n${totalsLine(results)}${only.length === 0 ? `\nwritten to ${path.relative(ROOT, REPORT)}` : ""}`);
  process.exit(0);
}

function fileStatus(r: FileResult): string {
  if (r.skipped) return "skipped";
  const statuses = new Set(r.cases.map((c) => c.status));
  for (const s of ["error", "different", "nondeterministic"] as const) if (statuses.has(s)) return s;
  return "same";
}

function totalsLine(results: FileResult[]): string {
  const count = (s: string) => results.filter((r) => fileStatus(r) === s).length;
  const cases = results.flatMap((r) => r.cases);
  const caseCount = (s: Status) => cases.filter((c) => c.status === s).length;
  return (
    `files: ${results.length}: ${count("same")} same, ${count("different")} different, ${count("nondeterministic")} nondeterministic, ` +
    `${count("error")} error, ${count("skipped")} skipped; cases (one per inject node): ${cases.length}: ${caseCount("same")} same, ` +
    `${caseCount("different")} different, ${caseCount("nondeterministic")} nondeterministic, ${caseCount("error")} error`
  );
}

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

function markdown(results: FileResult[], version: string): string {
  const rows = results.map((r) => {
    const status = fileStatus(r);
    const cases = r.cases.map((c) => `${c.inject}: ${c.status} (${c.nodeRed}/${c.ours})${c.detail ? ` — ${c.detail}` : ""}`);
    return `| ${cell(r.file)} | ${status} | ${cell(r.skipped ?? cases.join("<br>"))} |`;
  });
  return `${[
    "# Node-RED's example flows, in Node-RED and in Flowplane",
    "",
    `Generated by \`npm run diff:examples\` (scripts/diff-examples.ts) against Node-RED ${version}, embedded in`,
    "the script's process (bench/node-red-5, installed on first use; Node >= 22.9). Not part of `npm test`.",
    "",
    "## What is run",
    "",
    "Each of Node-RED's own example flows (vendored at src/test/fixtures/node-red-examples, the files",
    "Node-RED 5.0 ships under Import > Examples) runs in both engines, through our import's own mapping",
    "(that of POST /flows/import): tabs, comments and config nodes are dropped and `z` stripped (groups,",
    "junctions and subflows are kept; Node-RED's examples have none today); debug nodes are removed and what was wired to them is",
    "collected (per debug node, in order); inject nodes neither fire at start nor repeat. One case per",
    "inject node: `{}` is delivered into it (both injects then send their configured message), and",
    `what reaches the debug nodes is collected until ${SETTLE_MS / 1000} s of quiet (${CASE_LIMIT_MS / 1000} s at most).`,
    "Arrivals are compared as the differential tests do (`_msgid` dropped, `parts.id` by order of",
    "appearance, key order ignored), with epoch milliseconds shown as `<timestamp>` and ISO-8601 dates as `<date>`.",
    "Flows using randomness (`$random`, a random delay, `Math.random`) are `nondeterministic` when",
    "they differ. Files with nodes we do not offer (exec, file, watch, tcp, udp, websocket, http,",
    "mqtt) or without inject or debug nodes are skipped.",
    "",
    "In the table, `(n/m)` is the number of arrivals in Node-RED / in ours; the difference shown is the",
    "first differing arrival.",
    "",
    "## Totals",
    "",
    totalsLine(results),
    "",
    "## Differences explained",
    "",
    ...results
      .filter((r) => !r.skipped && (fileStatus(r) !== "same" || NOTES[r.file]))
      .map((r) => `- **${r.file}** (${fileStatus(r)}): ${NOTES[r.file] ?? "not yet looked at."}`),
    "",
    "## Results",
    "",
    "| Example | Result | Cases (inject id: result) or reason |",
    "| --- | --- | --- |",
    ...rows,
    "",
    ...REAL_FLOWS,
    "",
  ].join("\n")}`;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
