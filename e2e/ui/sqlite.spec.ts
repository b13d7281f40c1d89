import { test, expect } from "@playwright/test";
import { logIn } from "../helpers/accounts";
import { auth, createFlow, getFlow, registerUser } from "../helpers/live";
import { canvasNode, debugMessages, debugRegion, editorToolbar, openSidebarTab, shot } from "../helpers/flows";

test.describe.configure({ timeout: 90_000 });


/**
 * The sqlite node as a user sets it up in the editor: a new SQLite database configuration from the
 * node's form, a fixed statement typed in its SQL editor, deploy, inject, the rows in Debug; the
 * database is then one of the organization's files, on the Files page.
 */
test("sets up a SQLite database and a statement in the form, runs it, and finds the database among the organization's files", async ({ page, request }) => {
  const owner = await registerUser(request, "sqlite");
  const s = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const ids = { create: `create-${s}`, insert: `insert-${s}`, sql: `sql-${s}`, out: `out-${s}` };
  const flow = await createFlow(request, owner, `Plant readings ${s}`, {
    nodes: [
      { id: ids.create, type: "inject", name: "create table", position: { x: 80, y: 80 }, config: { topic: "CREATE TABLE IF NOT EXISTS readings (sensor TEXT, value REAL)", payload_type: "timestamp" } },
      { id: ids.insert, type: "inject", name: "insert", position: { x: 80, y: 160 }, config: { topic: "INSERT INTO readings VALUES ('boiler', 71.5), ('pump', 12)", payload_type: "timestamp" } },
      { id: ids.sql, type: "sqlite", name: "readings", position: { x: 320, y: 120 } },
      { id: ids.out, type: "debug", name: "rows", position: { x: 540, y: 120 } },
    ],
    connections: [
      { source: ids.create, target: ids.sql },
      { source: ids.insert, target: ids.sql },
      { source: ids.sql, target: ids.out },
    ],
  });
  await logIn(page, owner.email);
  await page.goto(`/flows/${flow.id}`);

  // The node's form: a new database configuration, then "Via msg.topic" as Node-RED's default.
  await canvasNode(page, ids.sql).dblclick();
  const dialog = page.getByRole("dialog", { name: "Edit sqlite node" });
  await dialog.getByRole("button", { name: "Add new sqlitedb…" }).click();
  const add = page.getByRole("dialog", { name: "Add new sqlitedb configuration node" });
  await add.getByLabel("Name", { exact: true }).fill("Plant database");
  await add.getByLabel("Database", { exact: true }).fill("/home/pi/plant.db");
  await shot(page, "sqlite-database-config");
  await add.getByRole("button", { name: "Add", exact: true }).click();
  await expect(add).toHaveCount(0);
  await expect(dialog.getByLabel("Database", { exact: true }).locator("option:checked")).toHaveText("Plant database");
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(dialog).toHaveCount(0);
  await editorToolbar(page).getByRole("button", { name: "Deploy" }).click();
  // Its first deploy: no "Undeployed changes" badge was there to wait for; the flow runs once saved and deployed.
  await expect(editorToolbar(page).getByTestId("flow-state")).toHaveText("Running");
  await openSidebarTab(page, "Debug");
  await canvasNode(page, ids.create).getByRole("button", { name: "Inject" }).click();
  await expect(debugMessages(page)).toHaveCount(1);
  await canvasNode(page, ids.insert).getByRole("button", { name: "Inject" }).click();
  await expect(debugMessages(page)).toHaveCount(2);

  // A fixed statement, typed in the SQL editor (keyboard only), run by either inject.
  await canvasNode(page, ids.sql).dblclick();
  await dialog.getByLabel("SQL Query", { exact: true }).selectOption("fixed");
  const editor = dialog.getByRole("textbox", { name: "SQL Statement" });
  await editor.click();
  await page.keyboard.type("SELECT sensor, value FROM readings ORDER BY value DESC");
  await shot(page, "sqlite-node-form");
  await dialog.getByRole("button", { name: "Done" }).click();
  await editorToolbar(page).getByRole("button", { name: "Deploy" }).click();
  await expect(editorToolbar(page).getByText("Undeployed changes")).toHaveCount(0);
  const stored = await getFlow(request, owner, flow.id);
  expect(stored.nodes.find((n: { id: string }) => n.id === ids.sql).config).toMatchObject({ sqlquery: "fixed", sql: "SELECT sensor, value FROM readings ORDER BY value DESC" });

  await debugRegion(page).getByRole("button", { name: "Clear" }).click();
  await canvasNode(page, ids.create).getByRole("button", { name: "Inject" }).click();
  await expect(debugMessages(page)).toHaveCount(1);
  const rows = debugMessages(page).first();
  await expect(rows).toContainText("msg.payload : array[2]");
  await rows.getByRole("button", { name: /array\[2\]/ }).click();
  await rows.getByRole("button", { name: "0: { sensor, value }" }).click();
  await expect(rows).toContainText('sensor: "boiler"');
  await expect(rows).toContainText("value: 71.5");
  await shot(page, "sqlite-rows-debug", true);

  // The database is the organization's file, relative to its files: listed with the rest.
  const listed = await (await request.get("/api/v1/files", { headers: auth(owner) })).json();
  expect(listed.files.map((f: { path: string }) => f.path)).toContain("home/pi/plant.db");
  await page.goto("/files");
  await expect(page.getByRole("table").getByRole("row", { name: /home\/pi\/plant\.db/ })).toBeVisible();
});
