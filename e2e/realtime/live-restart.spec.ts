import { test, expect } from "@playwright/test";
import path from "node:path";
import { PASSWORD, uniqueEmail } from "../helpers/accounts";
import { liveFlow } from "../helpers/live";
import { ownServer } from "../helpers/own-server";

// A server of its own (this test kills it), on Redis: sessions live in the store, and only a shared
// store keeps the browser signed in across a restart (the in-process store starts empty, so a
// restart there signs everyone out and the page says so instead).
const server = ownServer({
  port: Number(process.env.E2E_LIVE_RESTART_PORT ?? 3292),
  name: "live-restart",
  // A restarted process is a new instance (the spec tells the two apart by instance id).
  env: { REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379", INSTANCE_ID: "" },
});
const { api, origin } = server;

test.describe.configure({ timeout: 240_000 });

test("after a server restart the editor's debug stream comes back by itself, with an offline banner meanwhile", async ({ page }) => {
  server.start();
  try {
    await server.waitUp();
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
    await expect(page).toHaveURL((url) => url.pathname === "/flows");
    await page.goto(`${origin}/flows/${flow.id}`);
    await expect(page.getByTestId("flow-state")).toHaveText("Running");
    await page.getByRole("tablist", { name: "Sidebar panels" }).getByRole("tab", { name: "Debug" }).click();
    const messages = page.getByRole("region", { name: "Debug" }).getByTestId("debug-message");
    expect((await api("POST", `/nodes/${f.ids.inject}/inject`, token, {})).status).toBe(200);
    await expect(messages).toHaveCount(1);

    const killed = (await api("GET", "/health")).body.instance_id as string;
    await server.kill9();
    const banner = page.getByRole("status").filter({ hasText: "Offline: live updates paused." });
    await expect(banner).toBeVisible({ timeout: 15_000 });
    await page.screenshot({ path: path.resolve("test-results/screenshots/live-editor-offline.png"), fullPage: true });

    server.start();
    await server.waitUp();
    // Backoff is capped at 15 s: the page is back within that after the server is.
    await expect(banner).toHaveCount(0, { timeout: 20_000 });
    // On Redis a flow held by the killed process runs again once its lease has run out and a live
    // instance took it (failover, a few seconds; with PostgreSQL the suite's shared server is an
    // instance of the same cluster and may hold it). An inject before that answers 503, as it may
    // not have been sent.
    const runsOnALiveInstance = async () => {
      const runsOn = (await api("GET", `/flows/${flow.id}`, token)).body.flow.runtime?.instance_id as string | undefined;
      return runsOn !== undefined && runsOn !== killed;
    };
    await expect.poll(runsOnALiveInstance, { timeout: 20_000 }).toBe(true);
    expect((await api("POST", `/nodes/${f.ids.inject}/inject`, token, {})).status).toBe(200);
    await expect(messages).toHaveCount(2);
    // And the page's own Inject works on the new connection.
    await page.locator(`.react-flow__node[data-id="${f.ids.inject}"]`).getByRole("button", { name: "Inject" }).click();
    await expect(messages).toHaveCount(3);
  } finally {
    await server.dispose();
  }
});
