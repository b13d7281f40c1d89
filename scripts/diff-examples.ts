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
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { SandboxPool } from "../src/server/runtime/sandbox/sandbox-pool";
import { normalizeArrivals } from "../src/test/node-red-diff/normalize";
import { runOurs } from "../src/test/node-red-diff/run-ours";
import type { Arrival, DiffCase, NodeRedNode } from "../src/test/node-red-diff/types";
import { runNodeRedCase, startNodeRed } from "./lib/node-red-embedded";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const EXAMPLES = path.join(ROOT, "src/test/fixtures/node-red-examples");
const REPORT = path.join(ROOT, "docs/NODE-RED-EXAMPLES.md");
const SETTLE_MS = 1500;
/** At most per case, on each side: the rate-limit example (delay/04) releases 10 messages at 1 a second. */
const CASE_LIMIT_MS = 12_000;

/** Groups, junctions and subflows are kept: they go through our import (groups' members that are debug nodes are then left out). */
const DROPPED = new Set(["tab", "comment"]);
/** Node types we do not offer (host access, raw network, servers). */
const UNOFFERED: Array<[RegExp, string]> = [
  [/^exec$/, "exec: no host processes"],
  [/^(file|file in|watch)$/, "file access: no host file system"],
  [/^tcp/, "tcp: no raw sockets"],
  [/^udp/, "udp: no raw sockets"],
  [/^websocket/, "websocket: needs a network peer"],
  [/^http (in|request|response)$/, "http: needs the network"],
  [/^mqtt/, "mqtt: needs a broker"],
];

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
 * The nodes of an example as a case's nodes (and its subflow definitions with the nodes inside
 * them, as they are), or why the file is skipped.
 */
function prepare(original: NodeRedNode[]): { nodes: NodeRedNode[]; subflows: NodeRedNode[] } | { skipped: string } {
  const raw = renameIds(original);
  for (const n of raw) {
    const hit = UNOFFERED.find(([re]) => re.test(n.type));
    if (hit) return { skipped: `${hit[1]} (node "${n.type}")` };
  }
  const definitions = new Set(raw.filter((n) => n.type === "subflow").map((n) => n.id));
  const subflows = raw.filter((n) => definitions.has(n.id) || (typeof n.z === "string" && definitions.has(n.z)));
  const kept = raw.filter((n) => !subflows.includes(n) && !DROPPED.has(n.type) && (Array.isArray(n.wires) || n.type === "debug" || n.type === "group"));
  const debugs = new Set(kept.filter((n) => n.type === "debug").map((n) => n.id));
  const nodes = kept
    .filter((n) => !debugs.has(n.id))
    .map((n) => {
      const { z: _z, ...rest } = n;
      const node: NodeRedNode = { ...rest };
      if (node.type === "inject") Object.assign(node, { once: false, repeat: "", crontab: "" });
      return node;
    });
  if (debugs.size === 0) return { skipped: "no debug node" };
  if (!nodes.some((n) => n.type === "inject")) return { skipped: "no inject node" };
  return { nodes, subflows };
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
const normalize = (c: DiffCase, arrivals: Arrival[]) => normalizeArrivals(c, arrivals).map((a) => fixVolatile(a) as Arrival);

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
    return `arrival ${i + 1}${count}: Node-RED ${a ? `${a.collector} ${short(a.msg)}` : "nothing"}; ours ${b ? `${b.collector} ${short(b.msg)}` : "nothing"}`;
  }
  return "";
}

async function main() {
  const only = process.argv.slice(2).filter((a) => a !== "--");
  const files = exampleFiles(EXAMPLES).filter((f) => only.length === 0 || only.some((o) => f.includes(o)));
  const nodeRed = await startNodeRed();
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
      for (const inject of prepared.nodes.filter((n) => n.type === "inject")) {
        const c: DiffCase = {
          name: `${rel} ${inject.id}`,
          nodes: structuredClone(prepared.nodes),
          ...(prepared.subflows.length > 0 ? { subflows: structuredClone(prepared.subflows) } : {}),
          input: inject.id,
          send: [{ msg: {} }],
          settleMs: SETTLE_MS,
        };
        let ours: Awaited<ReturnType<typeof runOurs>>;
        try {
          ours = await withLimit(runOurs(c, { sandboxes }), "ours");
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          if (message.startsWith("imported as unknown nodes")) {
            result.skipped = `our import: ${message}`;
            break;
          }
          result.cases.push({ inject: inject.id, status: "error", detail: `ours: ${message}`, nodeRed: 0, ours: 0 });
          continue;
        }
        let theirs: Arrival[];
        try {
          theirs = await withLimit(runNodeRedCase(nodeRed.RED, c, index++, { clearGlobalBeforeDeploy: true }), "Node-RED");
        } catch (err) {
          result.cases.push({ inject: inject.id, status: "error", detail: `Node-RED: ${err instanceof Error ? err.message : String(err)}`, nodeRed: 0, ours: ours.arrivals.length });
          continue;
        }
        const a = normalize(c, theirs);
        const b = normalize(c, ours.arrivals);
        const same = JSON.stringify(a) === JSON.stringify(b);
        const errors = ours.errors.length > 0 ? `; our node errors: ${ours.errors.join("; ")}` : "";
        result.cases.push({
          inject: inject.id,
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
    await nodeRed.stop();
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
