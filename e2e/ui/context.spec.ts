import { test, expect, type Page } from "@playwright/test";
import { logIn, logOut } from "../helpers/accounts";
import { auth, createFlow, joinAs, registerUser } from "../helpers/live";

const contextRegion = (page: Page) => page.getByRole("region", { name: "Context" });
const scope = (page: Page, name: "This flow" | "Global") => contextRegion(page).getByRole("region", { name });
const entry = (page: Page, name: "This flow" | "Global", key: string) => scope(page, name).locator(`[data-testid="context-entry"][data-key="${key}"]`);
const openTab = (page: Page, name: string) => page.getByRole("tablist", { name: "Sidebar panels" }).getByRole("tab", { name }).click();

test.describe.configure({ timeout: 90_000 });

test("the Context tab shows this flow's and the global values, follows them live, and lets members edit them (viewers only read)", async ({ page, request }) => {
  const owner = await registerUser(request, "ctx-owner");
  const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const inject = `inj-${suffix}`;
  const flow = await createFlow(request, owner, "Context flow", {
    nodes: [
      { id: inject, type: "inject", name: "tick", position: { x: 80, y: 120 } },
      { id: `fn-${suffix}`, type: "function", name: "count", position: { x: 330, y: 120 }, config: { code: "msg.payload = flow.increment('count'); global.set('last', { count: msg.payload }); return msg;" } },
      { id: `dbg-${suffix}`, type: "debug", name: "out", position: { x: 580, y: 120 } },
    ],
    connections: [
      { source: inject, target: `fn-${suffix}` },
      { source: `fn-${suffix}`, target: `dbg-${suffix}` },
    ],
  });
  expect((await request.post(`/api/v1/flows/${flow.id}/deploy`, { headers: auth(owner) })).status()).toBe(200);
  for (let i = 0; i < 2; i++) expect((await request.post(`/api/v1/nodes/${inject}/inject`, { headers: auth(owner), data: {} })).status()).toBe(200);

  await logIn(page, owner.email);
  await page.goto(`/flows/${flow.id}`);
  await openTab(page, "Context");
  await expect(entry(page, "This flow", "count")).toContainText("count: 2");
  await expect(entry(page, "Global", "last")).toContainText("last");

  // Live: a message handled elsewhere shows up without a reload.
  expect((await request.post(`/api/v1/nodes/${inject}/inject`, { headers: auth(owner), data: {} })).status()).toBe(200);
  await expect(entry(page, "This flow", "count")).toContainText("count: 3", { timeout: 10_000 });

  // A member adds, edits and deletes a key.
  await scope(page, "This flow").getByRole("button", { name: "Add" }).click();
  await scope(page, "This flow").getByLabel("Key").fill("note");
  await scope(page, "This flow").getByLabel("Value (JSON)").fill("not json");
  await scope(page, "This flow").getByRole("button", { name: "Save" }).click();
  await expect(scope(page, "This flow").getByRole("alert")).toContainText("must be JSON");
  await scope(page, "This flow").getByLabel("Value (JSON)").fill('"hello"');
  await scope(page, "This flow").getByRole("button", { name: "Save" }).click();
  await expect(entry(page, "This flow", "note")).toContainText('note: "hello"');
  await entry(page, "This flow", "note").getByRole("button", { name: "Edit note" }).click();
  await entry(page, "This flow", "note").getByLabel("Value (JSON)").fill("[1, 2]");
  await entry(page, "This flow", "note").getByRole("button", { name: "Save" }).click();
  await expect(entry(page, "This flow", "note")).toContainText("array[2]");
  const stored = await (await request.get(`/api/v1/flows/${flow.id}/context`, { headers: auth(owner) })).json();
  expect(stored.context).toEqual({ count: 3, note: [1, 2] });
  await entry(page, "This flow", "note").getByRole("button", { name: "Delete note" }).click();
  await expect(entry(page, "This flow", "note")).toHaveCount(0);

  // A viewer sees the values and no way to change them.
  const viewer = await joinAs(request, owner, "viewer", "ctx-viewer");
  await logOut(page);
  await logIn(page, viewer.email);
  await page.goto(`/flows/${flow.id}`);
  await openTab(page, "Context");
  await expect(entry(page, "This flow", "count")).toContainText("count: 3");
  await expect(contextRegion(page).getByRole("button", { name: "Add" })).toHaveCount(0);
  await expect(contextRegion(page).getByRole("button", { name: /^(Edit|Delete) / })).toHaveCount(0);
});
