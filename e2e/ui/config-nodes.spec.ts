import { expect, test, type Page, type Response, type WebSocketRoute } from "@playwright/test";
import { logIn } from "../helpers/accounts";
import { auth, createFlow, joinAs, registerUser, type ApiUser } from "../helpers/live";
import { canvasNode, expectAccessible, shot } from "../helpers/flows";

test.describe.configure({ timeout: 90_000 });

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
/** A CA certificate whose body is unique to the run, so finding it anywhere is a leak of this one. */
const pem = (marker: string) => `-----BEGIN CERTIFICATE-----\nMIIB${marker}QmFzZTY0Ym9keQ==\n-----END CERTIFICATE-----`;
const openTab = (page: Page, name: string) => page.getByRole("tablist", { name: "Sidebar panels" }).getByRole("tab", { name }).click();
const configTab = (page: Page) => page.getByRole("region", { name: "Configuration nodes" });

/** Every response body the page receives from now on (documents, tRPC, REST), to look for a credential in. */
function recordResponses(page: Page) {
  const bodies: Promise<string>[] = [];
  const onResponse = (r: Response) => bodies.push(r.text().catch(() => ""));
  page.on("response", onResponse);
  return async () => {
    page.off("response", onResponse);
    return Promise.all(bodies);
  };
}

async function httpRequestFlow(request: Parameters<typeof createFlow>[0], owner: ApiUser, config: Record<string, unknown> = {}) {
  const id = `hr-${unique()}`;
  const flow = await createFlow(request, owner, `Calls a TLS API ${unique()}`, {
    nodes: [{ id, type: "http-request", name: "call API", position: { x: 200, y: 140 }, config: { url: "https://api.example.test/orders", ...config } }],
  });
  return { flowId: flow.id, nodeId: id };
}

test("from an http-request node's form: add a tls-config with a CA, pick it, rename it; its CA is never read back; the Configuration tab lists its user and refuses to delete it", async ({ page, request }) => {
  const owner = await registerUser(request, "cfgui-owner");
  const { flowId, nodeId } = await httpRequestFlow(request, owner);
  const marker = unique();
  await logIn(page, owner.email);
  const responses = recordResponses(page);
  await page.goto(`/flows/${flowId}`);

  await canvasNode(page, nodeId).dblclick();
  const nodeDialog = page.getByRole("dialog", { name: "Edit http-request node" });
  const picker = nodeDialog.getByLabel("TLS configuration", { exact: true });
  await expect(picker).toHaveValue("");
  await expect(picker.locator("option:checked")).toHaveText("None");
  await expect(nodeDialog.getByRole("button", { name: "Edit tls-config" })).toBeDisabled();

  await nodeDialog.getByRole("button", { name: "Add new tls-config…" }).click();
  const add = page.getByRole("dialog", { name: "Add new tls-config configuration node" });
  await expect(add.getByLabel("Name", { exact: true })).toBeFocused();
  await add.getByLabel("Name", { exact: true }).fill("Corporate CA");
  await expect(add.getByText("not set").first()).toBeVisible();
  await add.getByLabel("CA certificate", { exact: true }).fill(pem(marker));
  // The type's help, with what differs from Node-RED, behind a disclosure as in a node's dialog.
  const help = add.locator("details.node-help-details");
  await expect(help.getByRole("heading", { name: "Differences from Node-RED" })).toBeHidden();
  await add.getByText("Help: TLS configuration").click();
  await expect(help.getByRole("heading", { name: "Differences from Node-RED" })).toBeVisible();
  await expect(help).toContainText("Configuration options for TLS connections");
  await expect(help).not.toContainText("###");
  await shot(page, "config-node-dialog-add");
  await add.getByRole("button", { name: "Add", exact: true }).click();
  await expect(add).toHaveCount(0);

  // The new node is chosen in the picker, by name.
  await expect(picker.locator("option:checked")).toHaveText("Corporate CA");
  const configId = await picker.inputValue();
  expect(configId).not.toBe("");
  await shot(page, "config-node-picker");

  // The pencil opens it: the CA says "set", with Replace and Clear, never its value.
  await nodeDialog.getByRole("button", { name: "Edit tls-config Corporate CA" }).click();
  const edit = page.getByRole("dialog", { name: "Edit tls-config configuration node" });
  const ca = edit.locator('[data-credential="cadata"]');
  await expect(ca.getByTestId("credential-state")).toHaveText("set");
  await expect(ca.getByRole("button", { name: "Replace CA certificate" })).toBeVisible();
  await expect(ca.getByRole("button", { name: "Clear CA certificate" })).toBeVisible();
  await expect(edit.locator('[data-credential="keydata"]').getByTestId("credential-state")).toHaveText("not set");
  expect(await page.content()).not.toContain(marker);
  await edit.getByLabel("Name", { exact: true }).fill("Corporate root CA");
  await shot(page, "config-node-dialog-edit");
  await expectAccessible(page);
  await edit.getByRole("button", { name: "Update" }).click();
  await expect(edit).toHaveCount(0);
  await expect(picker.locator("option:checked")).toHaveText("Corporate root CA");

  await nodeDialog.getByRole("button", { name: "Done" }).click();
  await expect(nodeDialog).toHaveCount(0);
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("Revision 2 · saved")).toBeVisible();

  const stored = await (await request.get(`/api/v1/flows/${flowId}`, { headers: auth(owner) })).json();
  expect(stored.flow.nodes[0].config.tls).toBe(configId);
  const viewRes = await request.get(`/api/v1/config-nodes/${configId}`, { headers: auth(owner) });
  const viewText = await viewRes.text();
  expect(viewText).not.toContain(marker);
  expect(JSON.parse(viewText).config_node.credentials.cadata).toEqual({ set: true });

  // The Configuration tab: by type, with its one user (this flow's node).
  await openTab(page, "Configuration");
  const item = configTab(page).getByRole("listitem", { name: "Corporate root CA (tls-config)" });
  await expect(item).toContainText("1 user");
  await expect(configTab(page).getByRole("heading", { name: /tls-config/ })).toBeVisible();
  await item.getByText("Used by").click();
  await expect(item.getByRole("button", { name: "Select node call API" })).toBeVisible();
  await shot(page, "config-node-tab");
  await expectAccessible(page);

  // Deleting it while the flow names it is refused, naming the flow.
  await item.getByRole("button", { name: "Delete Corporate root CA" }).click();
  await page.getByRole("dialog", { name: "Delete tls-config configuration node" }).getByRole("button", { name: "Delete" }).click();
  const refusal = item.getByRole("alert");
  await expect(refusal).toContainText("Not deleted");
  await expect(refusal.getByRole("listitem")).toContainText(stored.flow.name);
  await shot(page, "config-node-tab-in-use");
  expect((await request.get(`/api/v1/config-nodes/${configId}`, { headers: auth(owner) })).status()).toBe(200);

  // After a change, deployed flows run the older revision until "Deploy users".
  expect((await request.post(`/api/v1/flows/${flowId}/deploy`, { headers: auth(owner) })).status()).toBe(200);
  const renamed = await request.put(`/api/v1/config-nodes/${configId}`, { headers: auth(owner), data: { name: "Corporate root CA 2" } });
  expect(renamed.status(), await renamed.text()).toBe(200);
  await page.reload();
  await openTab(page, "Configuration");
  const item2 = configTab(page).getByRole("listitem", { name: "Corporate root CA 2 (tls-config)" });
  await expect(item2).toContainText("1 deployed flow runs an older revision");
  await item2.getByRole("button", { name: "Deploy users of Corporate root CA 2" }).click();
  await expect(item2.getByRole("status")).toContainText("Deployed 1 flow");
  await expect(item2.getByRole("button", { name: /^Deploy users/ })).toHaveCount(0);

  expect(await page.content()).not.toContain(marker);
  const leaked = (await responses()).filter((b) => b.includes(marker));
  expect(leaked).toEqual([]);
});

test("the picker by keyboard alone: choose, add, Escape closes only the dialog on top, Enter submits", async ({ page, request }) => {
  const owner = await registerUser(request, "cfgui-keys");
  const existing = await request.post("/api/v1/config-nodes", { headers: auth(owner), data: { type: "tls-config", name: "Staging CA", config: { verifyservercert: false } } });
  expect(existing.status(), await existing.text()).toBe(201);
  const stagingId = (await existing.json()).config_node.id as string;
  const { flowId, nodeId } = await httpRequestFlow(request, owner);
  await logIn(page, owner.email);
  await page.goto(`/flows/${flowId}`);

  await canvasNode(page, nodeId).focus();
  await page.keyboard.press("Enter");
  const nodeDialog = page.getByRole("dialog", { name: "Edit http-request node" });
  await expect(nodeDialog.getByLabel("Name", { exact: true })).toBeFocused();
  const picker = nodeDialog.getByLabel("TLS configuration", { exact: true });
  for (let i = 0; i < 40 && !(await picker.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press("Tab");
  await expect(picker).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(picker).toHaveValue(stagingId);

  // Tab reaches the pencil, then "Add new…"; Enter opens it, Escape closes it and nothing else.
  await page.keyboard.press("Tab");
  await expect(nodeDialog.getByRole("button", { name: "Edit tls-config Staging CA" })).toBeFocused();
  await page.keyboard.press("Enter");
  const edit = page.getByRole("dialog", { name: "Edit tls-config configuration node" });
  await expect(edit.getByLabel("Name", { exact: true })).toBeFocused();
  await expect(edit.getByLabel("Verify server certificate")).not.toBeChecked();
  await page.keyboard.press("Escape");
  await expect(edit).toHaveCount(0);
  await expect(nodeDialog).toBeVisible();
  await expect(picker).toBeFocused();

  await page.keyboard.press("Tab");
  await page.keyboard.press("Tab");
  await expect(nodeDialog.getByRole("button", { name: "Add new tls-config…" })).toBeFocused();
  await page.keyboard.press("Enter");
  const add = page.getByRole("dialog", { name: "Add new tls-config configuration node" });
  await expect(add.getByLabel("Name", { exact: true })).toBeFocused();
  await page.keyboard.type("Keyboard CA");
  await page.keyboard.press("Enter");
  await expect(add).toHaveCount(0);
  await expect(nodeDialog).toBeVisible();
  await expect(picker.locator("option:checked")).toHaveText("Keyboard CA");
  await expect(picker).toBeFocused();

  // Enter in the node's Name submits the node's form with the new reference.
  await nodeDialog.getByLabel("Name", { exact: true }).focus();
  await page.keyboard.press("Enter");
  await expect(nodeDialog).toHaveCount(0);
  await page.keyboard.press("Control+s");
  await expect(page.getByText("Revision 2 · saved")).toBeVisible();
  const stored = await (await request.get(`/api/v1/flows/${flowId}`, { headers: auth(owner) })).json();
  const keyboardCa = (await (await request.get("/api/v1/config-nodes?type=tls-config", { headers: auth(owner) })).json()).config_nodes.find((n: { name: string }) => n.name === "Keyboard CA");
  expect(stored.flow.nodes[0].config.tls).toBe(keyboardCa.id);
});

test("a viewer sees the configuration nodes read-only", async ({ page, request }) => {
  const owner = await registerUser(request, "cfgui-ro-owner");
  const marker = unique();
  const created = await request.post("/api/v1/config-nodes", { headers: auth(owner), data: { type: "tls-config", name: "Shared CA", credentials: { cadata: pem(marker) } } });
  expect(created.status(), await created.text()).toBe(201);
  const configId = (await created.json()).config_node.id as string;
  const { flowId, nodeId } = await httpRequestFlow(request, owner, { tls: configId });
  const viewer = await joinAs(request, owner, "viewer", "cfgui-viewer");
  await logIn(page, viewer.email);
  await page.goto(`/flows/${flowId}`);

  await openTab(page, "Configuration");
  const item = configTab(page).getByRole("listitem", { name: "Shared CA (tls-config)" });
  await expect(item).toContainText("1 user");
  await expect(configTab(page).getByLabel("Add a configuration node")).toHaveCount(0);
  await expect(item.getByRole("button", { name: /^(Delete|Deploy users)/ })).toHaveCount(0);
  await item.getByRole("button", { name: "View Shared CA" }).click();
  const view = page.getByRole("dialog", { name: "Edit tls-config configuration node" });
  await expect(view.getByLabel("Name", { exact: true })).toBeDisabled();
  await expect(view.locator('[data-credential="cadata"]').getByTestId("credential-state")).toHaveText("set");
  await expect(view.getByRole("button", { name: /^(Update|Delete|Replace|Clear)/ })).toHaveCount(0);
  await shot(page, "config-node-viewer");
  await view.getByRole("button", { name: "Close" }).click();
  await expect(view).toHaveCount(0);

  // The node's form shows the reference, and the picker can be neither changed nor used to add one.
  await canvasNode(page, nodeId).dblclick();
  const nodeDialog = page.getByRole("dialog", { name: "Edit http-request node" });
  await expect(nodeDialog.getByLabel("TLS configuration", { exact: true })).toBeDisabled();
  await expect(nodeDialog.getByLabel("TLS configuration", { exact: true }).locator("option:checked")).toHaveText("Shared CA");
  await expect(nodeDialog.getByRole("button", { name: "Add new tls-config…" })).toBeDisabled();
  expect(await page.content()).not.toContain(marker);

  // Through the API too: a viewer may not write one.
  const refused = await request.post("/api/v1/config-nodes", { headers: auth(viewer), data: { type: "tls-config", name: "mine" } });
  expect(refused.status()).toBe(403);
});

test("configuration nodes changed elsewhere show in the open editor without a reload: the Configuration tab and the pickers", async ({ page, request }) => {
  const owner = await registerUser(request, "cfgui-live-owner");
  const { flowId, nodeId } = await httpRequestFlow(request, owner);
  await logIn(page, owner.email);
  await page.goto(`/flows/${flowId}`);
  await openTab(page, "Configuration");
  await expect(configTab(page).getByRole("listitem")).toHaveCount(0);

  // Another member (here: the API) adds one, renames it, adds a second and deletes it.
  const created = await request.post("/api/v1/config-nodes", { headers: auth(owner), data: { type: "tls-config", name: "Plant CA" } });
  expect(created.status(), await created.text()).toBe(201);
  const configId = (await created.json()).config_node.id as string;
  await expect(configTab(page).getByRole("listitem", { name: "Plant CA (tls-config)" })).toBeVisible();
  expect((await request.put(`/api/v1/config-nodes/${configId}`, { headers: auth(owner), data: { name: "Plant root CA" } })).status()).toBe(200);
  await expect(configTab(page).getByRole("listitem", { name: "Plant root CA (tls-config)" })).toBeVisible();
  await expect(configTab(page).getByRole("listitem", { name: "Plant CA (tls-config)" })).toHaveCount(0);
  const second = await request.post("/api/v1/config-nodes", { headers: auth(owner), data: { type: "tls-config", name: "Temporary CA" } });
  const secondId = (await second.json()).config_node.id as string;
  await expect(configTab(page).getByRole("listitem", { name: "Temporary CA (tls-config)" })).toBeVisible();
  expect((await request.delete(`/api/v1/config-nodes/${secondId}`, { headers: auth(owner) })).status()).toBe(204);
  await expect(configTab(page).getByRole("listitem", { name: "Temporary CA (tls-config)" })).toHaveCount(0);

  // The node's picker offers the renamed one, with no reload either.
  await canvasNode(page, nodeId).dblclick();
  const picker = page.getByRole("dialog", { name: "Edit http-request node" }).getByLabel("TLS configuration", { exact: true });
  await expect(picker.locator("option", { hasText: "Plant root CA" })).toHaveCount(1);
  await expect(picker.locator("option", { hasText: "Temporary CA" })).toHaveCount(0);
});

test("configuration nodes changed and the flow saved while the editor was offline show once it reconnects, without a reload", async ({ page, request }) => {
  const owner = await registerUser(request, "cfgui-offline");
  const { flowId, nodeId } = await httpRequestFlow(request, owner);
  // The editor's socket passes through a route the test can cut and hold down, as a network would.
  const sockets: WebSocketRoute[] = [];
  let online = true;
  await page.routeWebSocket(/\/ws$/, (ws) => {
    if (!online) {
      void ws.close({ code: 1012, reason: "held down by the test" });
      return;
    }
    ws.connectToServer();
    sockets.push(ws);
  });
  await logIn(page, owner.email);
  await page.goto(`/flows/${flowId}`);
  await openTab(page, "Configuration");
  await expect(configTab(page).getByRole("listitem")).toHaveCount(0);
  await expect.poll(() => sockets.length).toBe(1);

  // No event can reach the page while it is offline: only reading again on reconnecting shows the change.
  online = false;
  // 4000: a page closes only with 1000 or 3000-4999 (with 1012 its server side would stay open).
  await sockets[0]!.close({ code: 4000, reason: "cut by the test" });
  await expect(page.getByText("Offline: live updates paused.")).toBeVisible();
  const created = await request.post("/api/v1/config-nodes", { headers: auth(owner), data: { type: "tls-config", name: "Added while offline" } });
  expect(created.status(), await created.text()).toBe(201);
  // And the flow itself is saved elsewhere.
  const node = { id: nodeId, type: "http-request", name: "call API, renamed", position: { x: 200, y: 140 }, config: { url: "https://api.example.test/orders" } };
  const saved = await request.put(`/api/v1/flows/${flowId}`, { headers: auth(owner), data: { revision: 1, nodes: [node], connections: [] } });
  expect(saved.status(), await saved.text()).toBe(200);
  await expect(configTab(page).getByRole("listitem")).toHaveCount(0);

  online = true;
  // The backoff's own timer may reconnect first and take the button away: either way one more socket.
  await page.getByRole("button", { name: "Retry now" }).click({ timeout: 2_000 }).catch(() => undefined);
  await expect.poll(() => sockets.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
  await expect(page.getByText("Offline: live updates paused.")).toHaveCount(0);
  await expect(configTab(page).getByRole("listitem", { name: "Added while offline (tls-config)" })).toBeVisible();
  // Who saved it is not known from a read: "elsewhere", with Reload.
  await expect(page.getByRole("alert").filter({ hasText: "This flow was saved" })).toContainText("This flow was saved elsewhere (revision 2).");
});

test("MQTT numbers with a few values are choices with words: QoS, action and a broker's protocol, saved as numbers; a port may be ${NAME}", async ({ page, request }) => {
  const owner = await registerUser(request, "cfgui-mqtt");
  const id = `mi-${unique()}`;
  const flow = await createFlow(request, owner, `Sensors ${unique()}`, { nodes: [{ id, type: "mqtt-in", name: "readings", position: { x: 200, y: 140 }, config: { topic: "sensors/#" } }] });
  await logIn(page, owner.email);
  await page.goto(`/flows/${flow.id}`);

  await canvasNode(page, id).dblclick();
  const nodeDialog = page.getByRole("dialog", { name: "Edit mqtt-in node" });
  const qos = nodeDialog.getByRole("combobox", { name: "QoS", exact: true });
  await expect(qos.locator("option:checked")).toHaveText("2: exactly once");
  await expect(qos.locator("option")).toHaveText(["0: at most once", "1: at least once", "2: exactly once"]);
  await qos.selectOption({ label: "1: at least once" });
  await expect(nodeDialog.getByRole("combobox", { name: "Action", exact: true }).locator("option:checked")).toHaveText("Subscribe to a single topic");

  await nodeDialog.getByRole("button", { name: "Add new mqtt-broker…" }).click();
  const add = page.getByRole("dialog", { name: "Add new mqtt-broker configuration node" });
  await add.getByLabel("Name", { exact: true }).fill("Plant broker");
  // Some forty fields: the dialog's Add stays in view wherever it is scrolled to.
  await expect(add.getByRole("button", { name: "Add", exact: true })).toBeInViewport({ ratio: 1 });
  const protocol = add.getByRole("combobox", { name: "Protocol", exact: true });
  await expect(protocol.locator("option:checked")).toHaveText("MQTT 3.1.1");
  await protocol.selectOption({ label: "MQTT 5" });
  await expect(add.getByRole("combobox", { name: "Will message QoS", exact: true }).locator("option:checked")).toHaveText("0: at most once");
  // Port and keep-alive take a number or ${NAME}, as Node-RED's validators.number: one text box each.
  const port = add.getByRole("textbox", { name: "Port", exact: true });
  await expect(port).toHaveValue("1883");
  await port.fill("port 1883");
  await add.getByRole("button", { name: "Add", exact: true }).click();
  await expect(add.getByText("Port must be a number or ${NAME}")).toBeVisible();
  await port.fill("${PLANT_MQTT_PORT}");
  await add.getByRole("textbox", { name: "Keep alive (s)", exact: true }).fill("30");
  await shot(page, "mqtt-broker-choices");
  await add.getByRole("button", { name: "Add", exact: true }).click();
  await expect(add).toHaveCount(0);
  await shot(page, "mqtt-in-choices");
  await expectAccessible(page);
  await nodeDialog.getByRole("button", { name: "Done" }).click();
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("Revision 2 · saved")).toBeVisible();

  const stored = await (await request.get(`/api/v1/flows/${flow.id}`, { headers: auth(owner) })).json();
  expect(stored.flow.nodes[0].config).toMatchObject({ qos: 1, inputs: 0 });
  const broker = await (await request.get(`/api/v1/config-nodes/${stored.flow.nodes[0].config.broker}`, { headers: auth(owner) })).json();
  expect(broker.config_node.config).toMatchObject({ protocolVersion: 5, willQos: 0, port: "${PLANT_MQTT_PORT}", keepalive: 30 });
});

test("an mqtt in has its input port only with dynamic subscription, as in Node-RED: closing it takes its wires", async ({ page, request }) => {
  const owner = await registerUser(request, "cfgui-mqtt-port");
  const [tick, sub] = [`tk-${unique()}`, `mq-${unique()}`];
  const flow = await createFlow(request, owner, `Dynamic ${unique()}`, {
    nodes: [
      { id: tick, type: "inject", name: "subscribe", position: { x: 80, y: 140 } },
      { id: sub, type: "mqtt-in", name: "plant", position: { x: 320, y: 140 }, config: { topic: "", inputs: 1 } },
    ],
    connections: [{ source: tick, target: sub }],
  });
  await logIn(page, owner.email);
  await page.goto(`/flows/${flow.id}`);
  const inputPort = canvasNode(page, sub).locator(".react-flow__handle.target");
  await expect(inputPort).toHaveCount(1);
  await expect(page.locator(".react-flow__edge")).toHaveCount(1);

  await canvasNode(page, sub).dblclick();
  const dialog = page.getByRole("dialog", { name: "Edit mqtt-in node" });
  await dialog.getByRole("combobox", { name: "Action", exact: true }).selectOption({ label: "Subscribe to a single topic" });
  await dialog.getByLabel("Topic", { exact: true }).fill("plant/#");
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(inputPort).toHaveCount(0);
  await expect(page.locator(".react-flow__edge")).toHaveCount(0);
  await shot(page, "mqtt-in-no-input");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("Revision 2 · saved")).toBeVisible();
  const stored = await (await request.get(`/api/v1/flows/${flow.id}`, { headers: auth(owner) })).json();
  expect(stored.flow.connections).toEqual([]);
  expect(stored.flow.nodes.find((n: { id: string }) => n.id === sub).config).toMatchObject({ inputs: 0, topic: "plant/#" });

  // Dynamic again: the port is back.
  await canvasNode(page, sub).dblclick();
  await dialog.getByRole("combobox", { name: "Action", exact: true }).selectOption({ label: "Dynamic subscription (action messages)" });
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(inputPort).toHaveCount(1);
});
