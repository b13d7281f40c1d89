import { expect, test } from "@playwright/test";
import { logIn } from "../helpers/accounts";
import { createFlow, registerUser } from "../helpers/live";
import { canvasNode, editorToolbar, openSidebarTab, shot } from "../helpers/flows";

/**
 * An http-in node's whole URL (/hooks/{organization}{path}) in the Node tab, where Node-RED shows
 * only the path: a user reads it there and calls it, and the deployed flow answers.
 */
test("the Node tab gives an http-in node's whole URL, and calling it reaches the deployed flow", async ({ page, request }) => {
  const owner = await registerUser(request, "hook-url");
  const s = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const ids = { hook: `in-${s}`, answer: `res-${s}` };
  const flow = await createFlow(request, owner, `Orders ${s}`, {
    nodes: [
      { id: ids.hook, type: "http-in", name: "orders", position: { x: 100, y: 100 }, config: { method: "post", path: `/orders-${s}` } },
      { id: ids.answer, type: "http-response", name: "accepted", position: { x: 340, y: 100 }, config: { status_code: 202 } },
    ],
    connections: [{ source: ids.hook, target: ids.answer }],
  });
  await logIn(page, owner.email);
  await page.goto(`/flows/${flow.id}`);
  await editorToolbar(page).getByRole("button", { name: "Deploy" }).click();
  await expect(editorToolbar(page).getByText("Running")).toBeVisible();
  await canvasNode(page, ids.hook).click();
  await openSidebarTab(page, "Node");
  const url = page.locator(".webhook-url code");
  await expect(url).toHaveText(new RegExp(`^POST http://127\\.0\\.0\\.1:\\d+/hooks/[a-z0-9-]+/orders-${s}$`));
  await shot(page, "node-tab-webhook-url");
  const called = await request.post((await url.innerText()).replace(/^POST /, ""), { data: { item: "tea" } });
  expect(called.status()).toBe(202);
});
