import { expect, test, type Page } from "@playwright/test";
import { logIn } from "../helpers/accounts";
import { auth, registerUser } from "../helpers/live";
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

const pageWidths = (page: Page) =>
  page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, screen: window.innerWidth }));

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
      const { scroll, screen } = await pageWidths(page);
      expect(scroll, `${path} is ${scroll} px wide on a ${screen} px screen`).toBeLessThanOrEqual(screen);
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
