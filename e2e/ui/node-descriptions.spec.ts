import { test, expect } from "@playwright/test";
import { logIn } from "../helpers/accounts";
import { auth, registerUser } from "../helpers/live";
import { canvasNode, expectAccessible, getFlowViaApi, shot } from "../helpers/flows";

/**
 * A node's description (Node-RED's Description tab, `info`): imported with a Node-RED flow, shown
 * rendered in the Node tab (its raw HTML as text), edited in the node's dialog, saved, and given
 * back by the export; a comment keeps its text as its own.
 */
test("an imported node's description shows in the Node tab, and an edit of it is saved and exported", async ({ page, request }) => {
  const owner = await registerUser(request, "descriptions");
  const s = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const z = `tab${s}`;
  const id = (n: string) => `${n}${s}`;
  const flows = [
    { id: z, type: "tab", label: `Described ${s}`, disabled: false, info: "" },
    { id: id("note"), type: "comment", z, name: "Read me", info: "The **whole** story.", x: 120, y: 40, wires: [] },
    {
      id: id("tick"),
      type: "inject",
      z,
      name: "Price",
      props: [{ p: "payload" }],
      repeat: "",
      crontab: "",
      once: false,
      onceDelay: 0.1,
      topic: "",
      payload: "",
      payloadType: "date",
      info: "## Why\n\nReads the **price** from [the shop](https://example.com/shop).\n\n<script>window.pwned = 1</script>\n\nSee <img src=x onerror=\"window.pwned = 2\"> and [this](javascript:window.pwned=3).",
      x: 120,
      y: 120,
      wires: [[]],
    },
  ];
  const imported = await request.post("/api/v1/flows/import", { headers: auth(owner), data: { flows } });
  expect(imported.status(), await imported.text()).toBe(201);
  const flow = (await imported.json()).flows[0] as { id: string; nodes: Array<{ id: string; type: string }> };
  const ours = (type: string) => flow.nodes.find((n) => n.type === type)!.id;

  await logIn(page, owner.email);
  await page.goto(`/flows/${flow.id}`);
  await canvasNode(page, ours("inject")).click();
  const description = page.getByRole("region", { name: "Description" });
  await expect(description.getByRole("heading", { name: "Why" })).toBeVisible();
  await expect(description.locator("strong")).toHaveText("price");
  await expect(description.getByRole("link", { name: "the shop" })).toHaveAttribute("href", "https://example.com/shop");
  // Raw HTML in a description is text, never markup that runs.
  await expect(description).toContainText("<script>window.pwned = 1</script>");
  await expect(description).toContainText('<img src=x onerror="window.pwned = 2">');
  await expect(description.locator("img")).toHaveCount(0);
  // A javascript: link is no link.
  await expect(description.locator('a[href^="javascript"]')).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
  await shot(page, "node-description-tab");
  await expectAccessible(page);

  // Edited in the node's dialog.
  await canvasNode(page, ours("inject")).dblclick();
  const dialog = page.getByRole("dialog", { name: "Edit inject node" });
  const field = dialog.getByLabel("Description", { exact: true });
  await expect(field).toHaveValue(/^## Why/);
  await field.fill("Reads the price every *morning*.");
  await shot(page, "node-description-dialog");
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(description.locator("em")).toHaveText("morning");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Revision 2 · saved")).toBeVisible();
  const saved = (await getFlowViaApi(request, owner.token, flow.id)) as unknown as { nodes: Array<{ id: string; description?: string }> };
  expect(saved.nodes.find((n) => n.id === ours("inject"))!.description).toBe("Reads the price every *morning*.");

  // A comment's text is its own field, not a description beside it; the Node tab shows it as Node-RED's does.
  await canvasNode(page, ours("comment")).click();
  await expect(page.getByRole("region", { name: "Comment" }).locator("strong")).toHaveText("whole");
  await canvasNode(page, ours("comment")).dblclick();
  const comment = page.getByRole("dialog", { name: "Edit comment node" });
  await expect(comment.getByLabel("Text", { exact: true })).toHaveValue("The **whole** story.");
  await expect(comment.getByLabel("Description", { exact: true })).toHaveCount(0);
  await comment.getByRole("button", { name: "Cancel" }).click();

  const exported = (await (await request.get(`/api/v1/flows/${flow.id}/export`, { headers: auth(owner) })).json()) as Array<Record<string, unknown>>;
  expect(exported.find((n) => n.type === "inject")!.info).toBe("Reads the price every *morning*.");
  expect(exported.find((n) => n.type === "comment")!.info).toBe("The **whole** story.");
});
