import { test, expect } from "@playwright/test";
import { logIn } from "../helpers/accounts";
import { auth, createFlow, getFlow, registerUser } from "../helpers/live";
import { shot } from "../helpers/page";

const mod = process.platform === "darwin" ? "Meta" : "Control";

test("a group's environment variables: set in Edit group, saved, and read by its nodes when deployed", async ({ page, request }) => {
  const owner = await registerUser(request, "group-env");
  const flow = await createFlow(request, owner, "Group env", {
    nodes: [
      { id: "ge-inj", type: "inject", name: "go", position: { x: 80, y: 80 } },
      { id: "ge-fn", type: "function", name: "greet", config: { code: "msg.payload = env.get('GREETING') + ' / ' + env.get('NR_GROUP_NAME');\nreturn msg;" }, position: { x: 300, y: 80 } },
      { id: "ge-dbg", type: "debug", name: "show", position: { x: 520, y: 80 } },
    ],
    connections: [
      { source: "ge-inj", target: "ge-fn" },
      { source: "ge-fn", target: "ge-dbg" },
    ],
    // An entry with a field of its own, and one the table cannot show: both kept as they are.
    groups: [{ id: "ge-group", name: "Greeters", nodes: ["ge-inj", "ge-fn"], env: [{ name: "KEEP", type: "str", value: "k", note: "mine" }, { odd: true }] }],
  });
  await logIn(page, owner.email);
  await page.goto(`/flows/${flow.id}`);
  await page.getByRole("button", { name: "Group Greeters" }).click();
  await page.getByRole("toolbar", { name: "Flow editor" }).getByRole("button", { name: "Edit group" }).click();
  const dialog = page.getByRole("dialog", { name: "Edit group" });
  await expect(dialog.getByLabel("Property 1 name")).toHaveValue("KEEP");
  // What the runtime resolves: no cred (it is left out there) nor a configuration node's type.
  await expect(dialog.getByLabel("Property 1 type").locator("option")).toHaveText(["str", "num", "bool", "json", "bin", "env", "jsonata"]);
  // Add puts the focus on the new row's name; Remove on the Remove of the row before.
  await dialog.getByRole("button", { name: "Add property" }).click();
  await expect(dialog.getByLabel("Property 2 name")).toBeFocused();
  await dialog.getByRole("button", { name: "Add property" }).click();
  await expect(dialog.getByLabel("Property 3 name")).toBeFocused();
  await dialog.getByRole("button", { name: "Remove property 3" }).click();
  await expect(dialog.getByLabel("Property 3 name")).toHaveCount(0);
  await expect(dialog.getByRole("button", { name: "Remove property 2" })).toBeFocused();
  await dialog.getByLabel("Property 2 name").fill("GREETING");
  await dialog.getByLabel("Property 2 value").fill("hello from the group");
  // Its description (Node-RED's group info) beside them.
  await dialog.getByLabel("Description", { exact: true }).fill("Says **hello**.");
  await shot(page, "group-env-dialog");
  await dialog.getByRole("button", { name: "Done" }).click();
  await page.keyboard.press(`${mod}+s`);
  await expect(page.getByRole("toolbar", { name: "Flow editor" }).getByText(/· saved/)).toBeVisible();
  const saved = await getFlow(request, owner, flow.id);
  expect(saved.groups[0].env).toEqual([{ name: "KEEP", type: "str", value: "k", note: "mine" }, { name: "GREETING", type: "str", value: "hello from the group" }, { odd: true }]);
  expect(saved.groups[0].description).toBe("Says **hello**.");

  expect((await request.post(`/api/v1/flows/${flow.id}/deploy`, { headers: auth(owner) })).status()).toBe(200);
  await page.reload();
  await expect(page.getByTestId("flow-state")).toHaveText(/Running/);
  await page.getByRole("tablist", { name: "Sidebar panels" }).getByRole("tab", { name: "Debug" }).click();
  await page.locator('.react-flow__node[data-id="ge-inj"]').getByRole("button", { name: "Inject" }).click();
  const message = page.getByRole("region", { name: "Debug" }).getByTestId("debug-message").first();
  await expect(message).toContainText("hello from the group / Greeters");
});
