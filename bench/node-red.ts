/**
 * Node-RED for the side-by-side benchmarks: installed on first use (its own package.json, never the
 * project's) into bench/node-red-5 (Node-RED 5.0, the reference, also the differential harness's;
 * needs Node >= 22.9) or, on an older Node, bench/node-red (Node-RED 4.1), then run in a child
 * process per scenario on the bench's Node (`comparedNodeRedDir`).
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { forkBench, nextMessage, stopChild } from "./lib/child";
import type { NodeRedResult, NodeRedScenario } from "./node-red-child";

const DIR = fileURLToPath(new URL("./node-red/", import.meta.url));
/** Node-RED 5.0, the differential harness's reference (scripts/lib/node-red-embedded.ts). */
export const REFERENCE_DIR = fileURLToPath(new URL("./node-red-5/", import.meta.url));
const INSTALL_LIMIT_MS = 180_000;

export type NodeRedAvailability = { ok: true; version: string } | { ok: false; reason: string };

/** Node-RED 5.0 needs Node >= 22.9 (its package.json's engines). */
export const REFERENCE_NODE_MIN: readonly [number, number] = [22, 9];

/** Whether Node-RED 5.0, the reference, runs on this Node. */
export function referenceRunsOn(version = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major > REFERENCE_NODE_MIN[0] || (major === REFERENCE_NODE_MIN[0] && minor >= REFERENCE_NODE_MIN[1]);
}

/** The Node-RED a side-by-side benchmark compares with on this Node: 5.0 where it runs, else 4.1 (bench/node-red). */
export function comparedNodeRedDir(version = process.versions.node): string {
  return referenceRunsOn(version) ? REFERENCE_DIR : DIR;
}

const installedPath = (dir: string) => path.join(dir, "node_modules/node-red/package.json");
const installedVersion = (dir: string) => (JSON.parse(readFileSync(installedPath(dir), "utf8")) as { version: string }).version;

/** Installs the dependencies of `dir` (default: the Node-RED compared with on this Node) unless present; never longer than 3 minutes. */
export async function ensureNodeRed(log: (m: string) => void, dir: string = comparedNodeRedDir()): Promise<NodeRedAvailability> {
  const installed = installedPath(dir);
  if (existsSync(installed)) return { ok: true, version: installedVersion(dir) };
  log(`Node-RED: npm install --prefix ${path.relative(process.cwd(), dir) || dir} (first use)`);
  const reason = await new Promise<string | undefined>((resolve) => {
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const child = spawn(npm, ["install", "--prefix", dir, "--no-audit", "--no-fund"], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve(`npm install took longer than ${INSTALL_LIMIT_MS / 1000} s`);
    }, INSTALL_LIMIT_MS);
    child.on("error", (err) => {
      clearTimeout(timer);
      resolve(`npm install could not start: ${err.message}`);
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      const lastLine = stderr.trim().split("\n").filter((l) => !/^npm warn/i.test(l)).pop();
      resolve(code === 0 ? undefined : `npm install exited with code ${code}${lastLine ? `: ${lastLine}` : ""}`);
    });
  });
  if (reason) return { ok: false, reason };
  if (!existsSync(installed)) return { ok: false, reason: `npm install succeeded but node-red is missing from ${dir}node_modules` };
  return { ok: true, version: installedVersion(dir) };
}

const isResult = (m: unknown): m is NodeRedResult => (m as { type?: string })?.type === "result";

/** One scenario in a fresh process; `limitMs` bounds the run itself (Node-RED's start comes on top). */
export async function runNodeRed(scenario: NodeRedScenario, n: number, limitMs: number): Promise<NodeRedResult> {
  const child = forkBench("node-red-child.ts", [scenario, String(n), String(limitMs)]);
  try {
    return await nextMessage(child, isResult, limitMs + 60_000);
  } finally {
    await stopChild(child);
  }
}
