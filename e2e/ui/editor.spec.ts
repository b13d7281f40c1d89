import { expect, test, type Browser, type Page } from "@playwright/test";
import { PASSWORD, logIn, registerViaApi, uniqueEmail } from "../helpers/accounts";
import { linkIn, waitForMail } from "../helpers/outbox";
import { accessToken, bigFlow, canvasNode, canvasNodes, createFlowViaApi, debugMessages, edges, expectAccessible, getFlowViaApi, openSidebarTab, shot } from "../helpers/flows";

const palette = (page: Page) => page.getByRole("region", { name: "Palette" });
const paletteItem = (page: Page, type: string) => palette(page).getByRole("button", { name: type, exact: true });
const mod = process.platform === "darwin" ? "Meta" : "Control";

async function openEditor(page: Page, id: string) {
  await page.goto(`/flows/${id}`);
  await expect(page.locator(".react-flow__renderer")).toBeVisible();
}

/** The element's centre once it stops moving (selecting a node pans the view with a short animation). */
async function center(page: Page, selector: string) {
  const locator = page.locator(selector).first();
  // As a user would: scroll the palette (or canvas) until the item is in view before pressing on it.
  await locator.scrollIntoViewIfNeeded();
  let last: { x: number; y: number } | null = null;
  for (let i = 0; i < 50; i++) {
    const box = await locator.boundingBox();
    if (!box) throw new Error(`${selector} is not on screen`);
    const now = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    if (last && Math.abs(last.x - now.x) < 0.5 && Math.abs(last.y - now.y) < 0.5) return now;
    last = now;
    await page.waitForTimeout(50);
  }
  throw new Error(`${selector} kept moving`);
}

/** A real pointer drag: press, move in steps, release. */
async function drag(page: Page, from: { x: number; y: number }, to: { x: number; y: number }) {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(from.x + (to.x - from.x) / 3, from.y + (to.y - from.y) / 3, { steps: 5 });
  await page.mouse.move(to.x, to.y, { steps: 10 });
  await page.mouse.up();
}

async function wire(page: Page, sourceId: string, targetId: string, port = 0) {
  const from = await center(page, `.react-flow__node[data-id="${sourceId}"] .react-flow__handle.source[data-handleid="o${port}"]`);
  const to = await center(page, `.react-flow__node[data-id="${targetId}"] .react-flow__handle.target`);
  await drag(page, from, to);
}

async function signedInWithFlow(page: Page, label: string, flow: Parameters<typeof createFlowViaApi>[2]) {
  const email = uniqueEmail(label);
  await registerViaApi(page.request, email);
  const token = await accessToken(page.request, email);
  const created = await createFlowViaApi(page.request, token, flow);
  await logIn(page, email);
  await openEditor(page, created.id);
  return { email, token, flowId: created.id };
}

test.describe("flow editor", () => {
  // Long stories on two shared cores: each test walks a whole feature through the browser.
  test.describe.configure({ timeout: 90_000 });
  test("palette drag, wiring (and a refused wire), delete, undo/redo, save", async ({ page }) => {
    const { token, flowId } = await signedInWithFlow(page, "ed-basic", {
      name: "Wiring",
      nodes: [
        { id: "wb-inject", type: "inject", name: "start", position: { x: 0, y: 0 } },
        { id: "wb-inject2", type: "inject", name: "other", position: { x: 0, y: 200 } },
        { id: "wb-debug", type: "debug", name: "sink", position: { x: 600, y: 0 } },
      ],
    });
    await expect(canvasNodes(page)).toHaveCount(3);
    // Each type draws its own icon, declared in its node folder and sent with the catalog, as an image.
    const icon = (id: string) => canvasNode(page, id).locator(".fp-node-icon img");
    await expect(icon("wb-inject")).toHaveAttribute("src", /^data:image\/svg\+xml/);
    await expect.poll(() => icon("wb-inject").evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    expect(await icon("wb-inject").getAttribute("src")).not.toBe(await icon("wb-debug").getAttribute("src"));
    await expect(page.locator('.palette-item[data-type="function"] .icon img')).toBeVisible();
    await expect(page.getByRole("banner").getByRole("link", { name: "Flows" })).toBeVisible();
    // The editor fills the window and the page itself never scrolls (the palette and the sidebar do).
    expect(await page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight)).toBeLessThanOrEqual(0);

    // Nothing to save yet: Save is there but quiet; a change makes it the primary button.
    const saveButton = page.getByRole("button", { name: "Save", exact: true });
    await expect(saveButton).toHaveClass(/\bsecondary\b/);

    // Drag "function" from the palette onto the canvas with the pointer.
    const pane = await page.locator(".react-flow__pane").boundingBox();
    await drag(page, await center(page, '.palette-item[data-type="function"]'), { x: pane!.x + pane!.width / 2, y: pane!.y + pane!.height / 2 + 60 });
    const fn = page.locator('.react-flow__node[data-node-type="function"]');
    await expect(fn).toHaveCount(1);
    const fnId = (await fn.getAttribute("data-id"))!;
    await expect(page.getByText("unsaved changes")).toBeVisible();
    await expect(saveButton).not.toHaveClass(/\bsecondary\b/);

    // Wire inject → function → debug by dragging output to input.
    await wire(page, "wb-inject", fnId);
    await expect(edges(page)).toHaveCount(1);
    await wire(page, fnId, "wb-debug");
    await expect(edges(page)).toHaveCount(2);
    // An inject node has no input: a wire dropped on it is refused, and so is a duplicate.
    const fnOut = await center(page, `.react-flow__node[data-id="${fnId}"] .react-flow__handle.source`);
    await drag(page, fnOut, await center(page, '.react-flow__node[data-id="wb-inject2"]'));
    await expect(edges(page)).toHaveCount(2);
    await wire(page, "wb-inject", fnId);
    await expect(edges(page)).toHaveCount(2);
    await shot(page, "editor-wired");

    // Undo and redo, one step per edit.
    await page.locator(".react-flow__pane").click({ position: { x: 10, y: 10 } });
    await page.keyboard.press(`${mod}+z`);
    await expect(edges(page)).toHaveCount(1);
    await page.keyboard.press(`${mod}+z`);
    await expect(edges(page)).toHaveCount(0);
    await page.keyboard.press(`${mod}+z`);
    await expect(fn).toHaveCount(0);
    await page.keyboard.press(`${mod}+Shift+z`);
    await page.keyboard.press(`${mod}+Shift+z`);
    await page.keyboard.press(`${mod}+Shift+z`);
    await expect(fn).toHaveCount(1);
    await expect(edges(page)).toHaveCount(2);

    // The toolbar's Undo and Redo from the keyboard: pressed until nothing is left, each keeps the
    // focus (unavailable, not disabled), and another press does nothing.
    const undo = page.getByRole("button", { name: "Undo" });
    const redo = page.getByRole("button", { name: "Redo" });
    await expect(redo).toHaveAttribute("aria-disabled", "true");
    await undo.focus();
    for (let i = 0; i < 3; i++) await page.keyboard.press("Enter");
    await expect(fn).toHaveCount(0);
    await expect(undo).toHaveAttribute("aria-disabled", "true");
    await expect(undo).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(canvasNodes(page)).toHaveCount(3);
    await page.keyboard.press("Tab");
    await expect(redo).toBeFocused();
    for (let i = 0; i < 3; i++) await page.keyboard.press("Enter");
    await expect(redo).toHaveAttribute("aria-disabled", "true");
    await expect(redo).toBeFocused();
    await expect(fn).toHaveCount(1);
    await expect(edges(page)).toHaveCount(2);

    // Moving a node is one undoable step.
    const before = await canvasNode(page, "wb-inject2").boundingBox();
    const grip = await center(page, '.react-flow__node[data-id="wb-inject2"] .fp-node-label');
    await drag(page, grip, { x: grip.x + 150, y: grip.y + 120 });
    await expect.poll(async () => (await canvasNode(page, "wb-inject2").boundingBox())!.x).toBeGreaterThan(before!.x + 100);
    await page.keyboard.press(`${mod}+z`);
    await expect.poll(async () => Math.round((await canvasNode(page, "wb-inject2").boundingBox())!.x)).toBe(Math.round(before!.x));

    // Delete removes the selection and its wires; undo brings both back.
    await canvasNode(page, "wb-debug").click();
    await page.keyboard.press("Delete");
    await expect(canvasNodes(page)).toHaveCount(3);
    await expect(edges(page)).toHaveCount(1);
    // The keyboard keeps its place: the nearest node has the focus (not the page), unselected, so
    // another Delete removes nothing.
    await expect(page.locator(".react-flow__node:focus")).toHaveCount(1);
    await expect(page.locator(".react-flow__node.selected")).toHaveCount(0);
    await page.keyboard.press("Delete");
    await expect(canvasNodes(page)).toHaveCount(3);
    await page.keyboard.press(`${mod}+z`);
    await expect(canvasNodes(page)).toHaveCount(4);
    await expect(edges(page)).toHaveCount(2);

    await page.getByRole("button", { name: "Save" }).click();
    await expect(page.getByText("Revision 2 · saved")).toBeVisible();
    const saved = await getFlowViaApi(page.request, token, flowId);
    expect(saved.nodes.map((n) => n.type).sort()).toEqual(["debug", "function", "inject", "inject"]);
    expect(saved.connections).toEqual(expect.arrayContaining([{ source: "wb-inject", source_port: 0, target: fnId }, { source: fnId, source_port: 0, target: "wb-debug" }]));
    await expectAccessible(page);
  });

  test("edit dialog from the schema: server errors on their fields, switch ports follow rules, CodeMirror for function code", async ({ page }) => {
    const { token, flowId } = await signedInWithFlow(page, "ed-edit", {
      name: "Editing",
      nodes: [
        { id: "ee-inject", type: "inject", position: { x: 0, y: 0 } },
        { id: "ee-switch", type: "switch", position: { x: 300, y: 0 } },
        { id: "ee-fn", type: "function", position: { x: 300, y: 200 } },
      ],
    });
    await canvasNode(page, "ee-inject").dblclick();
    const dialog = page.getByRole("dialog", { name: "Edit inject node" });
    await expect(dialog).toBeVisible();
    for (const label of ["Name", "Property (property 1)", "Value type (property 1)", "Repeat every (seconds)", "Cron schedule", "Inject once after start", "Start delay (seconds)"]) {
      await expect(dialog.getByLabel(label, { exact: true })).toBeVisible();
    }
    await dialog.getByLabel("Name", { exact: true }).fill("every minute");
    await dialog.getByLabel("Cron schedule", { exact: true }).fill("whenever");
    await dialog.getByRole("button", { name: "Done" }).click();
    const cron = dialog.getByLabel("Cron schedule", { exact: true });
    await expect(cron).toHaveAttribute("aria-invalid", "true");
    await expect(dialog.locator("#cfg-cron-error")).toContainText("five-field cron expression");
    await shot(page, "editor-edit-error");
    await expectAccessible(page);
    await cron.fill("* * * * *");
    await dialog.getByRole("button", { name: "Done" }).click();
    await expect(dialog).toHaveCount(0);
    await expect(canvasNode(page, "ee-inject")).toContainText("every minute");

    // Cancel discards.
    await canvasNode(page, "ee-inject").dblclick();
    await dialog.getByLabel("Name", { exact: true }).fill("discarded");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(canvasNode(page, "ee-inject")).toContainText("every minute");

    // A repeat may be ${NAME} (Node-RED's validators.number allows it): a text box, not a number box.
    await canvasNode(page, "ee-inject").dblclick();
    await dialog.getByLabel("Cron schedule", { exact: true }).fill("");
    const repeat = dialog.getByRole("textbox", { name: "Repeat every (seconds)", exact: true });
    await expect(repeat).toHaveAttribute("placeholder", "none");
    await repeat.fill("${EVERY}");
    await dialog.getByRole("button", { name: "Done" }).click();
    await expect(dialog).toHaveCount(0);
    await canvasNode(page, "ee-inject").dblclick();
    await expect(repeat).toHaveValue("${EVERY}");
    await dialog.getByRole("button", { name: "Cancel" }).click();

    // The switch node's outputs follow its rules while they are edited.
    const switchPorts = canvasNode(page, "ee-switch").locator(".react-flow__handle.source");
    await expect(switchPorts).toHaveCount(1);
    await canvasNode(page, "ee-switch").dblclick();
    const sw = page.getByRole("dialog", { name: "Edit switch node" });
    await sw.getByRole("button", { name: "Add rule" }).click();
    await sw.getByRole("button", { name: "Add rule" }).click();
    await expect(switchPorts).toHaveCount(3);
    await sw.getByLabel("Rule 3", { exact: true }).selectOption("else");
    await expect(sw.getByRole("group", { name: "Output 3" })).toBeVisible();
    await sw.getByRole("button", { name: "Remove rule 2" }).click();
    await expect(switchPorts).toHaveCount(2);
    await sw.getByRole("button", { name: "Done" }).click();
    await expect(sw).toHaveCount(0);
    await expect(switchPorts).toHaveCount(2);

    // The function node's code is edited in CodeMirror.
    await canvasNode(page, "ee-fn").dblclick();
    const fnDialog = page.getByRole("dialog", { name: "Edit function node" });
    const code = fnDialog.getByRole("textbox", { name: "On message", exact: true });
    await expect(fnDialog.locator(".cm-editor")).toHaveCount(3);
    await code.click();
    await page.keyboard.press(`${mod}+a`);
    await page.keyboard.type("msg.payload = 42;\nreturn msg;");
    await shot(page, "editor-function-code");
    await fnDialog.getByRole("button", { name: "Done" }).click();
    await expect(fnDialog).toHaveCount(0);
    await page.keyboard.press(`${mod}+s`);
    await expect(page.getByText("Revision 2 · saved")).toBeVisible();
    const saved = await getFlowViaApi(page.request, token, flowId);
    const byId = Object.fromEntries(saved.nodes.map((n) => [n.id, n]));
    expect(byId["ee-inject"]).toMatchObject({ name: "every minute", config: { cron: null, repeat_seconds: "${EVERY}" } });
    expect((byId["ee-switch"]!.config.rules as unknown[]).length).toBe(2);
    expect(byId["ee-fn"]!.config.code).toContain("msg.payload = 42;");
  });

  test("typed inputs: an operand's type beside its value, by keyboard, saved as the pair", async ({ page }) => {
    const { token, flowId } = await signedInWithFlow(page, "ed-typed", {
      name: "Typed inputs",
      nodes: [
        { id: "ti-inject", type: "inject", position: { x: 0, y: 0 } },
        { id: "ti-change", type: "change", position: { x: 300, y: 0 } },
      ],
    });
    await canvasNode(page, "ti-inject").dblclick();
    const dialog = page.getByRole("dialog", { name: "Edit inject node" });
    // Property 1 is the payload, a timestamp by default: its value is a format selector.
    const payload = dialog.getByRole("group", { name: "Value (property 1)" });
    await expect(payload.getByLabel("Value type (property 1)", { exact: true })).toHaveValue("date");
    await expect(payload.getByLabel("Value (property 1) format", { exact: true })).toHaveValue("");
    // Keyboard only: focus the type selector, choose JSON, type the value.
    await payload.getByLabel("Value type (property 1)", { exact: true }).focus();
    await page.keyboard.press("Tab");
    await payload.getByLabel("Value type (property 1)", { exact: true }).selectOption("json");
    const json = payload.getByRole("textbox", { name: "Value (property 1)", exact: true });
    await json.focus();
    await page.keyboard.type('{"a": [1, 2]}');
    // Property 2 (topic) becomes a boolean: a true/false select.
    await dialog.getByLabel("Value type (property 2)", { exact: true }).selectOption("bool");
    await expect(dialog.getByRole("combobox", { name: "Value (property 2)", exact: true })).toHaveValue("true");
    // A bad JSON value is refused by the server, shown on the typed input.
    await dialog.getByRole("button", { name: "Add property" }).click();
    await dialog.getByLabel("Property (property 3)", { exact: true }).fill("extra");
    await dialog.getByLabel("Value type (property 3)", { exact: true }).selectOption("json");
    await dialog.getByRole("textbox", { name: "Value (property 3)", exact: true }).fill("{nope");
    await dialog.getByRole("button", { name: "Done" }).click();
    await expect(dialog.locator("#cfg-props_2__v-error")).toContainText("valid JSON");
    await dialog.getByRole("group", { name: "Value (property 2)" }).scrollIntoViewIfNeeded();
    await shot(page, "editor-typed-input-inject");
    await expectAccessible(page);
    await dialog.getByRole("button", { name: "Remove property 3" }).click();
    await dialog.getByRole("button", { name: "Done" }).click();
    await expect(dialog).toHaveCount(0);

    // The change node's rule: a JSONata value is a monospace textarea.
    await canvasNode(page, "ti-change").dblclick();
    const change = page.getByRole("dialog", { name: "Edit change node" });
    await change.getByLabel("Value type (rule 1)", { exact: true }).selectOption("jsonata");
    const expr = change.getByRole("textbox", { name: "To the value (rule 1)", exact: true });
    await expr.fill("$sum(payload.a)");
    expect(await expr.evaluate((el) => getComputedStyle(el).fontFamily)).toMatch(/mono|Menlo|Consolas/i);
    await change.getByLabel("Property type (rule 1)", { exact: true }).selectOption("flow");
    await change.getByRole("textbox", { name: "Property (rule 1)", exact: true }).fill("total");
    await shot(page, "editor-typed-input-change");
    await change.getByRole("button", { name: "Done" }).click();
    await expect(change).toHaveCount(0);

    await page.keyboard.press(`${mod}+s`);
    await expect(page.getByText("Revision 2 · saved")).toBeVisible();
    const saved = await getFlowViaApi(page.request, token, flowId);
    const byId = Object.fromEntries(saved.nodes.map((n) => [n.id, n]));
    expect(byId["ti-inject"]!.config.props).toEqual([
      { p: "payload", v: '{"a": [1, 2]}', v_type: "json" },
      { p: "topic", v: "true", v_type: "bool" },
    ]);
    expect(byId["ti-change"]!.config.rules).toEqual([{ t: "set", p: "total", p_type: "flow", to: "$sum(payload.a)", to_type: "jsonata", deep_copy: false }]);
  });

  test("colour properties: a picker beside the text, each writing the other", async ({ page }) => {
    const { token, flowId } = await signedInWithFlow(page, "ed-colour", {
      name: "Colours",
      nodes: [{ id: "co-led", type: "ui-led", position: { x: 0, y: 0 } }],
    });
    await canvasNode(page, "co-led").dblclick();
    const dialog = page.getByRole("dialog", { name: "Edit ui-led node" });
    // The LED's default states: red for false, green for true; the pickers show them.
    const text = dialog.getByRole("textbox", { name: "Colour (colours for value 1)", exact: true });
    const picker = dialog.getByLabel("Colour (colours for value 1): pick a colour", { exact: true });
    await expect(text).toHaveValue("#FF0000");
    await expect(picker).toHaveValue("#ff0000");
    // Picking writes #rrggbb into the text; a CSS name typed in the text moves the picker.
    await picker.fill("#2f6f4f");
    await expect(text).toHaveValue("#2f6f4f");
    await dialog.getByRole("textbox", { name: "Colour (colours for value 2)", exact: true }).fill("orange");
    await expect(dialog.getByLabel("Colour (colours for value 2): pick a colour", { exact: true })).toHaveValue("#ffa500");
    await picker.scrollIntoViewIfNeeded();
    await shot(page, "editor-colour-field");
    await expectAccessible(page);
    await dialog.getByRole("button", { name: "Done" }).click();
    await expect(dialog).toHaveCount(0);
    await page.keyboard.press(`${mod}+s`);
    await expect(page.getByText("Revision 2 · saved")).toBeVisible();
    const saved = await getFlowViaApi(page.request, token, flowId);
    expect((saved.nodes[0]!.config.states as Array<{ color: string }>).map((st) => st.color)).toEqual(["#2f6f4f", "orange"]);
  });

  test("copy and paste as Node-RED JSON, find by config value, quick-add from a dropped wire", async ({ page, context }) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    const { flowId } = await signedInWithFlow(page, "ed-clip", {
      name: "Clipboard",
      nodes: [
        { id: "cp-inject", type: "inject", name: "source", position: { x: 0, y: 0 }, config: { topic: "needle-topic" } },
        { id: "cp-switch", type: "switch", name: "router", position: { x: 300, y: 0 }, config: { rules: [{ t: "eq", v: "deep-value" }] } },
      ],
      connections: [{ source: "cp-inject", target: "cp-switch" }],
    });
    await canvasNode(page, "cp-inject").click();
    await canvasNode(page, "cp-switch").click({ modifiers: ["Shift"] });
    await page.keyboard.press(`${mod}+c`);
    await expect(page.getByText("Copied 2 nodes as Node-RED JSON")).toBeVisible();
    const clip = JSON.parse(await page.evaluate(() => navigator.clipboard.readText())) as Array<Record<string, unknown>>;
    expect(clip).toHaveLength(2);
    for (const n of clip) {
      expect(n).toMatchObject({ z: flowId });
      expect(typeof n.x).toBe("number");
      expect(typeof n.y).toBe("number");
      expect(Array.isArray(n.wires)).toBe(true);
    }
    expect(clip.find((n) => n.id === "cp-inject")!.wires).toEqual([["cp-switch"]]);
    expect(clip.find((n) => n.id === "cp-switch")).toMatchObject({ type: "switch", rules: [{ t: "eq", v: "deep-value" }] });

    await page.keyboard.press(`${mod}+v`);
    await expect(canvasNodes(page)).toHaveCount(4);
    await expect(edges(page)).toHaveCount(2);
    await expect(page.locator(".react-flow__node.selected")).toHaveCount(2);
    await page.keyboard.press(`${mod}+z`);
    await expect(canvasNodes(page)).toHaveCount(2);

    // Ctrl/Cmd+F finds a node by a value nested in its rules.
    await page.keyboard.press(`${mod}+f`);
    await expect(page.getByLabel("Find nodes")).toBeFocused();
    await page.getByLabel("Find nodes").fill("deep-value");
    await expect(page.getByRole("tabpanel").getByRole("status")).toHaveText("1 node found");
    await expect(canvasNode(page, "cp-switch").locator(".fp-node.found")).toHaveCount(1);
    await page.getByRole("tabpanel").getByRole("button", { name: "router" }).click();
    await expect(canvasNode(page, "cp-switch")).toHaveClass(/selected/);

    // A wire dropped on empty canvas opens the quick-add search; the chosen node is inserted and wired.
    const from = await center(page, '.react-flow__node[data-id="cp-switch"] .react-flow__handle.source');
    await drag(page, from, { x: from.x + 120, y: from.y - 120 });
    const search = page.getByLabel("Add node");
    await expect(search).toBeFocused();
    await search.fill("debug");
    await search.press("Enter");
    await expect(page.locator('.react-flow__node[data-node-type="debug"]')).toHaveCount(1);
    await expect(edges(page)).toHaveCount(2);
    await shot(page, "editor-quick-add");
  });

  test("a stale save opens the conflict dialog: Reload and Overwrite, with a second browser context", async ({ page, browser }) => {
    const { email, token, flowId } = await signedInWithFlow(page, "ed-conflict", { name: "Shared", nodes: [{ id: "cf-inject", type: "inject", position: { x: 0, y: 0 } }] });
    const other = await (await browser.newContext()).newPage();
    await logIn(other, email);
    await openEditor(other, flowId);

    await paletteItem(other, "debug").click();
    await other.getByRole("button", { name: "Save" }).click();
    await expect(other.getByText("Revision 2 · saved")).toBeVisible();

    await paletteItem(page, "function").click();
    await page.getByRole("button", { name: "Save" }).click();
    const conflict = page.getByRole("dialog", { name: "This flow changed since you opened it" });
    await expect(conflict).toBeVisible();
    await shot(page, "editor-conflict");
    await conflict.getByRole("button", { name: "Reload" }).click();
    await expect(conflict).toHaveCount(0);
    await expect(page.getByText("Revision 2 · saved")).toBeVisible();
    await expect(page.locator('.react-flow__node[data-node-type="debug"]')).toHaveCount(1);
    await expect(page.locator('.react-flow__node[data-node-type="function"]')).toHaveCount(0);

    // Both edit again; the later save overwrites on request.
    await paletteItem(other, "json").click();
    await other.keyboard.press(`${mod}+s`);
    await expect(other.getByText("Revision 3 · saved")).toBeVisible();
    await paletteItem(page, "template").click();
    await page.getByRole("button", { name: "Save" }).click();
    await conflict.getByRole("button", { name: "Overwrite" }).click();
    await expect(page.getByText("Revision 4 · saved")).toBeVisible();
    const saved = await getFlowViaApi(page.request, token, flowId);
    expect(saved.nodes.map((n) => n.type).sort()).toEqual(["debug", "inject", "template"]);
    await other.context().close();
  });

  test("keyboard only: add from the palette with Enter, edit with Enter, wire in the Wires section, save with Ctrl+S", async ({ page }) => {
    const { token, flowId } = await signedInWithFlow(page, "ed-keys", { name: "Keyboard", nodes: [] });
    await page.getByLabel("Search nodes").focus();
    await page.keyboard.type("debug");
    await page.keyboard.press("Tab");
    await expect(paletteItem(page, "debug")).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(canvasNodes(page)).toHaveCount(1);
    // The new node takes the focus, so the next Enter would edit it.
    await expect(canvasNodes(page).first()).toBeFocused();
    const debugId = (await canvasNodes(page).first().getAttribute("data-id"))!;

    await page.getByLabel("Search nodes").focus();
    await page.keyboard.press(`${mod}+a`);
    await page.keyboard.type("inject");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await expect(canvasNodes(page)).toHaveCount(2);
    const inject = page.locator('.react-flow__node[data-node-type="inject"]');
    await expect(inject).toBeFocused();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Edit inject node" });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByLabel("Name", { exact: true })).toBeFocused();
    await page.keyboard.type("kick");
    const wires = dialog.getByRole("region", { name: "Wires" });
    const target = wires.getByRole("checkbox", { name: new RegExp(debugId) });
    // Tab through the form to the wire checkbox, then Space ticks it.
    for (let i = 0; i < 40 && !(await target.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press("Tab");
    await expect(target).toBeFocused();
    await page.keyboard.press("Space");
    await expect(target).toBeChecked();
    await page.keyboard.press("Enter");
    await expect(dialog).toHaveCount(0);
    await expect(edges(page)).toHaveCount(1);
    await expect(inject).toBeFocused();
    await page.keyboard.press(`${mod}+s`);
    await expect(page.getByText("Revision 2 · saved")).toBeVisible();
    const saved = await getFlowViaApi(page.request, token, flowId);
    const injectNode = saved.nodes.find((n) => n.type === "inject")!;
    expect(injectNode.name).toBe("kick");
    expect(saved.connections).toEqual([{ source: injectNode.id, source_port: 0, target: debugId }]);
  });

  test("keyboard only: a rule list keeps the focus on its item as rules are added, moved and removed", async ({ page }) => {
    const { token, flowId } = await signedInWithFlow(page, "ed-list-keys", {
      name: "Rule list",
      nodes: [{ id: "lk-change", type: "change", position: { x: 0, y: 0 }, config: { rules: [{ t: "set", p: "payload", p_type: "msg", to: "first", to_type: "str" }] } }],
    });
    await canvasNode(page, "lk-change").focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Edit change node" });
    await expect(dialog).toBeVisible();
    // Add: the new rule's first field (its kind) takes the focus.
    await dialog.getByRole("button", { name: "Add rule" }).focus();
    await page.keyboard.press("Enter");
    const kind2 = dialog.getByLabel("Rule 2", { exact: true });
    await expect(kind2).toBeFocused();
    await kind2.selectOption("delete");
    // ↑ follows its rule to the top, where it stays focusable and does nothing.
    await dialog.getByRole("button", { name: "Move rule 2 up" }).focus();
    await page.keyboard.press("Enter");
    const up1 = dialog.getByRole("button", { name: "Move rule 1 up" });
    await expect(up1).toBeFocused();
    await expect(dialog.getByLabel("Rule 1", { exact: true })).toHaveValue("delete");
    await expect(up1).toHaveAttribute("aria-disabled", "true");
    await shot(page, "editor-rule-list-keyboard");
    await expectAccessible(page);
    await page.keyboard.press("Enter");
    await expect(up1).toBeFocused();
    await expect(dialog.getByLabel("Rule 1", { exact: true })).toHaveValue("delete");
    // Remove: the focus moves to the Remove of the rule that took its place, then to Add.
    await dialog.getByRole("button", { name: "Remove rule 1" }).focus();
    await page.keyboard.press("Enter");
    await expect(dialog.getByLabel("Rule 1", { exact: true })).toHaveValue("set");
    await expect(dialog.getByRole("button", { name: "Remove rule 1" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(dialog.getByLabel("Rule 1", { exact: true })).toHaveCount(0);
    await expect(dialog.getByRole("button", { name: "Add rule" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(dialog.getByLabel("Rule 1", { exact: true })).toBeFocused();
    await dialog.getByLabel("Rule 1", { exact: true }).selectOption("delete");
    await dialog.getByRole("textbox", { name: "Property (rule 1)", exact: true }).fill("topic");
    await dialog.getByRole("button", { name: "Done" }).click();
    await expect(dialog).toHaveCount(0);
    await page.keyboard.press(`${mod}+s`);
    await expect(page.getByText("Revision 2 · saved")).toBeVisible();
    const saved = await getFlowViaApi(page.request, token, flowId);
    expect(saved.nodes[0]!.config.rules).toEqual([{ t: "delete", p: "topic", p_type: "msg" }]);
  });

  test("changed-since-deploy marks are a diff, and leaving with unsaved changes asks first", async ({ page }) => {
    const { token, flowId } = await signedInWithFlow(page, "ed-diff", {
      name: "Deployed",
      nodes: [
        { id: "df-inject", type: "inject", position: { x: 0, y: 0 } },
        { id: "df-debug", type: "debug", position: { x: 300, y: 0 } },
      ],
      connections: [{ source: "df-inject", target: "df-debug" }],
    });
    const deploy = await page.request.post(`/api/v1/flows/${flowId}/deploy`, { headers: { authorization: `Bearer ${token}` } });
    expect(deploy.status()).toBe(200);
    await page.reload();
    await expect(page.locator(".fp-node-changed")).toHaveCount(0);
    await canvasNode(page, "df-debug").dblclick();
    await page.getByRole("dialog", { name: "Edit debug node" }).getByLabel("Name", { exact: true }).fill("renamed");
    await page.getByRole("button", { name: "Done" }).click();
    await expect(canvasNode(page, "df-debug").locator(".fp-node-changed.changed")).toHaveCount(1);
    await page.locator(".react-flow__pane").click({ position: { x: 10, y: 10 } });
    await page.keyboard.press(`${mod}+z`);
    await expect(page.locator(".fp-node-changed")).toHaveCount(0);
    await page.keyboard.press(`${mod}+Shift+z`);
    await expect(page.locator(".fp-node-changed")).toHaveCount(1);

    let asked = "";
    page.once("dialog", (d) => {
      asked = d.message();
      void d.dismiss();
    });
    await page.getByRole("banner").getByRole("link", { name: "Flows" }).click();
    expect(asked).toContain("unsaved changes");
    await expect(page).toHaveURL(new RegExp(`/flows/${flowId}$`));

    // "Skip to canvas" stays on the page: it asks nothing and lands on the canvas.
    asked = "";
    page.once("dialog", (d) => {
      asked = d.message();
      void d.dismiss();
    });
    await page.getByRole("link", { name: "Skip to canvas" }).focus();
    await page.keyboard.press("Enter");
    await expect(canvasNode(page, "df-inject")).toBeFocused();
    expect(asked).toBe("");
    page.removeAllListeners("dialog");
  });

  test("a viewer gets the editor read-only", async ({ page, browser }) => {
    const owner = uniqueEmail("ed-owner");
    const viewer = uniqueEmail("ed-viewer");
    await registerViaApi(page.request, owner);
    await registerViaApi(page.request, viewer);
    const ownerToken = await accessToken(page.request, owner);
    const viewerToken = await accessToken(page.request, viewer);
    const flow = await createFlowViaApi(page.request, ownerToken, { name: "Look only", nodes: [{ id: "ro-inject", type: "inject", position: { x: 0, y: 0 } }, { id: "ro-debug", type: "debug", position: { x: 300, y: 0 } }] });
    const profile = await page.request.get("/api/v1/auth/profile", { headers: { authorization: `Bearer ${ownerToken}` } });
    const orgId = ((await profile.json()) as { organization: { id: string } }).organization.id;
    const invite = await page.request.post(`/api/v1/organizations/${orgId}/invitations`, { headers: { authorization: `Bearer ${ownerToken}` }, data: { email: viewer, role: "viewer" } });
    expect(invite.status(), await invite.text()).toBe(201);
    const link = linkIn(await waitForMail(viewer, /invit/i), "/invitations/accept");
    const token = new URL(link, "http://x").searchParams.get("token");
    const accept = await page.request.post("/api/v1/invitations/accept", { headers: { authorization: `Bearer ${viewerToken}` }, data: { token } });
    expect(accept.status(), await accept.text()).toBe(200);

    await viewerPage(browser, viewer, `Org of ${owner.split("@")[0]}`, async (p) => {
      await openEditor(p, flow.id);
      await expect(p.getByText("read-only")).toBeVisible();
      await expect(p.getByRole("button", { name: "Save" })).toHaveCount(0);
      await expect(p.getByRole("button", { name: "Deploy" })).toHaveCount(0);
      await expect(paletteItem(p, "function")).toHaveAttribute("aria-disabled", "true");
      await paletteItem(p, "function").click({ force: true });
      const pane = await p.locator(".react-flow__pane").boundingBox();
      await drag(p, await center(p, '.palette-item[data-type="debug"]'), { x: pane!.x + pane!.width / 2, y: pane!.y + 40 });
      await expect(canvasNodes(p)).toHaveCount(2);
      // Dragging a node pans the canvas instead: the nodes keep their distance.
      const gap = async () => (await canvasNode(p, "ro-debug").boundingBox())!.x - (await canvasNode(p, "ro-inject").boundingBox())!.x;
      const before = await gap();
      const grip = await center(p, '.react-flow__node[data-id="ro-inject"]');
      await drag(p, grip, { x: grip.x + 100, y: grip.y + 100 });
      expect(Math.round(await gap())).toBe(Math.round(before));
      await canvasNode(p, "ro-debug").click();
      await p.keyboard.press("Delete");
      await expect(canvasNodes(p)).toHaveCount(2);
      await canvasNode(p, "ro-debug").dblclick();
      const dialog = p.getByRole("dialog", { name: "Edit debug node" });
      await expect(dialog.getByLabel("Name", { exact: true })).toBeDisabled();
      await expect(dialog.getByRole("button", { name: "Done" })).toHaveCount(0);
      await shot(p, "editor-viewer");
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await p.goto("/flows");
      await expect(p.getByRole("link", { name: "Look only" })).toBeVisible();
      await expect(p.getByRole("button", { name: "New flow" })).toHaveCount(0);
      await expect(p.getByRole("button", { name: "Delete Look only" })).toHaveCount(0);
    });
  });

  test("dragging a node in a 500-node flow: node, wire and minimap follow the pointer; the drop is one undo step and saves", async ({ page }) => {
    // The moves of a drag only reach React Flow's store; the editor's state takes the drop.
    const { token, flowId } = await signedInWithFlow(page, "ed-drag", { name: "Drag flow", ...bigFlow(500, "dg") });
    const node = canvasNode(page, "dg3");
    await expect(node).toBeVisible({ timeout: 15_000 });
    const wire = page.locator('.react-flow__edge[data-id="dg3:0:dg4"] path.react-flow__edge-path');
    const mini = page.locator(".react-flow__minimap-node").nth(3);
    await expect(page.locator(".react-flow__minimap-node")).toHaveCount(500);
    const grip = await center(page, '.react-flow__node[data-id="dg3"] .fp-node-label');
    const before = (await node.boundingBox())!;
    const wireBefore = await wire.getAttribute("d");
    const miniBefore = await mini.getAttribute("x");
    await page.mouse.move(grip.x, grip.y);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) await page.mouse.move(grip.x + i * 15, grip.y + i * 10);
    // Still held: everything drawn from the node's position has moved.
    await expect.poll(async () => (await node.boundingBox())!.x).toBeGreaterThan(before.x + 100);
    await expect.poll(() => wire.getAttribute("d")).not.toBe(wireBefore);
    await expect.poll(() => mini.getAttribute("x")).not.toBe(miniBefore);
    await page.mouse.up();
    await expect(page.getByText("Revision 1 · unsaved changes")).toBeVisible();
    const moved = (await node.boundingBox())!;

    await page.keyboard.press(`${mod}+z`);
    await expect.poll(async () => Math.round((await node.boundingBox())!.x)).toBe(Math.round(before.x));
    await expect(page.getByText("Revision 1 · saved")).toBeVisible();
    await expect.poll(() => mini.getAttribute("x")).toBe(miniBefore);
    await page.keyboard.press(`${mod}+Shift+z`);
    await expect.poll(async () => Math.round((await node.boundingBox())!.x)).toBe(Math.round(moved.x));

    await page.keyboard.press(`${mod}+s`);
    await expect(page.getByText("Revision 2 · saved")).toBeVisible();
    const saved = await getFlowViaApi(page.request, token, flowId);
    const at = (id: string) => saved.nodes.find((n) => n.id === id)!.position;
    // The grid puts dg3 at (660, 0); the pointer moved 150 × 100 screen pixels at a zoom of at most 1.
    expect(at("dg3").x).toBeGreaterThanOrEqual(660 + 150);
    expect(at("dg3").y).toBeGreaterThanOrEqual(100);
    expect(at("dg4")).toEqual({ x: 880, y: 0 });
  });

  test("the minimap shows every node and the view, pans the canvas by drag and zooms it by wheel", async ({ page }) => {
    await signedInWithFlow(page, "ed-minimap", { name: "Minimap flow", ...bigFlow(200, "mm") });
    const node = canvasNode(page, "mm12");
    await expect(node).toBeVisible({ timeout: 15_000 });
    const mini = page.getByRole("img", { name: "Mini map" });
    await expect(mini.locator(".react-flow__minimap-node")).toHaveCount(200);
    const mask = mini.locator(".react-flow__minimap-mask");
    const maskBefore = await mask.getAttribute("d");
    const before = (await node.boundingBox())!;

    const box = (await mini.boundingBox())!;
    const from = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    for (let i = 1; i <= 5; i++) await page.mouse.move(from.x + i * 4, from.y + i * 2);
    await page.mouse.up();
    // Moving the view's frame right and down on the minimap moves the canvas's content left and up.
    await expect.poll(async () => (await node.boundingBox())!.x).toBeLessThan(before.x - 20);
    await expect.poll(async () => (await node.boundingBox())!.y).toBeLessThan(before.y - 10);
    await expect.poll(() => mask.getAttribute("d")).not.toBe(maskBefore);

    // The canvas's zoom, from its viewport's transform (zooming can take mm12 out of view, and out of the DOM).
    const zoom = async () => Number(/scale\(([\d.]+)\)/.exec((await page.locator(".react-flow__viewport").getAttribute("style")) ?? "")?.[1]);
    const zoomBefore = await zoom();
    expect(zoomBefore).toBeGreaterThan(0);
    await page.mouse.move(from.x, from.y);
    await page.mouse.wheel(0, -300);
    await expect.poll(zoom).toBeGreaterThan(zoomBefore * 1.2);
  });

  test("medium and big flows render (screenshots), only visible nodes drawn", async ({ page }) => {
    const email = uniqueEmail("ed-big");
    await registerViaApi(page.request, email);
    const token = await accessToken(page.request, email);
    const medium = await createFlowViaApi(page.request, token, { name: "Medium flow", ...bigFlow(60, "md") });
    const big = await createFlowViaApi(page.request, token, { name: "Big flow", ...bigFlow(2000, "bg") });
    await logIn(page, email);
    await openEditor(page, medium.id);
    await expect(canvasNodes(page)).toHaveCount(60);
    await shot(page, "editor-medium");
    await openEditor(page, big.id);
    await expect(canvasNodes(page).first()).toBeVisible({ timeout: 15_000 });
    const drawn = await canvasNodes(page).count();
    expect(drawn).toBeGreaterThan(0);
    expect(drawn).toBeLessThanOrEqual(2000);
    await shot(page, "editor-big");
    await page.getByRole("button", { name: "Zoom In" }).click();
    await page.getByRole("button", { name: "Zoom In" }).click();
    await page.getByRole("button", { name: "Zoom In" }).click();
    await expect.poll(() => canvasNodes(page).count()).toBeLessThan(2000);
    await shot(page, "editor-big-zoomed");
  });
});

test.describe("flow editor: walkthrough fixes", () => {
  test.describe.configure({ timeout: 90_000 });
  const box = async (page: Page, selector: string) => {
    const b = await page.locator(selector).first().boundingBox();
    if (!b) throw new Error(`${selector} is not on screen`);
    return b;
  };
  const transformOf = (page: Page, id: string) => canvasNode(page, id).evaluate((el) => (el as HTMLElement).style.transform);

  test("arrow keys move a node as an edit: unsaved, and a burst of presses is one undo", async ({ page }) => {
    await signedInWithFlow(page, "ed-arrows", { name: "Arrows", nodes: [{ id: "ak-debug", type: "debug", position: { x: 0, y: 0 } }] });
    await expect(page.getByText("Revision 1 · saved")).toBeVisible();
    const before = await transformOf(page, "ak-debug");
    await canvasNode(page, "ak-debug").focus();
    await page.keyboard.press("Space");
    await expect(canvasNode(page, "ak-debug")).toHaveClass(/selected/);
    for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowRight");
    await expect.poll(() => transformOf(page, "ak-debug")).not.toBe(before);
    await expect(page.getByText("unsaved changes")).toBeVisible();
    // One Undo takes the whole burst back, and the flow is saved again.
    await page.keyboard.press(`${mod}+z`);
    await expect.poll(() => transformOf(page, "ak-debug")).toBe(before);
    await expect(page.getByText("Revision 1 · saved")).toBeVisible();
  });

  test("the first node dropped on an empty canvas lands where it is dropped", async ({ page }) => {
    await signedInWithFlow(page, "ed-first-drop", { name: "Empty", nodes: [] });
    const pane = await box(page, ".react-flow__pane");
    const target = { x: Math.round(pane.x + pane.width / 3), y: Math.round(pane.y + pane.height / 3) };
    await drag(page, await center(page, '.palette-item[data-type="function"]'), target);
    await expect(canvasNodes(page)).toHaveCount(1);
    // Give a queued fit of the view the time it would take.
    await page.waitForTimeout(500);
    const landed = await center(page, ".react-flow__node");
    expect(Math.abs(landed.x - target.x)).toBeLessThanOrEqual(5);
    expect(Math.abs(landed.y - target.y)).toBeLessThanOrEqual(5);
  });

  test("nodes added from the keyboard never land on each other; Enter in the search box adds the match", async ({ page }) => {
    await signedInWithFlow(page, "ed-free-spot", { name: "Keyboard adds", nodes: [] });
    const search = page.getByLabel("Search nodes");
    for (let i = 1; i <= 3; i++) {
      await search.fill("debug");
      await search.press("Enter");
      await expect(canvasNodes(page)).toHaveCount(i);
    }
    const boxes = await canvasNodes(page).evaluateAll((els) => els.map((el) => el.getBoundingClientRect().toJSON() as { x: number; y: number; width: number; height: number }));
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i]!;
        const b = boxes[j]!;
        const apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
        expect(apart, `node ${i} and node ${j} overlap`).toBe(true);
      }
  });

  test("the inject node's Inject button is whole, inside its node, also at 390 px", async ({ page }) => {
    const { token, flowId } = await signedInWithFlow(page, "ed-inject-btn", { name: "Inject edge", nodes: [{ id: "ib-inject", type: "inject", position: { x: 0, y: 0 } }, { id: "ib-debug", type: "debug", position: { x: 400, y: 0 } }] });
    // Deployed, so the button is enabled (an undeployed flow's is disabled, with the reason beside it).
    expect((await page.request.post(`/api/v1/flows/${flowId}/deploy`, { headers: { authorization: `Bearer ${token}` } })).status()).toBe(200);
    await page.reload();
    await expect(canvasNode(page, "ib-inject").getByRole("button", { name: "Inject" })).toBeEnabled();
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      const button = canvasNode(page, "ib-inject").getByRole("button", { name: "Inject" });
      await expect(button).toBeVisible();
      const b = (await button.boundingBox())!;
      const n = await box(page, '.react-flow__node[data-id="ib-inject"]');
      const canvas = await box(page, ".editor-canvas");
      expect(b.x).toBeGreaterThanOrEqual(n.x);
      expect(b.x + b.width).toBeLessThanOrEqual(n.x + n.width);
      expect(b.x).toBeGreaterThanOrEqual(Math.max(0, canvas.x));
      await expect(button).toHaveText("Inject");
      // Still reached and pressed from the keyboard.
      await button.focus();
      await expect(button).toBeFocused();
    }
  });

  test("a function whose code does not compile: as in Node-RED the flow runs and the node's error is in Debug; a node that cannot start says why at once", async ({ page }) => {
    const { token } = await signedInWithFlow(page, "ed-broken", {
      name: "Broken",
      nodes: [
        { id: "bk-inject", type: "inject", position: { x: 0, y: 0 } },
        { id: "bk-fn", type: "function", name: "parse reading", position: { x: 300, y: 0 }, config: { code: "msg.payload = ;\nreturn msg;" } },
        { id: "bk-debug", type: "debug", position: { x: 0, y: 200 } },
      ],
      connections: [
        { source: "bk-inject", target: "bk-fn" },
        { source: "bk-inject", target: "bk-debug" },
      ],
    });
    const deployment = page.getByRole("group", { name: "Deployment" });
    await deployment.getByRole("button", { name: "Deploy" }).click();
    await expect(page.getByTestId("flow-state")).toHaveText("Running");
    await expect(canvasNode(page, "bk-fn")).toContainText("SyntaxError");
    await openSidebarTab(page, "Debug");
    await expect(debugMessages(page).filter({ hasText: "SyntaxError" })).toHaveCount(1);
    // The rest of the flow runs.
    await canvasNode(page, "bk-inject").getByRole("button", { name: "Inject" }).click();
    await expect(debugMessages(page).filter({ hasNotText: "SyntaxError" })).toHaveCount(1);

    // An On Start that never ends: the node cannot start, and Deploy says which and why, and shows it.
    const slow = await createFlowViaApi(page.request, token, {
      name: "Slow start",
      nodes: [{ id: "bk-slow", type: "function", name: "slow start", position: { x: 0, y: 0 }, config: { code: "return msg;", initialize: "while (true) {}", timeout_ms: 200 } }],
    });
    await openEditor(page, slow.id);
    await deployment.getByRole("button", { name: "Deploy" }).click();
    await expect(deployment.getByRole("alert")).toContainText("Deployed, but the flow could not start: node “slow start”:");
    await expect(page.getByTestId("flow-state")).toContainText("Error: bk-slow:");
    await expect(canvasNode(page, "bk-slow")).toHaveClass(/selected/);
  });

  test("Skip to canvas: the first Tab stop, shown when focused, and it lands on the canvas's first node (or the empty canvas)", async ({ page }) => {
    const { token } = await signedInWithFlow(page, "ed-skip", { name: "Skip", nodes: [{ id: "sk-debug", type: "debug", position: { x: 0, y: 0 } }] });
    const skip = page.getByRole("link", { name: "Skip to canvas" });
    await page.locator("body").focus();
    await page.keyboard.press("Tab");
    await expect(skip).toBeFocused();
    const b = (await skip.boundingBox())!;
    expect(b.y).toBeGreaterThanOrEqual(0);
    await page.keyboard.press("Enter");
    await expect(canvasNode(page, "sk-debug")).toBeFocused();

    const empty = await createFlowViaApi(page.request, token, { name: "Skip empty", nodes: [] });
    await openEditor(page, empty.id);
    await page.locator("body").focus();
    await page.keyboard.press("Tab");
    await expect(skip).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("region", { name: "Canvas" })).toBeFocused();
  });
});

async function viewerPage(browser: Browser, email: string, orgName: string, body: (p: Page) => Promise<void>) {
  const context = await browser.newContext();
  const p = await context.newPage();
  await logIn(p, email, PASSWORD);
  const switcher = p.getByRole("banner").getByRole("button", { name: /^Organization\b/ });
  await switcher.click();
  await p.getByRole("banner").getByRole("button", { name: `Switch to ${orgName}` }).click();
  await expect(switcher).toContainText(orgName);
  await body(p);
  await context.close();
}

/**
 * The palette's list and the sidebar's tab strip are one Tab stop each (a newcomer's walk pressed
 * Tab through some 70 palette entries): the arrow keys move within them, Home and End to their
 * ends; the sidebar's tabs as WAI-ARIA's tabs pattern (the arrows choose a tab).
 */
test("the palette and the sidebar's tabs by keyboard: one Tab stop each, arrows, Home and End", async ({ page }) => {
  await signedInWithFlow(page, "sidebar-keys", { name: "Keys", nodes: [{ id: "k-inject", type: "inject", position: { x: 0, y: 0 } }] });
  const items = palette(page).locator(".palette-item");
  const count = await items.count();
  expect(count).toBeGreaterThan(20);
  const search = palette(page).getByLabel("Search nodes");
  await search.focus();
  await page.keyboard.press("ArrowDown");
  await expect(items.first()).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(items.nth(1)).toBeFocused();
  await page.keyboard.press("End");
  await expect(items.last()).toBeFocused();
  await page.keyboard.press("Home");
  await expect(items.first()).toBeFocused();
  await page.keyboard.press("ArrowUp");
  await expect(search).toBeFocused();
  // Tab: into the list once, then out of it (not through every entry).
  await page.keyboard.press("Tab");
  await expect(items.first()).toBeFocused();
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement?.classList.contains("palette-item") ?? false)).toBe(false);
  await expect(palette(page).locator('.palette-item[tabindex="0"]')).toHaveCount(1);
  // Enter on an entry reached by the arrows adds it, as a click does.
  await search.focus();
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  await expect(canvasNodes(page)).toHaveCount(2);

  const strip = page.getByRole("tablist", { name: "Sidebar panels" });
  const tab = (name: string) => strip.getByRole("tab", { name, exact: true });
  const names = await strip.getByRole("tab").allInnerTexts();
  expect(names.length).toBeGreaterThan(3);
  await tab(names[0]!).focus();
  await expect(tab(names[0]!)).toHaveAttribute("aria-selected", "true");
  // Only the chosen tab is in the Tab order.
  await expect(strip.locator('[role="tab"][tabindex="0"]')).toHaveCount(1);
  await page.keyboard.press("ArrowRight");
  await expect(tab(names[1]!)).toBeFocused();
  await expect(tab(names[1]!)).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("tabpanel")).toHaveAttribute("aria-labelledby", (await tab(names[1]!).getAttribute("id"))!);
  await page.keyboard.press("End");
  await expect(tab(names.at(-1)!)).toBeFocused();
  await expect(tab(names.at(-1)!)).toHaveAttribute("aria-selected", "true");
  // Past the last, the first.
  await page.keyboard.press("ArrowRight");
  await expect(tab(names[0]!)).toBeFocused();
  await page.keyboard.press("ArrowLeft");
  await expect(tab(names.at(-1)!)).toBeFocused();
  await page.keyboard.press("Home");
  await expect(tab(names[0]!)).toHaveAttribute("aria-selected", "true");
  // Tab leaves the strip for the panel, not for the next tab.
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement?.getAttribute("role") ?? "")).not.toBe("tab");
  // And Shift+Tab comes back to the chosen tab, not to the last of the strip.
  await page.keyboard.press("Shift+Tab");
  await expect(tab(names[0]!)).toBeFocused();
});

/** The sidebar's left edge (Node-RED's separator) resizes it, by mouse and by keyboard, and the width is kept for the next editor. */
test("the sidebar is made wider or narrower by its edge, by mouse and keyboard, and keeps its width", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signedInWithFlow(page, "sidebar-width", { name: "Wide", nodes: [{ id: "w-inject", type: "inject", position: { x: 0, y: 0 } }] });
  const sidebar = page.getByRole("complementary", { name: "Sidebar" });
  const edge = page.getByRole("separator", { name: "Sidebar width" });
  const widthOf = async () => Math.round((await sidebar.boundingBox())!.width);
  const start = await widthOf();
  await expect(edge).toHaveAttribute("aria-valuenow", String(start));
  // Keyboard: ← widens by 16 px a press, → narrows; Home is the narrowest.
  await edge.focus();
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("ArrowLeft");
  await expect.poll(widthOf).toBe(start + 32);
  await page.keyboard.press("ArrowRight");
  await expect.poll(widthOf).toBe(start + 16);
  await page.keyboard.press("Home");
  await expect.poll(widthOf).toBe(240);
  // Mouse: drag the edge 200 px to the left.
  const box = (await edge.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + 200);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 - 100, box.y + 200, { steps: 4 });
  await page.mouse.move(box.x + box.width / 2 - 200, box.y + 200, { steps: 4 });
  await page.mouse.up();
  await expect.poll(widthOf).toBe(440);
  await expect(edge).toHaveAttribute("aria-valuenow", "440");
  await shot(page, "editor-sidebar-wide");
  // Kept for the next editor page.
  await page.reload();
  await expect(page.locator(".react-flow__renderer")).toBeVisible();
  await expect.poll(widthOf).toBe(440);
});
