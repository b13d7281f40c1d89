import { expect, test, type APIRequestContext, type Browser, type Page } from "@playwright/test";
import { logIn } from "../helpers/accounts";
import { auth, createFlow, liveFlow, registerUser } from "../helpers/live";
import { canvasNodes } from "../helpers/flows";
import { expectAccessible, shot } from "../helpers/page";

test.describe.configure({ timeout: 90_000 });

// The signed-in pages people open from a phone: none may be wider than the screen (the header's
// links, the organization switcher and the address used to make every page 1,108 px wide at 390).
const PAGES = [
  "/flows",
  "/files",
  "/devices",
  "/settings/organization",
  "/settings/members",
  "/settings/api-keys",
  "/settings/variables",
  "/settings/audit-log",
  "/account/security",
  "/docs",
];

// The screen is the context's viewport: on a mobile browser (isMobile) the layout viewport, and so
// window.innerWidth, widens to a page that is too wide, which would hide the very overflow measured.
const pageWidths = async (page: Page) => ({
  scroll: await page.evaluate(() => document.documentElement.scrollWidth),
  screen: page.viewportSize()!.width,
});

test("on a phone every signed-in page fits the screen and the header's links fold behind a Menu button that works with the keyboard", async ({ browser, request }) => {
  const owner = await registerUser(request, "narrow");
  // Rows in the tables the pages show (a session, an API key, audit entries).
  const key = await request.post("/api/v1/api-keys", { headers: auth(owner), data: { name: "a key with a rather long name for a phone" } });
  expect(key.status()).toBe(201);
  const flowName = "A flow with a fairly long name for a small phone screen";
  const flow = await request.post("/api/v1/flows", { headers: auth(owner), data: { name: flowName, nodes: [], connections: [] } });
  expect(flow.status()).toBe(201);

  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  try {
    await logIn(page, owner.email);
    const header = page.getByRole("banner");
    const menu = header.getByRole("button", { name: "Menu" });
    const nav = header.getByRole("navigation", { name: "Main" });

    for (const path of PAGES) {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      // Measured once the page's data is in (the audit log's filter and rows come after its heading).
      await page.waitForLoadState("networkidle");
      await expect(page.getByText(/^Loading/)).toHaveCount(0);
      const { scroll, screen } = await pageWidths(page);
      expect(scroll, `${path} is ${scroll} px wide on a ${screen} px screen`).toBeLessThanOrEqual(screen);
      // Nor is any of its buttons out of sight in a table that scrolls sideways (tables stack on a phone).
      const beyond = await page.evaluate(
        (width) =>
          [...document.querySelectorAll<HTMLElement>("main button, main a.button")]
            .filter((b) => b.offsetParent !== null && b.getBoundingClientRect().right > width + 0.5)
            .map((b) => b.getAttribute("aria-label") ?? b.textContent),
        screen,
      );
      expect(beyond, `${path}: buttons beyond the screen's edge`).toEqual([]);
    }

    // The flow list: each flow a block, its name and every button on the screen (not scrolled out of
    // a table squeezed to four columns).
    await page.goto("/flows");
    const row = page.getByRole("row", { name: new RegExp(flowName) });
    await expect(row.getByRole("link", { name: flowName })).toBeInViewport({ ratio: 1 });
    for (const action of ["Export", "Disable", "Delete"]) {
      await expect(row.getByRole("button", { name: `${action} ${flowName}` })).toBeInViewport({ ratio: 1 });
    }
    await expect(row).toContainText("0 nodes");
    await shot(page, "narrow-flows");

    // Folded: the links are not shown until Menu is pressed.
    await expect(menu).toHaveAttribute("aria-expanded", "false");
    await expect(nav.getByRole("link", { name: "Files" })).toBeHidden();
    await expect(header.getByRole("button", { name: "Log out" })).toBeHidden();

    // Keyboard alone: focus Menu, open it, the links are there; Escape folds it and focus stays on Menu.
    await menu.focus();
    await page.keyboard.press("Enter");
    await expect(menu).toHaveAttribute("aria-expanded", "true");
    await expect(nav.getByRole("link", { name: "Files" })).toBeVisible();
    await expect(header.getByRole("button", { name: "Log out" })).toBeVisible();
    await expect(header.getByRole("button", { name: /Organization/ })).toBeVisible();
    await shot(page, "narrow-menu-open");
    await expectAccessible(page);
    await page.keyboard.press("Tab");
    await expect(nav.getByRole("link", { name: "API docs" })).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(menu).toHaveAttribute("aria-expanded", "false");
    await expect(menu).toBeFocused();
    await expect(nav.getByRole("link", { name: "Files" })).toBeHidden();

    // The organization switcher's own Escape closes its list, not the menu around it.
    await menu.click();
    await header.getByRole("button", { name: /Organization/ }).click();
    await expect(header.getByRole("button", { name: /Organization/ })).toHaveAttribute("aria-expanded", "true");
    const { scroll, screen } = await pageWidths(page);
    expect(scroll, "the organization list stays on the screen").toBeLessThanOrEqual(screen);
    await page.keyboard.press("Escape");
    await expect(header.getByRole("button", { name: /Organization/ })).toHaveAttribute("aria-expanded", "false");
    await expect(menu).toHaveAttribute("aria-expanded", "true");

    // Following a link folds the menu on the page it leads to.
    await nav.getByRole("link", { name: "Files" }).click();
    await expect(page).toHaveURL(/\/files$/);
    await expect(page.getByRole("heading", { level: 1, name: "Files" })).toBeVisible();
    await expect(menu).toHaveAttribute("aria-expanded", "false");
    await expect(nav.getByRole("link", { name: "Flows" })).toBeHidden();
  } finally {
    await context.close();
  }
});

test("on a wide screen the header's links are shown without a Menu button", async ({ page, request }) => {
  const owner = await registerUser(request, "wide");
  await logIn(page, owner.email);
  const header = page.getByRole("banner");
  await expect(header.getByRole("button", { name: "Menu" })).toBeHidden();
  await expect(header.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Flows" })).toBeVisible();
  await expect(header.getByRole("button", { name: "Log out" })).toBeVisible();
  const { scroll, screen } = await pageWidths(page);
  expect(scroll).toBeLessThanOrEqual(screen);
});

// The flow editor on a tablet or a phone: the canvas has the width, the palette and the sidebar are
// drawers over it (they used to stack in a 160 px column beside a canvas 420 px tall), and on a
// phone the edit commands fold behind an Edit button.
/** A new owner's flow (inject → function "tagger" → debug) open in the editor on a touch screen of that size. */
async function editorOnTouchScreen(browser: Browser, request: APIRequestContext, label: string, viewport: { width: number; height: number }) {
  const owner = await registerUser(request, label);
  const flow = await createFlow(request, owner, `${label} flow`, liveFlow(label).graph("v1"));
  const context = await browser.newContext({ viewport, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  try {
    await logIn(page, owner.email);
    await page.goto(`/flows/${flow.id}`);
    // The editor has loaded its flow (its nodes drawn) before a test taps its toolbar. The server's
    // HTML draws them too: the drawer buttons stay disabled until React listens, and tap() waits
    // for them to be enabled (two runs: a tap on the server's HTML, the Sidebar drawer never opened).
    await expect(canvasNodes(page)).toHaveCount(3);
  } catch (err) {
    await context.close();
    throw err;
  }
  return { context, page };
}

test("on a phone the editor's canvas has the width, the palette and the sidebar open as drawers, and a flow can be built, deployed and debugged", async ({ browser, request }) => {
  const { context, page } = await editorOnTouchScreen(browser, request, "narrow-editor", { width: 390, height: 844 });
  try {
    const toolbar = page.getByRole("toolbar", { name: "Flow editor" });
    const paletteButton = toolbar.getByRole("button", { name: "Palette" });
    const sidebarButton = toolbar.getByRole("button", { name: "Sidebar" });
    const editButton = toolbar.getByRole("button", { name: "Edit", exact: true });
    const palette = page.getByRole("region", { name: "Palette" });
    const sidebar = page.getByRole("complementary", { name: "Sidebar" });
    const canvas = page.locator(".editor-canvas");
    const nodes = page.locator(".react-flow__node");

    await expect(nodes).toHaveCount(3);
    await expect(palette).toBeHidden();
    await expect(sidebar).toBeHidden();
    const box = (await canvas.boundingBox())!;
    expect(box.width, "the canvas has the screen's width").toBeGreaterThanOrEqual(389);
    expect(box.height, "and most of its height").toBeGreaterThan(500);
    const { scroll, screen } = await pageWidths(page);
    expect(scroll).toBeLessThanOrEqual(screen);
    // The edit commands are behind Edit; Undo is not on the toolbar until it is pressed.
    await expect(toolbar.getByRole("button", { name: "Undo" })).toBeHidden();

    // The palette: a drawer over the canvas; a tap on a type adds it and folds the drawer.
    await paletteButton.tap();
    await expect(paletteButton).toHaveAttribute("aria-expanded", "true");
    await expect(palette).toBeVisible();
    await expect(palette).toBeInViewport({ ratio: 1 });
    await shot(page, "narrow-editor-palette");
    await expectAccessible(page);
    await palette.locator('button.palette-item[data-type="delay"]').tap();
    await expect(nodes).toHaveCount(4);
    await expect(palette).toBeHidden();
    await expect(paletteButton).toHaveAttribute("aria-expanded", "false");
    await expect(toolbar).toContainText("unsaved changes");

    // Edit → Undo takes the new node away; Escape folds the menu back onto its button.
    await editButton.tap();
    await expect(editButton).toHaveAttribute("aria-expanded", "true");
    await toolbar.getByRole("button", { name: "Undo" }).tap();
    await expect(nodes).toHaveCount(3);
    await toolbar.getByRole("button", { name: "Redo" }).focus();
    await page.keyboard.press("Escape");
    await expect(editButton).toHaveAttribute("aria-expanded", "false");
    await expect(editButton).toBeFocused();
    await expect(toolbar.getByRole("button", { name: "Undo" })).toBeHidden();

    // Deploy, Inject, and the message in the sidebar's Debug tab.
    await toolbar.getByRole("button", { name: "Deploy" }).tap();
    await expect(page.getByTestId("flow-state")).toHaveText("Running");
    await nodes.filter({ has: page.getByRole("button", { name: "Inject" }) }).getByRole("button", { name: "Inject" }).tap();
    await sidebarButton.tap();
    await expect(sidebar).toBeVisible();
    await sidebar.getByRole("tab", { name: "Debug" }).tap();
    const message = page.getByRole("region", { name: "Debug" }).getByTestId("debug-message").first();
    await expect(message).toContainText("{ version, said }");
    await shot(page, "narrow-editor-debug");
    // Escape folds the sidebar and gives the focus back to its button; so does a tap on the canvas.
    await sidebar.getByRole("tab", { name: "Node" }).focus();
    await page.keyboard.press("Escape");
    await expect(sidebar).toBeHidden();
    await expect(sidebarButton).toBeFocused();
    await sidebarButton.tap();
    await expect(sidebar).toBeVisible();
    await canvas.tap({ position: { x: 30, y: 60 } });
    await expect(sidebar).toBeHidden();

    // A node's dialog from the sidebar: the drawer folds, the dialog fits the screen.
    await nodes.filter({ hasText: "tagger" }).tap();
    await sidebarButton.tap();
    await sidebar.getByRole("tab", { name: "Node" }).tap();
    await sidebar.getByRole("button", { name: "Edit node" }).tap();
    const dialog = page.locator("dialog[open]");
    await expect(dialog.getByRole("heading", { name: "Edit function node" })).toBeVisible();
    await expect(sidebar).toBeHidden();
    const dialogBox = (await dialog.boundingBox())!;
    expect(dialogBox.x).toBeGreaterThanOrEqual(0);
    expect(dialogBox.x + dialogBox.width).toBeLessThanOrEqual(390);
    await shot(page, "narrow-editor-dialog");
  } finally {
    await context.close();
  }
});

test("on a tablet the editor keeps its toolbar's commands and shows the palette and the sidebar as drawers; on a wide screen as columns", async ({ browser, request }) => {
  const { context, page } = await editorOnTouchScreen(browser, request, "tablet-editor", { width: 768, height: 1024 });
  try {
    const toolbar = page.getByRole("toolbar", { name: "Flow editor" });
    await expect(toolbar.getByRole("button", { name: "Undo" })).toBeVisible();
    await expect(toolbar.getByRole("button", { name: "Edit", exact: true })).toBeHidden();
    await expect(page.getByRole("complementary", { name: "Sidebar" })).toBeHidden();
    await toolbar.getByRole("button", { name: "Sidebar" }).tap();
    await expect(page.getByRole("complementary", { name: "Sidebar" })).toBeInViewport({ ratio: 1 });
    await shot(page, "tablet-editor-sidebar");
    // Wider than 900 px: three columns, no drawer buttons.
    await page.setViewportSize({ width: 1280, height: 800 });
    await expect(page.getByRole("region", { name: "Palette" })).toBeVisible();
    await expect(page.getByRole("complementary", { name: "Sidebar" })).toBeVisible();
    await expect(toolbar.getByRole("button", { name: "Palette" })).toBeHidden();
    await expect(toolbar.getByRole("button", { name: "Sidebar" })).toBeHidden();
  } finally {
    await context.close();
  }
});
