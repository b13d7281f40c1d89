import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { logIn, registerViaApi, uniqueEmail } from "../helpers/accounts";
import { accessToken, createFlowViaApi, expectAccessible, shot } from "../helpers/flows";

const nodeRedExport = [
  { id: "tab1", type: "tab", label: "Imported greeting", disabled: false, info: "" },
  { id: "nr-inject-1", type: "inject", z: "tab1", name: "every second", props: [{ p: "payload" }], repeat: "", crontab: "", once: false, onceDelay: 0.1, topic: "", payload: "hello", payloadType: "str", x: 120, y: 80, wires: [["nr-debug-1"]] },
  { id: "nr-debug-1", type: "debug", z: "tab1", name: "", active: true, tosidebar: true, console: false, tostatus: false, complete: "payload", targetType: "msg", x: 320, y: 80, wires: [] },
  { id: "nr-serial-1", type: "serial in", z: "tab1", name: "sensor", serial: "port1", x: 120, y: 160, wires: [["nr-debug-1"]] },
  { id: "port1", type: "serial-port", name: "local", serialport: "/dev/ttyUSB0" },
];

test.describe("flows list", () => {
  test("search, new flow, import with warnings, export, enable/disable, delete with confirmation", async ({ page }) => {
    const email = uniqueEmail("flows-list");
    await registerViaApi(page.request, email);
    const token = await accessToken(page.request, email);
    await createFlowViaApi(page.request, token, { name: "Orders pipeline", nodes: [{ type: "inject" }, { type: "debug" }] });
    await createFlowViaApi(page.request, token, { name: "Weather station", nodes: [{ type: "inject" }] });

    await logIn(page, email);
    await page.getByRole("banner").getByRole("link", { name: "Flows" }).click();
    await expect(page).toHaveURL((url) => url.pathname === "/flows");
    await expect(page.getByRole("heading", { level: 1, name: "Flows" })).toBeVisible();
    const orders = page.getByRole("row").filter({ has: page.getByRole("link", { name: "Orders pipeline" }) });
    await expect(orders).toContainText("Not deployed");
    await expect(orders).toContainText("2");
    await shot(page, "flows-list", true);
    await expectAccessible(page);

    // Search narrows the list on the server.
    await page.getByLabel("Search flows").fill("weather");
    await expect(page.getByRole("link", { name: "Weather station" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Orders pipeline" })).toHaveCount(0);
    await page.getByLabel("Search flows").fill("");
    await expect(page.getByRole("link", { name: "Orders pipeline" })).toBeVisible();

    // Disable, then enable again.
    await orders.getByRole("button", { name: "Disable Orders pipeline" }).click();
    await expect(orders).toContainText("Disabled");
    await orders.getByRole("button", { name: "Enable Orders pipeline" }).click();
    await expect(orders.getByRole("button", { name: "Disable Orders pipeline" })).toBeVisible();
    await expect(orders).not.toContainText("Disabled");

    // Export downloads Node-RED JSON: the tab, then its nodes.
    const download = page.waitForEvent("download");
    await orders.getByRole("button", { name: "Export Orders pipeline" }).click();
    const file = await (await download).path();
    const exported = JSON.parse(fs.readFileSync(file, "utf8")) as Array<{ type: string; wires?: unknown }>;
    expect(exported[0]).toMatchObject({ type: "tab", label: "Orders pipeline" });
    expect(exported.slice(1).map((n) => n.type).sort()).toEqual(["debug", "inject"]);
    expect(exported.slice(1).every((n) => Array.isArray(n.wires))).toBe(true);

    // Import: pasted JSON; the unknown type and the config node come back as warnings.
    await page.getByRole("button", { name: "Import", exact: true }).click();
    const importDialog = page.getByRole("dialog", { name: "Import" });
    await expect(importDialog.getByLabel("Node-RED JSON", { exact: true })).toBeVisible();
    await expect(importDialog.getByLabel("Node-RED JSON file")).toBeAttached();
    await importDialog.getByLabel("Node-RED JSON", { exact: true }).fill("[not json");
    await importDialog.getByRole("button", { name: "Check" }).click();
    await expect(importDialog.getByRole("alert")).toContainText("not JSON");
    await importDialog.getByLabel("Node-RED JSON", { exact: true }).fill(JSON.stringify(nodeRedExport));
    // Check is a dry run: the report comes first and nothing is written until Import.
    await importDialog.getByRole("button", { name: "Check" }).click();
    await expect(importDialog.getByRole("status")).toContainText("4 nodes: 2 supported, 0 partly supported, 2 not supported");
    await expect(importDialog.getByRole("row").filter({ hasText: "nr-serial-1" })).toContainText("Not supported");
    // Each node as the file names it, and the tab it is on; an unnamed one as the canvas will write it (Node-RED's label), and its id.
    const cells = (id: string) => importDialog.getByRole("row").filter({ hasText: id }).getByRole("cell");
    await expect(cells("nr-serial-1")).toHaveText(["sensor nr-serial-1", "Imported greeting", "serial in", "Not supported", /.+/]);
    await expect(cells("nr-debug-1").first()).toHaveText("msg.payload nr-debug-1");
    await expect(importDialog.getByRole("columnheader", { name: "On" })).toBeVisible();
    const before = await page.request.get("/api/v1/flows", { headers: { authorization: `Bearer ${token}` } });
    expect(((await before.json()) as { flows: { name: string }[] }).flows.map((f) => f.name)).not.toContain("Imported greeting");
    await shot(page, "flows-import-report");
    await importDialog.getByRole("button", { name: "Import" }).click();
    await expect(importDialog.getByRole("status")).toContainText("Imported 1 flow");
    const warnings = importDialog.getByRole("region", { name: "Warnings" });
    await expect(warnings).toContainText("type serial in is not available here");
    await expect(warnings).toContainText("configuration node port1: type serial-port is not available here; kept as an unknown configuration node");
    await shot(page, "flows-import-warnings");
    await expectAccessible(page);
    await importDialog.getByRole("button", { name: "Close" }).click();
    const imported = page.getByRole("row").filter({ has: page.getByRole("link", { name: "Imported greeting" }) });
    await expect(imported).toContainText("3");

    // Import from a file.
    await page.getByRole("button", { name: "Import", exact: true }).click();
    await importDialog.getByLabel("Node-RED JSON file").setInputFiles({
      name: "flows.json",
      mimeType: "application/json",
      buffer: Buffer.from(JSON.stringify([{ id: "tab2", type: "tab", label: "From a file" }, { id: "f-inject", type: "inject", z: "tab2", x: 10, y: 10, wires: [[]] }])),
    });
    await expect(importDialog.getByLabel("Node-RED JSON", { exact: true })).toHaveValue(/From a file/);
    await importDialog.getByRole("button", { name: "Check" }).click();
    await importDialog.getByRole("button", { name: "Import" }).click();
    await expect(importDialog.getByRole("status")).toContainText("Imported 1 flow");
    await importDialog.getByRole("button", { name: "Close" }).click();
    await expect(page.getByRole("link", { name: "From a file" })).toBeVisible();

    // Delete asks first; Cancel keeps the flow.
    const weather = page.getByRole("row").filter({ has: page.getByRole("link", { name: "Weather station" }) });
    await weather.getByRole("button", { name: "Delete Weather station" }).click();
    const confirm = page.getByRole("dialog", { name: "Delete “Weather station”?" });
    await expect(confirm).toBeVisible();
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await expect(page.getByRole("link", { name: "Weather station" })).toBeVisible();
    await weather.getByRole("button", { name: "Delete Weather station" }).click();
    await confirm.getByRole("button", { name: "Delete flow" }).click();
    await expect(page.getByRole("link", { name: "Weather station" })).toHaveCount(0);
    const res = await page.request.get("/api/v1/flows", { headers: { authorization: `Bearer ${token}` } });
    expect(((await res.json()) as { flows: { name: string }[] }).flows.map((f) => f.name)).not.toContain("Weather station");

    // New flow lands in the editor.
    await page.getByRole("button", { name: "New flow" }).click();
    const dialog = page.getByRole("dialog", { name: "New flow" });
    await dialog.getByLabel("Name").fill("Fresh flow");
    await dialog.getByRole("button", { name: "Create" }).click();
    await expect(page).toHaveURL(/\/flows\/flw_/);
    await expect(page.getByRole("heading", { level: 1, name: "Fresh flow" })).toBeVisible();
  });

  test("import: a flow written for a Raspberry Pi beside its broker is told, first, that this server does not reach localhost, and the ways out", async ({ page }) => {
    const email = uniqueEmail("private-broker");
    await registerViaApi(page.request, email);
    await logIn(page, email);
    await page.getByRole("button", { name: "Import", exact: true }).click();
    const importDialog = page.getByRole("dialog", { name: "Import" });
    const flow = [
      { id: "pi-tab", type: "tab", label: "Greenhouse" },
      { id: "pi-broker", type: "mqtt-broker", name: "Pi broker", broker: "localhost", port: "1883" },
      { id: "pi-in", type: "mqtt in", z: "pi-tab", topic: "greenhouse/#", qos: "1", datatype: "auto-detect", broker: "pi-broker", x: 100, y: 60, wires: [["pi-dbg"]] },
      { id: "pi-dbg", type: "debug", z: "pi-tab", active: true, tosidebar: true, complete: "payload", targetType: "msg", x: 300, y: 60, wires: [] },
    ];
    await importDialog.getByLabel("Node-RED JSON", { exact: true }).fill(JSON.stringify(flow));
    await importDialog.getByRole("button", { name: "Check" }).click();
    await expect(importDialog.getByRole("status")).toContainText("3 nodes: 3 supported");
    const first = importDialog.getByRole("listitem").first();
    await expect(first).toContainText('mqtt-broker "Pi broker" (pi-broker): its broker localhost is this machine\'s own name');
    await expect(first).toContainText("its MQTT nodes stay disconnected");
    await expect(first).toContainText("or use the built-in broker");
    await shot(page, "import-private-broker");
  });

  test("paging: an organization with more flows than a page shows more on demand", async ({ page }) => {
    const email = uniqueEmail("flows-paging");
    await registerViaApi(page.request, email);
    const token = await accessToken(page.request, email);
    for (let i = 0; i < 55; i++) await createFlowViaApi(page.request, token, { name: `Flow ${String(i).padStart(2, "0")}` });
    await logIn(page, email);
    await page.goto("/flows");
    const links = page.getByRole("table").getByRole("link");
    await expect(links).toHaveCount(50);
    await page.getByRole("button", { name: "Show more flows" }).click();
    await expect(links).toHaveCount(55);
    await expect(page.getByRole("button", { name: "Show more flows" })).toHaveCount(0);
  });
});
