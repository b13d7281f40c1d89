import { expect, test, type Page } from "@playwright/test";
import { logIn, registerViaApi, uniqueEmail } from "../helpers/accounts";
import { accessToken, canvasNode, createFlowViaApi, getFlowViaApi, shot } from "../helpers/flows";
import { joinAs, registerUser } from "../helpers/live";

const mod = process.platform === "darwin" ? "Meta" : "Control";
const palette = (page: Page) => page.getByRole("region", { name: "Palette" });
const toolbar = (page: Page) => page.getByRole("toolbar", { name: "Flow editor" });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The element's box once it has stopped moving (the canvas fits its view after the nodes are measured). */
async function settledBox(page: Page, selector: string) {
  const locator = page.locator(selector).first();
  // As a user would: scroll the palette (or canvas) until the item is in view before pressing on it.
  await locator.scrollIntoViewIfNeeded();
  let last: { x: number; y: number; width: number; height: number } | null = null;
  for (let i = 0; i < 50; i++) {
    const box = await locator.boundingBox();
    if (!box) throw new Error(`${selector} is not on screen`);
    if (last && (["x", "y", "width", "height"] as const).every((k) => Math.abs(last![k] - box[k]) < 0.5)) return box;
    last = box;
    await page.waitForTimeout(50);
  }
  throw new Error(`${selector} kept moving`);
}

async function center(page: Page, selector: string) {
  const box = await settledBox(page, selector);
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

async function drag(page: Page, from: { x: number; y: number }, to: { x: number; y: number }) {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(from.x + (to.x - from.x) / 3, from.y + (to.y - from.y) / 3, { steps: 5 });
  await page.mouse.move(to.x, to.y, { steps: 10 });
  await page.mouse.up();
}

async function wire(page: Page, sourceId: string, targetId: string) {
  const from = await center(page, `.react-flow__node[data-id="${sourceId}"] .react-flow__handle.source[data-handleid="o0"]`);
  const to = await center(page, `.react-flow__node[data-id="${targetId}"] .react-flow__handle.target`);
  await drag(page, from, to);
}

async function signedIn(page: Page, label: string) {
  const email = uniqueEmail(label);
  await registerViaApi(page.request, email);
  const token = await accessToken(page.request, email);
  await logIn(page, email);
  return token;
}

async function openEditor(page: Page, id: string) {
  await page.goto(`/flows/${id}`);
  await expect(page.locator(".react-flow__renderer")).toBeVisible();
}

/** Resolves once the page's live socket has a subscription (its `subscribed` frame); call before the page loads. */
function subscribed(page: Page): Promise<void> {
  return new Promise((resolve) => {
    page.on("websocket", (ws) => {
      if (!new URL(ws.url()).pathname.endsWith("/ws")) return;
      ws.on("framereceived", (frame) => {
        if (typeof frame.payload === "string" && frame.payload.includes('"type":"subscribed"')) resolve();
      });
    });
  });
}

async function save(page: Page) {
  await page.keyboard.press(`${mod}+s`);
  await expect(toolbar(page).getByText(/· saved/)).toBeVisible();
}

test.describe("groups, junctions and subflows in the editor (SPEC §16)", () => {
  test.describe.configure({ timeout: 120_000 });

  test("group the selection, name and colour it, reach it by Tab, drag it with its nodes, ungroup: each saved and reloaded", async ({ page }) => {
    const token = await signedIn(page, "sf-groups");
    const flow = await createFlowViaApi(page.request, token, {
      name: "Grouped",
      nodes: [
        { id: "g-inject", type: "inject", position: { x: 0, y: 0 } },
        { id: "g-change", type: "change", position: { x: 260, y: 0 } },
        { id: "g-debug", type: "debug", position: { x: 520, y: 0 } },
      ],
      connections: [
        { source: "g-inject", target: "g-change" },
        { source: "g-change", target: "g-debug" },
      ],
    });
    await openEditor(page, flow.id);
    await canvasNode(page, "g-inject").click();
    await canvasNode(page, "g-change").click({ modifiers: ["Shift"] });
    await page.keyboard.press(`${mod}+Shift+G`);
    const label = page.getByRole("button", { name: "Group (unnamed)" });
    await expect(label).toBeVisible();
    await expect(page.locator(".fp-group")).toHaveCount(1);

    // Name and colour through the dialog.
    await label.click();
    await toolbar(page).getByRole("button", { name: "Edit group" }).click();
    const dialog = page.getByRole("dialog", { name: "Edit group" });
    await dialog.getByLabel("Name", { exact: true }).fill("Parsing");
    await dialog.getByLabel("Fill colour").fill("#ffcc00");
    await dialog.getByRole("button", { name: "Done" }).click();
    const named = page.getByRole("button", { name: "Group Parsing" });
    await expect(named).toBeVisible();
    await shot(page, "subflows-group");

    // Keyboard: Tab from the last node (a debug node: its Active button first) reaches the group's label.
    await canvasNode(page, "g-debug").focus();
    await page.keyboard.press("Tab");
    await expect(canvasNode(page, "g-debug").getByRole("button", { name: "Active" })).toBeFocused();
    await page.keyboard.press("Tab");
    await expect(named).toBeFocused();

    // Dragging the label moves the members (one undo entry).
    const before = await canvasNode(page, "g-inject").boundingBox();
    const debugBefore = await canvasNode(page, "g-debug").boundingBox();
    const grip = await center(page, ".fp-group-label");
    await drag(page, grip, { x: grip.x + 120, y: grip.y + 80 });
    const after = await canvasNode(page, "g-inject").boundingBox();
    expect(after!.x - before!.x).toBeGreaterThan(80);
    expect(after!.y - before!.y).toBeGreaterThan(50);
    expect((await canvasNode(page, "g-debug").boundingBox())!.x).toBeCloseTo(debugBefore!.x, 0);
    await save(page);

    let saved = await getFlowViaApi(page.request, token, flow.id);
    const groups = (saved as unknown as { groups: Array<{ name: string; nodes: string[]; style: Record<string, unknown> }> }).groups;
    expect(groups).toHaveLength(1);
    expect(groups[0]!.name).toBe("Parsing");
    expect(groups[0]!.style.fill).toBe("#ffcc00");
    expect(groups[0]!.nodes.sort()).toEqual(["g-change", "g-inject"]);
    expect(saved.nodes.find((n) => n.id === "g-inject")!.position.x).toBeGreaterThan(80);

    // Reloaded: the box is drawn from the saved group.
    await page.reload();
    await expect(page.getByRole("button", { name: "Group Parsing" })).toBeVisible();

    // The border selects the group too (the inside is the canvas's).
    const edge = await settledBox(page, ".fp-group");
    await page.mouse.click(edge.x + edge.width / 2, edge.y + edge.height - 2);
    await expect(canvasNode(page, "g-change")).toHaveClass(/selected/);
    await expect(canvasNode(page, "g-inject")).toHaveClass(/selected/);
    await expect(page.getByRole("button", { name: "Group Parsing" })).toHaveAttribute("aria-pressed", "true");
    await canvasNode(page, "g-debug").click();
    await expect(page.getByRole("button", { name: "Group Parsing" })).toHaveAttribute("aria-pressed", "false");

    // Ungroup: select the group by its label (Enter), Ctrl+Shift+U; undo brings it back, redo removes it.
    await page.getByRole("button", { name: "Group Parsing" }).focus();
    await page.keyboard.press("Enter");
    await expect(canvasNode(page, "g-inject")).toHaveClass(/selected/);
    await page.keyboard.press(`${mod}+Shift+U`);
    await expect(page.locator(".fp-group")).toHaveCount(0);
    await page.keyboard.press(`${mod}+z`);
    await expect(page.locator(".fp-group")).toHaveCount(1);
    await page.keyboard.press(`${mod}+Shift+z`);
    await expect(page.locator(".fp-group")).toHaveCount(0);
    await save(page);
    saved = await getFlowViaApi(page.request, token, flow.id);
    expect((saved as unknown as { groups: unknown[] }).groups).toEqual([]);
    await page.reload();
    await expect(canvasNode(page, "g-inject")).toBeVisible();
    await expect(page.locator(".fp-group")).toHaveCount(0);
  });

  test("a junction from the palette is a dot that wires pass through, saved as a junction node", async ({ page }) => {
    const token = await signedIn(page, "sf-junction");
    const flow = await createFlowViaApi(page.request, token, {
      name: "Junction",
      nodes: [
        { id: "j-inject", type: "inject", position: { x: 0, y: 0 } },
        { id: "j-debug", type: "debug", position: { x: 520, y: 120 } },
      ],
    });
    await openEditor(page, flow.id);
    await palette(page).getByRole("button", { name: "junction", exact: true }).click();
    const junction = page.locator('.react-flow__node[data-node-type="junction"]');
    await expect(junction).toHaveCount(1);
    const box = await junction.boundingBox();
    expect(box!.width).toBeLessThan(30);
    const id = (await junction.getAttribute("data-id"))!;
    // Clear of the other nodes before wiring.
    await drag(page, await center(page, `.react-flow__node[data-id="${id}"]`), { x: (await center(page, '.react-flow__node[data-id="j-inject"]')).x + 180, y: (await center(page, '.react-flow__node[data-id="j-inject"]')).y + 100 });
    // Each wire checked on its own, so a failure names the one that did not connect.
    await wire(page, "j-inject", id);
    await expect(page.locator(`.react-flow__edge[data-id^="j-inject"]`), "the wire into the junction").toHaveCount(1);
    await wire(page, id, "j-debug");
    await expect(page.locator(".react-flow__edge"), "the wire out of the junction").toHaveCount(2);
    await shot(page, "subflows-junction");
    await save(page);
    const saved = await getFlowViaApi(page.request, token, flow.id);
    expect(saved.nodes.find((n) => n.id === id)!.type).toBe("junction");
    expect(saved.connections).toEqual(expect.arrayContaining([expect.objectContaining({ source: "j-inject", target: id }), expect.objectContaining({ source: id, target: "j-debug" })]));
  });

  test("a subflow used twice: open it by double-click, change it, Deploy; both instances change behaviour", async ({ page }) => {
    const token = await signedIn(page, "sf-edit");
    const created = await page.request.post("/api/v1/subflows", {
      headers: bearer(token),
      data: {
        name: "Stamp",
        category: "tools",
        env: [{ name: "WHO", type: "str", value: "world" }],
        nodes: [
          { id: "s-in", type: "subflow-in", position: { x: 40, y: 40 } },
          { id: "s-change", type: "change", name: "stamp", position: { x: 240, y: 40 }, config: { rules: [{ t: "set", p: "payload", p_type: "msg", to: "v1", to_type: "str" }] } },
          { id: "s-out", type: "subflow-out", position: { x: 480, y: 40 }, config: { port: 0 } },
        ],
        connections: [
          { source: "s-in", target: "s-change" },
          { source: "s-change", target: "s-out" },
        ],
      },
    });
    expect(created.status(), await created.text()).toBe(201);
    const subflow = (await created.json()).subflow as { id: string };
    const type = `subflow:${subflow.id}`;
    const flow = await createFlowViaApi(page.request, token, {
      name: "Uses stamp",
      nodes: [
        { id: "u-inject-a", type: "inject", name: "A", position: { x: 0, y: 0 } },
        { id: "u-inst-a", type, position: { x: 240, y: 0 } },
        { id: "u-inject-b", type: "inject", name: "B", position: { x: 0, y: 160 } },
        { id: "u-inst-b", type, position: { x: 240, y: 160 }, config: { env: [{ name: "WHO", type: "str", value: "you" }] } },
        { id: "u-debug", type: "debug", name: "out", position: { x: 500, y: 80 } },
      ],
      connections: [
        { source: "u-inject-a", target: "u-inst-a" },
        { source: "u-inject-b", target: "u-inst-b" },
        { source: "u-inst-a", target: "u-debug" },
        { source: "u-inst-b", target: "u-debug" },
      ],
    });
    const deployed = await page.request.post(`/api/v1/flows/${flow.id}/deploy`, { headers: bearer(token) });
    expect(deployed.status(), await deployed.text()).toBeLessThan(300);
    await openEditor(page, flow.id);

    // The palette lists the subflow under its category; instances draw their definition's ports.
    await expect(palette(page).getByRole("heading", { name: "Tools" })).toBeVisible();
    await expect(palette(page).getByRole("button", { name: "Stamp", exact: true })).toBeVisible();
    await expect(canvasNode(page, "u-inst-a").locator(".react-flow__handle.source")).toHaveCount(1);
    await expect(canvasNode(page, "u-inst-a").locator(".react-flow__handle.target")).toHaveCount(1);
    await expect(canvasNode(page, "u-inst-a")).toContainText("Stamp");

    // The instance's dialog (the Node tab's Edit node) edits its env properties, with the definition's defaults shown.
    await canvasNode(page, "u-inst-b").click();
    await page.getByRole("button", { name: "Edit node" }).click();
    const instDialog = page.getByRole("dialog", { name: `Edit ${type} node` });
    await expect(instDialog.getByLabel("WHO")).toHaveValue("you");
    await expect(instDialog.getByText("Default: world (str)")).toBeVisible();
    await instDialog.getByRole("button", { name: "Cancel" }).click();

    // From the keyboard: Enter on a focused instance opens its dialog (SPEC §10), whose "Edit subflow"
    // opens the definition in the same editor, with a breadcrumb back (a double-click goes there at once).
    await canvasNode(page, "u-inst-b").focus();
    await page.keyboard.press("Enter");
    const keyDialog = page.getByRole("dialog", { name: `Edit ${type} node` });
    await expect(keyDialog).toBeVisible();
    await keyDialog.getByRole("button", { name: "Edit subflow" }).focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(new RegExp(`/subflows/${subflow.id}\\?from=${flow.id}`));
    await page.goBack();
    await canvasNode(page, "u-inst-a").dblclick();
    await expect(page).toHaveURL(new RegExp(`/subflows/${subflow.id}\\?from=${flow.id}`));
    const crumbs = page.getByRole("navigation", { name: "Breadcrumb" });
    await expect(crumbs.getByRole("link", { name: "Uses stamp" })).toBeVisible();
    await expect(crumbs).toContainText("Stamp");
    await expect(palette(page).getByRole("button", { name: "subflow-out", exact: true })).toBeVisible();
    await expect(toolbar(page).getByText("Used by 1 flow.")).toBeVisible();
    await canvasNode(page, "s-change").dblclick();
    const change = page.getByRole("dialog", { name: "Edit change node" });
    await change.getByRole("textbox", { name: "To the value (rule 1)", exact: true }).fill("v2");
    await change.getByRole("button", { name: "Done" }).click();
    await shot(page, "subflows-definition");
    await toolbar(page).getByRole("button", { name: "Deploy" }).click();
    await expect(toolbar(page).getByText("Deployed to 1 flow.")).toBeVisible();
    const def = await page.request.get(`/api/v1/subflows/${subflow.id}`, { headers: bearer(token) });
    const body = (await def.json()).subflow as { revision: number; nodes: Array<{ id: string; config: { rules: Array<{ to: string }> } }> };
    expect(body.revision).toBe(2);
    expect(body.nodes.find((n) => n.id === "s-change")!.config.rules[0]!.to).toBe("v2");

    // Back to the flow: both instances now send v2.
    await crumbs.getByRole("link", { name: "Uses stamp" }).click();
    await expect(page).toHaveURL(new RegExp(`/flows/${flow.id}$`));
    await page.getByRole("tablist", { name: "Sidebar panels" }).getByRole("tab", { name: "Debug" }).click();
    const debug = page.getByRole("region", { name: "Debug" });
    await canvasNode(page, "u-inject-a").getByRole("button", { name: "Inject" }).click();
    await canvasNode(page, "u-inject-b").getByRole("button", { name: "Inject" }).click();
    await expect(debug.getByTestId("debug-message")).toHaveCount(2);
    await expect(debug.getByTestId("debug-message").nth(0)).toContainText("v2");
    await expect(debug.getByTestId("debug-message").nth(1)).toContainText("v2");
    await shot(page, "subflows-both-instances");
  });

  test("a subflow's editor shows its debug nodes' messages from every flow that uses it, live; a message leads to its node", async ({ page }) => {
    const token = await signedIn(page, "sf-debug");
    const created = await page.request.post("/api/v1/subflows", {
      headers: bearer(token),
      data: {
        name: "Probe",
        nodes: [
          { id: "p-in", type: "subflow-in", position: { x: 40, y: 40 } },
          { id: "p-dbg", type: "debug", name: "inside", position: { x: 300, y: 40 } },
        ],
        connections: [{ source: "p-in", target: "p-dbg" }],
      },
    });
    expect(created.status(), await created.text()).toBe(201);
    const subflow = (await created.json()).subflow as { id: string };
    const uses = async (name: string, payload: string) =>
      createFlowViaApi(page.request, token, {
        name,
        nodes: [
          { id: `${name}-go`, type: "inject", position: { x: 0, y: 0 }, config: { payload_type: "string", payload } },
          { id: `${name}-probe`, type: `subflow:${subflow.id}`, position: { x: 240, y: 0 } },
        ],
        connections: [{ source: `${name}-go`, target: `${name}-probe` }],
      });
    const first = await uses("first", "from first");
    const second = await uses("second", "from second");
    const other = await createFlowViaApi(page.request, token, {
      name: "Unrelated",
      nodes: [
        { id: "o-go", type: "inject", position: { x: 0, y: 0 }, config: { payload_type: "string", payload: "elsewhere" } },
        { id: "o-dbg", type: "debug", name: "outside", position: { x: 240, y: 0 } },
      ],
      connections: [{ source: "o-go", target: "o-dbg" }],
    });
    for (const flow of [first, second, other]) {
      const deployed = await page.request.post(`/api/v1/flows/${flow.id}/deploy`, { headers: bearer(token) });
      expect(deployed.status(), await deployed.text()).toBeLessThan(300);
    }

    // Messages are live, not kept: each page's socket has subscribed before anything is injected.
    let live = subscribed(page);
    await page.goto(`/subflows/${subflow.id}`);
    await live;
    await expect(canvasNode(page, "p-dbg")).toBeVisible();
    await page.getByRole("tablist", { name: "Sidebar panels" }).getByRole("tab", { name: "Debug" }).click();
    const debug = page.getByRole("region", { name: "Debug" });
    await expect(debug).toContainText("No debug messages yet");
    const inject = async (id: string) => expect((await page.request.post(`/api/v1/nodes/${id}/inject`, { headers: bearer(token), data: {} })).status()).toBe(200);
    await inject("first-go");
    await expect(debug.getByTestId("debug-message")).toHaveCount(1);
    await inject("o-go");
    await inject("second-go");
    // This subflow's messages only, from both flows that use it, named after the definition's node.
    const messages = debug.getByTestId("debug-message");
    await expect(messages).toHaveCount(2);
    await expect(messages.nth(0)).toContainText("from first");
    await expect(messages.nth(0)).toContainText("in first");
    await expect(messages.nth(1)).toContainText("from second");
    await expect(messages.nth(1)).toContainText("in second");
    await expect(messages.nth(1).getByRole("button", { name: "inside" })).toBeVisible();
    await messages.nth(1).getByRole("button", { name: "inside" }).click();
    await expect(canvasNode(page, "p-dbg").locator(".fp-node")).toHaveClass(/highlighted/);
    await shot(page, "subflows-debug");
    // "All flows" keeps the others' too, marked as such.
    await debug.getByLabel("Which flows").selectOption("all");
    await inject("o-go");
    await expect(messages).toHaveCount(3);
    await expect(messages.nth(2)).toContainText("elsewhere");
    await expect(messages.nth(2)).toContainText("other flow");

    // On the flow's page the same message belongs to the instance: a click selects it.
    live = subscribed(page);
    await openEditor(page, first.id);
    await live;
    await page.getByRole("tablist", { name: "Sidebar panels" }).getByRole("tab", { name: "Debug" }).click();
    await inject("first-go");
    const onFlow = page.getByRole("region", { name: "Debug" }).getByTestId("debug-message");
    await expect(onFlow).toHaveCount(1);
    await onFlow.first().getByRole("button", { name: "inside" }).click();
    await expect(canvasNode(page, "first-probe").locator(".fp-node")).toHaveClass(/highlighted/);
    // The node filter offers the instance under its definition's name.
    const byNode = page.getByRole("region", { name: "Debug" }).getByLabel("Filter by node");
    await byNode.selectOption({ label: "Probe" });
    await expect(onFlow).toHaveCount(1);
  });

  test("selection to subflow: one instance in the selection's place, wired as before; undo puts the nodes back", async ({ page }) => {
    const token = await signedIn(page, "sf-convert");
    const flow = await createFlowViaApi(page.request, token, {
      name: "Convert",
      nodes: [
        { id: "c-inject", type: "inject", position: { x: 0, y: 0 } },
        { id: "c-change", type: "change", name: "twice", position: { x: 260, y: 0 } },
        { id: "c-json", type: "json", position: { x: 520, y: 0 } },
        { id: "c-debug", type: "debug", position: { x: 780, y: 0 } },
      ],
      connections: [
        { source: "c-inject", target: "c-change" },
        { source: "c-change", target: "c-json" },
        { source: "c-json", target: "c-debug" },
      ],
    });
    await openEditor(page, flow.id);
    await canvasNode(page, "c-change").click();
    await canvasNode(page, "c-json").click({ modifiers: ["Shift"] });
    await toolbar(page).getByRole("button", { name: "Selection to subflow" }).click();
    const instance = page.locator('.react-flow__node[data-node-type^="subflow:"]');
    await expect(instance).toHaveCount(1);
    await expect(canvasNode(page, "c-change")).toHaveCount(0);
    await expect(instance).toContainText("Subflow 1");
    await expect(page.locator(".react-flow__edge")).toHaveCount(2);
    await shot(page, "subflows-converted");
    await save(page);
    const saved = await getFlowViaApi(page.request, token, flow.id);
    const inst = saved.nodes.find((n) => n.type.startsWith("subflow:"))!;
    expect(saved.connections).toEqual(expect.arrayContaining([expect.objectContaining({ source: "c-inject", target: inst.id }), expect.objectContaining({ source: inst.id, source_port: 0, target: "c-debug" })]));
    const def = await page.request.get(`/api/v1/subflows/${inst.type.slice("subflow:".length)}`, { headers: bearer(token) });
    const body = (await def.json()).subflow as { name: string; inputs: number; outputs: number; nodes: Array<{ type: string; name: string }> };
    expect(body).toMatchObject({ name: "Subflow 1", inputs: 1, outputs: 1 });
    expect(body.nodes.map((n) => n.type).sort()).toEqual(["change", "json", "subflow-in", "subflow-out"]);

    await page.keyboard.press(`${mod}+z`);
    await expect(canvasNode(page, "c-change")).toBeVisible();
    await expect(instance).toHaveCount(0);
    await expect(page.locator(".react-flow__edge")).toHaveCount(3);
  });

  test("a definition's properties (name, category, env defaults) from its editor; another organization's subflow is not found", async ({ page, browser }) => {
    const token = await signedIn(page, "sf-props");
    const created = await page.request.post("/api/v1/subflows", {
      headers: bearer(token),
      data: { name: "Props", nodes: [{ id: "p-in", type: "subflow-in" }, { id: "p-out", type: "subflow-out", position: { x: 300, y: 0 }, config: { port: 0 } }], connections: [{ source: "p-in", target: "p-out" }] },
    });
    expect(created.status(), await created.text()).toBe(201);
    const id = ((await created.json()).subflow as { id: string }).id;
    await page.goto(`/subflows/${id}`);
    await expect(page.getByRole("navigation", { name: "Breadcrumb" }).getByRole("link", { name: "Flows" })).toBeVisible();
    await toolbar(page).getByRole("button", { name: "Subflow properties" }).click();
    const dialog = page.getByRole("dialog", { name: "Subflow properties" });
    await dialog.getByLabel("Name", { exact: true }).fill("Greeter");
    await dialog.getByLabel("Palette category").fill("team");
    await dialog.getByRole("button", { name: "Add property" }).click();
    await dialog.getByLabel("Property 1 name").fill("GREETING");
    await dialog.getByLabel("Property 1 value").fill("hi");
    await shot(page, "subflows-properties");
    await dialog.getByRole("button", { name: "Done" }).click();
    await expect(page.getByRole("navigation", { name: "Breadcrumb" })).toContainText("Greeter");
    const def = (await (await page.request.get(`/api/v1/subflows/${id}`, { headers: bearer(token) })).json()).subflow as { name: string; category: string; env: unknown[] };
    expect(def).toMatchObject({ name: "Greeter", category: "team", env: [{ name: "GREETING", type: "str", value: "hi" }] });
    await page.goto("/flows");
    // Listed in a flow's palette under its category.
    const flow = await createFlowViaApi(page.request, token, { name: "Empty" });
    await openEditor(page, flow.id);
    await expect(palette(page).getByRole("heading", { name: "Team" })).toBeVisible();
    await expect(palette(page).getByRole("button", { name: "Greeter", exact: true })).toBeVisible();

    // Someone in another organization: the definition does not exist for them.
    const other = await browser.newPage();
    await signedIn(other, "sf-props-other");
    const res = await other.goto(`/subflows/${id}`);
    expect(res!.status()).toBe(404);
    await other.close();
  });

  test("a viewer gets a subflow's editor read-only", async ({ page, request }) => {
    const owner = await registerUser(request, "sf-view-owner");
    const viewer = await joinAs(request, owner, "viewer", "sf-view-viewer");
    const created = await request.post("/api/v1/subflows", { headers: bearer(owner.token), data: { name: "Looked at", nodes: [{ id: "v-in", type: "subflow-in" }] } });
    expect(created.status(), await created.text()).toBe(201);
    const id = ((await created.json()).subflow as { id: string }).id;
    await logIn(page, viewer.email);
    await page.goto(`/subflows/${id}`);
    await expect(canvasNode(page, "v-in")).toBeVisible();
    await expect(toolbar(page).getByText("read-only")).toBeVisible();
    await expect(toolbar(page).getByRole("button", { name: "Save" })).toHaveCount(0);
    await expect(toolbar(page).getByRole("button", { name: "Deploy" })).toHaveCount(0);
    await expect(palette(page).getByRole("button", { name: "subflow-out", exact: true })).toHaveAttribute("aria-disabled", "true");
  });
});
