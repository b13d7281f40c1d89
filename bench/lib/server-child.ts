import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import pg from "pg";

/** The checkout whose built server runs: this one, or BENCH_SERVER_ROOT (another worktree, built). */
const ROOT = process.env.BENCH_SERVER_ROOT ?? fileURLToPath(new URL("../../", import.meta.url));

export interface ServerChild {
  /** http://127.0.0.1:<port> */
  url: string;
  backend: { db: "embedded" | "postgres"; store: "memory" | "redis" };
  pid: number;
  /** Ends the server (SIGTERM: its own clean shutdown, which also writes a --cpu-prof profile). */
  stop(): Promise<void>;
}

export interface ServerChildOptions {
  port: number;
  /** Extra environment (rate limits, bcrypt cost). */
  env?: Record<string, string>;
  /** Writes a V8 CPU profile of the server into this directory when it stops. */
  cpuProfDir?: string;
  log(message: string): void;
}

/**
 * The production server as a user runs it (`npm start`): the built Next app (.next, from
 * `npm run build`) behind the compiled server (dist/server/server.js) with NODE_ENV=production, in a child process of its own.
 * Embedded PGlite and the in-process store by default; with DATABASE_URL and REDIS_URL set in the
 * bench's environment, a fresh database on that server (dropped afterwards) and a key prefix of
 * its own on Redis. Its log lines (pino, LOG_LEVEL info as in production) go to /dev/null.
 */
export async function startServerChild(options: ServerChildOptions): Promise<ServerChild> {
  if (!existsSync(path.join(ROOT, ".next/BUILD_ID")) || !existsSync(path.join(ROOT, "dist/server/server.js"))) throw new Error("no production build: run `npm run build` first");
  const suffix = randomBytes(4).toString("hex");
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "bench-server-"));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? os.tmpdir(),
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    PORT: String(options.port),
    PUBLIC_URL: `http://127.0.0.1:${options.port}`,
    DATA_DIR: dataDir,
    JWT_SECRET: "bench-jwt-secret-that-is-at-least-32-characters",
    ENCRYPTION_KEY: "bench-encryption-key-at-least-32-characters",
    ...options.env,
  };
  let dbUrl: string | undefined;
  let adminUrl: string | undefined;
  const database = `hot_bench_${suffix}`;
  if (process.env.DATABASE_URL) {
    adminUrl = process.env.DATABASE_URL;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${database}"`);
    await admin.end();
    const u = new URL(adminUrl);
    u.pathname = `/${database}`;
    dbUrl = u.toString();
    env.DATABASE_URL = dbUrl;
  }
  if (process.env.REDIS_URL) {
    env.REDIS_URL = process.env.REDIS_URL;
    env.REDIS_KEY_PREFIX = `${process.env.BENCH_REDIS_PREFIX ?? "bench:"}${suffix}:`;
  }
  const args: string[] = [];
  if (options.cpuProfDir) args.push("--cpu-prof", `--cpu-prof-dir=${options.cpuProfDir}`);
  args.push("dist/server/server.js");
  const child: ChildProcess = spawn(process.execPath, args, { cwd: ROOT, env: env as NodeJS.ProcessEnv, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const url = `http://127.0.0.1:${options.port}`;

  const cleanup = async () => {
    rmSync(dataDir, { recursive: true, force: true });
    if (dbUrl && adminUrl) {
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await admin.end();
    }
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    }
    await cleanup();
  };

  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) {
      await cleanup();
      throw new Error(`server exited with code ${child.exitCode}: ${stderr.trim().slice(-1000)}`);
    }
    try {
      const res = await fetch(`${url}/api/v1/health`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`server did not answer /api/v1/health within 120 s: ${stderr.trim().slice(-1000)}`);
    }
    await sleep(200);
  }
  options.log(`production server pid ${child.pid} on ${url}`);
  return {
    url,
    backend: { db: dbUrl ? "postgres" : "embedded", store: env.REDIS_URL ? "redis" : "memory" },
    pid: child.pid!,
    stop,
  };
}
