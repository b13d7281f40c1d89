import { expect, test } from "@playwright/test";
import { logIn, registerViaApi, uniqueEmail } from "../helpers/accounts";
import { accessToken, canvasNode, createFlowViaApi, expectAccessible, shot } from "../helpers/flows";

test.describe("node help", () => {
  test("the Node tab and the edit dialog show the selected type's help", async ({ page }) => {
    const email = uniqueEmail("node-help");
    await registerViaApi(page.request, email);
    const token = await accessToken(page.request, email);
    const flow = await createFlowViaApi(page.request, token, {
      name: "Help",
      nodes: [
        { id: "nh-delay", type: "delay", position: { x: 0, y: 0 }, config: { mode: "variable" } },
        { id: "nh-debug", type: "debug", position: { x: 300, y: 0 } },
      ],
      connections: [{ source: "nh-delay", target: "nh-debug" }],
    });
    await logIn(page, email);
    await page.goto(`/flows/${flow.id}`);
    await expect(page.locator(".react-flow__renderer")).toBeVisible();

    await canvasNode(page, "nh-delay").click();
    const help = page.getByRole("region", { name: "Help: Delay" });
    await expect(help.getByRole("heading", { name: "Inputs" })).toBeVisible();
    await expect(help.getByRole("heading", { name: "Differences from Node-RED" })).toBeVisible();
    await expect(help).toContainText("Delays each message passing through the node");
    // Markdown rendered, not shown as source.
    await expect(help).not.toContainText("###");
    await expect(help.locator("code").filter({ hasText: "delay" }).first()).toBeVisible();
    await shot(page, "editor-node-tab-help");
    await expectAccessible(page);

    await canvasNode(page, "nh-debug").click();
    await expect(page.getByRole("region", { name: "Help: Debug" })).toContainText("Shows a message property");

    // The edit dialog: property titles from the schema, and the help behind a disclosure.
    await canvasNode(page, "nh-delay").dblclick();
    const dialog = page.getByRole("dialog", { name: "Edit delay node" });
    await expect(dialog.getByLabel("Delay (ms)")).toBeVisible();
    await dialog.getByText("Help: Delay").click();
    await expect(dialog.getByRole("heading", { name: "Outputs" })).toBeVisible();
    await shot(page, "editor-edit-dialog-help");
  });
});
