import { test, expect } from "@playwright/test";
import { logIn } from "../helpers/accounts";
import { auth, registerUser } from "../helpers/live";
import { canvasNode, expectAccessible, getFlowViaApi, shot } from "../helpers/flows";

/**
 * A node's appearance (Node-RED's Appearance tab): imported with a Node-RED flow, drawn on the
 * canvas (a hidden label leaves the icon alone, a Font Awesome icon is drawn with its MDI glyph,
 * Node-RED's own icon files with our type's icon, port labels are the ports' tooltips), edited in
 * the node's dialog, saved and exported.
 */
test("an imported node's label, icon and port labels show on the canvas, and an edit of them is saved and exported", async ({ page, request }) => {
  const owner = await registerUser(request, "appearance");
  const s = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const z = `tab${s}`;
  const id = (n: string) => `${n}${s}`;
  const flows = [
    { id: z, type: "tab", label: `Looks ${s}`, disabled: false, info: "" },
    {
      id: id("tick"),
      type: "inject",
      z,
      name: "Clock",
      props: [{ p: "payload" }],
      repeat: "",
      crontab: "",
      once: false,
      onceDelay: 0.1,
      topic: "",
      payload: "",
      payloadType: "date",
      icon: "font-awesome/fa-clock-o",
      l: false,
      outputLabels: ["the time"],
      x: 120,
      y: 60,
      wires: [[id("route")]],
    },
    { id: id("route"), type: "function", z, name: "Route", func: "return [msg, null];", outputs: 2, inputLabels: ["a reading"], outputLabels: ["valid", "invalid"], x: 300, y: 60, wires: [[id("log")], []] },
    { id: id("log"), type: "debug", z, name: "Log", active: true, tosidebar: true, console: false, tostatus: false, complete: "false", targetType: "msg", icon: "node-red/alert.svg", x: 520, y: 60, wires: [] },
    { id: id("lout"), type: "link out", z, name: "to elsewhere", mode: "link", links: [], x: 520, y: 160, wires: [] },
  ];
  const imported = await request.post("/api/v1/flows/import", { headers: auth(owner), data: { flows } });
  expect(imported.status(), await imported.text()).toBe(201);
  const flow = (await imported.json()).flows[0] as { id: string; nodes: Array<{ id: string; type: string; name: string }> };
  const ours = (name: string) => flow.nodes.find((n) => n.name === name)!.id;

  await logIn(page, owner.email);
  await page.goto(`/flows/${flow.id}`);
  const clock = canvasNode(page, ours("Clock"));
  // l: false: the icon alone, the label still its accessible name.
  await expect(clock.locator(".fp-node")).toHaveClass(/label-hidden/);
  await expect(clock.locator(".fp-node-label")).toHaveText("Clock");
  expect((await clock.boundingBox())!.width).toBeLessThan(60);
  // A link out hides its label unless its appearance shows it, as in Node-RED.
  await expect(canvasNode(page, ours("to elsewhere")).locator(".fp-node")).toHaveClass(/label-hidden/);
  await expect(canvasNode(page, ours("Route")).locator(".fp-node")).not.toHaveClass(/label-hidden/);
  // Font Awesome's clock, drawn with MDI's glyph (its stylesheet loaded on demand).
  const glyph = clock.locator(".fp-node-glyph");
  await expect(glyph).toHaveClass(/mdi-clock-outline/);
  await expect.poll(() => glyph.evaluate((el) => getComputedStyle(el, "::before").content)).not.toBe("none");
  // node-red/alert.svg: the catch node's icon.
  const paletteIcon = (type: string) => page.locator(`.palette-item[data-type="${type}"] img`).getAttribute("src");
  const logIcon = await canvasNode(page, ours("Log")).locator(".fp-node-icon img").getAttribute("src");
  expect(logIcon).toBe(await paletteIcon("catch"));
  expect(logIcon).not.toBe(await paletteIcon("debug"));
  // Port labels are the ports' tooltips.
  const route = canvasNode(page, ours("Route"));
  await expect(route.locator('.react-flow__handle[data-handleid="in"]')).toHaveAttribute("title", "a reading");
  await expect(route.locator('.react-flow__handle[data-handleid="o0"]')).toHaveAttribute("title", "valid");
  await expect(route.locator('.react-flow__handle[data-handleid="o1"]')).toHaveAttribute("title", "invalid");
  await shot(page, "node-appearance-canvas");
  await expectAccessible(page);

  // Edited in the node's dialog: the label shown again, another output label, a refused icon first.
  await clock.dblclick();
  const dialog = page.getByRole("dialog", { name: "Edit inject node" });
  // Folded open, since this node has an appearance of its own.
  await expect(dialog.locator("details.appearance-section")).toHaveAttribute("open", "");
  const showLabel = dialog.getByLabel("Show label");
  await expect(showLabel).not.toBeChecked();
  await expect(dialog.getByLabel("Icon", { exact: true })).toHaveValue("font-awesome/fa-clock-o");
  await expect(dialog.getByLabel("Output label")).toHaveValue("the time");
  await dialog.getByLabel("Icon", { exact: true }).fill('"><img src=x>');
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(dialog.getByRole("alert")).toContainText("Not an icon");
  await dialog.getByLabel("Icon", { exact: true }).fill("font-awesome/fa-bell");
  await showLabel.check();
  await dialog.getByLabel("Output label").fill("now");
  await shot(page, "node-appearance-dialog");
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(clock.locator(".fp-node")).not.toHaveClass(/label-hidden/);
  await expect(clock.locator(".fp-node-glyph")).toHaveClass(/mdi-bell/);
  await expect(clock.locator('.react-flow__handle[data-handleid="o0"]')).toHaveAttribute("title", "now");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Revision 2 · saved")).toBeVisible();
  // A node without an appearance of its own has the section folded; a link out's label is hidden by default.
  await canvasNode(page, ours("to elsewhere")).dblclick();
  const logDialog = page.getByRole("dialog", { name: "Edit link-out node" });
  await expect(logDialog.getByLabel("Show label")).toBeHidden();
  await logDialog.getByText("Appearance", { exact: true }).click();
  await expect(logDialog.getByLabel("Show label")).not.toBeChecked();
  await logDialog.getByRole("button", { name: "Cancel" }).click();
  const saved = (await getFlowViaApi(request, owner.token, flow.id)) as unknown as { nodes: Array<{ id: string; appearance?: unknown }> };
  expect(saved.nodes.find((n) => n.id === ours("Clock"))!.appearance).toEqual({ icon: "font-awesome/fa-bell", output_labels: ["now"] });

  const exported = (await (await request.get(`/api/v1/flows/${flow.id}/export`, { headers: auth(owner) })).json()) as Array<Record<string, unknown>>;
  const tick = exported.find((n) => n.type === "inject")!;
  expect(tick).toMatchObject({ icon: "font-awesome/fa-bell", outputLabels: ["now"] });
  expect(tick).not.toHaveProperty("l");
  expect(exported.find((n) => n.type === "function")).toMatchObject({ inputLabels: ["a reading"], outputLabels: ["valid", "invalid"] });
});
