import { test, expect } from "@playwright/test";
import { logIn } from "../helpers/accounts";
import { auth, createFlow, registerUser } from "../helpers/live";
import { canvasNode, editorToolbar, expectAccessible, shot } from "../helpers/flows";

test.describe.configure({ timeout: 90_000 });

/**
 * The mysql node as a user sets it up in the editor: a new MySQL database from the node's form
 * (host, database, user and password, the password never shown again), the picker calling it by
 * its database as Node-RED does, deploy. The server under test keeps the outbound rules on (no
 * OUTBOUND_ALLOW_PRIVATE), so a database on 127.0.0.1 is refused and the node says why; the
 * queries themselves run in mysql.integration.test.ts against a real MariaDB.
 */
test("sets up a MySQL database in the node's form; its password is write-only; a database on a private address is refused with the reason on the node", async ({ page, request }) => {
  const owner = await registerUser(request, "mysql");
  const s = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const ids = { read: `read-${s}`, sql: `sql-${s}`, out: `out-${s}` };
  const password = `pw-${s}`;
  const flow = await createFlow(request, owner, `Plant MySQL ${s}`, {
    nodes: [
      { id: ids.read, type: "inject", name: "read", position: { x: 80, y: 120 }, config: { topic: "SELECT * FROM readings", payload_type: "timestamp" } },
      { id: ids.sql, type: "mysql", name: "", position: { x: 320, y: 120 } },
      { id: ids.out, type: "debug", name: "rows", position: { x: 540, y: 120 } },
    ],
    connections: [
      { source: ids.read, target: ids.sql },
      { source: ids.sql, target: ids.out },
    ],
  });
  await logIn(page, owner.email);
  await page.goto(`/flows/${flow.id}`);

  await canvasNode(page, ids.sql).dblclick();
  const dialog = page.getByRole("dialog", { name: "Edit mysql node" });
  await dialog.getByRole("button", { name: "Add new mysql-database…" }).click();
  const add = page.getByRole("dialog", { name: "Add new mysql-database configuration node" });
  await expect(add.getByLabel("Host", { exact: true })).toHaveValue("127.0.0.1");
  await expect(add.getByLabel("Port", { exact: true })).toHaveValue("3306");
  await add.getByLabel("Database", { exact: true }).fill("plant");
  await add.getByLabel("User", { exact: true }).fill("grafana");
  await add.getByLabel("Password", { exact: true }).fill(password);
  // A port out of range is refused with the field named, and nothing is added.
  await add.getByLabel("Port", { exact: true }).fill("70000");
  await add.getByRole("button", { name: "Add", exact: true }).click();
  await expect(add.getByText(/65535/)).toBeVisible();
  await add.getByLabel("Port", { exact: true }).fill("3306");
  await shot(page, "mysql-database-config");
  await expectAccessible(page);
  await add.getByRole("button", { name: "Add", exact: true }).click();
  await expect(add).toHaveCount(0);
  // Unnamed, it is called by its database, as in Node-RED's editor.
  await expect(dialog.getByLabel("Database", { exact: true }).locator("option:checked")).toHaveText("plant");
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(dialog).toHaveCount(0);

  // The password: set, never read back (API, page).
  const listed = (await (await request.get("/api/v1/config-nodes?type=mysql-database", { headers: auth(owner) })).json()).config_nodes as Array<{ id: string; config: Record<string, unknown>; credentials: Record<string, { set: boolean }> }>;
  expect(listed).toHaveLength(1);
  expect(listed[0]!.config).toMatchObject({ host: "127.0.0.1", port: 3306, db: "plant" });
  expect(listed[0]!.credentials).toMatchObject({ user: { set: true }, password: { set: true } });
  expect(JSON.stringify(listed)).not.toContain(password);
  await canvasNode(page, ids.sql).dblclick();
  await dialog.getByRole("button", { name: "Edit mysql-database plant" }).click();
  const edit = page.getByRole("dialog", { name: "Edit mysql-database configuration node" });
  await expect(edit.locator('[data-credential="password"]').getByTestId("credential-state")).toHaveText("set");
  expect(await page.content()).not.toContain(password);
  await edit.getByRole("button", { name: "Cancel" }).click();
  await dialog.getByRole("button", { name: "Done" }).click();

  await editorToolbar(page).getByRole("button", { name: "Deploy" }).click();
  await expect(editorToolbar(page).getByTestId("flow-state")).toHaveText("Running");
  // The outbound rules: 127.0.0.1 is refused before any connection, and the node says so.
  await expect(canvasNode(page, ids.sql).getByTestId("node-status")).toContainText("private or reserved address", { timeout: 15_000 });
  await shot(page, "mysql-refused-status");
});
