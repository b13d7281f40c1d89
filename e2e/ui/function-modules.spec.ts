import { test, expect } from "@playwright/test";
import { createHmac } from "node:crypto";
import { logIn } from "../helpers/accounts";
import { canvasNode, expectAccessible, getFlowViaApi } from "../helpers/flows";
import { auth, createFlow, registerUser } from "../helpers/live";
import { shot } from "../helpers/page";

const mod = process.platform === "darwin" ? "Meta" : "Control";

test("a function's Modules (Node-RED's Setup → Modules): crypto and the npm package moment added under variables in the edit dialog sign and date the message, shown in the debug sidebar", async ({ page, request }) => {
  test.setTimeout(60_000);
  const owner = await registerUser(request, "fn-modules");
  const code = "msg.payload = crypto.createHmac('sha256', 'shared-secret').update(msg.payload).digest('hex') + ' ' + moment.utc(0).add(1, 'day').format('dddd');\nreturn msg;";
  const flow = await createFlow(request, owner, "Modules", {
    nodes: [
      { id: "fm-inj", type: "inject", name: "order", config: { payload_type: "string", payload: "order 42" }, position: { x: 80, y: 80 } },
      { id: "fm-fn", type: "function", name: "sign", config: { code }, position: { x: 300, y: 80 } },
      { id: "fm-dbg", type: "debug", name: "show", position: { x: 520, y: 80 } },
    ],
    connections: [
      { source: "fm-inj", target: "fm-fn" },
      { source: "fm-fn", target: "fm-dbg" },
    ],
  });
  await logIn(page, owner.email);
  await page.goto(`/flows/${flow.id}`);
  await expect(page.locator(".react-flow__renderer")).toBeVisible();

  await canvasNode(page, "fm-fn").dblclick();
  const dialog = page.getByRole("dialog", { name: "Edit function node" });
  await dialog.getByRole("button", { name: "Add module" }).click();
  const variable = dialog.getByLabel("Variable (module 1)", { exact: true });
  const moduleSelect = dialog.getByLabel("Module (module 1)", { exact: true });
  await expect(moduleSelect).toHaveValue("crypto");
  await expect(moduleSelect.locator("option")).toHaveText(["crypto", "node:crypto", "util", "node:util", "lodash", "moment", "moment-timezone"]);
  // A name the code already has is refused on its field, as Node-RED's editor refuses it.
  await variable.fill("util");
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(variable).toHaveAttribute("aria-invalid", "true");
  await expect(dialog).toContainText("is a name the code already has");
  await variable.fill("crypto");
  // The field's error goes once its value changes; Done checks it again.
  await expect(variable).not.toHaveAttribute("aria-invalid", "true");
  await expect(dialog).not.toContainText("is a name the code already has");
  await dialog.getByRole("button", { name: "Add module" }).click();
  await dialog.getByLabel("Variable (module 2)", { exact: true }).fill("moment");
  await dialog.getByLabel("Module (module 2)", { exact: true }).selectOption("moment");
  await shot(page, "function-modules-dialog");
  await expectAccessible(page);
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(dialog).toHaveCount(0);
  await page.keyboard.press(`${mod}+s`);
  await expect(page.getByText("Revision 2 · saved")).toBeVisible();
  const saved = await getFlowViaApi(page.request, owner.token, flow.id);
  expect(saved.nodes.find((n) => n.id === "fm-fn")!.config.libs).toEqual([
    { var: "crypto", module: "crypto" },
    { var: "moment", module: "moment" },
  ]);

  expect((await request.post(`/api/v1/flows/${flow.id}/deploy`, { headers: auth(owner) })).status()).toBe(200);
  await expect(page.getByTestId("flow-state")).toHaveText(/Running/);
  await expect(page.getByRole("alert").filter({ hasText: "Revision 2 was deployed by you, from another tab or the API." })).toBeVisible();
  await page.getByRole("tablist", { name: "Sidebar panels" }).getByRole("tab", { name: "Debug" }).click();
  await canvasNode(page, "fm-inj").getByRole("button", { name: "Inject" }).click();
  const message = page.getByRole("region", { name: "Debug" }).getByTestId("debug-message").first();
  await expect(message).toContainText(`${createHmac("sha256", "shared-secret").update("order 42").digest("hex")} Friday`);
  await shot(page, "function-modules-debug");
});
