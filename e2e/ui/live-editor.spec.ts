import path from "node:path";
import { test, expect, type Page } from "@playwright/test";
import { logIn } from "../helpers/accounts";
import { auth, createFlow, getFlow, joinAs, liveFlow, registerUser } from "../helpers/live";

const SCREENSHOTS = path.resolve("test-results/screenshots");
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });

const toolbar = (page: Page) => page.getByRole("toolbar", { name: "Flow editor" });
const flowState = (page: Page) => page.getByTestId("flow-state");
const node = (page: Page, id: string) => page.locator(`.react-flow__node[data-id="${id}"]`);
const debug = (page: Page) => page.getByRole("region", { name: "Debug" });
const deployments = (page: Page) => page.getByRole("region", { name: "Deployments" });
const openTab = (page: Page, name: string) => page.getByRole("tablist", { name: "Sidebar panels" }).getByRole("tab", { name }).click();

test.describe.configure({ timeout: 90_000 });

/** Logged in, the flow's editor open, deployed from its toolbar and running, the Debug tab shown. */
async function deployedWithDebug(page: Page, email: string, flowId: string) {
  await logIn(page, email);
  await page.goto(`/flows/${flowId}`);
  await toolbar(page).getByRole("button", { name: "Deploy" }).click();
  await expect(flowState(page)).toHaveText("Running");
  await openTab(page, "Debug");
}

test("deploy, Inject, the message in Debug, node status under the node, and roll back", async ({ page, request }) => {
  const owner = await registerUser(request, "live-owner");
  const f = liveFlow("main");
  const flow = await createFlow(request, owner, "Live flow", f.graph("v1"));
  await logIn(page, owner.email);
  await page.goto(`/flows/${flow.id}`);

  await expect(flowState(page)).toHaveText("Not deployed");
  const inject = node(page, f.ids.inject).getByRole("button", { name: "Inject" });
  await expect(inject).toBeDisabled();
  await expect(inject).toHaveAccessibleDescription("Deploy the flow to inject.");

  await toolbar(page).getByRole("button", { name: "Deploy" }).click();
  await expect(flowState(page)).toHaveText("Running");
  await expect(toolbar(page).getByText("Undeployed changes")).toHaveCount(0);

  await openTab(page, "Debug");
  await expect(debug(page)).toContainText("No debug messages yet");
  await inject.click();
  const first = debug(page).getByTestId("debug-message").first();
  await expect(first).toContainText("out");
  await expect(first).toContainText("topic: greeting");
  await expect(first).toContainText("{ version, said }");
  // Payload as expandable JSON.
  await first.getByRole("button", { name: /version, said/ }).click();
  await expect(first).toContainText('said: "hello"');
  await expect(node(page, f.ids.fn).getByTestId("node-status")).toHaveText("v1: hello");
  // A message leads to its node.
  await first.getByRole("button", { name: "out" }).click();
  await expect(node(page, f.ids.debug).locator(".fp-node")).toHaveClass(/highlighted/);
  await shot(page, "live-editor-debug");
  await page.getByRole("button", { name: "Fit View" }).click();

  // Filter, Pause with an "N new" count, Clear.
  await debug(page).getByLabel("Filter messages").fill("nothing like this");
  await expect(debug(page)).toContainText("No message matches the filter.");
  await debug(page).getByLabel("Filter messages").fill("hello");
  await expect(debug(page).getByTestId("debug-message")).toHaveCount(1);
  await debug(page).getByRole("button", { name: "Pause" }).click();
  await inject.click();
  await inject.click();
  await expect(debug(page).getByTestId("debug-new-count")).toHaveText("2 new");
  await expect(debug(page).getByTestId("debug-message")).toHaveCount(1);
  await debug(page).getByRole("button", { name: "Resume" }).click();
  await expect(debug(page).getByTestId("debug-message")).toHaveCount(3);
  await debug(page).getByRole("button", { name: "Clear" }).click();
  await expect(debug(page).getByTestId("debug-message")).toHaveCount(0);

  // A second version deployed from the API: the page is told, reloads, and lists both deployments.
  const saved = await request.put(`/api/v1/flows/${flow.id}`, { headers: auth(owner), data: { revision: 1, ...f.graph("v2") } });
  expect(saved.status()).toBe(200);
  const notice = page.getByRole("alert").filter({ hasText: "This flow was saved by" });
  await expect(notice).toContainText("This flow was saved by you, from another tab or the API (revision 2).");
  await notice.getByRole("button", { name: "Reload" }).click();
  await expect(notice).toHaveCount(0);
  await expect(toolbar(page).getByText("Undeployed changes")).toBeVisible();
  await toolbar(page).getByRole("button", { name: "Deploy" }).click();
  await expect(toolbar(page).getByText("Undeployed changes")).toHaveCount(0);
  // Disabling and enabling change no node (only the flow's revision): nothing waits to be deployed.
  await toolbar(page).getByRole("button", { name: "Disable" }).click();
  await expect(flowState(page)).toHaveText("Stopped (disabled)");
  await expect(toolbar(page).getByText("Undeployed changes")).toHaveCount(0);
  await toolbar(page).getByRole("button", { name: "Enable" }).click();
  await expect(flowState(page)).toHaveText("Running");
  await expect(toolbar(page).getByText("Undeployed changes")).toHaveCount(0);
  await inject.click();
  await expect(node(page, f.ids.fn).getByTestId("node-status")).toHaveText("v2: hello");

  await openTab(page, "Deployments");
  const entries = deployments(page).getByTestId("deployment");
  await expect(entries).toHaveCount(2);
  await expect(entries.nth(0)).toContainText("Revision 2");
  await expect(entries.nth(0)).toContainText("current");
  await expect(entries.nth(0)).toContainText("1 changed: tagger");
  await expect(entries.nth(0)).toContainText("Ada Tester");
  await expect(entries.nth(1)).toContainText("3 added: tick, tagger, out");
  await shot(page, "live-editor-deployments");
  await entries.nth(1).getByRole("button", { name: "Roll back" }).click();
  await expect(entries).toHaveCount(3);
  await expect(entries.nth(0)).toContainText("Revision 1");
  await expect(entries.nth(0)).toContainText("rollback");
  await expect(flowState(page)).toHaveText("Running");
  await inject.click();
  await expect(node(page, f.ids.fn).getByTestId("node-status")).toHaveText("v1: hello");
});

test("two people: presence, told at once when the other saves, and a 409 merges unless the same node changed", async ({ browser, request }) => {
  const owner = await registerUser(request, "live-a");
  const member = await joinAs(request, owner, "member", "live-b");
  const f = liveFlow("together");
  const flow = await createFlow(request, owner, "Shared flow", f.graph("v1"));

  const a = await (await browser.newContext()).newPage();
  const b = await (await browser.newContext()).newPage();
  await logIn(a, owner.email);
  await logIn(b, member.email);
  await a.goto(`/flows/${flow.id}`);
  await b.goto(`/flows/${flow.id}`);
  await expect(a.getByRole("group", { name: "Also editing: Ada Tester" })).toBeVisible();
  await expect(b.getByRole("group", { name: "Also editing: Ada Tester" })).toBeVisible();

  const rename = async (page: Page, id: string, type: string, name: string) => {
    await node(page, id).dblclick();
    const dialog = page.getByRole("dialog", { name: `Edit ${type} node` });
    await dialog.getByLabel("Name", { exact: true }).fill(name);
    await dialog.getByRole("button", { name: "Done" }).click();
  };

  // A edits the inject node but has not saved; B renames the debug node and saves.
  await rename(a, f.ids.inject, "inject", "tick from A");
  await rename(b, f.ids.debug, "debug", "out from B");
  await toolbar(b).getByRole("button", { name: "Save" }).click();
  await expect(b.getByText("Saved (revision 2).")).toBeVisible();
  const told = a.getByRole("alert").filter({ hasText: "This flow was saved by Ada Tester (revision 2)" });
  await expect(told).toContainText("Your unsaved changes will be merged with theirs when you save.");
  await shot(a, "live-editor-saved-elsewhere");

  // A saves: Reload, Overwrite or Merge; the changes touch different nodes, so Merge asks nothing more.
  await toolbar(a).getByRole("button", { name: "Save" }).click();
  const conflict = a.getByRole("dialog", { name: "This flow changed since you opened it" });
  await expect(conflict.getByRole("button", { name: "Reload" })).toBeVisible();
  await expect(conflict.getByRole("button", { name: "Overwrite" })).toBeVisible();
  await expect(conflict).toContainText("do not touch the nodes you changed");
  await expect(conflict.getByRole("group")).toHaveCount(0);
  await conflict.getByRole("button", { name: "Merge" }).click();
  await expect(a.getByText("Merged and saved (revision 3).")).toBeVisible();
  await expect(told).toHaveCount(0);
  let server = await getFlow(request, owner, flow.id);
  expect(server.nodes.map((n: { name: string }) => n.name).sort()).toEqual(["out from B", "tagger", "tick from A"]);
  await expect(node(a, f.ids.debug)).toContainText("out from B");

  // Both rename the function node: A is asked, and keeps theirs.
  await b.getByRole("alert").filter({ hasText: "revision 3" }).getByRole("button", { name: "Reload" }).click();
  await rename(b, f.ids.fn, "function", "B's tagger");
  await rename(a, f.ids.fn, "function", "A's tagger");
  await toolbar(b).getByRole("button", { name: "Save" }).click();
  await expect(b.getByText("Saved (revision 4).")).toBeVisible();
  await toolbar(a).getByRole("button", { name: "Save" }).click();
  await expect(conflict.getByRole("group")).toHaveCount(1);
  await expect(conflict.getByRole("group", { name: "A's tagger (function)" })).toBeVisible();
  await expect(conflict.getByRole("button", { name: "Merge" })).toBeDisabled();
  await shot(a, "live-editor-merge");
  await conflict.getByLabel(/Keep theirs/).check();
  await conflict.getByRole("button", { name: "Merge" }).click();
  await expect(a.getByText("Merged and saved (revision 5).")).toBeVisible();
  server = await getFlow(request, owner, flow.id);
  expect(server.nodes.find((n: { id: string }) => n.id === f.ids.fn).name).toBe("B's tagger");
  await a.context().close();
  await b.context().close();
});

test("a viewer sees state, statuses and debug live but cannot deploy, inject or roll back", async ({ browser, request }) => {
  const owner = await registerUser(request, "live-owner2");
  const viewer = await joinAs(request, owner, "viewer", "live-viewer");
  const f = liveFlow("viewer");
  const flow = await createFlow(request, owner, "Watched flow", f.graph("v1"));
  const page = await (await browser.newContext()).newPage();
  await logIn(page, viewer.email);
  await page.goto(`/flows/${flow.id}`);
  await expect(flowState(page)).toHaveText("Not deployed");
  await expect(toolbar(page).getByRole("button", { name: "Deploy" })).toHaveCount(0);
  await expect(toolbar(page).getByRole("button", { name: "Save" })).toHaveCount(0);

  expect((await request.post(`/api/v1/flows/${flow.id}/deploy`, { headers: auth(owner) })).status()).toBe(200);
  await expect(flowState(page)).toHaveText("Running");
  await expect(page.getByRole("alert").filter({ hasText: "Revision 1 was deployed by" })).toBeVisible();
  const inject = node(page, f.ids.inject).getByRole("button", { name: "Inject" });
  await expect(inject).toBeDisabled();
  await expect(inject).toHaveAccessibleDescription("Viewers cannot inject messages.");

  await openTab(page, "Debug");
  expect((await request.post(`/api/v1/nodes/${f.ids.inject}/inject`, { headers: auth(owner), data: {} })).status()).toBe(200);
  await expect(debug(page).getByTestId("debug-message")).toHaveCount(1);
  await expect(node(page, f.ids.fn).getByTestId("node-status")).toHaveText("v1: hello");
  await openTab(page, "Deployments");
  await expect(deployments(page).getByTestId("deployment")).toHaveCount(1);
  await expect(deployments(page).getByRole("button", { name: "Roll back" })).toHaveCount(0);
  await shot(page, "live-editor-viewer");
  await page.context().close();
});

/**
 * The debug node's button, as Node-RED's: pressed while the node shows messages; in a running flow
 * it stops (and restarts) the deployed node's messages at once, without a deploy, and the node's
 * Active setting follows in the editor (saved with the flow). By mouse and by keyboard.
 */
test("a debug node's button stops and restarts its messages at once, without a deploy", async ({ page, request }) => {
  const owner = await registerUser(request, "live-debug-button");
  const f = liveFlow("button");
  const flow = await createFlow(request, owner, "Switched flow", f.graph("v1"));
  await deployedWithDebug(page, owner.email, flow.id);
  const inject = node(page, f.ids.inject).getByRole("button", { name: "Inject" });
  const active = node(page, f.ids.debug).getByRole("button", { name: "Active" });
  const messages = debug(page).getByTestId("debug-message");
  await expect(active).toHaveAttribute("aria-pressed", "true");

  await inject.click();
  await expect(messages).toHaveCount(1);
  await active.click();
  await expect(active).toHaveAttribute("aria-pressed", "false");
  await expect(node(page, f.ids.debug).getByRole("status")).toHaveText("Stopped");
  await shot(page, "live-editor-debug-off");
  await inject.click();
  // Sent, but the debug node shows nothing (given time to arrive).
  await expect(node(page, f.ids.inject).getByRole("status")).toHaveText("Injected");
  await page.waitForTimeout(500);
  await expect(messages).toHaveCount(1);
  // No deploy was made: revision 1 runs; the setting changed in the editor, to be saved.
  expect((await getFlow(request, owner, flow.id)).nodes.find((n: { id: string }) => n.id === f.ids.debug).config.active).not.toBe(false);

  // By keyboard: Enter on the focused button switches it on again.
  await active.focus();
  await page.keyboard.press("Enter");
  await expect(active).toHaveAttribute("aria-pressed", "true");
  await inject.click();
  await expect(messages).toHaveCount(2);

  // Off again, saved: the flow keeps the setting.
  await active.click();
  await expect(active).toHaveAttribute("aria-pressed", "false");
  await toolbar(page).getByRole("button", { name: "Save" }).click();
  await expect.poll(async () => (await getFlow(request, owner, flow.id)).nodes.find((n: { id: string }) => n.id === f.ids.debug).config.active).toBe(false);
});

test("every debug node of the flow off and on at once from the Debug tab (Node-RED's deactivate / activate all), by keyboard too", async ({ page, request }) => {
  const owner = await registerUser(request, "live-debug-all");
  const f = liveFlow("all");
  const graph = f.graph("v1");
  const second = `${f.ids.debug}-2`;
  graph.nodes.push({ id: second, type: "debug", name: "also", position: { x: 580, y: 240 } });
  graph.connections.push({ source: f.ids.fn, target: second });
  const flow = await createFlow(request, owner, "Quiet flow", graph);
  await deployedWithDebug(page, owner.email, flow.id);
  const inject = node(page, f.ids.inject).getByRole("button", { name: "Inject" });
  const buttons = [node(page, f.ids.debug), node(page, second)].map((n) => n.getByRole("button", { name: "Active" }));
  const messages = debug(page).getByTestId("debug-message");
  const group = debug(page).getByRole("group", { name: "Debug nodes of this flow" });

  await inject.click();
  await expect(messages).toHaveCount(2);
  await group.getByRole("button", { name: "All off" }).click();
  await expect(group.getByRole("status")).toHaveText("2 debug nodes off");
  for (const b of buttons) await expect(b).toHaveAttribute("aria-pressed", "false");
  await shot(page, "live-editor-debug-all-off");
  await inject.click();
  await expect(node(page, f.ids.inject).getByRole("status")).toHaveText("Injected");
  await page.waitForTimeout(500);
  await expect(messages).toHaveCount(2);
  // No deploy was made: revision 1 runs.
  expect((await getFlow(request, owner, flow.id)).revision).toBe(1);

  // By keyboard: Tab from "All off" back to "All on", Enter.
  await group.getByRole("button", { name: "All off" }).focus();
  await page.keyboard.press("Shift+Tab");
  await expect(group.getByRole("button", { name: "All on" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(group.getByRole("status")).toHaveText("2 debug nodes on");
  for (const b of buttons) await expect(b).toHaveAttribute("aria-pressed", "true");
  await inject.click();
  await expect(messages).toHaveCount(4);

  // Off, saved: the flow keeps both settings.
  await group.getByRole("button", { name: "All off" }).click();
  await toolbar(page).getByRole("button", { name: "Save" }).click();
  await expect
    .poll(async () => (await getFlow(request, owner, flow.id)).nodes.filter((n: { type: string }) => n.type === "debug").map((n: { config: { active?: boolean } }) => n.config.active))
    .toEqual([false, false]);
});
