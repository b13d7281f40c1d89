import { test, expect } from "@playwright/test";
import { logIn } from "../helpers/accounts";
import { auth, registerUser } from "../helpers/live";
import { canvasNode, shot } from "../helpers/flows";

/**
 * An imported Node-RED flow reads as it did in Node-RED: its unnamed nodes carry the labels
 * Node-RED's editor gives them ([get] /orders, set msg.payload, delay 2s, msg.payload), and a label
 * follows an edit of the node at once.
 */
test("unnamed nodes of an imported flow are labelled as in Node-RED, and a label follows an edit", async ({ page, request }) => {
  const owner = await registerUser(request, "labels");
  const s = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const z = `tab${s}`;
  const id = (n: string) => `${n}${s}`;
  const flows = [
    { id: z, type: "tab", label: `Orders ${s}`, disabled: false, info: "" },
    { id: id("in"), type: "http in", z, name: "", url: "/orders", method: "post", upload: false, swaggerDoc: "", x: 120, y: 80, wires: [[id("set")]] },
    { id: id("set"), type: "change", z, name: "", rules: [{ t: "set", p: "payload", pt: "msg", to: "ok", tot: "str" }], x: 320, y: 80, wires: [[id("wait")]] },
    { id: id("wait"), type: "delay", z, name: "", pauseType: "delay", timeout: "2", timeoutUnits: "seconds", rate: "1", nbRateUnits: "1", rateUnits: "second", randomFirst: "1", randomLast: "5", randomUnits: "seconds", drop: false, x: 520, y: 80, wires: [[id("res"), id("dbg")]] },
    { id: id("res"), type: "http response", z, name: "", statusCode: "201", headers: {}, x: 720, y: 60, wires: [] },
    { id: id("dbg"), type: "debug", z, name: "", active: true, tosidebar: true, console: false, complete: "false", targetType: "msg", x: 720, y: 120, wires: [] },
    { id: id("tick"), type: "inject", z, name: "", props: [{ p: "payload" }, { p: "topic", vt: "str" }], repeat: "60", crontab: "", once: false, onceDelay: 0.1, topic: "", payload: "", payloadType: "date", x: 120, y: 200, wires: [[id("dbg")]] },
  ];
  const imported = await request.post("/api/v1/flows/import", { headers: auth(owner), data: { flows } });
  expect(imported.status(), await imported.text()).toBe(201);
  const flow = (await imported.json()).flows[0] as { id: string; nodes: Array<{ id: string; type: string }> };
  const ours = (type: string) => flow.nodes.find((n) => n.type === type)!.id;

  await logIn(page, owner.email);
  await page.goto(`/flows/${flow.id}`);
  const label = (nodeId: string) => canvasNode(page, nodeId).locator(".fp-node-label");
  await expect(label(ours("http-in"))).toHaveText("[post] /orders");
  await expect(label(ours("change"))).toHaveText("set msg.payload");
  await expect(label(ours("delay"))).toHaveText("delay 2s");
  await expect(label(ours("http-response"))).toHaveText("http (201)");
  await expect(label(ours("debug"))).toHaveText("msg.payload");
  await expect(label(ours("inject"))).toHaveText("timestamp ↻");
  await shot(page, "node-labels-imported");

  // Edit the http in's path: the label follows.
  await canvasNode(page, ours("http-in")).dblclick();
  const dialog = page.getByRole("dialog", { name: "Edit http-in node" });
  await dialog.getByLabel("URL path", { exact: true }).fill("/orders/:id");
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(label(ours("http-in"))).toHaveText("[post] /orders/:id");
  // A name wins over the label.
  await canvasNode(page, ours("change")).dblclick();
  const change = page.getByRole("dialog", { name: "Edit change node" });
  await change.getByLabel("Name", { exact: true }).fill("Acknowledge");
  await change.getByRole("button", { name: "Done" }).click();
  await expect(label(ours("change"))).toHaveText("Acknowledge");
});
