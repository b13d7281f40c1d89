import { test, expect } from "@playwright/test";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PASSWORD, uniqueEmail } from "../helpers/accounts";
import { liveFlow } from "../helpers/live";

// A server of its own (this test kills it), on Redis: sessions live in the store, and only a shared
// store keeps the browser signed in across a restart (the in-process store starts empty, so a
// restart there signs everyone out and the page says so instead).
const PORT = Number(process.env.E2E_LIVE_RESTART_PORT ?? 3292);
const origin = `http://127.0.0.1:${PORT}`;
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "fp-live-restart-"));

function start(): ChildProcess {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    PORT: String(PORT),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    PUBLIC_URL: origin,
    REDIS_URL: redisUrl,
    LOG_LEVEL: "warn",
    NEXT_TELEMETRY_DISABLED: "1",
  };
  return spawn(process.execPath, ["--import", "tsx", "src/server.ts"], { env, stdio: "ignore" });
}

async function waitUp() {
  for (let i = 0; i < 480; i++) {
    try {
      if ((await fetch(`${origin}/api/v1/ready`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("server did not come up");
}

function kill9(child: ChildProcess) {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

async function api(method: string, p: string, token?: string, body?: unknown) {
  const res = await fetch(`${origin}/api/v1${p}`, {
    method,
    headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: res.status === 204 ? null : await res.json() };
}

test.describe.configure({ timeout: 240_000 });

test("after a server restart the editor's debug stream comes back by itself, with an offline banner meanwhile", async ({ page }) => {
  let server = start();
  try {
    await waitUp();
    const email = uniqueEmail("live-restart");
    expect((await api("POST", "/auth/register", undefined, { email, password: PASSWORD, organization_name: "Restart Org", accept_terms: true })).status).toBe(201);
    const token = (await api("POST", "/auth/login", undefined, { email, password: PASSWORD })).body.access_token as string;
    const f = liveFlow("restart");
    const flow = (await api("POST", "/flows", token, { name: "survives restarts", ...f.graph("v1") })).body.flow;
    expect((await api("POST", `/flows/${flow.id}/deploy`, token)).status).toBe(200);

    await page.goto(`${origin}/login`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    await expect(page).toHaveURL((url) => url.pathname === "/account/security");
    await page.goto(`${origin}/flows/${flow.id}`);
    await expect(page.getByTestId("flow-state")).toHaveText("Running");
    await page.getByRole("tablist", { name: "Sidebar panels" }).getByRole("tab", { name: "Debug" }).click();
    const messages = page.getByRole("region", { name: "Debug" }).getByTestId("debug-message");
    expect((await api("POST", `/nodes/${f.ids.inject}/inject`, token, {})).status).toBe(200);
    await expect(messages).toHaveCount(1);

    await kill9(server);
    const banner = page.getByRole("status").filter({ hasText: "Offline: live updates paused." });
    await expect(banner).toBeVisible({ timeout: 15_000 });
    await page.screenshot({ path: path.resolve("test-results/screenshots/live-editor-offline.png"), fullPage: true });

    server = start();
    await waitUp();
    // Backoff is capped at 15 s: the page is back within that after the server is.
    await expect(banner).toHaveCount(0, { timeout: 20_000 });
    expect((await api("POST", `/nodes/${f.ids.inject}/inject`, token, {})).status).toBe(200);
    await expect(messages).toHaveCount(2);
    // And the page's own Inject works on the new connection.
    await page.locator(`.react-flow__node[data-id="${f.ids.inject}"]`).getByRole("button", { name: "Inject" }).click();
    await expect(messages).toHaveCount(3);
  } finally {
    await kill9(server).catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
