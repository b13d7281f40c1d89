import { createPublicKey, generateKeyPairSync } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import mqtt from "mqtt";
import WebSocket from "ws";
import { logIn, registerViaApi, uniqueEmail } from "../helpers/accounts";
import { accessToken, canvasNodes, createFlowViaApi, expectAccessible, shot } from "../helpers/flows";
import { reloadUntilLive } from "../helpers/live";

const region = (page: Page, name: string) => page.getByRole("region", { name, exact: true });

/** A scripted agent (the real one is packages/agent, tested as a process in `npm run test:agent`): connects with the key and says hello. */
async function helloAgent(baseURL: string, secret: string, nodeTypes = ["counter", "debug", "inject", "ha-entity"]): Promise<WebSocket> {
  const publicKey = createPublicKey(generateKeyPairSync("x25519").privateKey).export({ format: "der", type: "spki" }).toString("base64");
  const ws = new WebSocket(`${baseURL.replace(/^http/, "ws")}/ws`, { headers: { "x-api-key": secret } });
  await new Promise<void>((resolve, reject) => {
    ws.on("error", reject);
    ws.on("message", (data) => {
      const frame = JSON.parse(data.toString()) as { type: string };
      if (frame.type !== "ready") return;
      ws.send(JSON.stringify({ type: "agent.hello", agent_version: "0.1.0", node_red_version: "5.0.7", node_types: nodeTypes, public_key: publicKey, applied: {} }));
      resolve();
    });
    // It applies what it is sent, as the real agent does.
    ws.on("message", (data) => {
      const frame = JSON.parse(data.toString()) as { type: string; deployments?: Record<string, string> };
      if (frame.type === "agent.deploy") ws.send(JSON.stringify({ type: "agent.applied", applied: frame.deployments }));
    });
  });
  return ws;
}

test.describe("devices in the browser", () => {
  test("the Devices page lists an agent with its state, versions and node types; an admin renames and tags it; a flow targets it and its palette lists the device's types", async ({ page, baseURL, browser }) => {
    const owner = uniqueEmail("devices");
    await registerViaApi(page.request, owner);
    const token = await accessToken(page.request, owner);
    const key = await page.request.post("/api/v1/api-keys", { headers: { authorization: `Bearer ${token}` }, data: { name: "kitchen-pi", kind: "device" } });
    expect(key.status()).toBe(201);
    const agent = await helloAgent(baseURL!, ((await key.json()) as { secret: string }).secret);
    await expect
      .poll(async () => ((await (await page.request.get("/api/v1/devices", { headers: { authorization: `Bearer ${token}` } })).json()) as { devices: Array<{ kind: string }> }).devices[0]?.kind)
      .toBe("agent");

    await logIn(page, owner);
    await page.getByRole("link", { name: "Devices", exact: true }).click();
    await expect(page).toHaveURL((url) => url.pathname === "/devices");
    await expect(page.getByRole("heading", { level: 1, name: "Devices" })).toBeVisible();
    const list = region(page, "Devices");
    const row = list.getByRole("row").filter({ hasText: "kitchen-pi" });
    await expect(row.getByRole("img", { name: "Online" })).toBeVisible();
    await expect(row).toContainText("Agent 0.1.0");
    await expect(row).toContainText("Node-RED 5.0.7");
    await expect(row).toContainText("Online now");
    await row.getByText("4 types").click();
    await expect(row.getByText("ha-entity")).toBeVisible();

    await row.getByRole("button", { name: "Edit kitchen-pi" }).click();
    await list.getByLabel("Name").fill("Kitchen Pi");
    await list.getByLabel("Tags").fill("kitchen, sensors");
    await list.getByRole("button", { name: "Save" }).click();
    const renamed = list.getByRole("row").filter({ hasText: "Kitchen Pi" });
    await expect(renamed).toContainText("kitchen");
    await expect(renamed).toContainText("sensors");
    await shot(page, "devices", true);
    await expectAccessible(page);

    // A flow set to run on the device: its palette lists the device's types we have no form for.
    const flow = await createFlowViaApi(page.request, token, { name: "on the pi" });
    await page.goto(`/flows/${flow.id}`);
    const runsOn = page.getByLabel("Runs on");
    await expect(runsOn).toHaveValue("hosted");
    await runsOn.selectOption({ label: "Device: Kitchen Pi" });
    await expect(page.getByRole("button", { name: /ha-entity/ })).toBeVisible();
    await expect(runsOn).toHaveValue(/^device:dev_/);
    await page.getByRole("button", { name: /ha-entity/ }).click();
    await expect(canvasNodes(page)).toHaveCount(1);
    await expect(canvasNodes(page).first()).toContainText("ha-entity");
    await page.reload();
    await expect(page.getByLabel("Runs on")).toHaveValue(/^device:dev_/);
    await shot(page, "device-flow-editor");
    const saved = await (await page.request.get(`/api/v1/flows/${flow.id}`, { headers: { authorization: `Bearer ${token}` } })).json();
    expect((saved as { flow: { target: unknown } }).flow.target).toEqual({ device_id: expect.stringMatching(/^dev_/) });

    // Before React listens (here: never, scripts off), the selector cannot be changed: a choice
    // made then was saved as the page's old value when React replayed it at hydration.
    const noScript = await browser.newContext({ javaScriptEnabled: false, storageState: await page.context().storageState() });
    const html = await noScript.newPage();
    await html.goto(`/flows/${flow.id}`);
    await expect(html.getByLabel("Runs on")).toBeDisabled();
    await expect(html.getByLabel("Runs on")).toHaveValue(/^device:dev_/);
    await noScript.close();

    agent.close();
  });

  test("deploying what a device cannot run says so at once, and why", async ({ page, baseURL }) => {
    const owner = uniqueEmail("devices-refused");
    await registerViaApi(page.request, owner);
    const token = await accessToken(page.request, owner);
    const key = await page.request.post("/api/v1/api-keys", { headers: { authorization: `Bearer ${token}` }, data: { name: "garage-pi", kind: "device" } });
    const secret = ((await key.json()) as { secret: string }).secret;
    const agent = await helloAgent(baseURL!, secret);
    const devices = async () => ((await (await page.request.get("/api/v1/devices", { headers: { authorization: `Bearer ${token}` } })).json()) as { devices: Array<{ id: string; kind: string }> }).devices;
    await expect.poll(async () => (await devices())[0]?.kind).toBe("agent");
    const deviceId = (await devices())[0]!.id;
    // A `change` node: ours (the flow saves), but not among the types this device reported.
    const created = await page.request.post("/api/v1/flows", {
      headers: { authorization: `Bearer ${token}` },
      data: {
        name: "garage door",
        target: { device_id: deviceId },
        nodes: [
          { id: "gd-inject", type: "inject", position: { x: 80, y: 80 } },
          { id: "gd-change", type: "change", position: { x: 280, y: 80 }, config: { rules: [{ t: "set", p: "payload", p_type: "msg", to: "open", to_type: "str" }] } },
          { id: "gd-debug", type: "debug", position: { x: 480, y: 80 } },
        ],
        connections: [
          { source: "gd-inject", target: "gd-change" },
          { source: "gd-change", target: "gd-debug" },
        ],
      },
    });
    expect(created.status(), await created.text()).toBe(201);
    const flowId = ((await created.json()) as { flow: { id: string } }).flow.id;

    await logIn(page, owner);
    await page.goto(`/flows/${flowId}`);
    await expect(canvasNodes(page)).toHaveCount(3);
    await page.getByRole("group", { name: "Deployment" }).getByRole("button", { name: "Deploy" }).click();
    const said = page.getByRole("group", { name: "Deployment" }).getByRole("status");
    await expect(said).toHaveText(/^garage-pi cannot run this deployment: this device has no node type change: install it .*It runs nothing of this flow\.$/);
    await shot(page, "device-refused");
    // Still said when the page is opened again, until the device runs it.
    await page.reload();
    await expect(canvasNodes(page)).toHaveCount(3);
    await expect(page.getByRole("group", { name: "Deployment" }).getByRole("status")).toContainText("garage-pi cannot run this deployment: this device has no node type change");
    // And on the Devices page, beside the device, with a way to the flow.
    await page.getByRole("link", { name: "Devices", exact: true }).click();
    const row = region(page, "Devices").getByRole("row").filter({ hasText: "garage-pi" });
    await expect(row.getByRole("status")).toContainText("Cannot run garage door: this device has no node type change");
    await shot(page, "device-refused-list");
    await row.getByRole("link", { name: "garage door" }).click();
    await expect(page).toHaveURL((url) => url.pathname === `/flows/${flowId}`);
    const flow = (await (await page.request.get(`/api/v1/flows/${flowId}`, { headers: { authorization: `Bearer ${token}` } })).json()) as { flow: { devices: unknown[] } };
    expect(flow.flow.devices).toEqual([expect.objectContaining({ device_id: deviceId, state: "refused", deployment_id: null })]);
    // The device gets `change` installed: it says hello again, takes the deployment, and the open
    // page stops saying it cannot, without a reload (flow.devices over /ws).
    const refusal = page.getByRole("group", { name: "Deployment" }).getByTestId("device-refused");
    await expect(refusal).toBeVisible();
    agent.close();
    // The page reads the states when its socket is ready; here that read is held back (answered as
    // the server gave it, 1.5 s late) and the device's events come while it is out. The page
    // shows what the events say, never the older read (the query cache used to join the events'
    // reads to it: one run in ten, the refusal stayed).
    await page.route(/\/api\/trpc\/[^?]*flows\.get/, async (route) => {
      const response = await route.fetch();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await route.fulfill({ response });
    });
    await reloadUntilLive(page);
    const upgraded = await helloAgent(baseURL!, secret, ["counter", "debug", "inject", "change"]);
    await expect(page.getByRole("group", { name: "Deployment" })).toBeVisible();
    await expect(refusal).toHaveCount(0);
    await expect
      .poll(async () => ((await (await page.request.get(`/api/v1/flows/${flowId}`, { headers: { authorization: `Bearer ${token}` } })).json()) as { flow: { devices: Array<{ state: string }> } }).flow.devices[0]?.state)
      .toBe("applied");
    upgraded.close();
  });

  test("an MQTT client's persistent session shows what it keeps while away; an admin ends it and the client starts anew", async ({ page, baseURL }) => {
    const owner = uniqueEmail("mqtt-sessions");
    await registerViaApi(page.request, owner);
    const token = await accessToken(page.request, owner);
    const key = await page.request.post("/api/v1/api-keys", { headers: { authorization: `Bearer ${token}` }, data: { name: "greenhouse", kind: "device" } });
    expect(key.status()).toBe(201);
    const secret = ((await key.json()) as { secret: string }).secret;
    const url = `${baseURL!.replace(/^http/, "ws")}/mqtt`;
    const connect = (clientId: string, clean: boolean) =>
      new Promise<mqtt.MqttClient>((resolve, reject) => {
        const client = mqtt.connect(url, { username: "device", password: secret, clientId, clean, reconnectPeriod: 0 });
        client.once("connect", () => resolve(client));
        client.once("error", reject);
      });
    // A device subscribes with a persistent session and goes away; two readings are queued for it.
    const device = await connect("greenhouse-1", false);
    await device.subscribeAsync("greenhouse/+/set", { qos: 1 });
    await device.endAsync();
    const sender = await connect("greenhouse-console", true);
    for (const value of ["21", "22"]) await sender.publishAsync("greenhouse/vent/set", value, { qos: 1 });
    await sender.endAsync();

    await logIn(page, owner);
    await page.goto("/devices");
    const sessions = region(page, "MQTT sessions");
    const row = sessions.getByRole("row").filter({ hasText: "greenhouse-1" });
    await expect(row).toContainText("Away");
    await expect(row).toContainText("greenhouse/+/set");
    await expect(row).toContainText("2 messages");
    await expect(row).toContainText("4 B");
    await expect(sessions).toContainText("Queued for all sessions: 4 B of 64 MiB");
    await expectAccessible(page);
    await shot(page, "devices-mqtt-sessions");

    await row.getByRole("button", { name: "End session greenhouse-1" }).click();
    const dialog = page.getByRole("dialog", { name: "End the session of “greenhouse-1”?" });
    await expect(dialog).toContainText("2 queued messages are dropped");
    await shot(page, "devices-mqtt-session-end-dialog");
    await dialog.getByRole("button", { name: "End session" }).click();
    await expect(sessions.getByText("No persistent sessions.")).toBeVisible();
    // The row went with the focused button: the focus is on the news, not lost to the page.
    await expect(sessions.getByRole("status")).toHaveText("Ended the session of greenhouse-1.");
    await expect(sessions.getByRole("status")).toBeFocused();
    await shot(page, "devices-mqtt-session-ended");
    await expect(sessions).toContainText("Queued for all sessions: 0 B of 64 MiB");

    // Its client comes back to a new session: nothing queued, nothing present.
    const back = await new Promise<{ client: mqtt.MqttClient; sessionPresent: boolean }>((resolve, reject) => {
      const client = mqtt.connect(url, { username: "device", password: secret, clientId: "greenhouse-1", clean: false, reconnectPeriod: 0 });
      client.once("connect", (connack) => resolve({ client, sessionPresent: connack.sessionPresent }));
      client.once("error", reject);
    });
    const received: string[] = [];
    back.client.on("message", (_topic, payload) => received.push(payload.toString()));
    expect(back.sessionPresent).toBe(false);
    await page.waitForTimeout(300);
    expect(received).toEqual([]);
    await back.client.endAsync();
  });
});
