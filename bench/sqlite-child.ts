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
import { benchApp, benchEngine, countingNode, finishChild, insertChain, timedChainRun } from "./lib/chain";
import { SqliteHost } from "@/server/runtime/sqlite/sqlite-host";
import { fileVersion, readFile, writeFile } from "@/server/services/files/file-store";
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
    ...insertChain(node, SQLITE_INSERT_CODE, { type: "sqlite", config: { mydb: "db", sqlquery: "msg.topic" } }),
  };
  if ((await engine.deploy(spec)) !== "running") throw new Error(`the bench flow did not start: ${errors.join("; ")}`);
  await nextTurn();

  writeBacks = 0;
  bytesWritten = 0;
  const run = await timedChainRun(engine, flowId, counting, n, limitMs, errors);
  const check = sqlite.acquire({ organizationId: owner.organizationId, path: "bench.db", privateId: "check", mode: "RO" });
  const [counted] = (await check.all("SELECT count(v) AS rows FROM readings")) as Array<{ rows: number }>;
  await check.release();
  const file = await readFile(prisma, owner.organizationId, "bench.db");
  const result: SqliteBenchResult = {
    type: "result",
    backend: app.db.kind,
    ...run,
    writeBacks,
    bytesWritten,
    fileBytes: file?.size ?? 0,
    rows: counted?.rows ?? 0,
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
