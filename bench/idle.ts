/**
 * 11. Idle memory and ready time (issue 39): the BUILT server as `npm start` runs it
 * (dist/server/server.js, NODE_ENV=production), started afresh several times on the embedded
 * defaults and, when DATABASE_URL and REDIS_URL are set, on PostgreSQL + Redis (a fresh database
 * and key prefix each time); Node-RED (5.0 from bench/node-red-5 on Node >= 22.9, else 4.1 from
 * bench/node-red; its editor on, as `node-red` starts, on the bench's Node) beside it in the same run, the two in turn. Ready = from spawn to the first 200 of /api/v1/ready (Node-RED:
 * of its editor's `/`), polled every 25 ms. Idle = the process's RSS (/proc/<pid>/status, worker
 * threads included) after 10 s of rest, before any flow or request but the polls.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { comparedNodeRedDir, ensureNodeRed } from "./node-red";
import { fmt } from "./lib/stats";
import type { BenchContext, BenchOutcome, Row } from "./lib/types";

const B = "11 Idle memory and ready time";
const ROOT = fileURLToPath(new URL("../", import.meta.url));
const RUNS = Number(process.env.BENCH_IDLE_RUNS ?? 5);
const SETTLE_MS = 10_000;
const PORT = Number(process.env.BENCH_PORT_BASE ?? 3600) + 10;

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN) * 1024;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;

interface Sample {
  readyMs: number;
  rss: number;
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

/** Spawns, times the first 200 of `readyUrl`, rests, reads the RSS, stops. */
async function measure(command: string[], env: NodeJS.ProcessEnv, readyUrl: string): Promise<Sample> {
  const started = performance.now();
  const child = spawn(process.execPath, command, { cwd: ROOT, env, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode}: ${stderr.trim()}`);
      try {
        if ((await fetch(readyUrl)).status === 200) break;
      } catch {
        // not listening yet
      }
      if (performance.now() - started > 120_000) throw new Error(`not ready within 120 s: ${stderr.trim()}`);
      await sleep(25);
    }
    const readyMs = performance.now() - started;
    await sleep(SETTLE_MS);
    return { readyMs, rss: rssOf(child.pid!) };
  } finally {
    await stop(child);
  }
}

/** A first start on a new DATA_DIR (and database), then a restart on the same one. */
async function ours(services: boolean): Promise<{ first: Sample; restart: Sample }> {
  const suffix = randomBytes(4).toString("hex");
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "bench-idle-"));
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? os.tmpdir(),
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    PORT: String(PORT),
    PUBLIC_URL: `http://127.0.0.1:${PORT}`,
    DATA_DIR: dataDir,
    JWT_SECRET: "bench-jwt-secret-that-is-at-least-32-characters",
    ENCRYPTION_KEY: "bench-encryption-key-at-least-32-characters",
  };
  const database = `idle_bench_${suffix}`;
  const admin = services ? new pg.Client({ connectionString: process.env.DATABASE_URL }) : undefined;
  if (admin) {
    await admin.connect();
    await admin.query(`CREATE DATABASE "${database}"`);
    const u = new URL(process.env.DATABASE_URL!);
    u.pathname = `/${database}`;
    env.DATABASE_URL = u.toString();
    env.REDIS_URL = process.env.REDIS_URL;
    env.REDIS_KEY_PREFIX = `${process.env.BENCH_REDIS_PREFIX ?? "bench:"}${suffix}:`;
  }
  try {
    const first = await measure(["dist/server/server.js"], env as NodeJS.ProcessEnv, `http://127.0.0.1:${PORT}/api/v1/ready`);
    const restart = await measure(["dist/server/server.js"], env as NodeJS.ProcessEnv, `http://127.0.0.1:${PORT}/api/v1/ready`);
    return { first, restart };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    if (admin) {
      await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await admin.end();
    }
  }
}

async function nodeRed(): Promise<Sample> {
  const userDir = mkdtempSync(path.join(os.tmpdir(), "bench-idle-node-red-"));
  const red = path.join(comparedNodeRedDir(), "node_modules/node-red/red.js");
  try {
    return await measure([red, "--port", String(PORT + 1), "--userDir", userDir], { PATH: process.env.PATH ?? "", HOME: userDir } as unknown as NodeJS.ProcessEnv, `http://127.0.0.1:${PORT + 1}/`);
  } finally {
    rmSync(userDir, { recursive: true, force: true });
  }
}

export async function benchIdle(ctx: BenchContext): Promise<BenchOutcome> {
  if (!existsSync(path.join(ROOT, ".next/BUILD_ID")) || !existsSync(path.join(ROOT, "dist/server/server.js"))) throw new Error("no production build: run `npm run build` first");
  const red = await ensureNodeRed(ctx.log);
  const configurations: Array<{ label: string; services: boolean }> = [{ label: "embedded PGlite + in-process store", services: false }];
  if (process.env.DATABASE_URL && process.env.REDIS_URL) configurations.push({ label: "PostgreSQL + Redis", services: true });
  const samples = new Map<string, Sample[]>();
  const keep = (label: string, sample: Sample) => {
    ctx.log(`${label}: ready ${fmt.ms(sample.readyMs)}, idle ${fmt.int(sample.rss / 2 ** 20)} MB`);
    samples.set(label, [...(samples.get(label) ?? []), sample]);
  };
  const loads: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const sides: Array<() => Promise<void>> = configurations.map(({ label, services }) => async () => {
      const { first, restart } = await ours(services);
      keep(`${label}, first start`, first);
      keep(`${label}, restart`, restart);
    });
    if (red.ok) sides.push(async () => keep("Node-RED", await nodeRed()));
    // Alternate which side starts first, so neither always meets the machine fresher.
    if (i % 2 === 1) sides.reverse();
    for (const side of sides) {
      loads.push(os.loadavg()[0]!);
      await side();
    }
  }
  const nodeRedSamples = samples.get("Node-RED");
  const rows: Row[] = [];
  for (const label of configurations.flatMap((c) => [`${c.label}, first start`, `${c.label}, restart`])) {
    const mine = samples.get(label)!;
    const range = (pick: (s: Sample) => number, unit: (n: number) => string) => `${unit(median(mine.map(pick)))} (${unit(Math.min(...mine.map(pick)))}–${unit(Math.max(...mine.map(pick)))})`;
    const theirs = (pick: (s: Sample) => number, unit: (n: number) => string) => (nodeRedSamples ? `${unit(median(nodeRedSamples.map(pick)))}` : undefined);
    rows.push({ benchmark: B, measure: `idle RSS, MB, ${label}`, result: range((s) => s.rss, (n) => fmt.int(n / 2 ** 20)), nodeRed: theirs((s) => s.rss, (n) => fmt.int(n / 2 ** 20)) });
    rows.push({ benchmark: B, measure: `ready after start, ${label}`, result: range((s) => s.readyMs, fmt.ms), nodeRed: theirs((s) => s.readyMs, fmt.ms) });
  }
  return {
    rows,
    notes: [
      `Benchmark 11: ${RUNS} fresh starts per side, medians (min–max); the built server (dist/server/server.js, NODE_ENV=production); Node-RED ${red.ok ? red.version : `not run (${red.reason})`} with its editor, default settings, both on Node ${process.versions.node}. Ready: spawn to the first 200 of /api/v1/ready (Node-RED: its editor at /). Idle: RSS after ${SETTLE_MS / 1000} s at rest. "First start": a new DATA_DIR (embedded: initdb runs) or a new database; "restart": the same one again, as every later start. 1-minute load average during the runs ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)} on ${os.cpus().length} cores.`,
    ],
  };
}
