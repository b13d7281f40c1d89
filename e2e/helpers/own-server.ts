import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export interface ApiResponse {
  status: number;
  body: any;
}

/**
 * A production server of a test's own, not the shared one of playwright.config.ts: for tests that
 * kill it (kill -9) and start it again on the same data directory. Started from source like the
 * shared one, with the built UI (`npm run build` first).
 */
export interface OwnServer {
  readonly port: number;
  readonly origin: string;
  /** Starts the server (again); `waitUp` says when it answers. */
  start(): void;
  /** Resolves once /api/v1/ready answers 200. */
  waitUp(): Promise<void>;
  /** SIGKILL, no shutdown at all; resolves once the process is gone. */
  kill9(): Promise<void>;
  /** A REST call to /api/v1 with an optional bearer token and JSON body. */
  api(method: string, apiPath: string, token?: string, body?: unknown): Promise<ApiResponse>;
  /** Kills the server if it runs and removes its data directory. */
  dispose(): Promise<void>;
}

export function ownServer({ port, name, env = {}, bootLimitMs = 120_000 }: { port: number; name: string; env?: Record<string, string>; bootLimitMs?: number }): OwnServer {
  const origin = `http://127.0.0.1:${port}`;
  // Made at the first start: Playwright imports every spec file to list its tests (in its runner
  // too), and a directory made then would be nobody's to remove.
  let dataDir: string | undefined;
  let child: ChildProcess | undefined;

  const kill9 = () =>
    new Promise<void>((resolve) => {
      const current = child;
      if (!current || current.exitCode !== null || current.signalCode !== null) return resolve();
      current.once("exit", () => resolve());
      current.kill("SIGKILL");
    });

  return {
    port,
    origin,
    start() {
      child = spawn(process.execPath, ["dist/server/server.js"], {
        env: {
          ...process.env,
          NODE_ENV: "production" as const,
          PORT: String(port),
          HOST: "127.0.0.1",
          DATA_DIR: (dataDir ??= fs.mkdtempSync(path.join(os.tmpdir(), `fp-${name}-`))),
          PUBLIC_URL: origin,
          LOG_LEVEL: "warn",
          NEXT_TELEMETRY_DISABLED: "1",
          ...env,
        },
        stdio: "ignore",
      });
    },
    async waitUp() {
      const deadline = Date.now() + bootLimitMs;
      while (Date.now() < deadline) {
        try {
          if ((await fetch(`${origin}/api/v1/ready`)).status === 200) return;
        } catch {
          // not listening yet
        }
        await new Promise((r) => setTimeout(r, 250));
      }
      throw new Error(`server on ${origin} did not come up within ${bootLimitMs / 1000} s`);
    },
    kill9,
    async api(method, apiPath, token, body) {
      const res = await fetch(`${origin}/api/v1${apiPath}`, {
        method,
        headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: res.status === 204 ? null : await res.json() };
    },
    async dispose() {
      await kill9().catch(() => undefined);
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
