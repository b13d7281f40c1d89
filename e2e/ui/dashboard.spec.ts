import fs from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { expect, test, type APIRequestContext, type Page, type WebSocketRoute } from "@playwright/test";
import { logIn } from "../helpers/accounts";
import { auth, registerUser, type ApiUser } from "../helpers/live";
import { expectAccessible, shot } from "../helpers/page";

test.describe.configure({ timeout: 90_000 });

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

async function slugOf(request: APIRequestContext, user: ApiUser): Promise<string> {
  const res = await request.get("/api/v1/auth/profile", { headers: auth(user) });
  expect(res.status()).toBe(200);
  return (await res.json()).organization.slug;
}

async function configNode(request: APIRequestContext, user: ApiUser, type: string, name: string, config: Record<string, unknown>): Promise<string> {
  const res = await request.post("/api/v1/config-nodes", { headers: auth(user), data: { type, name, config } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).config_node.id;
}

async function deployFlow(request: APIRequestContext, user: ApiUser, name: string, graph: { nodes: unknown[]; connections?: unknown[] }): Promise<string> {
  const created = await request.post("/api/v1/flows", { headers: auth(user), data: { name, ...graph } });
  expect(created.status(), await created.text()).toBe(201);
  const id = (await created.json()).flow.id as string;
  const deployed = await request.post(`/api/v1/flows/${id}/deploy`, { headers: auth(user) });
  expect(deployed.status(), await deployed.text()).toBe(200);
  return id;
}

/** Imports a Node-RED flows file as a user does (a dry run first: no node unsupported, or none even partly with `fully`) and deploys its first flow. */
async function importAndDeploy(request: APIRequestContext, user: ApiUser, file: string, fully = false): Promise<string> {
  return importFlowsAndDeploy(request, user, JSON.parse(fs.readFileSync(path.resolve(file), "utf8")), fully);
}

/** importAndDeploy of flows given as they are. */
async function importFlowsAndDeploy(request: APIRequestContext, user: ApiUser, flows: unknown[], fully = false): Promise<string> {
  const dry = await request.post("/api/v1/flows/import?dry_run=true", { headers: auth(user), data: { flows } });
  expect(dry.status(), await dry.text()).toBe(200);
  expect((await dry.json()).report.filter((r: { support: string }) => r.support === "unsupported" || (fully && r.support !== "supported"))).toEqual([]);
  const imported = await request.post("/api/v1/flows/import", { headers: auth(user), data: { flows } });
  expect(imported.status(), await imported.text()).toBe(201);
  const flowId = (await imported.json()).flows[0].id as string;
  expect((await request.post(`/api/v1/flows/${flowId}/deploy`, { headers: auth(user) })).status()).toBe(200);
  return flowId;
}

/** ui-base "Plant" with pages Home (/home) and Settings (/settings), a group "Controls" on Home, and ui-button → function → ui-text on it. */
async function buttonTextDashboard(request: APIRequestContext, owner: ApiUser) {
  const s = unique();
  const base = await configNode(request, owner, "ui-base", "Plant", {});
  const theme = await configNode(request, owner, "ui-theme", "Plant theme", { colors: { surface: "#ffffff", primary: "#2f6f4f", bgPage: "#eef2ee", groupBg: "#ffffff", groupOutline: "#c9d3c9" } });
  const home = await configNode(request, owner, "ui-page", "Home", { ui: base, path: "/home", theme, order: 1 });
  const settings = await configNode(request, owner, "ui-page", "Settings", { ui: base, path: "/settings", theme, order: 2 });
  const controls = await configNode(request, owner, "ui-group", "Controls", { page: home, width: 6, order: 1 });
  const status = await configNode(request, owner, "ui-group", "Status", { page: home, width: 6, order: 2 });
  const preferences = await configNode(request, owner, "ui-group", "Preferences", { page: settings, width: 6, order: 1 });
  const ids = { button: `btn-${s}`, fn: `fn-${s}`, text: `txt-${s}`, gauge: `gauge-${s}`, eco: `eco-${s}` };
  const flowId = await deployFlow(request, owner, `Dashboard ${s}`, {
    nodes: [
      { id: ids.button, type: "ui-button", position: { x: 100, y: 100 }, config: { group: controls, label: "Ask", payload: "ping", payloadType: "str", topic: "ask", topicType: "str", order: 1 } },
      // Without msg._client the answer goes to every viewer and is kept (with it: to the clicking viewer only, not kept).
      { id: ids.fn, type: "function", position: { x: 300, y: 100 }, config: { code: "msg.payload = 'answer to ' + msg.payload; delete msg._client; return msg;" } },
      { id: ids.text, type: "ui-text", position: { x: 500, y: 100 }, config: { group: status, label: "Answer", order: 1 } },
      { id: ids.gauge, type: "ui-gauge", position: { x: 500, y: 200 }, config: { group: status, title: "Pressure", min: 0, max: 10, units: "bar", order: 2 } },
      // A page shows once a deployed flow has a widget on it.
      { id: ids.eco, type: "ui-switch", position: { x: 100, y: 300 }, config: { group: preferences, label: "Eco mode", order: 1 } },
    ],
    connections: [
      { source: ids.button, target: ids.fn },
      { source: ids.fn, target: ids.text },
    ],
  });
  return { base, home, settings, controls, status, flowId, ids };
}

const dashboardGroup = (page: Page, name: string) => page.getByRole("region", { name, exact: true });

test("ui-button → function → ui-text: deployed, the dashboard answers a click; pages navigate; the editor lists and reorders them", async ({ page, request }) => {
  const owner = await registerUser(request, "dash-owner");
  const slug = await slugOf(request, owner);
  const d = await buttonTextDashboard(request, owner);
  await logIn(page, owner.email);

  await page.goto(`/dashboard/${slug}/home`);
  // Dashboard 2.0's default header content: the page's name (the dashboard's is the document title's).
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Home");
  await expect(page).toHaveTitle("Home · Plant");
  await expect(page.locator('[data-connection="online"]')).toBeVisible();
  await expect(dashboardGroup(page, "Controls")).toBeVisible();
  await page.getByRole("button", { name: "Ask" }).click();
  await expect(dashboardGroup(page, "Status").getByText("answer to ping")).toBeVisible();
  await expect(page.getByRole("meter", { name: "Pressure" })).toBeVisible();
  await shot(page, "dashboard-desktop");
  await expectAccessible(page);

  // The answer is durable: a reload shows it from the server's state.
  await page.reload();
  await expect(dashboardGroup(page, "Status").getByText("answer to ping")).toBeVisible();

  // Navigation to the other page of the same dashboard, without a reload.
  await page.getByRole("navigation", { name: "Dashboard pages" }).getByRole("link", { name: "Settings" }).click();
  await expect(page).toHaveURL(`/dashboard/${slug}/settings`);
  await expect(dashboardGroup(page, "Preferences")).toBeVisible();
  await expect(dashboardGroup(page, "Controls")).toHaveCount(0);
  await page.goBack();
  await expect(dashboardGroup(page, "Controls")).toBeVisible();
  // A page change is not a lost connection (each page has its socket): no notice said so.
  await expect(page.getByRole("status").filter({ hasText: "Live" })).toBeVisible();
  expect(await page.getByTestId("connection-notice").count()).toBe(0);

  // The editor: the Dashboard palette category, Open dashboard, and the Dashboard tab.
  await page.goto(`/flows/${d.flowId}`);
  await expect(page.getByRole("heading", { name: "Dashboard", level: 3, exact: true })).toBeVisible();
  await expect(page.getByRole("link", { name: "Open dashboard" })).toHaveAttribute("href", `/dashboard/${slug}/home`);
  await page.getByRole("tablist", { name: "Sidebar panels" }).getByRole("tab", { name: "Dashboard" }).click();
  const pages = page.getByRole("list", { name: "Pages of Plant" });
  await expect(pages.locator(":scope > li")).toHaveCount(2);
  await expect(pages.locator(":scope > li").first()).toContainText("Home");
  const groups = page.getByRole("list", { name: "Groups of Home" });
  await expect(groups.locator(":scope > li")).toHaveText([/Controls/, /Status/]);
  // Keyboard: Alt+↓ on Controls moves it after Status.
  await groups.locator(":scope > li").first().locator(".dashboard-tab-row").focus();
  await page.keyboard.press("Alt+ArrowDown");
  await expect(groups.locator(":scope > li")).toHaveText([/Status/, /Controls/]);
  const controls = await request.get(`/api/v1/config-nodes/${d.controls}`, { headers: auth(owner) });
  expect((await controls.json()).config_node.config.order).toBe(2);
  // The moved row keeps the keyboard focus; so does its ↑, unavailable once the group is first.
  await expect(groups.locator(":scope > li").nth(1).locator(".dashboard-tab-row")).toBeFocused();
  // A move writes each changed item in turn; until the last write is answered every item stays
  // put (its Move buttons unavailable, nothing draggable). Controls, now second, can move up again.
  const upControls = groups.getByRole("button", { name: "Move Controls up" });
  await expect(upControls).not.toHaveAttribute("aria-disabled", "true");
  await upControls.focus();
  await page.keyboard.press("Enter");
  await expect(groups.locator(":scope > li")).toHaveText([/Controls/, /Status/]);
  await expect(upControls).toHaveAttribute("aria-disabled", "true");
  await expect(upControls).toBeFocused();
  // The move is done once Status, now second, can move up: only then can a page be dragged.
  await expect(groups.getByRole("button", { name: "Move Status up" })).not.toHaveAttribute("aria-disabled", "true");
  // Drag: Settings onto Home makes it the first page.
  // By the page's own line (its groups are draggable items of their own inside it).
  await pages.locator(":scope > li").nth(1).locator(".dashboard-tab-line").dragTo(pages.locator(":scope > li").first().locator(".dashboard-tab-line"));
  await expect(pages.locator(":scope > li").first()).toContainText("Settings");
  const settings = await request.get(`/api/v1/config-nodes/${d.settings}`, { headers: auth(owner) });
  expect((await settings.json()).config_node.config.order).toBe(1);
  // A list of one has nowhere to move its item: no arrows, no grip, no Alt+Up in its name.
  const settingsGroups = page.getByRole("list", { name: "Groups of Settings" });
  await expect(settingsGroups.locator(":scope > li")).toHaveText([/Preferences/]);
  await expect(settingsGroups.getByRole("button", { name: /^Move Preferences/ })).toHaveCount(0);
  await expect(settingsGroups.getByRole("group", { name: "Preferences, 1 of 1" })).toBeVisible();
  await shot(page, "dashboard-editor-tab");
});

test("an anonymous visitor sees only the login; another organization's member gets 404", async ({ page, request, browser }) => {
  const owner = await registerUser(request, "dash-anon");
  const slug = await slugOf(request, owner);
  await buttonTextDashboard(request, owner);
  await page.goto(`/dashboard/${slug}/home`);
  await expect(page).toHaveURL(/\/login\?callbackUrl=/);
  await expect(page.getByText("Ask")).toHaveCount(0);

  const stranger = await registerUser(request, "dash-stranger");
  const context = await browser.newContext();
  const other = await context.newPage();
  await logIn(other, stranger.email);
  const res = await other.goto(`/dashboard/${slug}/home`);
  expect(res?.status()).toBe(404);
  await expect(other.getByRole("button", { name: "Ask" })).toHaveCount(0);
  await context.close();
});

test("a view-only share link shows the page to a visitor without an account, inputs disabled; revoked, it closes", async ({ request, browser }) => {
  const owner = await registerUser(request, "dash-share");
  const d = await buttonTextDashboard(request, owner);
  const created = await request.post("/api/v1/dashboards/share-links", { headers: auth(owner), data: { page_id: d.home, interactive: false } });
  expect(created.status(), await created.text()).toBe(201);
  const link = (await created.json()).share_link as { id: string; url: string };
  const url = new URL(link.url);
  const context = await browser.newContext();
  const visitor = await context.newPage();
  await visitor.goto(url.pathname + url.search);
  await expect(visitor.locator('[data-connection="online"]')).toBeVisible();
  await expect(visitor.getByText("View only")).toBeVisible();
  await expect(visitor.getByRole("button", { name: "Ask" })).toBeDisabled();
  // Only the shared page: no navigation to the others.
  await expect(visitor.getByRole("navigation", { name: "Dashboard pages" })).toHaveCount(0);
  await shot(visitor, "dashboard-share-view-only");
  const revoked = await request.delete(`/api/v1/dashboards/share-links/${link.id}`, { headers: auth(owner) });
  expect(revoked.status()).toBe(204);
  await expect(visitor.locator(".db-closed")).toContainText("revoked", { timeout: 10_000 });
  await context.close();
});

test("on a phone the groups stack and the pages are in a drawer", async ({ browser, request }) => {
  const owner = await registerUser(request, "dash-phone");
  const slug = await slugOf(request, owner);
  await buttonTextDashboard(request, owner);
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  await logIn(page, owner.email);
  await page.goto(`/dashboard/${slug}/home`);
  const controls = await dashboardGroup(page, "Controls").boundingBox();
  const status = await dashboardGroup(page, "Status").boundingBox();
  expect(controls && status).toBeTruthy();
  // One column: same left edge, Status below Controls, each nearly the viewport's width.
  expect(Math.abs(controls!.x - status!.x)).toBeLessThan(2);
  expect(status!.y).toBeGreaterThan(controls!.y + controls!.height - 1);
  expect(controls!.width).toBeGreaterThan(330);
  const nav = page.getByRole("navigation", { name: "Dashboard pages" });
  await expect(nav).not.toBeInViewport();
  await page.getByRole("button", { name: "Pages" }).click();
  await expect(nav).toBeInViewport();
  await shot(page, "dashboard-phone-drawer");
  await nav.getByRole("link", { name: "Settings" }).click();
  await expect(dashboardGroup(page, "Preferences")).toBeVisible();
  await expect(nav).not.toBeInViewport();
  await page.getByRole("button", { name: "Pages" }).click();
  await page.getByRole("navigation", { name: "Dashboard pages" }).getByRole("link", { name: "Home" }).click();
  await page.getByRole("button", { name: "Ask" }).tap();
  await expect(page.getByText("answer to ping")).toBeVisible();
  // Switching pages refused nothing (the page leave went on the left page's socket).
  await expect(page.locator(".db-closed, .db-refusal")).toHaveCount(0);
  await shot(page, "dashboard-phone");
  await context.close();
});

test("CSS written for Dashboard 2.0 reaches the page: its class names and ids, the page's and group's classes, its templates' content; the app bar wears the theme's surface", async ({ page, request }) => {
  const owner = await registerUser(request, "dash-css");
  const slug = await slugOf(request, owner);
  const s = unique();
  const base = await configNode(request, owner, "ui-base", "Plant", {});
  const theme = await configNode(request, owner, "ui-theme", "Night", { colors: { surface: "#1f2937", primary: "#8ce2e7", bgPage: "#4b5563", groupBg: "#ffffff", groupOutline: "#cccccc" } });
  const home = await configNode(request, owner, "ui-page", "Line", { ui: base, path: "/line", theme, order: 1, className: "shift-a" });
  const group = await configNode(request, owner, "ui-group", "KPIs", { page: home, width: 6, order: 1, className: "kpis" });
  // CSS as FlowFuse's OEE blueprint writes it (a page:style template naming Dashboard 2.0's classes).
  const css = [
    "div.nrdb-ui-widget.nrdb-ui-button.submit-button { margin-top: 30px; }",
    ".nrdb-ui-page.shift-a .nrdb-ui-group.kpis .v-card { border-top-width: 5px; }",
    `#nrdb-ui-widget-txt-${s} { letter-spacing: 3px; }`,
    "div.v-card { min-height: 222px; }",
    // FlowFuse's Andon Operator Terminal: its page CSS styles what its templates draw.
    ".status-box.running { background-color: green; color: white; }",
  ].join("\n");
  await deployFlow(request, owner, `CSS ${s}`, {
    nodes: [
      { id: `btn-${s}`, type: "ui-button", position: { x: 100, y: 100 }, config: { group, label: "Submit", order: 2, className: "submit-button" } },
      { id: `txt-${s}`, type: "ui-text", position: { x: 300, y: 100 }, config: { group, label: "OEE", order: 1 } },
      { id: `css-${s}`, type: "ui-template", position: { x: 100, y: 200 }, config: { templateScope: "page:style", page: home, format: css } },
      { id: `chart-${s}`, type: "ui-chart", position: { x: 300, y: 200 }, config: { group, label: "Rate", order: 3, height: 5, chartType: "line" } },
      { id: `status-${s}`, type: "ui-template", position: { x: 300, y: 300 }, config: { group, order: 4, format: '<div class="status-box running"><strong>RUNNING</strong></div>' } },
    ],
  });
  await logIn(page, owner.email);
  await page.goto(`/dashboard/${slug}/line`);
  // The page's CSS reaches a template's content too (Dashboard 2.0's templates are in the page's document).
  await expect((await templateFrame(page)).locator(".status-box")).toHaveCSS("background-color", "rgb(0, 128, 0)");
  const button = page.locator(".nrdb-ui-widget.nrdb-ui-button");
  await expect(button).toHaveCSS("margin-top", "30px");
  // A group is Dashboard 2.0's: its cell (class, id) and in it the card, div.v-card.
  const card = page.getByRole("region", { name: "KPIs" }).locator("> div.v-card");
  await expect(card).toHaveCSS("border-top-width", "5px");
  await expect(card).toHaveCSS("min-height", "222px");
  await expect(page.locator(`#nrdb-ui-widget-txt-${s}`)).toHaveCSS("letter-spacing", "3px");
  // As Dashboard 2.0: the app bar is the theme's surface (its "navigation background"), its text readable.
  await expect(page.locator("header.v-app-bar")).toHaveCSS("background-color", "rgb(31, 41, 55)");
  await expect(page.locator("header.v-app-bar")).toHaveCSS("color", "rgb(255, 255, 255)");
  // A widget fills all its rows, as Dashboard 2.0's: the chart's five (it filled the first only).
  const chart = page.locator(`#nrdb-ui-widget-chart-${s}`);
  await expect(chart.locator("canvas")).toBeVisible();
  const [box, figure] = [await chart.boundingBox(), await chart.locator("figure").boundingBox()];
  expect(box!.height).toBeGreaterThan(5 * 48);
  expect(figure!.height).toBeGreaterThan(box!.height - 2);
});

test("a Dashboard 1 flow imported shows its widgets on its page", async ({ page, request }) => {
  const owner = await registerUser(request, "dash-d1");
  const slug = await slugOf(request, owner);
  await importAndDeploy(request, owner, "src/test/fixtures/node-red-dashboard1.json");
  await logIn(page, owner.email);
  await page.goto(`/dashboard/${slug}/home`);
  // As Dashboard 1 and 2 show it: the tab's (page's) name in the app bar, the site's name in the document title.
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Home");
  await expect(page).toHaveTitle("Home · Greenhouse");
  await expect(dashboardGroup(page, "Climate")).toBeVisible();
  await expect(dashboardGroup(page, "Controls")).toBeVisible();
  await expect(page.locator('[data-widget-type="ui-chart"] canvas')).toBeVisible({ timeout: 15_000 });
  await expect(page.getByRole("slider", { name: "Vent" })).toBeVisible();
  await expect(page.locator('[data-widget-type="ui-gauge"]')).toBeVisible();
  // Dashboard 1's gauge: its title above it ("Vent"), its label the units ("%").
  await expect(page.getByRole("meter", { name: "Vent" })).toBeVisible();
  await expect(page.locator('[data-widget-type="ui-switch"]')).toBeVisible();
  await expect(page.locator('[data-widget-type="ui-dropdown"]')).toBeVisible();
  // The inject sends a temperature every second: the chart gets points.
  await expect.poll(async () => Number(await page.locator("[data-chart-id]").getAttribute("data-points")), { timeout: 10_000 }).toBeGreaterThan(0);
  // node-red-contrib-ui-led's LED, wired from the switch: grey and unlit until a value, then the colour of "on" and of "off".
  const led = page.getByRole("img", { name: /^Lights on:/ });
  await expect(led).toHaveAttribute("aria-label", "Lights on: no value");
  await expect(led).toHaveAttribute("data-color", "gray");
  await page.getByRole("switch", { name: "Lights" }).click();
  await expect(led).toHaveAttribute("aria-label", "Lights on: on");
  await expect(led).toHaveCSS("background-color", /rgb\(0, 128, 0\)/);
  await page.getByRole("switch", { name: "Lights" }).click();
  await expect(led).toHaveAttribute("data-color", "#ff0000");
  await expect(led).toHaveCSS("background-color", /rgb\(255, 0, 0\)/);
  // node-red-contrib-ui-multistate-switch, a button group now: choosing "High" sends the number 2 (shown by the text) and colours it.
  const fan = page.getByRole("radiogroup", { name: "Fan" });
  await fan.getByRole("radio", { name: "High" }).click();
  await expect(fan.getByRole("radio", { name: "High" })).toHaveAttribute("aria-checked", "true");
  await expect(fan.getByRole("radio", { name: "High" })).toHaveCSS("background-color", "rgb(255, 102, 102)");
  await expect(page.locator('[data-widget-type="ui-text"] .db-text-value')).toHaveText("2");
  await shot(page, "dashboard-imported-dashboard1", true);
});

test("a Dashboard 1 LED takes its colours from messages when allowed, and keeps them", async ({ page, request }) => {
  const owner = await registerUser(request, "dash-led");
  const slug = await slugOf(request, owner);
  const flowId = await importAndDeploy(request, owner, "src/test/fixtures/dashboard1-led-colours.json");
  const nodes = (await (await request.get(`/api/v1/flows/${flowId}`, { headers: auth(owner) })).json()).flow.nodes as Array<{ id: string; name: string }>;
  const inject = async (name: string) => expect((await request.post(`/api/v1/nodes/${nodes.find((n) => n.name === name)!.id}/inject`, { headers: auth(owner), data: {} })).status()).toBe(200);
  await logIn(page, owner.email);
  await page.goto(`/dashboard/${slug}/boiler`);
  const led = page.getByRole("img", { name: /^Boiler:/ });
  await expect(led).toHaveAttribute("data-color", "gray");
  // Its own table says green for "hot"; the message's table says red, and wins.
  await inject("hot");
  await expect(led).toHaveAttribute("aria-label", "Boiler: hot");
  await expect(led).toHaveCSS("background-color", "rgb(255, 0, 0)");
  // "cold" comes without a table: the message's table still holds (its own has no "cold").
  await inject("cold");
  await expect(led).toHaveAttribute("aria-label", "Boiler: cold");
  await expect(led).toHaveCSS("background-color", "rgb(0, 0, 255)");
  // And after a reload.
  await page.reload();
  await expect(page.getByRole("img", { name: "Boiler: cold" })).toHaveCSS("background-color", "rgb(0, 0, 255)");
});

test("a Dashboard 1 template's Angular directives run as Vue's: ng-bind-html, ng-repeat with $index and ng-class, ng-show, an md-button's ng-click sends", async ({ page, request }) => {
  const owner = await registerUser(request, "dash-angular");
  const slug = await slugOf(request, owner);
  const flowId = await importAndDeploy(request, owner, "src/test/fixtures/dashboard1-angular-template.json");
  const nodes = (await (await request.get(`/api/v1/flows/${flowId}`, { headers: auth(owner) })).json()).flow.nodes as Array<{ id: string; name: string }>;
  await logIn(page, owner.email);
  await page.goto(`/dashboard/${slug}/log`);
  const frame = await templateFrame(page);
  await inject(request, owner, nodes.find((n) => n.name === "log")!.id);
  await expect(frame.locator(".headline b")).toHaveText("Pump");
  await expect(frame.locator(".headline")).toHaveText("Pump started");
  await expect(frame.locator("li")).toHaveText(["1. boot", "2. pump on", "3. valve open"]);
  await expect(frame.locator("li.odd")).toHaveText(["2. pump on"]);
  await expect(frame.locator(".alarm")).toBeVisible();
  // Angular Material's md-button is Vuetify's button: reached and pressed by the keyboard.
  await frame.getByRole("button", { name: "Acknowledge" }).focus();
  await page.keyboard.press("Enter");
  await expect(page.locator('[data-widget-type="ui-text"] .db-text-value')).toHaveText("ack");
  await shot(page, "dashboard-dashboard1-angular-template");
});

test("a Dashboard 1 group that can be collapsed folds by its title's button (keyboard too), stays folded after a reload, and ui_control hears it and folds it", async ({ page, request }) => {
  const owner = await registerUser(request, "dash-collapse");
  const slug = await slugOf(request, owner);
  await importAndDeploy(request, owner, "src/test/fixtures/dashboard1-collapsible-groups.json");
  await logIn(page, owner.email);
  await page.goto(`/dashboard/${slug}/plant-room`);
  const heatPump = dashboardGroup(page, "Heat pump");
  const toggle = heatPump.getByRole("button", { name: "Heat pump" });
  const reading = heatPump.locator('[data-widget-type="ui-text"] .db-text-value');
  const lastFold = dashboardGroup(page, "Events").locator('[data-widget-type="ui-text"] .db-text-value');
  await expect(reading).toHaveText("42");
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
  // A group that cannot be collapsed has a plain title.
  await expect(dashboardGroup(page, "Events").getByRole("heading", { name: "Events" })).toBeVisible();
  await expect(dashboardGroup(page, "Events").getByRole("button", { name: "Events" })).toHaveCount(0);
  // The app bar and the button wear Dashboard 1's own blue (#0094CE under white, 3.4:1): the flow's theme, not ours.
  await expectAccessible(page, [".db-appbar", '[data-widget-type="ui-button"]']);
  // By the keyboard alone: the group folds to its title and the flow hears it (Dashboard 1's ui_control event).
  await toggle.focus();
  await page.keyboard.press("Enter");
  await expect(toggle).toHaveAttribute("aria-expanded", "false");
  await expect(reading).toBeHidden();
  await expect(lastFold).toHaveText("Plant_room_Heat_pump=false");
  await shot(page, "dashboard-dashboard1-collapsed-group");
  // This browser remembers it.
  await page.reload();
  await expect(toggle).toHaveAttribute("aria-expanded", "false");
  await expect(reading).toBeHidden();
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
  await expect(reading).toHaveText("42");
  await expect(lastFold).toHaveText("Plant_room_Heat_pump=true");
  // The flow folds it (ui_control's { group: { close: ["Plant_room_Heat_pump"] } }), and hears that too.
  await page.getByRole("button", { name: "Fold the heat pump" }).click();
  await expect(toggle).toHaveAttribute("aria-expanded", "false");
  await expect(reading).toBeHidden();
  await expect(lastFold).toHaveText("Plant_room_Heat_pump=false");
});

test("Dashboard 2.0's switch layouts and clickable areas: the label before or after the switch, a click on the label or the line toggles only where set, a display-only switch takes no click or key; an order of MAX_SAFE_INTEGER stays last", async ({ page, request }) => {
  const owner = await registerUser(request, "dash-switches");
  const slug = await slugOf(request, owner);
  await importAndDeploy(request, owner, "src/test/fixtures/dashboard2-switch-layouts.json");
  await logIn(page, owner.email);
  await page.goto(`/dashboard/${slug}/switches`);
  const group = dashboardGroup(page, "Layouts");
  const row = (name: string) => group.locator(".db-switch", { has: page.getByRole("switch", { name }) });
  const last = group.locator('[data-widget-type="ui-text"] .db-text-value');
  await expect(row("Left")).toBeVisible();
  // The text whose order is Number.MAX_SAFE_INTEGER is the group's last widget (it had been put first).
  await expect(group.locator("[data-widget-type]").last()).toHaveAttribute("data-widget-type", "ui-text");
  const x = async (name: string) => {
    const label = (await row(name).getByText(name, { exact: true }).boundingBox())!;
    const track = (await page.getByRole("switch", { name }).boundingBox())!;
    const line = (await row(name).boundingBox())!;
    return { label: label.x, track: track.x, start: line.x, end: line.x + line.width, trackEnd: track.x + track.width };
  };
  // row-left: the label then the switch, both at the start; row-spread-swapped: the switch at the start, the label at the end.
  const left = await x("Left");
  expect(left.label).toBeLessThan(left.track);
  expect(left.end - left.trackEnd).toBeGreaterThan(100);
  const swapped = await x("Swapped");
  expect(swapped.track).toBeLessThan(swapped.label);
  expect(swapped.track - swapped.start).toBeLessThan(5);
  // row-left-swapped: the switch then the label, both at the start (Dashboard 2.0's row-reverse + flex-end).
  const wholeLine = await x("Whole line");
  expect(wholeLine.track).toBeLessThan(wholeLine.label);
  expect(wholeLine.track - wholeLine.start).toBeLessThan(5);
  expect(wholeLine.end - wholeLine.label).toBeGreaterThan(100);
  await shot(page, "dashboard-switch-layouts");

  // "switch": its label does not toggle it; the switch does.
  await row("Left").getByText("Left", { exact: true }).click();
  await expect(page.getByRole("switch", { name: "Left" })).toHaveAttribute("aria-checked", "false");
  await page.getByRole("switch", { name: "Left" }).click();
  await expect(last).toHaveText("switch=true");
  // "label": the label toggles it.
  await row("Swapped").getByText("Swapped", { exact: true }).click();
  await expect(page.getByRole("switch", { name: "Swapped" })).toHaveAttribute("aria-checked", "true");
  await expect(last).toHaveText("label=true");
  // "line": anywhere on the line.
  const box = (await row("Whole line").boundingBox())!;
  await page.mouse.click(box.x + 20, box.y + box.height / 2);
  await expect(page.getByRole("switch", { name: "Whole line" })).toHaveAttribute("aria-checked", "true");
  await expect(last).toHaveText("line=true");
  // "none": shows the state only, by mouse or keyboard; the screen reader hears it as unavailable.
  const displayOnly = page.getByRole("switch", { name: "Display only" });
  await expect(displayOnly).toHaveAttribute("aria-disabled", "true");
  // (Playwright's click waits for an aria-disabled element to be enabled: the mouse itself, then.)
  const track = (await displayOnly.boundingBox())!;
  await page.mouse.click(track.x + track.width / 2, track.y + track.height / 2);
  await displayOnly.focus();
  await page.keyboard.press("Space");
  await page.keyboard.press("Enter");
  await expect(displayOnly).toHaveAttribute("aria-checked", "false");
  await expect(last).toHaveText("line=true");
  await expectAccessible(page);
});

/** A ui-template's frame (its own document, in a sandbox), once the widget has given it its src. */
async function templateFrame(page: Page, index = 0) {
  const element = page.locator("iframe.db-template").nth(index);
  await expect(element).toHaveAttribute("src", /\/dashboard-frame\/template$/);
  const frame = await (await element.elementHandle())!.contentFrame();
  expect(frame).not.toBeNull();
  return frame!;
}

test("ui-template runs in a sandbox: its script cannot read cookies, storage, the API or the page; send() reaches the flow", async ({ page, request }) => {
  const owner = await registerUser(request, "dash-tpl");
  const slug = await slugOf(request, owner);
  const base = await configNode(request, owner, "ui-base", "Sandbox", {});
  const home = await configNode(request, owner, "ui-page", "Probe", { ui: base, path: "/probe", order: 1 });
  const group = await configNode(request, owner, "ui-group", "Probe", { page: home, width: 12, order: 1 });
  const s = unique();
  const format = `<pre id="out">running</pre>
<script>
  var r = {};
  function attempt(name, fn) { try { r[name] = fn(); } catch (e) { r[name] = "blocked: " + e.name; } }
  attempt("cookie", function () { return document.cookie; });
  attempt("localStorage", function () { return window.localStorage.length; });
  attempt("sessionStorage", function () { return window.sessionStorage.length; });
  attempt("parentDom", function () { return window.parent.document.title; });
  attempt("topLocation", function () { return window.top.location.href; });
  attempt("origin", function () { return window.origin; });
  var done = function () { document.getElementById("out").textContent = JSON.stringify(r); send({ payload: r.fetch || "none", topic: "probe" }); };
  try {
    fetch("/api/v1/flows", { credentials: "include" }).then(function (res) { r.fetch = "status " + res.status; done(); }, function (e) { r.fetch = "blocked: " + e.name; done(); });
  } catch (e) { r.fetch = "blocked: " + e.name; done(); }
  onMessage(function (m) { document.getElementById("out").setAttribute("data-msg", String(m.payload)); });
</script>`;
  await deployFlow(request, owner, `Template ${s}`, {
    nodes: [
      { id: `tpl-${s}`, type: "ui-template", position: { x: 100, y: 100 }, config: { group, format, order: 1, height: 4, passthru: false } },
      { id: `txt-${s}`, type: "ui-text", position: { x: 300, y: 100 }, config: { group, label: "From template", order: 2 } },
      { id: `inj-${s}`, type: "inject", position: { x: 100, y: 200 }, config: { payload_type: "string", payload: "hello frame", topic: "in", repeat_seconds: 1 } },
      {
        id: `md-${s}`,
        type: "ui-markdown",
        position: { x: 300, y: 200 },
        config: { group, order: 3, content: '**Bold** <script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2"> [link](javascript:window.__pwned=3)\n\nMachine: **{{ msg.payload }}** ({{ msg.machine || \'none\' }})\n\n<span style="color:#2CA02C">OFF</span>' },
      },
      { id: `mdin-${s}`, type: "inject", position: { x: 100, y: 300 }, config: { payload_type: "string", payload: '<img src=x onerror="window.__pwned=4"> *not emphasis*', once: true, once_delay_seconds: 0.1 } },
    ],
    connections: [
      { source: `tpl-${s}`, target: `txt-${s}` },
      { source: `inj-${s}`, target: `tpl-${s}` },
      { source: `mdin-${s}`, target: `md-${s}` },
    ],
  });
  await logIn(page, owner.email);
  // Something worth stealing in the app's origin.
  await page.goto(`/dashboard/${slug}/probe`);
  await page.evaluate(() => window.localStorage.setItem("secret", "app-only"));
  await page.reload();
  const frameEl = page.locator("iframe.db-template");
  // Never the app's origin, never the top window's navigation.
  const sandbox = (await frameEl.getAttribute("sandbox"))!.split(" ");
  expect(sandbox).toContain("allow-scripts");
  expect(sandbox).not.toContain("allow-same-origin");
  expect(sandbox.filter((t) => t.startsWith("allow-top-navigation"))).toEqual([]);
  const frame = await templateFrame(page);
  await expect(frame.locator("#out")).not.toHaveText("running");
  const result = JSON.parse((await frame.locator("#out").textContent())!);
  expect(result.cookie).toMatch(/^blocked: SecurityError/);
  expect(result.localStorage).toMatch(/^blocked: SecurityError/);
  expect(result.sessionStorage).toMatch(/^blocked: SecurityError/);
  expect(result.parentDom).toMatch(/^blocked: SecurityError/);
  expect(result.topLocation).toMatch(/^blocked: SecurityError/);
  expect(result.origin).toBe("null");
  // The API never answers the frame: its policy allows https only, and the frame is another origin, without the viewer's session.
  expect(result.fetch).toMatch(/^blocked: TypeError/);
  // send() reached the flow: the ui-text wired after the template shows what the script sent.
  await expect(page.getByRole("region", { name: "Probe" }).locator('[data-widget-type="ui-text"]')).toContainText(result.fetch);
  // Messages into the frame: the inject's payload arrives through postMessage.
  await expect(frame.locator("#out")).toHaveAttribute("data-msg", "hello frame", { timeout: 10_000 });
  // ui-markdown is sanitized: markdown renders, script, event attributes and javascript: links do not.
  const md = page.locator('[data-widget-type="ui-markdown"]');
  await expect(md.locator("strong").first()).toHaveText("Bold");
  await expect(md.locator("script")).toHaveCount(0);
  await expect(md.locator("img")).not.toHaveAttribute("onerror", /.*/);
  await expect(md.locator('[href^="javascript"], [onerror], [onclick]')).toHaveCount(0);
  // {{ }} as Dashboard 2.0 fills it: into the rendered markdown's text, as text (the payload's HTML
  // and markdown are shown as written), with a fallback for what the message lacks.
  await expect(md.locator("strong").nth(1)).toHaveText('<img src=x onerror="window.__pwned=4"> *not emphasis*');
  await expect(md.locator("p").nth(1)).toContainText("(none)");
  await expect(md.locator("img")).toHaveCount(1);
  // The node's own inline styles stay, as Dashboard 2.0 keeps them (FlowFuse's Performance blueprint colours its legend so).
  await expect(md.getByText("OFF", { exact: true })).toHaveCSS("color", "rgb(44, 160, 44)");
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  await shot(page, "dashboard-template-sandbox");
});

test("ui-template runs Dashboard 2.0's Vue templates: msg, data, computed, methods, watch, $socket, Vuetify, send() and ui_update.format", async ({ page, request }) => {
  const owner = await registerUser(request, "dash-vue");
  const slug = await slugOf(request, owner);
  const s = unique();
  const base = await configNode(request, owner, "ui-base", "Vue", {});
  const theme = await configNode(request, owner, "ui-theme", "Vue theme", { colors: { surface: "#ffffff", primary: "#2f6f4f", bgPage: "#eef2ee", groupBg: "#ffffff", groupOutline: "#c9d3c9" } });
  const home = await configNode(request, owner, "ui-page", "Counter", { ui: base, path: "/counter", theme, order: 1 });
  const group = await configNode(request, owner, "ui-group", "Counter", { page: home, width: 12, order: 1 });
  // Dashboard 2.0's "Full Vue Component" example (docs/en/nodes/widgets/ui-template.md), with a Vuetify
  // button and icon, `msg`, and a `msg-input` listener as its docs show.
  const format = `<template>
    <div>
        <h2 id="loaded">Counter - loaded: {{ loaded }}</h2>
        <p id="count">Current Count: {{ count }}</p>
        <p id="formatted" class="my-class">Formatted Count: {{ formattedCount }}</p>
        <p id="payload">Payload: {{ msg.payload }}</p>
        <p id="inputs">Inputs: {{ inputs > 0 ? 'some' : 'none' }}</p>
        <p id="seen">Seen: {{ seen }}</p>
        <v-btn id="inc" color="primary" prepend-icon="mdi-plus" @click="increase()">Increment</v-btn>
    </div>
</template>
<script>
    export default {
        data() {
            return { loaded: false, count: 0, inputs: 0, seen: 0 }
        },
        watch: {
            msg: function () {
                this.seen++
            },
            count: function () {
                if (this.count % 5 === 0) {
                    this.send({ payload: 'Multiple of 5', topic: 'count' })
                }
            }
        },
        computed: {
            formattedCount: function () {
                return \`\${this.count} Apples\`
            }
        },
        methods: {
            increase: function () {
                this.count++
            }
        },
        mounted() {
            this.loaded = true
            this.$socket.on('msg-input:' + this.id, (msg) => { this.inputs++ })
        }
    }
</script>
<style>
    .my-class { color: rgb(255, 0, 0); }
</style>`;
  const ids = { tpl: `vue-${s}`, text: `txt-${s}`, inj: `inj-${s}`, swap: `swap-${s}`, fn: `fn-${s}` };
  await deployFlow(request, owner, `Vue ${s}`, {
    nodes: [
      { id: ids.tpl, type: "ui-template", position: { x: 300, y: 100 }, config: { group, format, order: 1, passthru: false } },
      // A page-scoped template (widget:page): outside the groups, after them.
      { id: `foot-${s}`, type: "ui-template", position: { x: 300, y: 300 }, config: { templateScope: "widget:page", page: home, format: '<template><footer id="footer">Footer of {{ id }}</footer></template>' } },
      { id: ids.text, type: "ui-text", position: { x: 500, y: 100 }, config: { group, label: "From template", order: 2 } },
      { id: ids.inj, type: "inject", position: { x: 100, y: 100 }, config: { payload_type: "string", payload: "hello vue", topic: "in" } },
      { id: ids.swap, type: "inject", position: { x: 100, y: 200 }, config: { payload_type: "string", payload: "swapped" } },
      { id: ids.fn, type: "function", position: { x: 200, y: 200 }, config: { code: "msg.ui_update = { format: '<p id=\"swapped\" :class=\"msg.payload\">Now {{ msg.payload }}</p>' }; return msg;" } },
      // The footer's format becomes one with a Vuetify chip: Vuetify loads then.
      { id: `chip-${s}`, type: "inject", position: { x: 100, y: 300 }, config: { payload_type: "string", payload: "chip" } },
      { id: `chipfn-${s}`, type: "function", position: { x: 200, y: 300 }, config: { code: "msg.ui_update = { format: '<template><v-chip id=\"chip\" color=\"primary\" prepend-icon=\"mdi-star\">{{ msg.payload }}</v-chip></template>' }; return msg;" } },
    ],
    connections: [
      { source: ids.inj, target: ids.tpl },
      { source: ids.swap, target: ids.fn },
      { source: ids.fn, target: ids.tpl },
      { source: ids.tpl, target: ids.text },
      { source: `chip-${s}`, target: `chipfn-${s}` },
      { source: `chipfn-${s}`, target: `foot-${s}` },
    ],
  });
  await logIn(page, owner.email);
  await page.goto(`/dashboard/${slug}/counter`);
  let frame = await templateFrame(page);
  // Mounted: data, computed, and `msg` ({} before any message, so msg.payload is empty, not an error).
  await expect(frame.locator("#loaded")).toHaveText("Counter - loaded: true");
  await expect(frame.locator("#formatted")).toHaveText("Formatted Count: 0 Apples");
  await expect(frame.locator("#payload")).toHaveText("Payload:");
  await expect(frame.locator("#formatted")).toHaveCSS("color", "rgb(255, 0, 0)");
  // The page-scoped template is on the page, below the group, with its own id.
  let foot = await templateFrame(page, 1);
  await expect(foot.locator("#footer")).toHaveText(`Footer of foot-${s}`);
  // Vuetify's script and MDI's icons are loaded by the frame whose template uses them, not by the plain one.
  const loaded = (f: typeof foot) => f.evaluate(() => ({ vuetify: typeof (window as { Vuetify?: unknown }).Vuetify, icons: !!document.querySelector('link[href^="mdi/"]') }));
  expect(await loaded(frame)).toEqual({ vuetify: "object", icons: true });
  expect(await loaded(foot)).toEqual({ vuetify: "undefined", icons: false });
  const [groupBox, footBox] = await Promise.all([page.getByRole("region", { name: "Counter" }).boundingBox(), page.locator("iframe.db-template").nth(1).boundingBox()]);
  expect(footBox!.y).toBeGreaterThan(groupBox!.y + groupBox!.height - 1);
  // Vuetify's button, in the dashboard theme's primary colour, with its Material Design icon drawn.
  let button = frame.getByRole("button", { name: "Increment" });
  await expect(button).toHaveClass(/v-btn/);
  await expect(button).toHaveCSS("background-color", "rgb(47, 111, 79)");
  await expect(button.locator(".mdi-plus")).toBeVisible();
  expect(await button.locator(".mdi-plus").evaluate((el) => getComputedStyle(el, "::before").fontFamily)).toContain("Material Design Icons");
  // A message in: `msg` follows, and $socket's msg-input:<id> fires.
  await inject(request, owner, ids.inj);
  await expect(frame.locator("#payload")).toHaveText("Payload: hello vue");
  await expect(frame.locator("#inputs")).toHaveText("Inputs: some");
  await expect(frame.locator("#seen")).toHaveText("Seen: 1");
  // Opened again (Vuetify loads before the mount): the last message is there, and a msg watcher ran for it once.
  await page.reload();
  frame = await templateFrame(page);
  await expect(frame.locator("#payload")).toHaveText("Payload: hello vue");
  await expect(frame.locator("#seen")).toHaveText("Seen: 1");
  button = frame.getByRole("button", { name: "Increment" });
  foot = await templateFrame(page, 1);
  // methods and watch: the fifth click sends into the flow.
  for (let i = 0; i < 5; i++) await button.click();
  await expect(frame.locator("#count")).toHaveText("Current Count: 5");
  await expect(page.locator('[data-widget-type="ui-text"]')).toContainText("Multiple of 5");
  await shot(page, "dashboard-template-vue");
  // msg.ui_update.format: the template is built again, with the message that changed it.
  await inject(request, owner, ids.swap);
  await expect(frame.locator("#swapped")).toHaveText("Now swapped");
  await expect(frame.locator("#swapped")).toHaveClass("swapped");
  await expect(frame.locator("#loaded")).toHaveCount(0);
  // A plain template's new format uses Vuetify: it loads, and the chip is drawn in the theme's primary colour.
  await inject(request, owner, `chip-${s}`);
  await expect(foot.locator("#chip")).toHaveText("chip");
  await expect(foot.locator("#chip")).toHaveClass(/v-chip/);
  await expect(foot.locator("#chip")).toHaveCSS("color", "rgb(47, 111, 79)");
  expect(await loaded(foot)).toEqual({ vuetify: "object", icons: true });
  // A reload shows the kept format and message.
  await page.reload();
  await expect((await templateFrame(page)).locator("#swapped")).toHaveText("Now swapped");
});

test("Dashboard 2.0's own template fixture (its Cypress suite's) imports and behaves as that suite says", async ({ page, request }) => {
  const owner = await registerUser(request, "dash-d2tpl");
  const slug = await slugOf(request, owner);
  // FlowFuse/node-red-dashboard cypress/fixtures/flows/dashboard-templates.json, as published (Apache-2.0).
  await importAndDeploy(request, owner, "src/test/fixtures/dashboard2-templates.json", true);
  // The fixture's "Store Latest Msg" function keeps what the templates send in global.msg.
  const latest = async () => ((await (await request.get("/api/v1/context/global", { headers: auth(owner) })).json()).context.msg ?? null) as Record<string, unknown> | null;
  await logIn(page, owner.email);
  await page.goto(`/dashboard/${slug}/page1`);
  await expect(page.locator("iframe.db-template")).toHaveCount(4);
  // "passes messages through, when passthru is enabled"
  await page.getByRole("button", { name: "Button 1" }).click();
  await expect.poll(async () => (await latest())?.payload).toBe("payload 1");
  // "permits the sending of a full msg object" / "a payload value, auto-wrapped into a msg"
  const frameWith = async (action: string) => {
    for (let i = 0; i < 4; i++) {
      const f = await templateFrame(page, i);
      if ((await f.locator(`[data-action="${action}"]`).count()) > 0) return f;
    }
    throw new Error(`no frame with ${action}`);
  };
  await expect.poll(async () => (await Promise.all([0, 1, 2, 3].map(async (i) => (await templateFrame(page, i)).locator(".v-btn").count()))).reduce((a, b) => a + b)).toBe(2);
  await (await frameWith("ui-button-full-msg")).locator('[data-action="ui-button-full-msg"]').click();
  await expect.poll(async () => latest()).toMatchObject({ payload: 20, topic: "full-msg" });
  await (await frameWith("ui-button-payload-only")).locator('[data-action="ui-button-payload-only"]').click();
  await expect.poll(async () => (await latest())?.payload).toBe(30);
  // "Single Page CSS": on its page only, and not kept after navigating to another page.
  await expect(page.locator("body")).toHaveCSS("background-color", "rgb(0, 0, 0)");
  await page.getByRole("navigation", { name: "Dashboard pages" }).getByRole("link", { name: "Page 2" }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/${slug}/page2$`));
  await expect(page.locator("body")).not.toHaveCSS("background-color", "rgb(0, 0, 0)");
  await page.goto(`/dashboard/${slug}/page2`);
  await expect(page.locator("body")).not.toHaveCSS("background-color", "rgb(0, 0, 0)");
});

test("a hold button (Dashboard 2.0's pointerdown / pointerup) sends when pressed and when let go, by mouse and by keyboard", async ({ page, request }) => {
  const owner = await registerUser(request, "dash-hold");
  const slug = await slugOf(request, owner);
  const s = unique();
  const base = await configNode(request, owner, "ui-base", "Crane", {});
  const home = await configNode(request, owner, "ui-page", "Jog", { ui: base, path: "/jog", order: 1 });
  const group = await configNode(request, owner, "ui-group", "Motor", { page: home, width: 6, order: 1 });
  const ids = { button: `hold-${s}`, fn: `seq-${s}`, text: `seen-${s}` };
  await deployFlow(request, owner, `Hold ${s}`, {
    nodes: [
      {
        id: ids.button,
        type: "ui-button",
        position: { x: 100, y: 100 },
        config: { group, label: "Jog", payload: "clicked", enablePointerdown: true, pointerdownPayload: "go", enablePointerup: true, pointerupPayload: "stop", order: 1 },
      },
      // Every message the button sends, in order, with the event it came from.
      { id: ids.fn, type: "function", position: { x: 300, y: 100 }, config: { code: "const seq = flow.get('seq') || []; seq.push(msg._event.type + ':' + msg.payload); flow.set('seq', seq); msg.payload = seq.join(' '); delete msg._client; return msg;" } },
      { id: ids.text, type: "ui-text", position: { x: 500, y: 100 }, config: { group, label: "Seen", order: 2 } },
    ],
    connections: [
      { source: ids.button, target: ids.fn },
      { source: ids.fn, target: ids.text },
    ],
  });
  await logIn(page, owner.email);
  await page.goto(`/dashboard/${slug}/jog`);
  await expect(page.locator('[data-connection="online"]')).toBeVisible();
  const seen = dashboardGroup(page, "Motor");
  const jog = page.getByRole("button", { name: "Jog" });
  const box = (await jog.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await expect(seen.getByText("pointerdown:go", { exact: true })).toBeVisible();
  await page.mouse.up();
  await expect(seen.getByText("pointerdown:go pointerup:stop click:clicked", { exact: true })).toBeVisible();
  // The keyboard holds it too: Space down, then up (its click comes with the release).
  await jog.focus();
  await page.keyboard.down(" ");
  await expect(seen.getByText("pointerdown:go pointerup:stop click:clicked pointerdown:go", { exact: true })).toBeVisible();
  await page.keyboard.up(" ");
  await expect(seen.getByText("pointerdown:go pointerup:stop click:clicked pointerdown:go pointerup:stop click:clicked", { exact: true })).toBeVisible();
  await shot(page, "dashboard-hold-button");
});

test("the ui-base's header content and connection notices: \"Dashboard (Page)\" in the app bar; a lost connection is said, and its return", async ({ page, request }) => {
  const owner = await registerUser(request, "dash-header");
  const slug = await slugOf(request, owner);
  const s = unique();
  const base = await configNode(request, owner, "ui-base", "Boiler room", { headerContent: "dashpage", notificationDisplayTime: 30 });
  const home = await configNode(request, owner, "ui-page", "Pumps", { ui: base, path: "/pumps", order: 1 });
  const group = await configNode(request, owner, "ui-group", "Pump 1", { page: home, width: 6, order: 1 });
  await deployFlow(request, owner, `Header ${s}`, {
    nodes: [
      { id: `txt-${s}`, type: "ui-text", position: { x: 100, y: 100 }, config: { group, label: "State", order: 1 } },
      // A tile gauge whose title floats in the corner Dashboard 2.0's floatingTitlePosition names.
      { id: `tile-${s}`, type: "ui-gauge", position: { x: 100, y: 200 }, config: { group, title: "Flow rate", gtype: "gauge-tile", alwaysShowTitle: true, floatingTitlePosition: "bottom-right", order: 2 } },
    ],
  });
  // The page's socket passes through a route the test can cut, as a network would.
  const sockets: WebSocketRoute[] = [];
  await page.routeWebSocket(/\/ws\/dashboard\//, (ws) => {
    ws.connectToServer();
    sockets.push(ws);
  });
  await logIn(page, owner.email);
  await page.goto(`/dashboard/${slug}/pumps`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Boiler room (Pumps)");
  await expect(page.locator('[data-connection="online"]')).toBeVisible();
  await expect(page.getByRole("meter", { name: "Flow rate" }).locator(".db-gauge-tile-title.bottom-right")).toHaveText("Flow rate");
  // Its segment's text: the title, by default (Dashboard 2.0's tile shows no value unless a segment asks).
  await expect(page.getByRole("meter", { name: "Flow rate" }).locator(".db-gauge-tile-text")).toHaveText("Flow rate");
  const notice = page.getByTestId("connection-notice");
  await expect(notice).toHaveCount(0);
  await sockets.at(-1)!.close({ code: 1012, reason: "cut by the test" });
  await expect(notice).toHaveText("Connection lost. Reconnecting…");
  await expect(page.locator('[data-connection="online"]')).toBeVisible({ timeout: 15_000 });
  await expect(notice).toHaveText("Reconnected");
  await shot(page, "dashboard-reconnected");
});

test("a radio group (Dashboard 2.0's ui-radio-group): checked by mouse or by the keyboard alone, the typed value goes to the flow, a reload keeps the choice", async ({ page, request }) => {
  const owner = await registerUser(request, "dash-radio");
  const slug = await slugOf(request, owner);
  const s = unique();
  const base = await configNode(request, owner, "ui-base", "Audit", {});
  const home = await configNode(request, owner, "ui-page", "Grade", { ui: base, path: "/grade", order: 1 });
  const group = await configNode(request, owner, "ui-group", "Question", { page: home, width: 6, order: 1 });
  await deployFlow(request, owner, `Grade ${s}`, {
    nodes: [
      {
        id: `grade-${s}`,
        type: "ui-radio-group",
        position: { x: 100, y: 100 },
        config: {
          group,
          label: "Select Option:",
          order: 1,
          options: [
            { label: "Great (5)", value: 5, type: "num" },
            { label: "Good (4)", value: 4, type: "num" },
            { label: "Ok (3)", value: 3, type: "num" },
          ],
        },
      },
      { id: `fn-${s}`, type: "function", position: { x: 300, y: 100 }, config: { code: "msg.payload = typeof msg.payload + ' ' + msg.payload; delete msg._client; return msg;" } },
      { id: `txt-${s}`, type: "ui-text", position: { x: 500, y: 100 }, config: { group, label: "Sent", order: 2 } },
    ],
    connections: [
      { source: `grade-${s}`, target: `fn-${s}` },
      { source: `fn-${s}`, target: `txt-${s}` },
    ],
  });
  await logIn(page, owner.email);
  await page.goto(`/dashboard/${slug}/grade`);
  await expect(page.locator('[data-connection="online"]')).toBeVisible();
  const grades = page.getByRole("group", { name: "Select Option:" });
  const sent = dashboardGroup(page, "Question").locator('[data-widget-type="ui-text"] .db-text-value');
  // click(), as a user does: Playwright's check() said "did not change its state" in half the runs, while the same
  // input was checked at the click, after its microtasks and after the next task (logged); not understood yet.
  await grades.getByRole("radio", { name: "Good (4)" }).click();
  await expect(grades.getByRole("radio", { name: "Good (4)" })).toBeChecked();
  await expect(sent).toHaveText("number 4");
  // The keyboard alone: the arrow keys move the choice, and each choice goes to the flow.
  await page.keyboard.press("ArrowDown");
  await expect(grades.getByRole("radio", { name: "Ok (3)" })).toBeChecked();
  await expect(grades.getByRole("radio", { name: "Ok (3)" })).toBeFocused();
  await expect(sent).toHaveText("number 3");
  await page.reload();
  await expect(page.getByRole("group", { name: "Select Option:" }).getByRole("radio", { name: "Ok (3)" })).toBeChecked();
});

test("a button group (Dashboard 2.0's ui-button-group): a click or the arrow keys choose, the value goes to the flow typed, every viewer sees the choice", async ({ page, request }) => {
  const owner = await registerUser(request, "dash-bgroup");
  const slug = await slugOf(request, owner);
  const s = unique();
  const base = await configNode(request, owner, "ui-base", "Heating", {});
  const home = await configNode(request, owner, "ui-page", "Modes", { ui: base, path: "/modes", order: 1 });
  const group = await configNode(request, owner, "ui-group", "Boiler", { page: home, width: 6, order: 1 });
  const ids = { modes: `modes-${s}`, fn: `fn-${s}`, text: `txt-${s}` };
  await deployFlow(request, owner, `Modes ${s}`, {
    nodes: [
      {
        id: ids.modes,
        type: "ui-button-group",
        position: { x: 100, y: 100 },
        config: {
          group,
          label: "Mode",
          order: 1,
          options: [
            { label: "Off", value: "0", valueType: "num" },
            { label: "Eco", value: "1", valueType: "num" },
            { label: "Boost", value: "2", valueType: "num" },
          ],
        },
      },
      { id: ids.fn, type: "function", position: { x: 300, y: 100 }, config: { code: "msg.payload = typeof msg.payload + ' ' + msg.payload; delete msg._client; return msg;" } },
      { id: ids.text, type: "ui-text", position: { x: 500, y: 100 }, config: { group, label: "Sent", order: 2 } },
    ],
    connections: [
      { source: ids.modes, target: ids.fn },
      { source: ids.fn, target: ids.text },
    ],
  });
  await logIn(page, owner.email);
  await page.goto(`/dashboard/${slug}/modes`);
  await expect(page.locator('[data-connection="online"]')).toBeVisible();
  const modes = page.getByRole("radiogroup", { name: "Mode" });
  await modes.getByRole("radio", { name: "Eco" }).click();
  await expect(dashboardGroup(page, "Boiler").getByText("number 1", { exact: true })).toBeVisible();
  await expect(modes.getByRole("radio", { name: "Eco" })).toHaveAttribute("aria-checked", "true");
  await page.keyboard.press("ArrowRight");
  await expect(modes.getByRole("radio", { name: "Boost" })).toBeFocused();
  await expect(dashboardGroup(page, "Boiler").getByText("number 2", { exact: true })).toBeVisible();
  await expect(modes.getByRole("radio", { name: "Boost" })).toHaveAttribute("aria-checked", "true");
  await shot(page, "dashboard-button-group");
  await expectAccessible(page);
  // Kept: a reload shows the choice.
  await page.reload();
  await expect(page.getByRole("radiogroup", { name: "Mode" }).getByRole("radio", { name: "Boost" })).toHaveAttribute("aria-checked", "true");
});

async function inject(request: APIRequestContext, user: ApiUser, nodeId: string) {
  const res = await request.post(`/api/v1/nodes/${nodeId}/inject`, { headers: auth(user) });
  expect(res.status(), await res.text()).toBeLessThan(300);
}

test("a progress bar follows the flow (Dashboard 2.0's ui-progress); ui-links sit in the navigation among the pages and leave for their URL", async ({ page, request }) => {
  const owner = await registerUser(request, "dash-progress");
  const slug = await slugOf(request, owner);
  const s = unique();
  const base = await configNode(request, owner, "ui-base", "Lab", {});
  const home = await configNode(request, owner, "ui-page", "Jobs", { ui: base, path: "/jobs", order: 1 });
  const other = await configNode(request, owner, "ui-page", "Other", { ui: base, path: "/other", order: 3 });
  const misc = await configNode(request, owner, "ui-group", "Misc", { page: other, width: 6, order: 1 });
  await configNode(request, owner, "ui-link", "Docs", { ui: base, path: "/docs", icon: "book", order: 2 });
  await configNode(request, owner, "ui-link", "Hidden", { ui: base, path: "https://example.com/", order: 4, visible: false });
  const group = await configNode(request, owner, "ui-group", "Batch", { page: home, width: 6, order: 1 });
  const ids = { at79: `i79-${s}`, update: `iup-${s}`, progress: `prog-${s}` };
  await deployFlow(request, owner, `Progress ${s}`, {
    nodes: [
      { id: ids.at79, type: "inject", position: { x: 100, y: 100 }, config: { props: [{ p: "payload", v: "79", v_type: "num" }] } },
      { id: ids.update, type: "inject", position: { x: 100, y: 200 }, config: { props: [{ p: "payload", v: "140", v_type: "num" }, { p: "ui_update", v: '{"label":"Copying","color":"success"}', v_type: "json" }] } },
      { id: ids.progress, type: "ui-progress", position: { x: 300, y: 150 }, config: { group, label: "Export", order: 1 } },
      // A page shows once a deployed flow has a widget on it.
      { id: `misc-${s}`, type: "ui-text", position: { x: 300, y: 300 }, config: { group: misc, label: "Nothing", order: 1 } },
    ],
    connections: [
      { source: ids.at79, target: ids.progress },
      { source: ids.update, target: ids.progress },
    ],
  });
  await logIn(page, owner.email);
  // The tab's title is the page's in the server's first answer (not only once scripts run).
  expect(await (await page.request.get(`/dashboard/${slug}/jobs`)).text()).toContain("<title>Jobs · Lab</title>");
  await page.goto(`/dashboard/${slug}/jobs`);
  await expect(page.locator('[data-connection="online"]')).toBeVisible();
  await expect(page).toHaveTitle("Jobs · Lab");
  const bar = page.getByRole("progressbar", { name: "Export" });
  await expect(bar).toHaveAttribute("aria-valuenow", "0");
  await inject(request, owner, ids.at79);
  await expect(bar).toHaveAttribute("aria-valuenow", "79");
  await expect(bar).toHaveText("Export: 79%");
  // Over 100 shows 100; label and colour change by ui_update.
  await inject(request, owner, ids.update);
  const copying = page.getByRole("progressbar", { name: "Copying" });
  await expect(copying).toHaveAttribute("aria-valuenow", "100");
  await expect(copying).toHaveText("Copying: 100%");
  await expect(copying.locator(".db-progress-bar")).toHaveCSS("background-color", "rgb(76, 175, 80)");
  // The navigation: Jobs, the Docs link, Other (by order); the hidden link is not there.
  const nav = page.getByRole("navigation", { name: "Dashboard pages" });
  await expect(nav.getByRole("link")).toHaveText([/^Jobs$/, /^Docs/, /^Other$/]);
  // Icons are Material Design Icons, as Dashboard 2.0's (the font, never the icon's name as text).
  const glyph = nav.getByRole("link", { name: /Docs/ }).locator(".mdi-book");
  await expect.poll(() => glyph.evaluate((el) => getComputedStyle(el, "::before").fontFamily)).toMatch(/Material Design Icons/);
  expect(await glyph.textContent()).toBe("");
  await expect(nav.getByRole("link", { name: /Docs/ })).toHaveAttribute("href", "/docs");
  await shot(page, "dashboard-progress-link");
  await expectAccessible(page);
  // Kept: a reload shows the last value.
  await page.reload();
  await expect(page.getByRole("progressbar", { name: "Copying" })).toHaveAttribute("aria-valuenow", "100");
  await page.getByRole("navigation", { name: "Dashboard pages" }).getByRole("link", { name: /Docs/ }).click();
  await expect(page).toHaveURL(/\/docs$/);
});

test("another site's page in a frame (FlowFuse's ui-iframe): msg.src changes it, the dashboard's own site and other schemes are refused, and the framed page cannot navigate the dashboard", async ({ page, request }) => {
  // Another origin: the same machine on another port, as a Grafana or a camera on the network is.
  const site = createServer((req, res) => {
    const name = req.url === "/two" ? "Camera two" : "Camera one";
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    // The second page tries to take the dashboard's tab over; the frame's sandbox stops it.
    res.end(`<!doctype html><title>${name}</title><h1>${name}</h1>${req.url === "/two" ? "<script>try { top.location.href = 'https://example.com/'; } catch (e) { document.body.append('blocked'); }</script>" : ""}`);
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  const other = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  try {
    const owner = await registerUser(request, "dash-iframe");
    const slug = await slugOf(request, owner);
    const s = unique();
    const base = await configNode(request, owner, "ui-base", "Plant", {});
    const home = await configNode(request, owner, "ui-page", "Cameras", { ui: base, path: "/cams", order: 1 });
    const group = await configNode(request, owner, "ui-group", "Line 1", { page: home, width: 6, order: 1 });
    const ids = { two: `two-${s}`, own: `own-${s}`, back: `back-${s}`, frame: `frame-${s}` };
    // The node's URL is checked where it is saved: a javascript: address is refused with the field named.
    const refused = await request.post("/api/v1/flows", {
      headers: auth(owner),
      data: { name: `Bad frame ${s}`, nodes: [{ id: `bad-${s}`, type: "ui-iframe", position: { x: 0, y: 0 }, config: { group, src: "javascript:alert(1)" } }], connections: [] },
    });
    expect(refused.status()).toBe(400);
    expect(await refused.text()).toContain("src");
    await deployFlow(request, owner, `Frames ${s}`, {
      nodes: [
        { id: ids.two, type: "inject", position: { x: 100, y: 100 }, config: { props: [{ p: "src", v: `${other}/two`, v_type: "str" }] } },
        { id: ids.own, type: "inject", position: { x: 100, y: 200 }, config: { props: [{ p: "src", v: "/api/v1/health", v_type: "str" }] } },
        { id: ids.back, type: "inject", position: { x: 100, y: 300 }, config: { props: [{ p: "payload", v: "back", v_type: "str" }] } },
        { id: ids.frame, type: "ui-iframe", position: { x: 300, y: 200 }, config: { group, src: `${other}/one`, label: "Line camera", order: 1 } },
        // Dashboard 1's way (a surveyed ISS tracker frames its worldmap from a ui_template): allowed in the template's own sandbox.
        { id: `tpl-${s}`, type: "ui-template", position: { x: 300, y: 400 }, config: { group, order: 2, format: `<iframe src="${other}/one" title="Map" style="width:100%;height:120px;border:0"></iframe>` } },
      ],
      connections: [ids.two, ids.own, ids.back].map((source) => ({ source, target: ids.frame })),
    });
    await logIn(page, owner.email);
    await page.goto(`/dashboard/${slug}/cams`);
    await expect(page.locator('[data-connection="online"]')).toBeVisible();
    const frame = page.locator('iframe[title="Line camera"]');
    await expect(frame).toHaveAttribute("src", `${other}/one`);
    // Sandboxed: its own origin's scripts and forms run, navigating the dashboard's tab does not.
    expect((await frame.getAttribute("sandbox"))!.split(" ")).not.toContain("allow-top-navigation");
    await expect(page.frameLocator('iframe[title="Line camera"]').getByRole("heading", { name: "Camera one" })).toBeVisible();
    await expect(page.frameLocator("iframe.db-template").frameLocator('iframe[title="Map"]').getByRole("heading", { name: "Camera one" })).toBeVisible();
    // Eight rows of FlowFuse's default height: a frame, not a line.
    expect((await frame.boundingBox())!.height).toBeGreaterThan(200);
    await inject(request, owner, ids.two);
    await expect(page.frameLocator('iframe[title="Line camera"]').getByRole("heading", { name: "Camera two" })).toBeVisible();
    await expect(page.frameLocator('iframe[title="Line camera"]').getByText("blocked")).toBeVisible();
    expect(page.url()).toContain(`/dashboard/${slug}/cams`);
    await shot(page, "dashboard-iframe");
    await expectAccessible(page);
    // The dashboard's own site is not framed (it would run with the viewer's session): the widget says why.
    await inject(request, owner, ids.own);
    await expect(page.getByRole("note").filter({ hasText: "/api/v1/health is on this dashboard's own site" })).toBeVisible();
    await expect(page.locator("iframe[title='Line camera']")).toHaveCount(0);
    // A message without src shows the node's URL again (Dashboard 2.0's messages[id]?.src || props.src); kept over a reload.
    await inject(request, owner, ids.back);
    await expect(page.frameLocator('iframe[title="Line camera"]').getByRole("heading", { name: "Camera one" })).toBeVisible();
    await inject(request, owner, ids.two);
    await expect(page.frameLocator('iframe[title="Line camera"]').getByRole("heading", { name: "Camera two" })).toBeVisible();
    await page.reload();
    await expect(page.frameLocator('iframe[title="Line camera"]').getByRole("heading", { name: "Camera two" })).toBeVisible();
  } finally {
    site.close();
  }
});

test("a file upload (Dashboard 2.0's ui-file-input): chosen with the keyboard, refused when too large, uploaded with progress; the flow saves it", async ({ page, request }) => {
  const owner = await registerUser(request, "dash-upload");
  const slug = await slugOf(request, owner);
  const s = unique();
  const base = await configNode(request, owner, "ui-base", "Office", {});
  const home = await configNode(request, owner, "ui-page", "Inbox", { ui: base, path: "/inbox", order: 1 });
  const group = await configNode(request, owner, "ui-group", "Documents", { page: home, width: 6, order: 1 });
  const ids = { input: `fin-${s}`, save: `save-${s}`, say: `say-${s}`, text: `txt-${s}` };
  await deployFlow(request, owner, `Upload ${s}`, {
    nodes: [
      { id: ids.input, type: "ui-file-input", position: { x: 100, y: 100 }, config: { group, label: "Invoice", accept: ".csv,text/plain", order: 1 } },
      { id: ids.save, type: "file", position: { x: 300, y: 100 }, config: { filename: "file.name", filename_type: "msg", overwrite_file: "true", append_newline: false } },
      { id: ids.say, type: "change", position: { x: 500, y: 100 }, config: { rules: [{ t: "set", p: "payload", p_type: "msg", to: "'saved ' & msg.file.name & ' (' & msg.file.size & ' bytes)'", to_type: "jsonata" }] } },
      { id: ids.text, type: "ui-text", position: { x: 700, y: 100 }, config: { group, label: "Last", order: 2 } },
    ],
    connections: [
      { source: ids.input, target: ids.save },
      { source: ids.save, target: ids.say },
      { source: ids.say, target: ids.text },
    ],
  });
  await logIn(page, owner.email);
  await page.goto(`/dashboard/${slug}/inbox`);
  await expect(page.locator('[data-connection="online"]')).toBeVisible();
  const field = page.getByLabel("Invoice");
  await expect(field).toHaveAttribute("accept", ".csv,text/plain");
  const upload = page.getByRole("button", { name: "Upload" });
  await expect(upload).toBeDisabled();
  // Over the limit (1,000,000 bytes by default): said at once, nothing sent.
  await field.setInputFiles({ name: "huge.csv", mimeType: "text/csv", buffer: Buffer.alloc(1_000_001, 65) });
  const documents = dashboardGroup(page, "Documents");
  await expect(documents.getByRole("alert")).toHaveText("File size should be less than 1 MB!");
  await expect(upload).toBeDisabled();
  const rows = Array.from({ length: 20_000 }, (_, i) => `${i},item ${i},${(i * 1.5).toFixed(2)}`).join("\n");
  const csv = Buffer.from(`id,name,amount\n${rows}\n`);
  await field.setInputFiles({ name: "invoice.csv", mimeType: "text/csv", buffer: csv });
  await expect(documents.getByRole("alert")).toHaveCount(0);
  await shot(page, "dashboard-file-chosen");
  await field.focus();
  await page.keyboard.press("Tab");
  await expect(upload).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("status").filter({ hasText: "File Uploaded!" })).toBeVisible();
  await expect(dashboardGroup(page, "Documents").getByText(`saved invoice.csv (${csv.length} bytes)`)).toBeVisible();
  await shot(page, "dashboard-file-upload");
  await expectAccessible(page);
  const saved = await request.get("/api/v1/files/invoice.csv", { headers: auth(owner) });
  expect(saved.status()).toBe(200);
  expect(Buffer.from(await saved.body()).equals(csv)).toBe(true);
  await page.getByRole("button", { name: "Upload Another File" }).click();
  await expect(page.getByLabel("Invoice")).toBeVisible();
});

test("ui-audio: the player plays what the flow names and the flow hears play and ended; speech speaks on every page and reports back", async ({ page, request }) => {
  const owner = await registerUser(request, "dash-audio");
  const slug = await slugOf(request, owner);
  const s = unique();
  const base = await configNode(request, owner, "ui-base", "Hall", {});
  const home = await configNode(request, owner, "ui-page", "Sounds", { ui: base, path: "/sounds", order: 1 });
  const group = await configNode(request, owner, "ui-group", "Speaker", { page: home, width: 6, order: 1 });
  // A tenth of a second of silence as a WAV data: URL (8 kHz, 8-bit mono).
  const samples = 800;
  const wav = Buffer.alloc(44 + samples, 128);
  wav.write("RIFF", 0);
  wav.writeUInt32LE(36 + samples, 4);
  wav.write("WAVEfmt ", 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(8000, 24);
  wav.writeUInt32LE(8000, 28);
  wav.writeUInt16LE(1, 32);
  wav.writeUInt16LE(8, 34);
  wav.write("data", 36);
  wav.writeUInt32LE(samples, 40);
  const src = `data:audio/wav;base64,${wav.toString("base64")}`;
  const ids = { source: `src-${s}`, play: `play-${s}`, say: `say-${s}`, player: `player-${s}`, tts: `tts-${s}`, events: `ev-${s}`, text: `txt-${s}` };
  await deployFlow(request, owner, `Audio ${s}`, {
    nodes: [
      { id: ids.source, type: "inject", position: { x: 100, y: 100 }, config: { props: [{ p: "payload", v: src, v_type: "str" }] } },
      { id: ids.play, type: "inject", position: { x: 100, y: 200 }, config: { props: [{ p: "playback", v: "play", v_type: "str" }] } },
      { id: ids.say, type: "inject", position: { x: 100, y: 300 }, config: { props: [{ p: "payload", v: '{"text":"Door open","rate":1.5}', v_type: "json" }] } },
      { id: ids.player, type: "ui-audio", name: "Bell", position: { x: 300, y: 150 }, config: { mode: "src", group, order: 1 } },
      { id: ids.tts, type: "ui-audio", position: { x: 300, y: 300 }, config: { mode: "tts", group: "", ui: base, voice: "Test Voice" } },
      { id: ids.events, type: "change", position: { x: 500, y: 200 }, config: { rules: [{ t: "set", p: "payload", p_type: "msg", to: "$type(msg._event) = 'string' ? msg._event : msg._event.type & ' ' & msg._event.utterance.text & ' ' & msg._event.utterance.voice.name", to_type: "jsonata" }, { t: "delete", p: "_client", p_type: "msg" }] } },
      { id: ids.text, type: "ui-text", position: { x: 700, y: 200 }, config: { group, label: "Heard", order: 2 } },
    ],
    connections: [
      { source: ids.source, target: ids.player },
      { source: ids.play, target: ids.player },
      { source: ids.say, target: ids.tts },
      { source: ids.player, target: ids.events },
      { source: ids.tts, target: ids.events },
      { source: ids.events, target: ids.text },
    ],
  });
  // The browser's voices are the machine's: a fake speechSynthesis with one voice that "speaks" at once.
  await page.addInitScript(() => {
    const voice = { name: "Test Voice", lang: "en-US", localService: true, voiceURI: "test", default: true };
    const synth = {
      speaking: false,
      paused: false,
      getVoices: () => [voice],
      cancel() {},
      pause() {},
      resume() {},
      speak(u: { text: string; onstart?: () => void; onend?: () => void }) {
        (window as unknown as { spoken: string[] }).spoken.push(u.text);
        setTimeout(() => u.onstart?.(), 10);
        setTimeout(() => u.onend?.(), 20);
      },
    };
    (window as unknown as { spoken: string[] }).spoken = [];
    Object.defineProperty(window, "speechSynthesis", { value: synth });
    (window as unknown as { SpeechSynthesisUtterance: unknown }).SpeechSynthesisUtterance = class {
      rate = 1;
      pitch = 1;
      volume = 1;
      lang = "";
      voice: unknown = null;
      constructor(public text: string) {}
    };
  });
  await logIn(page, owner.email);
  const response = await page.goto(`/dashboard/${slug}/sounds`);
  expect(response?.headers()["content-security-policy"]).toContain("media-src 'self' https: data: blob:");
  await expect(page.locator('[data-connection="online"]')).toBeVisible();
  await inject(request, owner, ids.source);
  const player = page.locator('audio[aria-label="Bell"]');
  await expect(player).toHaveAttribute("src", src);
  // A browser plays only after the viewer used the page.
  await page.getByRole("heading", { name: "Speaker" }).click();
  await inject(request, owner, ids.play);
  const heard = dashboardGroup(page, "Speaker");
  await expect(heard.getByText("ended", { exact: true })).toBeVisible({ timeout: 10_000 });
  await inject(request, owner, ids.say);
  await expect(heard.getByText("tts-end Door open Test Voice", { exact: true })).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { spoken: string[] }).spoken)).toEqual(["Door open"]);
  await shot(page, "dashboard-audio");
  await expectAccessible(page);
});

test("a dashboard as FlowFuse's Getting Started blueprint writes it: a markdown link to /dashboard/<page> opens that page in place; a form adds rows to a table of progress and tick columns, each kept on the viewer's tab; a slider wears its colours", async ({ page, request }) => {
  const owner = await registerUser(request, "dash-started");
  const slug = await slugOf(request, owner);
  const s = unique();
  const bp = [{ name: "Default", px: "0", cols: "3" }, { name: "Desktop", px: "1024", cols: "12" }];
  // Dashboard 2.0's flows.json as its editor writes it (numbers as text, column titles as `title`).
  const flows = [
    { id: `tab${s}`, type: "tab", label: "Getting started" },
    { id: `base${s}`, type: "ui-base", name: "FlowFuse Dashboard", path: "/dashboard", includeClientData: true, acceptsClientConfig: ["ui-notification", "ui-control"], headerContent: "page", navigationStyle: "default", titleBarStyle: "fixed" },
    // The blueprint's primary is Dashboard 2.0's #0094ce, whose white text is 3.5:1 (below AA): a darker blue here.
    { id: `theme${s}`, type: "ui-theme", name: "Default Theme", colors: { surface: "#1f2937", primary: "#00668f", bgPage: "#eeeeee", groupBg: "#ffffff", groupOutline: "#cccccc" }, sizes: { density: "default", pagePadding: "12px", groupGap: "12px", groupBorderRadius: "4px", widgetGap: "12px" } },
    { id: `home${s}`, type: "ui-page", name: "Getting Started", ui: `base${s}`, path: "/page1", icon: "home", layout: "notebook", theme: `theme${s}`, breakpoints: bp, order: 1, className: "", visible: true, disabled: false },
    { id: `entry${s}`, type: "ui-page", name: "Data Entry", ui: `base${s}`, path: "/data-entry", icon: "table", layout: "grid", theme: `theme${s}`, breakpoints: bp, order: 2, className: "", visible: "true", disabled: "false" },
    { id: `welcome${s}`, type: "ui-group", name: "Welcome", page: `home${s}`, width: "6", height: "1", order: 1, showTitle: false, className: "", visible: "true", disabled: "false", groupType: "default" },
    { id: `add${s}`, type: "ui-group", name: "Add Product", page: `entry${s}`, width: "3", height: "1", order: 1, showTitle: true, className: "", visible: "true", disabled: "false", groupType: "default" },
    { id: `all${s}`, type: "ui-group", name: "All Products", page: `entry${s}`, width: "9", height: "1", order: 2, showTitle: true, className: "", visible: "true", disabled: "false", groupType: "default" },
    { id: `md${s}`, type: "ui-markdown", z: `tab${s}`, group: `welcome${s}`, name: "Welcome Page", order: 1, width: 0, height: 0, content: "# Dashboard Blueprint\n\n### [Data Entry](/dashboard/data-entry)\n\nA simple form that adds data to a Table.\n\n[Docs](https://dashboard.flowfuse.com/)", className: "", x: 160, y: 100, wires: [[]] },
    {
      id: `form${s}`, type: "ui-form", z: `tab${s}`, name: "", group: `add${s}`, label: "", order: 1, width: "3", height: "1",
      options: [
        { label: "Product Name", key: "name", type: "text", required: true, rows: null },
        { label: "Remaining Stock", key: "stock", type: "number", required: false, rows: null },
        { label: "Available", key: "isAvailable", type: "switch", required: false, rows: null },
      ],
      formValue: { name: "", stock: "", isAvailable: false }, payload: "", submit: "Add", cancel: "Clear", resetOnSubmit: true, topic: "topic", topicType: "msg", splitLayout: "", className: "", passthru: false, dropdownOptions: [], x: 150, y: 460, wires: [[`table${s}`]],
    },
    {
      id: `table${s}`, type: "ui-table", z: `tab${s}`, group: `all${s}`, name: "", label: "", order: 1, width: "9", height: "1", maxrows: 0, passthru: false, autocols: false, showSearch: true, selectionType: "none",
      columns: [
        { title: "Product", key: "name", keyType: "key", type: "text", width: "", align: "start" },
        { title: "", key: "stock", keyType: "key", type: "progress", width: "", align: "center" },
        { title: "", key: "isAvailable", keyType: "key", type: "tickcross", width: "", align: "center" },
      ],
      mobileBreakpoint: "sm", mobileBreakpointType: "defaults", action: "append", x: 290, y: 460, wires: [[]],
    },
    // Dashboard 2.0's "show the logged in user" template: a Teleport to the app bar reading setup.socketio.auth.
    {
      id: `hello${s}`, type: "ui-template", z: `tab${s}`, group: "", page: "", ui: `base${s}`, name: "", order: 0, width: 0, height: 0, head: "",
      format: '<template>\n  <Teleport v-if="loaded" to="#app-bar-actions">\n    <div class="user-info" v-if="setup.socketio.auth">\n      <img :src="setup.socketio.auth.user.image" alt="" />\n      <span>Hi, {{ setup.socketio.auth.user.name }}!</span>\n    </div>\n    <div class="user-info" v-else>No User Found</div>\n  </Teleport>\n</template>\n<script>\nexport default { data () { return { loaded: false } }, mounted () { this.loaded = true } }\n</script>',
      storeOutMessages: true, passthru: true, resendOnRefresh: true, templateScope: "widget:ui", className: "", x: 720, y: 240, wires: [[]],
    },
    { id: `slider${s}`, type: "ui-slider", z: `tab${s}`, group: `add${s}`, name: "", label: "Slider 2", tooltip: "", order: 2, width: 0, height: 0, passthru: false, outs: "all", topic: "Slider 2", topicType: "str", thumbLabel: "true", showTicks: "always", min: 0, max: 10, step: 1, className: "", color: "red", colorTrack: "", colorThumb: "", showTextField: false, x: 180, y: 680, wires: [[]] },
  ];
  await importFlowsAndDeploy(request, owner, flows, true);

  await logIn(page, owner.email);
  await page.goto(`/dashboard/${slug}/page1`);
  await expect(page.locator('[data-connection="online"]')).toBeVisible();
  // The template's Teleport to the app bar shows there, greeting the signed-in viewer with their initials' image.
  const bar = page.frameLocator(".db-appbar-templates iframe");
  await expect(bar.getByText(/^Hi, .+!$/)).toBeVisible({ timeout: 15_000 });
  expect(await bar.locator(".user-info img").getAttribute("src")).toMatch(/^data:image\/svg\+xml,/);
  // The link Dashboard 2.0 serves at /dashboard/data-entry opens that page here, without a reload.
  const docs = page.locator(".db-markdown").getByRole("link", { name: "Docs" });
  await expect(docs).toHaveAttribute("target", "_blank");
  await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
  await page.locator(".db-markdown").getByRole("link", { name: "Data Entry" }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/${slug}/data-entry$`));
  await expect(page.getByRole("heading", { name: "All Products" })).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);

  const table = dashboardGroup(page, "All Products");
  await expect(table.getByRole("columnheader", { name: "Product" })).toBeVisible();
  const form = dashboardGroup(page, "Add Product");
  await form.getByLabel("Product Name").fill("Widget");
  await form.getByLabel("Remaining Stock").fill("40");
  // The form's switch field is a switch, used from the keyboard.
  await form.getByRole("switch", { name: "Available" }).focus();
  await page.keyboard.press("Space");
  await expect(form.getByRole("switch", { name: "Available" })).toBeChecked();
  await form.getByRole("button", { name: "Add" }).click();
  await expect(table.getByRole("row")).toHaveCount(2);
  await form.getByLabel("Product Name").fill("Gadget");
  await form.getByLabel("Remaining Stock").fill("85");
  await form.getByRole("button", { name: "Add" }).click();
  // Both rows, in order (each message carries one; the page adds it), with Dashboard 2.0's cell types.
  const rows = table.getByRole("row");
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(1).getByRole("cell").first()).toHaveText("Widget");
  await expect(rows.nth(1).getByRole("progressbar")).toHaveAttribute("aria-valuenow", "40");
  await expect(rows.nth(1).getByRole("img", { name: "yes" })).toBeVisible();
  await expect(rows.nth(2).getByRole("cell").first()).toHaveText("Gadget");
  await expect(rows.nth(2).getByRole("progressbar")).toHaveAttribute("aria-valuenow", "85");
  await expect(rows.nth(2).getByRole("img", { name: "no" })).toBeVisible();
  // The slider's colour is Vuetify's red.
  expect(await form.getByRole("slider", { name: "Slider 2" }).evaluate((el) => getComputedStyle(el).getPropertyValue("--db-slider-fill").trim())).toBe("#f44336");
  await shot(page, "dashboard-getting-started");
  await expectAccessible(page);

  // The rows are this viewer's (the form's message carried msg._client): they stay on the tab's pages.
  await page.getByRole("navigation", { name: "Dashboard pages" }).getByRole("link", { name: "Getting Started" }).click();
  await expect(page.getByRole("heading", { name: "Dashboard Blueprint" })).toBeVisible();
  await page.getByRole("navigation", { name: "Dashboard pages" }).getByRole("link", { name: "Data Entry" }).click();
  await expect(dashboardGroup(page, "All Products").getByRole("row")).toHaveCount(3);
});

test("a number input's − and + (Dashboard 2.0's spinner, inline or stacked) step within min and max and send as typing does; a text's value from JSONata", async ({ page, request }) => {
  const owner = await registerUser(request, "dash-number");
  const slug = await slugOf(request, owner);
  const s = unique();
  const base = await configNode(request, owner, "ui-base", "Plant", {});
  const home = await configNode(request, owner, "ui-page", "Heating", { ui: base, path: "/heating", order: 1 });
  const group = await configNode(request, owner, "ui-group", "Boiler", { page: home, width: 6, order: 1 });
  await deployFlow(request, owner, `Heating ${s}`, {
    nodes: [
      { id: `set-${s}`, type: "ui-number-input", position: { x: 100, y: 100 }, config: { group, label: "Setpoint", order: 1, min: 0, max: 2, step: 0.5, suffix: "°C" } },
      { id: `fan-${s}`, type: "ui-number-input", position: { x: 100, y: 200 }, config: { group, label: "Fan", order: 2, min: 0, max: 3, step: 1, spinner: "stacked" } },
      // Dashboard 2.0's typed Value: a JSONata expression over the message.
      { id: `txt-${s}`, type: "ui-text", position: { x: 400, y: 100 }, config: { group, label: "Doubled", order: 3, value: "payload * 2", valueType: "jsonata" } },
      // Dashboard 1's {{value | number:2}} kept on an imported gauge: two decimals.
      { id: `gauge-${s}`, type: "ui-gauge", position: { x: 400, y: 200 }, config: { group, title: "Pressure", order: 4, min: 0, max: 5, units: "bar", decimals: 2, value: "payload / 3", valueType: "jsonata" } },
    ],
    connections: [
      { source: `set-${s}`, target: `txt-${s}` },
      { source: `set-${s}`, target: `gauge-${s}` },
    ],
  });
  await logIn(page, owner.email);
  await page.goto(`/dashboard/${slug}/heating`);
  await expect(page.locator('[data-connection="online"]')).toBeVisible();
  const boiler = dashboardGroup(page, "Boiler");
  const setpoint = boiler.getByRole("spinbutton", { name: "Setpoint" });
  const doubled = boiler.locator('[data-widget-type="ui-text"] .db-text-value');
  const increase = boiler.getByRole("button", { name: "Increase Setpoint" });
  const decrease = boiler.getByRole("button", { name: "Decrease Setpoint" });

  // Dashboard 1's "{{value}} °C" kept as the field's suffix.
  await expect(boiler.locator('[data-widget-type="ui-number-input"]').first().getByText("°C", { exact: true })).toBeVisible();
  await increase.click();
  await increase.click();
  await increase.click();
  await expect(setpoint).toHaveValue("1.5");
  // Without "send after a pause", the value goes on Enter (or on leaving the field), as typing.
  await expect(doubled).toHaveText("");
  await setpoint.focus();
  await page.keyboard.press("Enter");
  await expect(doubled).toHaveText("3");
  await expect(boiler.getByRole("meter", { name: "Pressure" })).toHaveAttribute("aria-valuetext", "0.50 bar");
  await increase.click();
  await expect(setpoint).toHaveValue("2");
  await expect(increase).toBeDisabled();
  await decrease.click();
  await expect(setpoint).toHaveValue("1.5");
  // The keyboard alone: the arrow keys in the field step too.
  await setpoint.focus();
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("Enter");
  await expect(doubled).toHaveText("4");

  const fan = boiler.getByRole("spinbutton", { name: "Fan" });
  await boiler.getByRole("button", { name: "Increase Fan" }).click();
  await expect(fan).toHaveValue("1");
  await shot(page, "dashboard-number-spinners");
  await expectAccessible(page);
});

test("a Dashboard 2.0 group wider than the page's 12 columns (a published flow's 16) spans the page, as Dashboard 2.0 draws it (ninth survey)", async ({ page, request }) => {
  const owner = await registerUser(request, "dash-wide");
  const slug = await slugOf(request, owner);
  const s = unique();
  const flows = [
    { id: `wtab${s}`, type: "tab", label: "Motion" },
    { id: `wbase${s}`, type: "ui-base", name: "Wide", path: "/dashboard" },
    { id: `wpage${s}`, type: "ui-page", name: "Motion", ui: `wbase${s}`, path: "/motion", layout: "grid", order: 1 },
    { id: `wwide${s}`, type: "ui-group", name: "Motion Monitor", page: `wpage${s}`, width: "16", height: "1", order: 1, showTitle: true },
    { id: `whalf${s}`, type: "ui-group", name: "Half", page: `wpage${s}`, width: "6", height: "1", order: 2, showTitle: true },
    { id: `wtext${s}`, type: "ui-text", z: `wtab${s}`, group: `wwide${s}`, order: 1, width: 0, height: 0, label: "Motion", format: "{{msg.payload}}", layout: "row-spread", x: 200, y: 40, wires: [] },
    { id: `wtext2${s}`, type: "ui-text", z: `wtab${s}`, group: `whalf${s}`, order: 1, width: 0, height: 0, label: "Half", format: "{{msg.payload}}", layout: "row-spread", x: 200, y: 80, wires: [] },
  ];
  await importFlowsAndDeploy(request, owner, flows, true);
  await logIn(page, owner.email);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`/dashboard/${slug}/motion`);
  const wide = dashboardGroup(page, "Motion Monitor");
  const half = dashboardGroup(page, "Half");
  await expect(wide).toBeVisible();
  await expect(half).toBeVisible();
  const [w, h] = [(await wide.boundingBox())!, (await half.boundingBox())!];
  // 12 of 12 columns against 6 of 12 (with the gap between two groups).
  expect(w.width / h.width).toBeGreaterThan(1.9);
  expect(h.y).toBeGreaterThan(w.y + w.height - 1);
  await shot(page, "dashboard-wide-group");
});
