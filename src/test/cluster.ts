import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { Redis } from "ioredis";
import type { TestRequestOptions, TestResponse } from "./app";

const ROOT = path.resolve(import.meta.dirname, "../..");
const NODE_ENTRY = path.join(ROOT, "src/test/cluster-node.ts");

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns something other than undefined; throws after timeoutMs. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms${last ? ` (last error: ${String(last)})` : ""}`);
    await sleep(everyMs);
  }
}

/** A REST client for one instance, shaped like restClient(app) so the account helpers work with it. */
export function httpClient(baseUrl: string) {
  return async function request<T = any>(method: string, urlPath: string, options: TestRequestOptions = {}): Promise<TestResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | Uint8Array<ArrayBuffer> | undefined;
    if (options.rawBody !== undefined) body = typeof options.rawBody === "string" ? options.rawBody : new Uint8Array(options.rawBody);
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] ??= "application/json";
    }
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const full = urlPath.startsWith("/hooks/") ? `${baseUrl}${urlPath}` : `${baseUrl}/api/v1${urlPath}`;
    const res = await fetch(full, { method, headers, body, signal: AbortSignal.timeout(40_000) });
    const bytes = Buffer.from(await res.arrayBuffer());
    const text = bytes.toString("utf8");
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text, bytes };
  };
}

export interface ClusterNode {
  name: string;
  instanceId: string;
  port: number;
  url: string;
  request: ReturnType<typeof httpClient>;
  process: ChildProcess | null;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
  logFile: string;
}

export interface ClusterOptions {
  /** First port; node i listens on basePort + i. */
  basePort: number;
  env?: Record<string, string>;
  /**
   * Servers of the test's own (default: DATABASE_URL and REDIS_URL). A test that brings its own
   * throwaway servers may stop them, so dispose() then leaves their data alone (see dispose).
   */
  databaseUrl?: string;
  redisUrl?: string;
  /** Extra Node options for every instance (a benchmark's --cpu-prof). */
  nodeArgs?: string[];
}

/**
 * Several app instances as real processes on loopback, sharing one PostgreSQL database (in a
 * schema of the run's own) and one Redis (under a key prefix of the run's own). Needs DATABASE_URL
 * and REDIS_URL; dispose() drops the schema and deletes the run's keys (never anything else).
 */
export class TestCluster {
  readonly nodes = new Map<string, ClusterNode>();
  readonly schema = `cl_${randomBytes(5).toString("hex")}`;
  readonly keyPrefix = `cl:${randomBytes(5).toString("hex")}:`;
  private readonly logDir = mkdtempSync(path.join(os.tmpdir(), "fp-cluster-"));
  private readonly databaseUrl: string;
  private readonly redisUrl: string;

  constructor(private readonly options: ClusterOptions) {
    const databaseUrl = options.databaseUrl ?? process.env.DATABASE_URL;
    const redisUrl = options.redisUrl ?? process.env.REDIS_URL;
    if (!databaseUrl || !redisUrl) throw new Error("the cluster tests need DATABASE_URL and REDIS_URL");
    this.databaseUrl = databaseUrl;
    this.redisUrl = redisUrl;
  }

  /**
   * Starts (or restarts) the instance called `name` as node `index` (its port: basePort + index);
   * `env` adds to (or overrides) the cluster's environment for this instance only, e.g. a REDIS_URL
   * through a slow proxy.
   */
  async start(name: string, index: number, instanceId = `${name}-${randomBytes(2).toString("hex")}`, env: Record<string, string> = {}): Promise<ClusterNode> {
    const port = this.options.basePort + index;
    const logFile = path.join(this.logDir, `${name}.log`);
    const log = createWriteStream(logFile, { flags: "a" });
    this.paused.delete(name);
    const child = spawn(process.execPath, [...(this.options.nodeArgs ?? []), "--import", "tsx", NODE_ENTRY], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        PATH: process.env.PATH ?? "",
        NODE_ENV: "production",
        PORT: String(port),
        HOST: "127.0.0.1",
        DATA_DIR: path.join(this.logDir, `data-${name}`),
        DATABASE_URL: this.databaseUrl,
        REDIS_URL: this.redisUrl,
        JWT_SECRET: "cluster-test-jwt-secret-at-least-32-chars",
        ENCRYPTION_KEY: "cluster-test-encryption-key-32-chars-min",
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        INSTANCE_ID: instanceId,
        CLUSTER_DB_SCHEMA: this.schema,
        CLUSTER_KEY_PREFIX: this.keyPrefix,
        HTTP_REQUEST_ALLOW_PRIVATE: "true",
        LOG_LEVEL: "info",
        BCRYPT_COST: "4",
        RATE_LIMIT_API_PER_CREDENTIAL: "1000000",
        RATE_LIMIT_LOGIN_PER_IP: "100000",
        RATE_LIMIT_REGISTER_PER_IP: "100000",
        ...this.options.env,
        ...env,
      },
    });
    let ready: (() => void) | undefined;
    let failed: ((err: Error) => void) | undefined;
    const readyPromise = new Promise<void>((resolve, reject) => {
      ready = resolve;
      failed = reject;
    });
    let buffered = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      log.write(chunk);
      buffered += chunk.toString();
      if (buffered.includes("cluster-node ready")) ready?.();
      if (buffered.length > 10_000) buffered = buffered.slice(-200);
    });
    child.stderr!.on("data", (chunk: Buffer) => log.write(chunk));
    const exited = new Promise<void>((resolve) => {
      child.once("exit", (code, signal) => {
        log.write(`\n[harness] exited code=${code} signal=${signal}\n`);
        log.end();
        failed?.(new Error(`${name} exited before it was ready (code ${code}, signal ${signal}); log: ${this.tail(logFile)}`));
        resolve();
      });
    });
    const node: ClusterNode = { name, instanceId, port, url: `http://127.0.0.1:${port}`, request: httpClient(`http://127.0.0.1:${port}`), process: child, exited, logFile };
    this.nodes.set(name, node);
    const timer = setTimeout(() => failed?.(new Error(`${name} not ready within 60 s; log: ${this.tail(logFile)}`)), 60_000);
    try {
      await readyPromise;
    } finally {
      clearTimeout(timer);
    }
    return node;
  }

  node(name: string): ClusterNode {
    const node = this.nodes.get(name);
    if (!node) throw new Error(`no node ${name}`);
    return node;
  }

  /** The node whose instance id is `instanceId`. */
  byInstance(instanceId: string): ClusterNode {
    const node = [...this.nodes.values()].find((n) => n.instanceId === instanceId);
    if (!node) throw new Error(`no node runs as ${instanceId}`);
    return node;
  }

  private readonly paused = new Set<string>();

  /** Nodes that answer: started, not exited, not paused. */
  live(): ClusterNode[] {
    return [...this.nodes.values()].filter((n) => n.process && n.process.exitCode === null && n.process.signalCode === null && !this.paused.has(n.name));
  }

  signal(name: string, signal: NodeJS.Signals): void {
    if (signal === "SIGSTOP") this.paused.add(name);
    if (signal === "SIGCONT") this.paused.delete(name);
    this.node(name).process?.kill(signal);
  }

  tail(logFile: string, lines = 30): string {
    try {
      return readFileSync(logFile, "utf8").split("\n").slice(-lines).join("\n");
    } catch {
      return "(no log)";
    }
  }

  logs(): string {
    return [...this.nodes.values()].map((n) => `--- ${n.name} (${n.instanceId}) ---\n${this.tail(n.logFile, 40)}`).join("\n");
  }

  /**
   * Kills every node, then drops the run's schema and deletes its keys; with `servers: "throwaway"`
   * (the test's own servers, which it deletes whole and which may be down by now) only the nodes
   * and the logs go. KEEP_CLUSTER_LOGS=1 keeps the logs (os.tmpdir()/fp-cluster-*).
   */
  async dispose(options: { servers?: "shared" | "throwaway" } = {}): Promise<void> {
    for (const node of this.nodes.values()) {
      if (node.process && node.process.exitCode === null && node.process.signalCode === null) {
        node.process.kill("SIGCONT");
        node.process.kill("SIGKILL");
      }
    }
    await Promise.all([...this.nodes.values()].map((n) => n.exited));
    if (options.servers === "throwaway") {
      if (!process.env.KEEP_CLUSTER_LOGS) rmSync(this.logDir, { recursive: true, force: true });
      return;
    }
    const client = new pg.Client({ connectionString: this.databaseUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${this.schema}" CASCADE`);
    await client.end();
    const redis = new Redis(this.redisUrl);
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${this.keyPrefix}*`, "COUNT", 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== "0");
    await redis.quit();
    if (!process.env.KEEP_CLUSTER_LOGS) rmSync(this.logDir, { recursive: true, force: true });
  }
}

/** An HTTP endpoint that http-request nodes post to: records every body, by path. */
export class Sink {
  readonly received: Array<{ path: string; body: string; at: number }> = [];
  private server?: http.Server;

  async start(port: number): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        this.received.push({ path: req.url ?? "/", body: Buffer.concat(chunks).toString(), at: Date.now() });
        res.writeHead(200, { "content-type": "text/plain" });
        res.end("ok");
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once("error", reject);
      this.server!.listen(port, "127.0.0.1", () => resolve());
    });
  }

  /** Bodies received on /{name}, in arrival order. */
  bodies(name: string): string[] {
    const wanted = `/${name.replace(/^\//, "")}`;
    return this.received.filter((r) => r.path === wanted).map((r) => r.body);
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
