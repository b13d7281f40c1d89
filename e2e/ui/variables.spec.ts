import { expect, test, type Page } from "@playwright/test";
import { logIn, registerViaApi, uniqueEmail } from "../helpers/accounts";
import { accessToken, createFlowViaApi, expectAccessible, shot } from "../helpers/flows";

const region = (page: Page, name: string) => page.getByRole("region", { name, exact: true });
const SECRET = "pw-e2e-secret-8c3f1a";

test.describe("variables and secrets in the browser", () => {
  test("settings page: add a variable and a write-only secret, edit, delete; the editor lists what a flow uses and warns on deploy", async ({ page }) => {
    const owner = uniqueEmail("variables");
    await registerViaApi(page.request, owner);
    await logIn(page, owner);

    await page.goto("/settings/organization");
    await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Variables" }).click();
    await expect(page).toHaveURL((url) => url.pathname === "/settings/variables");
    await expect(page.getByRole("heading", { level: 1, name: "Variables" })).toBeVisible();

    const add = region(page, "Add a variable");
    await add.getByLabel("Name").fill("api_url");
    await expect(add.getByLabel("Name")).toHaveValue("API_URL");
    await add.getByLabel("Value").fill("https://api.example.test");
    await add.getByRole("button", { name: "Add variable" }).click();
    await expect(add.getByRole("status")).toHaveText("Added API_URL.");
    const list = region(page, "Variables");
    await expect(list.getByRole("row").filter({ hasText: "API_URL" })).toContainText("https://api.example.test");

    await add.getByLabel("Name").fill("API_TOKEN");
    await add.getByLabel("Secret").check();
    await expect(add.getByLabel("Value")).toHaveAttribute("type", "password");
    await add.getByLabel("Value").fill(SECRET);
    // A secret may list the hosts it is sent to (SPEC §14).
    await add.getByLabel("Allowed hosts").fill("API.example.test, *.example.test");
    await add.getByRole("button", { name: "Add variable" }).click();
    await expect(add.getByRole("status")).toHaveText("Added API_TOKEN.");
    await expect(add.getByLabel("Allowed hosts")).toHaveCount(0);
    const secretRow = list.getByRole("row").filter({ hasText: "API_TOKEN" });
    await expect(secretRow).toContainText("Hidden");
    await expect(secretRow).toContainText("Secret");
    await expect(secretRow).toContainText("Only to api.example.test, *.example.test");

    // A name defined twice is refused next to the field.
    await add.getByLabel("Name").fill("API_URL");
    await add.getByLabel("Value").fill("again");
    await add.getByRole("button", { name: "Add variable" }).click();
    await expect(add.getByLabel("Name")).toHaveAccessibleDescription(/defined already/);

    await page.reload();
    expect(await page.content()).not.toContain(SECRET);
    await shot(page, "settings-variables", true);
    await expectAccessible(page);

    // A secret's value is write-only: editing starts from an empty password field.
    await list.getByRole("button", { name: "Edit API_TOKEN (Organization)" }).click();
    const newValue = list.getByLabel("New value for API_TOKEN");
    await expect(newValue).toHaveValue("");
    await expect(newValue).toHaveAttribute("type", "password");
    await expect(list.getByLabel("Allowed hosts for API_TOKEN")).toHaveValue("api.example.test, *.example.test");
    await list.getByLabel("Allowed hosts for API_TOKEN").fill("api.example.test");
    await newValue.fill(`${SECRET}-rotated`);
    await list.getByRole("button", { name: "Save" }).click();
    await expect(list.getByLabel("New value for API_TOKEN")).toHaveCount(0);
    await expect(list.getByRole("row").filter({ hasText: "API_TOKEN" })).toContainText("Hidden");
    await expect(list.getByRole("row").filter({ hasText: "API_TOKEN" })).not.toContainText("*.example.test");
    expect(await page.content()).not.toContain(SECRET);

    await list.getByRole("button", { name: "Delete API_URL (Organization)" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete variable" }).click();
    await expect(list.getByRole("row").filter({ hasText: "API_URL" })).toHaveCount(0);

    // The editor: which variables the flow uses, and a warning on deploy for the undefined one.
    const token = await accessToken(page.request, owner);
    const flow = await createFlowViaApi(page.request, token, {
      name: "calls an API",
      nodes: [
        { id: "e2e_var_req", type: "http-request", name: "call API", position: { x: 100, y: 100 }, config: { url: "${API_URL}/orders", auth_type: "bearer", auth_password: "${API_TOKEN}" } },
      ],
    });
    await page.goto(`/flows/${flow.id}`);
    await page.getByRole("tab", { name: "Variables" }).click();
    const used = region(page, "Variables used");
    await expect(used.getByRole("listitem").filter({ hasText: "API_TOKEN" }).first()).toContainText("organization, secret, only to api.example.test");
    await expect(used.getByRole("listitem").filter({ hasText: "API_URL" }).first()).toContainText("Undefined");
    await page.getByRole("button", { name: "Deploy" }).click();
    await expect(page.getByRole("group", { name: "Deployment" }).getByRole("status")).toContainText("not defined: API_URL");
    await shot(page, "editor-variables", true);
  });
});
