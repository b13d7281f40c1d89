import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";

/**
 * End-to-end tests against the BUILT production server (`npm run build` first; Playwright never
 * builds). The server gets a fresh DATA_DIR per run, so the embedded database and the generated
 * secrets start empty; DATABASE_URL / REDIS_URL / JWT_SECRET / ENCRYPTION_KEY switch it to real
 * services when they are set. Chromium is Debian's (/usr/bin/chromium): `playwright install` cannot
 * download browsers on these machines.
 */

const port = Number(process.env.E2E_PORT ?? 3210);
const origin = `http://127.0.0.1:${port}`;

// The config is loaded by the runner and again by every worker; workers inherit the runner's
// environment, so only the runner creates (and later removes) the data directory.
let dataDir = process.env.FP_E2E_RUN_DATA_DIR;
if (!dataDir) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fp-e2e-"));
  process.env.FP_E2E_RUN_DATA_DIR = dataDir = dir;
  process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
}

const passThrough: Record<string, string> = {};
for (const name of ["DATABASE_URL", "REDIS_URL", "REDIS_KEY_PREFIX", "JWT_SECRET", "ENCRYPTION_KEY"]) {
  const value = process.env[name];
  if (value) passThrough[name] = value;
}

export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  outputDir: "test-results/artifacts",
  // Two cores and one shared server: run files one after another.
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 5_000 },
  reporter: [["list"], ["html", { open: "never", outputFolder: "playwright-report" }]],
  use: {
    baseURL: origin,
    // A failed test keeps its trace: every action and assertion with its log, the requests the test
    // made, the console, and the page as it was at the end (`screenshot`). Not the DOM snapshot of
    // every action, nor the screencast: recording them cost 10-14 % and 7 % of the suite's time
    // (Chromium serializing or encoding the page all along, for every test, to be thrown away when
    // it passes; docs/BENCHMARKS.md, twenty-first round and issue 39's twenty-third).
    trace: { mode: "retain-on-failure", snapshots: false, screenshots: false },
    screenshot: "only-on-failure",
  },
  projects: [
    {
      name: "chromium",
      use: {
        browserName: "chromium",
        launchOptions: {
          executablePath: process.env.PLAYWRIGHT_CHROMIUM_PATH ?? "/usr/bin/chromium",
          args: [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-quic",
            "--no-first-run",
          ],
        },
      },
    },
  ],
  webServer: {
    command: "node dist/server/server.js",
    url: `${origin}/api/v1/health`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "pipe",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 10_000 },
    env: {
      ...passThrough,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      PUBLIC_URL: origin,
      LOG_LEVEL: "warn",
      NEXT_TELEMETRY_DISABLED: "1",
      // Every test registers its own account, all from 127.0.0.1: past ~100 tests the suite met the
      // default 100 registrations per address per 15 minutes (on a fast machine, and on Redis, whose
      // counters outlive a server). The limit itself is proven in
      // src/server/services/accounts/register-limit.integration.test.ts.
      RATE_LIMIT_REGISTER_PER_IP: "10000",
      // An operator's terms of service: the registration form links to them (e2e/ui/accounts.spec.ts).
      TERMS_URL: "https://terms.example.com/flowplane",
    },
  },
});
