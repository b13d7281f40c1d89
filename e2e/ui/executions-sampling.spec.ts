import path from "node:path";
import { test, expect } from "@playwright/test";
import { PASSWORD, uniqueEmail } from "../helpers/accounts";
import { liveFlow } from "../helpers/live";
import { ownServer } from "../helpers/own-server";

// A server of its own that keeps no successful execution (sampling: none in full per second, one
// in 100,000 past that), so the list has something to say about what it left out.
const server = ownServer({
  port: Number(process.env.E2E_EXEC_SAMPLING_PORT ?? 3293),
  name: "exec-sampling",
  env: { EXECUTIONS_SAMPLE_ALL_PER_SEC: "0", EXECUTIONS_SAMPLE_ONE_IN: "100000" },
});
const { api, origin } = server;

test.describe.configure({ timeout: 180_000 });

test("the Executions tab says how many successes sampling left out, and a Debug message of one says it was not recorded", async ({ page }) => {
  server.start();
  try {
    await server.waitUp();
    const email = uniqueEmail("exec-sampling");
    expect((await api("POST", "/auth/register", undefined, { email, password: PASSWORD, organization_name: "Sampling Org", accept_terms: true })).status).toBe(201);
    const token = (await api("POST", "/auth/login", undefined, { email, password: PASSWORD })).body.access_token as string;
    const f = liveFlow("sampling");
    const flow = (await api("POST", "/flows", token, { name: "sampled", ...f.graph("v1") })).body.flow;
    expect((await api("POST", `/flows/${flow.id}/deploy`, token)).status).toBe(200);

    await page.goto(`${origin}/login`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    await expect(page).toHaveURL((url) => url.pathname === "/flows");
    await page.goto(`${origin}/flows/${flow.id}`);
    await expect(page.getByTestId("flow-state")).toHaveText("Running");
    const tab = (name: string) => page.getByRole("tablist", { name: "Sidebar panels" }).getByRole("tab", { name }).click();
    await tab("Debug");
    const messages = page.getByRole("region", { name: "Debug" }).getByTestId("debug-message");
    for (let i = 0; i < 3; i++) expect((await api("POST", `/nodes/${f.ids.inject}/inject`, token, {})).status).toBe(200);
    await expect(messages).toHaveCount(3);

    // The debug event names its execution even though it was not kept: the link says so.
    await messages.nth(0).getByRole("button", { name: "Show execution" }).click();
    const panel = page.getByRole("region", { name: "Executions" });
    await expect(panel.getByRole("alert")).toContainText("was not recorded", { timeout: 10_000 });
    await expect(panel.getByTestId("executions-unrecorded")).toHaveText("3 successful executions were not recorded (sampling at high message rates).", { timeout: 15_000 });
    await expect(panel).toContainText("No execution was kept.");
    await page.screenshot({ path: path.resolve("test-results/screenshots/executions-unrecorded.png"), fullPage: true });
    await panel.getByRole("button", { name: "Clear selection" }).click();
    await expect(panel.getByRole("alert")).toHaveCount(0);
  } finally {
    await server.dispose();
  }
});
