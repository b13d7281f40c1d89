import path from "node:path";
import { test, expect, type Page } from "@playwright/test";
import { logIn, logOut } from "../helpers/accounts";
import { auth, createFlow, joinAs, registerUser } from "../helpers/live";

const SCREENSHOTS = path.resolve("test-results/screenshots");
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });

const toolbar = (page: Page) => page.getByRole("toolbar", { name: "Flow editor" });
const flowState = (page: Page) => page.getByTestId("flow-state");
const node = (page: Page, id: string) => page.locator(`.react-flow__node[data-id="${id}"]`);
const edge = (page: Page, id: string) => page.locator(`.react-flow__edge[data-id="${id}"]`);
const panel = (page: Page) => page.getByRole("region", { name: "Executions" });
const list = (page: Page) => panel(page).getByRole("listbox", { name: "Executions, newest first" });
const rows = (page: Page) => list(page).getByRole("option");
const summary = (page: Page) => panel(page).getByTestId("execution-summary");
const openTab = (page: Page, name: string) => page.getByRole("tablist", { name: "Sidebar panels" }).getByRole("tab", { name }).click();
/** The function node's error as the engine words it. */
const ERR = "Error: n is 2";
const mod = process.platform === "darwin" ? "Meta" : "Control";

/** inject "tick" → function "count" (flow context counter; throws on n = 2) → debug "out". */
function throwsOnTwo() {
  const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const ids = { inject: `inj-${suffix}`, fn: `fn-${suffix}`, debug: `dbg-${suffix}` };
  const graph = {
    nodes: [
      { id: ids.inject, type: "inject", name: "tick", position: { x: 80, y: 140 }, config: { payload_type: "string", payload: "hello" } },
      {
        id: ids.fn,
        type: "function",
        name: "count",
        position: { x: 330, y: 140 },
        config: { code: "const n = (flow.get('n') || 0) + 1;\nflow.set('n', n);\nif (n === 2) throw new Error('n is 2');\nmsg.n = n;\nreturn msg;" },
      },
      { id: ids.debug, type: "debug", name: "out", position: { x: 580, y: 140 }, config: { property: "n" } },
    ],
    connections: [
      { source: ids.inject, target: ids.fn },
      { source: ids.fn, target: ids.debug },
    ],
  };
  return { ids, graph, wires: { toFn: `${ids.inject}:0:${ids.fn}`, toDebug: `${ids.fn}:0:${ids.debug}` } };
}

test.describe.configure({ timeout: 120_000 });

test("inject → function that throws on n=2 → debug: both executions listed, the error's path on the canvas, Replay after the fix, and Debug → execution", async ({ page, request }) => {
  const owner = await registerUser(request, "exec-owner");
  const f = throwsOnTwo();
  const flow = await createFlow(request, owner, "Counting flow", f.graph);
  await logIn(page, owner.email);
  await page.goto(`/flows/${flow.id}`);
  await toolbar(page).getByRole("button", { name: "Deploy" }).click();
  await expect(flowState(page)).toHaveText("Running");

  // Open the tab first: the list follows new executions without a reload.
  await openTab(page, "Executions");
  await expect(panel(page)).toContainText("No executions yet");
  const inject = node(page, f.ids.inject).getByRole("button", { name: "Inject" });
  await inject.click();
  await expect(rows(page)).toHaveCount(1);
  await inject.click();
  await expect(rows(page)).toHaveCount(2);
  // Newest first: the second message is the one that failed.
  await expect(rows(page).nth(0)).toContainText("Error");
  await expect(rows(page).nth(0)).toContainText("tick");
  await expect(rows(page).nth(0)).toContainText("n is 2");
  await expect(rows(page).nth(1)).toContainText("Success");
  await expect(rows(page).nth(1)).toContainText(/\d+ ms/);

  // The status filter.
  await panel(page).getByLabel("Status").selectOption("error");
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).nth(0)).toContainText("Error");
  await panel(page).getByLabel("Status").selectOption("success");
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).nth(0)).toContainText("Success");
  await panel(page).getByLabel("Status").selectOption("all");
  await expect(rows(page)).toHaveCount(2);

  // Choose the failed one: its path on the canvas, the error on the function node.
  await rows(page).nth(0).click();
  await expect(rows(page).nth(0)).toHaveAttribute("aria-selected", "true");
  await expect(summary(page)).toHaveText(`Reached: tick → count (error: ${ERR})`);
  await expect(node(page, f.ids.inject).locator(".fp-node")).toHaveClass(/exec-reached/);
  await expect(node(page, f.ids.fn).locator(".fp-node")).toHaveClass(/exec-error/);
  await expect(node(page, f.ids.fn).getByTestId("node-note")).toHaveText(ERR);
  await expect(node(page, f.ids.debug).locator(".fp-node")).toHaveClass(/exec-off/);
  await expect(node(page, f.ids.debug).locator(".fp-node")).not.toHaveClass(/exec-reached/);
  await expect(edge(page, f.wires.toFn)).toHaveClass(/exec-taken/);
  await expect(edge(page, f.wires.toDebug)).not.toHaveClass(/exec-taken/);
  await expect(node(page, f.ids.fn).locator(".fp-node-badge")).toContainText(`step 2 of the execution, failed: ${ERR}`);
  // A node's input on hover…
  const fnDetail = node(page, f.ids.fn).getByTestId("node-detail");
  await expect(fnDetail).toBeHidden();
  await node(page, f.ids.fn).locator(".fp-node-label").hover();
  await expect(fnDetail).toBeVisible();
  await expect(fnDetail).toContainText("Step 2: count");
  await expect(fnDetail).toContainText('"payload": "hello"');
  await expect(fnDetail).toContainText(ERR);
  await shot(page, "executions-error-path");
  await page.mouse.move(5, 5);
  await expect(fnDetail).toBeHidden();
  // …and on keyboard focus.
  await node(page, f.ids.inject).focus();
  const injectDetail = node(page, f.ids.inject).getByTestId("node-detail");
  await expect(injectDetail).toBeVisible();
  await expect(injectDetail).toContainText("Step 1: tick");
  await shot(page, "executions-focus-popover");
  // The steps in the sidebar, with the recorded input.
  const detail = panel(page).getByTestId("execution-detail");
  await expect(detail.getByRole("listitem")).toHaveCount(2);
  await expect(detail.getByRole("listitem").nth(1)).toContainText(ERR);

  // The keyboard: arrows move the choice, Escape clears it and the marks go.
  await list(page).focus();
  await page.keyboard.press("ArrowDown");
  await expect(rows(page).nth(1)).toHaveAttribute("aria-selected", "true");
  await expect(summary(page)).toHaveText("Reached: tick → count → out");
  await expect(edge(page, f.wires.toDebug)).toHaveClass(/exec-taken/);
  await page.keyboard.press("ArrowUp");
  await expect(rows(page).nth(0)).toHaveAttribute("aria-selected", "true");
  await expect(summary(page)).toHaveText(`Reached: tick → count (error: ${ERR})`);
  await page.keyboard.press("Escape");
  await expect(panel(page).getByTestId("execution-detail")).toHaveCount(0);
  await expect(page.locator(".fp-node.exec-reached")).toHaveCount(0);
  await expect(page.locator(".fp-node.exec-off")).toHaveCount(0);
  await expect(page.locator(".react-flow__edge.exec-taken")).toHaveCount(0);
  const failedId = await rows(page).nth(0).getAttribute("data-id");

  // Fix the function, deploy, and replay the failed execution: a new successful one, replay-of, chosen.
  await node(page, f.ids.fn).dblclick();
  const dialog = page.getByRole("dialog", { name: "Edit function node" });
  await dialog.getByRole("textbox", { name: "On message", exact: true }).click();
  await page.keyboard.press(`${mod}+a`);
  await page.keyboard.type("const n = (flow.get('n') || 0) + 1;\nflow.set('n', n);\nmsg.n = n;\nreturn msg;");
  await dialog.getByRole("button", { name: "Done" }).click();
  await toolbar(page).getByRole("button", { name: "Deploy" }).click();
  await expect(toolbar(page).getByText("Undeployed changes")).toHaveCount(0);
  await expect(flowState(page)).toHaveText("Running");
  await rows(page).nth(1).click();
  await rows(page).nth(0).click();
  await expect(summary(page)).toHaveText(`Reached: tick → count (error: ${ERR})`);
  await panel(page).getByRole("button", { name: "Replay" }).click();
  await expect(rows(page)).toHaveCount(3);
  await expect(rows(page).nth(0)).toHaveAttribute("aria-selected", "true");
  await expect(rows(page).nth(0)).toContainText("Success");
  await expect(rows(page).nth(0)).toContainText(`replay of ${failedId!.slice(0, 10)}`);
  await expect(summary(page)).toHaveText("Reached: tick → count → out");
  await expect(panel(page).getByTestId("execution-detail")).toContainText(`Replay of${failedId}`);
  await expect(node(page, f.ids.debug).locator(".fp-node")).toHaveClass(/exec-reached/);
  await expect(edge(page, f.wires.toDebug)).toHaveClass(/exec-taken/);
  await shot(page, "executions-replayed");
  const replayId = await rows(page).nth(0).getAttribute("data-id");

  // A Debug message opens its execution.
  await openTab(page, "Debug");
  const listed = page.getByRole("region", { name: "Debug" }).getByTestId("debug-message");
  // The second execution's error is listed between the two messages, as Node-RED's sidebar lists
  // an uncaught node.error.
  await expect(listed).toHaveCount(3);
  await expect(listed.nth(1)).toHaveClass(/\berror\b/);
  await expect(listed.nth(1)).toContainText(ERR);
  const messages = listed.filter({ hasNot: page.locator(".debug-error-text") });
  await expect(messages).toHaveCount(2);
  await shot(page, "executions-debug-link");
  await messages.nth(1).getByRole("button", { name: "Show execution" }).click();
  await expect(page.getByRole("tab", { name: "Executions" })).toHaveAttribute("aria-selected", "true");
  await expect(panel(page).getByTestId("execution-detail")).toContainText(replayId!);
  await expect(rows(page).nth(0)).toHaveAttribute("aria-selected", "true");
  await expect(summary(page)).toHaveText("Reached: tick → count → out");
  // The first message's (the first execution's).
  await openTab(page, "Debug");
  await messages.nth(0).getByRole("button", { name: "Show execution" }).click();
  await expect(rows(page).nth(2)).toHaveAttribute("aria-selected", "true");
  await expect(rows(page).nth(2)).toContainText("Success");
  await shot(page, "executions-from-debug");
  // The error's own row opens the execution that failed.
  await openTab(page, "Debug");
  await listed.nth(1).getByRole("button", { name: "Show execution" }).click();
  await expect(rows(page).nth(1)).toHaveAttribute("aria-selected", "true");
  await expect(panel(page).getByTestId("execution-detail")).toContainText(failedId!);
  await expect(summary(page)).toHaveText(`Reached: tick → count (error: ${ERR})`);

  // A viewer reads the executions and their paths, pages through them, and gets no Replay.
  for (let i = 0; i < 50; i++) expect((await request.post(`/api/v1/nodes/${f.ids.inject}/inject`, { headers: auth(owner), data: {} })).status()).toBe(200);
  const viewer = await joinAs(request, owner, "viewer", "exec-viewer");
  await logOut(page);
  await logIn(page, viewer.email);
  await page.goto(`/flows/${flow.id}`);
  await openTab(page, "Executions");
  await expect(rows(page)).toHaveCount(50);
  await panel(page).getByRole("button", { name: "Load more" }).click();
  await expect(rows(page)).toHaveCount(53);
  await expect(panel(page).getByRole("button", { name: "Load more" })).toHaveCount(0);
  await expect(rows(page).nth(52)).toContainText("Success");
  await panel(page).getByLabel("Status").selectOption("error");
  await expect(rows(page)).toHaveCount(1);
  await rows(page).nth(0).click();
  await expect(summary(page)).toHaveText(`Reached: tick → count (error: ${ERR})`);
  await expect(panel(page).getByRole("button", { name: "Replay" })).toHaveCount(0);
  // Through the API too: viewers may not replay.
  const refused = await request.post(`/api/v1/executions/${failedId}/replay`, { headers: auth(viewer) });
  expect(refused.status()).toBe(403);
});

test("a message a switch drops: the path ends there, marked apart from an error", async ({ page, request }) => {
  const owner = await registerUser(request, "exec-drop");
  const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const ids = { inject: `inj-${suffix}`, sw: `sw-${suffix}`, debug: `dbg-${suffix}` };
  const flow = await createFlow(request, owner, "Dropping flow", {
    nodes: [
      { id: ids.inject, type: "inject", name: "hourly reading of the north pump", position: { x: 80, y: 140 }, config: { payload_type: "string", payload: "no" } },
      { id: ids.sw, type: "switch", name: "only yes", position: { x: 330, y: 140 }, config: { property: "payload", rules: [{ t: "eq", v: "yes", v_type: "str" }] } },
      { id: ids.debug, type: "debug", name: "out", position: { x: 580, y: 140 } },
    ],
    connections: [
      { source: ids.inject, target: ids.sw },
      { source: ids.sw, target: ids.debug },
    ],
  });
  expect((await request.post(`/api/v1/flows/${flow.id}/deploy`, { headers: auth(owner) })).status()).toBe(200);
  expect((await request.post(`/api/v1/nodes/${ids.inject}/inject`, { headers: auth(owner), data: {} })).status()).toBe(200);

  await logIn(page, owner.email);
  await page.goto(`/flows/${flow.id}`);
  await openTab(page, "Executions");
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).nth(0)).toContainText("Success");
  // The trigger's whole name shows in the narrow sidebar (on more lines), not cut to a few letters.
  const trigger = rows(page).nth(0).locator(".exec-trigger");
  await expect(trigger).toHaveText("hourly reading of the north pump");
  expect(await trigger.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
  // Keyboard only: the list takes focus, an arrow chooses the first execution.
  await list(page).focus();
  await page.keyboard.press("ArrowDown");
  await expect(summary(page)).toHaveText("Reached: hourly reading of the north pump → only yes (dropped here)");
  await expect(node(page, ids.sw).locator(".fp-node")).toHaveClass(/exec-dropped/);
  await expect(node(page, ids.sw).locator(".fp-node")).not.toHaveClass(/exec-error/);
  await expect(node(page, ids.sw).getByTestId("node-note")).toHaveText("Dropped here");
  await expect(edge(page, `${ids.inject}:0:${ids.sw}`)).toHaveClass(/exec-taken/);
  await expect(edge(page, `${ids.sw}:0:${ids.debug}`)).not.toHaveClass(/exec-taken/);
  await node(page, ids.sw).focus();
  await expect(node(page, ids.sw).getByTestId("node-detail")).toContainText("The message ended here");
  await expect(node(page, ids.sw).getByTestId("node-detail")).toContainText('"payload": "no"');
  await shot(page, "executions-dropped");
  // The choice survives switching tabs; its marks come back with the tab.
  await openTab(page, "Node");
  await expect(page.locator(".fp-node.exec-reached")).toHaveCount(0);
  await openTab(page, "Executions");
  await expect(node(page, ids.sw).locator(".fp-node")).toHaveClass(/exec-dropped/);
  await panel(page).getByRole("button", { name: "Clear selection" }).click();
  await expect(page.locator(".fp-node.exec-reached")).toHaveCount(0);
});
