/**
 * `npm run bench`: runs the benchmarks against one backend (embedded PGlite + in-process store, or
 * DATABASE_URL / REDIS_URL), prints a table and rewrites that backend's section of
 * docs/BENCHMARKS.md. `npm run bench -- accounts runtime` runs only those (and writes nothing), except
 * `failover`, which always rewrites its own section ("Several instances").
 */
import { execFileSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createTestApp, restClient } from "@/test/app";
import { benchAccounts } from "./accounts";
import { benchFlowsAtScale } from "./flows-scale";
import { benchRuntime } from "./runtime";
import { benchContext } from "./context";
import { benchSqlite } from "./sqlite";
import { benchMysql, benchPostgresql } from "./db-inserts";
import { benchSandbox } from "./sandbox";
import { benchDebugEvents } from "./debug-ws";
import { benchDebugFanout } from "./debug-fanout";
import { benchDebugUi } from "./debug-ui";
import { benchDashboardUi } from "./dashboard-ui";
import { benchEditor } from "./editor";
import { benchHttp } from "./http";
import { benchFailover } from "./failover";
import { benchForward } from "./forward";
import { benchTurns } from "./turns";
import { benchExecutions, benchExecutionsEach } from "./executions";
import { benchIdle } from "./idle";
import { benchMqtt } from "./mqtt";
import { benchBroker } from "./broker";
import { benchDashboardFanout } from "./dashboard-fanout";
import { startRestServer } from "./lib/rest-server";
import { consoleTable, writeReport } from "./lib/report";
import { fmt } from "./lib/stats";
import type { BenchContext, BenchOutcome, Row } from "./lib/types";
import { comparedNodeRedDir, REFERENCE_DIR } from "./node-red";

const REPORT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../docs/BENCHMARKS.md");

/** Real bcrypt cost; limits that would otherwise answer 429 within the first second of load. */
const APP_OVERRIDES = {
  BCRYPT_COST: "12",
  RATE_LIMIT_LOGIN_PER_IP: "1000000",
  RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT: "1000000",
  RATE_LIMIT_API_PER_CREDENTIAL: "100000000",
};

// In run order: the flows-at-scale seed comes last so its 10,000 flows do not sit under the others.
// `explicit`: runs only when named (`npm run bench -- editor`): it needs `npm run build` and Chromium.
// `ownServer`: the benchmark starts the production server itself and needs no in-process app.
const BENCHMARKS: Array<{ name: string; title: string; run: (ctx: BenchContext) => Promise<BenchOutcome>; explicit?: boolean; ownServer?: boolean }> = [
  { name: "accounts", title: "1 Accounts", run: benchAccounts },
  { name: "http", title: "2 Request hot path (production server, Node-RED side by side)", run: benchHttp, ownServer: true },
  { name: "runtime", title: "4 Runtime throughput", run: benchRuntime },
  { name: "context", title: "4c Durable context (flow.set / flow.increment per message, Node-RED side by side)", run: benchContext, ownServer: true },
  { name: "sandbox", title: "4b Function sandbox (calls, creation)", run: benchSandbox, ownServer: true, explicit: true },
  { name: "sqlite", title: "4e SQLite inserts (node-red-node-sqlite, Node-RED side by side)", run: benchSqlite, ownServer: true, explicit: true },
  { name: "mysql", title: "4f MySQL inserts (node-red-node-mysql, Node-RED side by side; a MariaDB on this machine)", run: benchMysql, ownServer: true, explicit: true },
  { name: "postgresql", title: "4g PostgreSQL inserts (node-red-contrib-postgresql, Node-RED side by side; a PostgreSQL on this machine)", run: benchPostgresql, ownServer: true, explicit: true },
  { name: "turns", title: "4d Function turns (messages in flight, Node-RED side by side)", run: benchTurns, ownServer: true, explicit: true },
  { name: "debug", title: "5 Debug events to one WebSocket", run: benchDebugEvents },
  { name: "debug100", title: "5b Debug events to 100 WebSocket clients", run: benchDebugFanout },
  { name: "debug-ui", title: "9 Debug region in Chromium", run: benchDebugUi },
  // SPEC §21: 200 viewers of one dashboard page; its own section of the report, written whenever it ran.
  { name: "dashboard-fanout", title: "14 Dashboard fan-out: 200 viewers of one page", run: benchDashboardFanout, explicit: true },
  // Its own processes and its own section of the report (it needs DATABASE_URL and REDIS_URL).
  { name: "failover", title: "7 Several instances: failover, forwarded injects", run: benchFailover, ownServer: true },
  { name: "forward", title: "7b Forwarded calls against direct ones (two instances)", run: benchForward, ownServer: true },
  { name: "flows", title: "3 Flows at scale", run: benchFlowsAtScale },
  // A million stored executions on PostgreSQL (100,000 embedded): only when named, it seeds for minutes.
  { name: "executions", title: "10 Executions (recording cost, list with many stored, size)", run: benchExecutions, explicit: true },
  // Benchmark 10's recording cost with one execution per message (minutes, no seed): only when named.
  { name: "executions-each", title: "10b Executions, one per message (recording cost)", run: benchExecutionsEach, explicit: true },
  { name: "editor", title: "8 Editor (Chromium)", run: benchEditor, ownServer: true, explicit: true },
  // The dashboard client in Chromium (its own page and socket server): only when named.
  { name: "dashboard-ui", title: "15 Dashboard page in Chromium", run: benchDashboardUi, ownServer: true, explicit: true },
  // Fresh starts of the built server on both configurations beside Node-RED (minutes): only when named.
  // MQTT through Mosquitto beside Node-RED 5 (issue 35): only when named, it installs Node 22 and Node-RED 5 on first use.
  { name: "mqtt", title: "12 MQTT in → change → out beside Node-RED 5", run: benchMqtt, ownServer: true, explicit: true },
  // Our MQTT broker beside Mosquitto (its own app, a Mosquitto of its own): only when named.
  { name: "broker", title: "13 Built-in MQTT broker (Mosquitto side by side)", run: benchBroker, ownServer: true, explicit: true },
  { name: "idle", title: "11 Idle memory and ready time (built server, Node-RED side by side)", run: benchIdle, ownServer: true, explicit: true },
];

const started = performance.now();
function log(message: string) {
  process.stderr.write(`[bench ${fmt.s(performance.now() - started).padStart(7)}] ${message}\n`);
}

/** Which code was measured: the commit and how many files under src/ differ from it (read-only git). */
function codeVersion(): string {
  try {
    const git = (...args: string[]) => execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    const commit = git("rev-parse", "--short", "HEAD");
    const changed = git("status", "--porcelain", "--", "src").split("\n").filter(Boolean).length;
    return changed > 0 ? `commit ${commit} plus ${changed} uncommitted file(s) under src/` : `commit ${commit}`;
  } catch {
    return "unknown (no git)";
  }
}

const loadavg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" / ");

async function main() {
  const only = process.argv.slice(2);
  const unknown = only.filter((o) => !BENCHMARKS.some((b) => b.name === o));
  if (unknown.length > 0) throw new Error(`unknown benchmark(s) ${unknown.join(", ")}; choose from ${BENCHMARKS.map((b) => b.name).join(", ")}`);
  const selected = only.length > 0 ? BENCHMARKS.filter((b) => only.includes(b.name)) : BENCHMARKS.filter((b) => !b.explicit);

  const startedAt = new Date();
  const loadAtStart = loadavg();
  log(`load average at start (1/5/15 min): ${loadAtStart}`);
  // The in-process app and its small REST server only when a selected benchmark uses them.
  const inProcess = selected.some((b) => !b.ownServer);
  const app = inProcess ? await createTestApp(APP_OVERRIDES) : undefined;
  const server = app ? await startRestServer(app) : undefined;
  const ctx: BenchContext = { services: app!, baseUrl: server?.url ?? "", request: app ? restClient(app) : (undefined as never), log };
  const backend = {
    db: app?.db.kind ?? (process.env.DATABASE_URL ? "postgres" : "embedded"),
    store: app?.store.kind ?? (process.env.REDIS_URL ? "redis" : "memory"),
  };
  log(`backend: ${backend.db} database, ${backend.store} store${server ? `; in-process REST server on ${server.url}` : ""}`);

  const rows: Row[] = [];
  const notes: string[] = [];
  let failed = false;
  try {
    for (const b of selected) {
      log(`— ${b.title}`);
      const t = performance.now();
      try {
        const outcome = await b.run(ctx);
        rows.push(...outcome.rows);
        notes.push(...outcome.notes);
      } catch (err) {
        failed = true;
        const message = err instanceof Error ? err.message : String(err);
        log(`${b.title} failed: ${err instanceof Error ? err.stack : message}`);
        rows.push({ benchmark: b.title, measure: "(failed)", result: "failed", notes: message.slice(0, 200) });
      }
      log(`${b.title} took ${fmt.s(performance.now() - t)}`);
    }
  } finally {
    await server?.close();
    await app?.close();
  }
  const loadAtEnd = loadavg();
  const totalMs = performance.now() - started;
  log(`done in ${fmt.s(totalMs)}; load average at end: ${loadAtEnd}`);

  // Rows in the brief's order (1 … 6), whatever order they ran in.
  rows.sort((a, b) => a.benchmark.localeCompare(b.benchmark, "en", { numeric: true }));
  console.log(`\n${consoleTable(rows)}\n`);
  if (notes.length > 0) console.log(notes.map((n) => `- ${n}`).join("\n"));

  const cpus = os.cpus();
  const busy = Number(loadAtStart.split(" / ")[0]) > cpus.length * 0.5;
  const backendTitle = `${backend.db === "embedded" ? "Embedded PGlite" : "PostgreSQL"} + ${backend.store === "memory" ? "in-process store" : "Redis"}`;
  const machine = [
    `Machine: ${cpus[0]?.model ?? "unknown CPU"}, ${cpus.length} cores, ${fmt.int(os.totalmem() / 1024 ** 3)} GB RAM, ${os.platform()} ${os.release()}`,
    `Node ${process.version}; run started ${startedAt.toISOString()}, took ${fmt.s(totalMs)}; code: ${codeVersion()}`,
    `Load average (1 / 5 / 15 min): ${loadAtStart} at start, ${loadAtEnd} at end${busy ? " — measured while other work ran on the machine" : ""}`,
  ];
  // Benchmark 2 has a section of its own, written whenever it ran (alone too).
  const hot = (r: Row) => r.benchmark.startsWith("2 ");
  if (selected.some((b) => b.name === "http")) {
    writeReport(REPORT, {
      key: `hotpath-${backend.db}-${backend.store}`,
      title: `Request hot path, side by side with Node-RED: ${backendTitle}`,
      machine,
      rows: rows.filter(hot),
      notes: notes.filter((n) => n.startsWith("Benchmark 2")),
      nodeRedHeader: `Node-RED ${comparedNodeRedDir() === REFERENCE_DIR ? "5.0.x" : "4.1.x"}, same run, no authentication`,
    });
    log(`wrote benchmark 2's section of ${path.relative(process.cwd(), REPORT)}`);
  }
  // Benchmark 11 measures both configurations itself: one section, written whenever it ran.
  if (selected.some((b) => b.name === "idle")) {
    writeReport(REPORT, {
      key: "idle",
      title: "Idle memory and ready time (issue 39), side by side with Node-RED",
      machine,
      rows: rows.filter((r) => r.benchmark.startsWith("11 ")),
      notes: notes.filter((n) => n.startsWith("Benchmark 11")),
      nodeRedHeader: "Node-RED, same run",
    });
    log(`wrote benchmark 11's section of ${path.relative(process.cwd(), REPORT)}`);
  }
  // Benchmark 12 (MQTT) has a section of its own, written whenever it ran: it uses no database.
  if (selected.some((b) => b.name === "mqtt")) {
    writeReport(REPORT, {
      key: "mqtt",
      title: "MQTT in → change → out through one Mosquitto (issue 35), side by side with Node-RED 5",
      machine,
      rows: rows.filter((r) => r.benchmark.startsWith("12 ")),
      notes: notes.filter((n) => n.startsWith("Benchmark 12")),
      nodeRedHeader: "Node-RED 5, same run, same broker",
    });
    log(`wrote benchmark 12's section of ${path.relative(process.cwd(), REPORT)}`);
  }
  // Benchmark 13 has a section of its own per backend, written whenever it ran.
  if (selected.some((b) => b.name === "broker")) {
    writeReport(REPORT, {
      key: `broker-${backend.db}-${backend.store}`,
      title: `Built-in MQTT broker (issue 36), side by side with Mosquitto: ${backendTitle}`,
      machine,
      rows: rows.filter((r) => r.benchmark.startsWith("13 ")),
      notes: notes.filter((n) => n.startsWith("Benchmark 13")),
      nodeRedHeader: "Mosquitto 2, same run, same client",
    });
    log(`wrote benchmark 13's section of ${path.relative(process.cwd(), REPORT)}`);
  }
  // Benchmark 10 has a section of its own per backend, written whenever it ran.
  const executionsRows = (r: Row) => r.benchmark.startsWith("10 ");
  if (selected.some((b) => b.name === "executions")) {
    writeReport(REPORT, {
      key: `executions-${backend.db}-${backend.store}`,
      title: `Executions (issue 25): ${backendTitle}`,
      machine,
      rows: rows.filter(executionsRows),
      notes: notes.filter((n) => n.startsWith("Benchmark 10")),
      nodeRedHeader: "Node-RED (has no executions)",
    });
    log(`wrote benchmark 10's section of ${path.relative(process.cwd(), REPORT)}`);
  }
  // Benchmark 14 (dashboard fan-out) has a section of its own per backend, written whenever it ran.
  if (selected.some((b) => b.name === "dashboard-fanout")) {
    writeReport(REPORT, {
      key: `dashboard-fanout-${backend.db}-${backend.store}`,
      title: `Dashboard fan-out (SPEC §21): ${backendTitle}`,
      machine,
      rows: rows.filter((r) => r.benchmark.startsWith("14 ")),
      notes: notes.filter((n) => n.startsWith("Benchmark 14")),
      nodeRedHeader: "Node-RED Dashboard 2.0 (not measured side by side)",
    });
    log(`wrote benchmark 14's section of ${path.relative(process.cwd(), REPORT)}`);
  }
  // Benchmark 10b (one execution per message) too, in a section of its own per backend.
  const eachRows = (r: Row) => r.benchmark.startsWith("10b ");
  if (selected.some((b) => b.name === "executions-each")) {
    writeReport(REPORT, {
      key: `executions-each-${backend.db}-${backend.store}`,
      title: `Executions, one per message (issue 25): ${backendTitle}`,
      machine,
      rows: rows.filter(eachRows),
      notes: notes.filter((n) => n.startsWith("Benchmark 10b")),
      nodeRedHeader: "Node-RED (has no executions)",
    });
    log(`wrote benchmark 10b's section of ${path.relative(process.cwd(), REPORT)}`);
  }
  if (only.length > 0) {
    log("a subset ran: the backend's main section of docs/BENCHMARKS.md left as it is");
  } else {
    writeReport(REPORT, {
      key: `${backend.db}-${backend.store}`,
      title: backend.db === "embedded" ? `Embedded PGlite (in memory) + ${backend.store === "memory" ? "in-process store" : "Redis"}` : backendTitle,
      machine,
      rows: rows.filter((r) => !hot(r)),
      notes: notes.filter((n) => !n.startsWith("Benchmark 2")),
    });
    log(`wrote ${path.relative(process.cwd(), REPORT)}`);
  }
  // Exit even if a library left a handle open (a pool, a socket): the run is over.
  process.exit(failed ? 1 : 0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
