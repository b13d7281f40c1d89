/**
 * Benchmark 4e in a fresh process, ours: inject → function (generate N) → function (msg.topic = an
 * INSERT, msg.payload = [seq]) → sqlite → change → counter, on a database that is one of the
 * organization's files (runtime/sqlite/sqlite-host.ts: SQLite in a worker thread, the database
 * written back to the file after each batch of statements). Usage: sqlite-child.ts <N> <time limit
 * ms>; the database is DATABASE_URL when set, else embedded PGlite. The result goes to the parent
 * over IPC.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import type { FlowSpec } from "@/server/runtime/engine";
import type { OrgFiles } from "@/server/runtime/types";
import { SandboxPool } from "@/server/runtime/sandbox/sandbox-pool";
import { benchApp, benchEngine, countingNode, finishChild, GENERATOR } from "./lib/chain";
import { SqliteHost } from "@/server/runtime/sqlite/sqlite-host";
import { fileVersion, readFile, writeFile } from "@/server/services/files/file-store";
import { startRssSampler } from "./lib/rss";
import { SQLITE_INSERT_CODE, sqliteSetup } from "./lib/sqlite-bench";

export interface SqliteBenchResult {
  type: "result";
  backend: string;
  n: number;
  arrived: number;
  complete: boolean;
  ms: number;
  msgPerSec: number;
  cpuMs: number;
  /** Write-backs of the database to the organization's files, and the bytes they wrote. */
  writeBacks: number;
  bytesWritten: number;
  /** The database's size at the end, and the rows it holds. */
  fileBytes: number;
  rows: number;
  idleRss: number;
  peakRss: number;
}


async function main() {
  const [nArg, limitArg] = process.argv.slice(2);
  const n = Number(nArg);
  const limitMs = Number(limitArg ?? 60_000);
  if (!Number.isInteger(n) || n <= 0) throw new Error("usage: sqlite-child.ts <N> [time limit ms]");

  const { app, owner, flowId } = await benchApp("sqlite bench");

  // The organization's files as compose.ts builds them, counting the write-backs.
  const prisma = app.db.prisma;
  const limits = { maxBytes: app.config.env.FILES_MAX_BYTES, maxFileBytes: app.config.env.FILES_MAX_UPLOAD_BYTES };
  let writeBacks = 0;
  let bytesWritten = 0;
  const files: OrgFiles = {
    read: async (org, path) => (await readFile(prisma, org, path))?.content ?? null,
    write: async (org, path, content, { append }) => void (await writeFile(prisma, org, path, content, { append, limits })),
    delete: async () => false,
    version: (org, path) => fileVersion(prisma, org, path),
    readVersioned: async (org, path) => {
      const file = await readFile(prisma, org, path);
      return file ? { content: file.content, version: file.updatedAt.getTime() } : null;
    },
    replaceIf: async (org, path, content, expected) => {
      writeBacks++;
      bytesWritten += content.byteLength;
      const written = await writeFile(prisma, org, path, content, { append: false, limits, ifVersion: expected });
      return "conflict" in written ? false : written.updatedAt.getTime();
    },
  };
  const sqlite = new SqliteHost({
    files,
    heapLimitBytes: app.config.env.SQLITE_MEMORY_BYTES,
    limits: { statementMs: 5000, maxDatabaseBytes: limits.maxFileBytes, maxValueBytes: 16 << 20, maxResultBytes: 32 << 20 },
  });
  // The table and its preload (the same as Node-RED's), before the run.
  const setup = sqlite.acquire({ organizationId: owner.organizationId, path: "bench.db", privateId: "setup", mode: "RWC" });
  await setup.exec(sqliteSetup());
  await setup.release();

  const counting = countingNode(n);
  const pool = new SandboxPool();
  const { engine, errors, node } = benchEngine(counting.factory, { sandboxes: pool, files, sqlite });
  const spec: FlowSpec = {
    flowId,
    organizationId: owner.organizationId,
    organizationSlug: "bench",
    revision: 1,
    configNodes: { db: { id: "db", type: "sqlitedb", name: "bench", revision: 1, config: { db: "bench.db", mode: "RWC" }, sealed_credentials: {} } },
    nodes: [
      node("inj", "inject", { payload_type: "json", payload: "{}" }),
      node("gen", "function", { code: GENERATOR }),
      node("pre", "function", { code: SQLITE_INSERT_CODE }),
      node("sql", "sqlite", { mydb: "db", sqlquery: "msg.topic" }),
      node("chg", "change", { rules: [{ t: "set", p: "payload", to: "seq", to_type: "msg" }] }),
      { id: "cnt", type: "counter", name: "", config: {} },
    ],
    connections: [
      { source: "inj", target: "gen", source_port: 0 },
      { source: "gen", target: "pre", source_port: 0 },
      { source: "pre", target: "sql", source_port: 0 },
      { source: "sql", target: "chg", source_port: 0 },
      { source: "chg", target: "cnt", source_port: 0 },
    ],
  };
  if ((await engine.deploy(spec)) !== "running") throw new Error(`the bench flow did not start: ${errors.join("; ")}`);
  await nextTurn();

  const rss = startRssSampler();
  writeBacks = 0;
  bytesWritten = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const timeout = new Promise<void>((resolve) => setTimeout(resolve, limitMs).unref());
  engine.inject(flowId, "inj", { payload: { n } });
  await Promise.race([counting.finished, timeout]);
  const cpu = process.cpuUsage(cpu0);
  const { idleRss, peakRss } = rss.stop();
  const arrived = counting.arrived();
  const complete = arrived >= n;
  const ms = (complete ? counting.lastArrival() : performance.now()) - t0;
  if (errors.length > 0) throw new Error(`node errors: ${JSON.stringify(errors.slice(0, 3))}`);
  const check = sqlite.acquire({ organizationId: owner.organizationId, path: "bench.db", privateId: "check", mode: "RO" });
  const [counted] = (await check.all("SELECT count(v) AS rows FROM readings")) as Array<{ rows: number }>;
  await check.release();
  const file = await readFile(prisma, owner.organizationId, "bench.db");
  const result: SqliteBenchResult = {
    type: "result",
    backend: app.db.kind,
    n,
    arrived,
    complete,
    ms,
    msgPerSec: complete ? n / (ms / 1000) : Number.NaN,
    cpuMs: (cpu.user + cpu.system) / 1000,
    writeBacks,
    bytesWritten,
    fileBytes: file?.size ?? 0,
    rows: counted?.rows ?? 0,
    idleRss,
    peakRss,
  };
  await finishChild(result, async () => {
    await engine.close();
    await sqlite.close();
    await pool.close();
    await app.close();
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
