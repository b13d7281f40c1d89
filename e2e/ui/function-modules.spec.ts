import { test, expect } from "@playwright/test";
import { createHmac } from "node:crypto";
import { logIn } from "../helpers/accounts";
import { canvasNode, expectAccessible, getFlowViaApi } from "../helpers/flows";
import { auth, createFlow, registerUser } from "../helpers/live";
import { shot } from "../helpers/page";

const mod = process.platform === "darwin" ? "Meta" : "Control";

test("a function's Modules (Node-RED's Setup → Modules): crypto added under a variable in the edit dialog signs the message, shown in the debug sidebar", async ({ page, request }) => {
  test.setTimeout(60_000);
  const owner = await registerUser(request, "fn-modules");
  const code = "msg.payload = crypto.createHmac('sha256', 'shared-secret').update(msg.payload).digest('hex');\nreturn msg;";
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
  await expect(moduleSelect.locator("option")).toHaveText(["crypto", "node:crypto", "util", "node:util"]);
  // A name the code already has is refused on its field, as Node-RED's editor refuses it.
  await variable.fill("util");
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(variable).toHaveAttribute("aria-invalid", "true");
  await expect(dialog).toContainText("is a name the code already has");
  await variable.fill("crypto");
  await shot(page, "function-modules-dialog");
  await expectAccessible(page);
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(dialog).toHaveCount(0);
  await page.keyboard.press(`${mod}+s`);
  await expect(page.getByText("Revision 2 · saved")).toBeVisible();
  const saved = await getFlowViaApi(page.request, owner.token, flow.id);
  expect(saved.nodes.find((n) => n.id === "fm-fn")!.config.libs).toEqual([{ var: "crypto", module: "crypto" }]);

  expect((await request.post(`/api/v1/flows/${flow.id}/deploy`, { headers: auth(owner) })).status()).toBe(200);
  await expect(page.getByTestId("flow-state")).toHaveText(/Running/);
  await expect(page.getByRole("alert").filter({ hasText: "Revision 2 was deployed by you, from another tab or the API." })).toBeVisible();
  await page.getByRole("tablist", { name: "Sidebar panels" }).getByRole("tab", { name: "Debug" }).click();
  await canvasNode(page, "fm-inj").getByRole("button", { name: "Inject" }).click();
  const message = page.getByRole("region", { name: "Debug" }).getByTestId("debug-message").first();
  await expect(message).toContainText(createHmac("sha256", "shared-secret").update("order 42").digest("hex"));
  await shot(page, "function-modules-debug");
});
