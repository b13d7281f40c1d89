import { describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { connect } from "@/test/ws";
import { signUp } from "@/test/accounts";
import { sessionCookie, setUpDashboardSockets } from "@/test/dashboard";

/**
 * SPEC §21: what Dashboard 2.0's own editor writes, imported and deployed: its layout editor's
 * spacers (ui-spacer, stored as configuration nodes that name their group) take their place on the
 * page, and its links and pages, named by nothing but their dashboard, go with it. The flow's shape is that of Dashboard 2.0's spacer fixture (cypress/fixtures/flows).
 */
const testApp = setUpTestApp();
const dash = setUpDashboardSockets(testApp);
const request = testApp.request;

const flows = (s: string) => [
  { id: `tab${s}`, type: "tab", label: "spacers" },
  { id: `base${s}`, type: "ui-base", name: "Layout", path: "/dashboard" },
  { id: `page${s}`, type: "ui-page", name: "Spaced", ui: `base${s}`, path: `/spaced-${s}`, layout: "grid", order: 1 },
  { id: `group${s}`, type: "ui-group", name: "Row", page: `page${s}`, width: "6", height: "1", order: 1, showTitle: true },
  { id: `text${s}`, type: "ui-text", z: `tab${s}`, group: `group${s}`, order: 2, width: "3", height: "1", label: "After the gap", format: "{{msg.payload}}", layout: "row-spread", x: 200, y: 80, wires: [] },
  { id: `link${s}`, type: "ui-link", name: "Docs", ui: `base${s}`, path: "https://dashboard.flowfuse.com/", icon: "book-open", order: 2, visible: "true", disabled: "false" },
  { id: `unset${s}`, type: "ui-link", name: "Link", ui: `base${s}`, path: -1, icon: "home", order: 0, visible: true, disabled: false },
  { id: `spacer${s}`, type: "ui-spacer", group: `group${s}`, name: "spacer", order: 1, width: "3", height: "2", className: "class1 class2" },
  // A page no widget is on yet (as Dashboard 2.0's template fixture has), with a theme only it names.
  { id: `empty${s}`, type: "ui-page", name: "Empty", ui: `base${s}`, path: `/empty-${s}`, theme: `dark${s}`, layout: "grid", order: 3 },
  { id: `dark${s}`, type: "ui-theme", name: "Dark", colors: { surface: "#000000", primary: "#ff0000", bgPage: "#111111", groupBg: "#222222", groupOutline: "#333333" } },
];

describe("Dashboard 2.0 import", () => {
  it("a ui-spacer imports as a configuration node and, deployed with its group, is a widget of its size at its order; ui-links and pages without widgets join the navigation", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    const s = Math.random().toString(36).slice(2, 8);
    const dry = await request("POST", "/flows/import?dry_run=true", { token, body: { flows: flows(s) } });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.report.find((r: { type: string }) => r.type === "ui-spacer")).toMatchObject({ support: "supported" });
    const imported = await request("POST", "/flows/import", { token, body: { flows: flows(s) } });
    expect(imported.status, imported.text).toBe(201);
    const spacer = (await request("GET", `/config-nodes/spacer${s}`, { token })).body.config_node;
    expect(spacer).toMatchObject({ type: "ui-spacer", config: { group: `group${s}`, order: 1, width: 3, height: 2, className: "class1 class2" } });
    expect((await request("POST", `/flows/${imported.body.flows[0].id}/deploy`, { token })).status).toBe(200);

    const slug = (await request("GET", "/auth/profile", { token })).body.organization.slug as string;
    const socket = connect(dash.url(slug, `/spaced-${s}`), await sessionCookie(testApp.app, owner));
    const page = await socket.next((f) => f.type === "dashboard.page");
    expect(page.view.groups).toHaveLength(1);
    expect(page.view.groups[0].widgets.map((w: { id: string; type: string; width: number; height: number; order: number }) => [w.type, w.width, w.height, w.order])).toEqual([
      ["ui-spacer", 3, 2, 1],
      ["ui-text", 3, 1, 2],
    ]);
    // Its ui-links and pages went with the deployment that carries their dashboard: in the navigation by order.
    expect(page.view.pages.map((p: { name: string; order: number }) => [p.name, p.order])).toEqual([
      ["Spaced", 1],
      ["Empty", 3],
    ]);
    expect(page.view.links).toEqual([
      { id: `unset${s}`, name: "Link", url: "", icon: "home", order: 0, visible: true, disabled: true },
      { id: `link${s}`, name: "Docs", url: "https://dashboard.flowfuse.com/", icon: "book-open", order: 2, visible: true, disabled: false },
    ]);
    socket.ws.close();
    // The page without widgets is shown, empty, in its own theme (as Node-RED deploys every configuration node).
    const empty = connect(dash.url(slug, `/empty-${s}`), await sessionCookie(testApp.app, owner));
    const emptyPage = await empty.next((f) => f.type === "dashboard.page");
    expect(emptyPage.view.page).toMatchObject({ name: "Empty", path: `/empty-${s}` });
    expect(emptyPage.view.groups).toEqual([]);
    expect(emptyPage.view.theme.colors).toMatchObject({ primary: "#ff0000", surface: "#000000" });
    empty.ws.close();
  });

  it("FlowFuse's ui-led add-on, as its editor writes it (FlowFuse's S7 tower-light article: bool states stored as text), imports whole and lights in its state's colour", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    const s = Math.random().toString(36).slice(2, 8);
    const led = (id: string, order: number, color: string) => ({
      id,
      type: "ui-led",
      z: `tab${s}`,
      name: `Status of ${id}`,
      group: `group${s}`,
      order,
      width: "1",
      height: "3",
      label: "",
      labelPlacement: "left",
      labelAlignment: "left",
      states: [
        { value: "true", valueType: "bool", color },
        { value: "false", valueType: "bool", color: "#787878" },
      ],
      allowColorForValueInMessage: false,
      shape: "circle",
      showBorder: true,
      showGlow: true,
      x: 810,
      y: 340,
      wires: [],
    });
    const file = [
      { id: `tab${s}`, type: "tab", label: "tower light" },
      { id: `base${s}`, type: "ui-base", name: "My Dashboard", path: "/dashboard", includeClientData: true, acceptsClientConfig: ["ui-notification", "ui-control"], showPathInSidebar: false, showPageTitle: true, navigationStyle: "default", titleBarStyle: "hidden" },
      { id: `page${s}`, type: "ui-page", name: "Page 1", ui: `base${s}`, path: `/tower-${s}`, icon: "home", layout: "notebook", order: 1, className: "", visible: "true", disabled: "false" },
      { id: `group${s}`, type: "ui-group", name: "Group 1", page: `page${s}`, width: "3", height: 1, order: 1, showTitle: false, className: "", visible: "true", disabled: "false", groupType: "default" },
      { id: `inj${s}`, type: "inject", z: `tab${s}`, name: "light status", props: [{ p: "payload" }], repeat: "", crontab: "", once: false, onceDelay: 0.1, topic: "", payload: '{"red":true,"yellow":false,"green":false}', payloadType: "json", x: 260, y: 400, wires: [[`change${s}`]] },
      { id: `change${s}`, type: "change", z: `tab${s}`, name: "", rules: [{ t: "set", p: "payload", pt: "msg", to: "payload.red", tot: "msg" }], action: "", property: "", from: "", to: "", reg: false, x: 600, y: 340, wires: [[`red${s}`]] },
      led(`red${s}`, 1, "#ff0000"),
      led(`yellow${s}`, 2, "#c8ff00"),
    ];
    const dry = await request("POST", "/flows/import?dry_run=true", { token, body: { flows: file } });
    expect(dry.status, dry.text).toBe(200);
    for (const r of dry.body.report.filter((x: { type: string }) => x.type === "ui-led")) expect(r).toMatchObject({ support: "supported" });
    const imported = await request("POST", "/flows/import", { token, body: { flows: file } });
    expect(imported.status, imported.text).toBe(201);
    const flow = imported.body.flows[0];
    expect(flow.nodes.find((n: { id: string }) => n.id === `red${s}`).config).toMatchObject({ width: 1, height: 3, states: [{ value: "true", valueType: "bool", color: "#ff0000" }, { value: "false", valueType: "bool", color: "#787878" }], showBorder: true });
    expect((await request("POST", `/flows/${flow.id}/deploy`, { token })).status).toBe(200);

    const slug = (await request("GET", "/auth/profile", { token })).body.organization.slug as string;
    const socket = connect(dash.url(slug, `/tower-${s}`), await sessionCookie(testApp.app, owner));
    const page = await socket.next((f) => f.type === "dashboard.page");
    expect(page.view.groups[0].widgets.map((w: { type: string; height: number }) => [w.type, w.height])).toEqual([
      ["ui-led", 3],
      ["ui-led", 3],
    ]);
    // The light status from the PLC ({ red, yellow, green }) through the change node: the LED keeps true.
    const inject = await request("POST", `/nodes/inj${s}/inject`, { token });
    expect(inject.status, inject.text).toBeLessThan(300);
    const update = await socket.next((f) => f.type === "dashboard.update" && f.widget_id === `red${s}`);
    expect(update.msg.payload).toBe(true);
    socket.ws.close();
  });

  it("ninth survey: a group wider than 12 columns keeps its width (up to 24, the widest page), a template's height \"auto\" sizes it as Dashboard 2.0 does, neither reported lost", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    const s = Math.random().toString(36).slice(2, 8);
    const file = [
      { id: `tab${s}`, type: "tab", label: "Motion" },
      { id: `base${s}`, type: "ui-base", name: "UI", path: "/dashboard" },
      { id: `page${s}`, type: "ui-page", name: "Motion", ui: `base${s}`, path: `/motion-${s}`, layout: "grid", order: 1 },
      { id: `wide${s}`, type: "ui-group", name: "Motion Monitor", page: `page${s}`, width: "16", height: "1", order: 1, showTitle: true },
      { id: `widest${s}`, type: "ui-group", name: "Log", page: `page${s}`, width: "30", height: "1", order: 2, showTitle: true },
      { id: `tpl${s}`, type: "ui-template", z: `tab${s}`, group: `wide${s}`, name: "robot", order: 1, width: 12, height: "auto", format: "<div>{{msg.payload}}</div>", templateScope: "local", className: "", x: 300, y: 40, wires: [[]] },
    ];
    const dry = await request("POST", "/flows/import?dry_run=true", { token, body: { flows: file } });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.report.filter((r: { support: string }) => r.support !== "supported")).toEqual([]);
    const imported = await request("POST", "/flows/import", { token, body: { flows: file } });
    expect(imported.status, imported.text).toBe(201);
    expect((await request("GET", `/config-nodes/wide${s}`, { token })).body.config_node.config).toMatchObject({ width: 16 });
    expect((await request("GET", `/config-nodes/widest${s}`, { token })).body.config_node.config).toMatchObject({ width: 24 });
    const template = (imported.body.flows[0].nodes as Array<{ id: string; config: Record<string, unknown> }>).find((n) => n.id === `tpl${s}`)!;
    expect(template.config).toMatchObject({ width: 12, height: 0 });
    // Saved through the API as the editor would: 24 is the widest a group takes.
    const widest = await request("PUT", `/config-nodes/wide${s}`, { token, body: { config: { page: `page${s}`, width: 24 } } });
    expect(widest.status, widest.text).toBe(200);
    const tooWide = await request("PUT", `/config-nodes/wide${s}`, { token, body: { config: { page: `page${s}`, width: 25 } } });
    expect(tooWide.status).toBe(400);
    expect(tooWide.body.error.details).toContainEqual(expect.objectContaining({ path: expect.stringContaining("width") }));
  });

  it("earlier Dashboard 2.0 names, as FlowFuse's Andon Live blueprint has them: a group's disp is its showTitle, a template's dashboard is its ui, fwdInMessages is read by nothing", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    const s = Math.random().toString(36).slice(2, 8);
    const file = [
      { id: `tab${s}`, type: "tab", label: "ANDON Live" },
      { id: `base${s}`, type: "ui-base", name: "UI Name", path: "/dashboard" },
      { id: `page${s}`, type: "ui-page", name: "Andon Live", ui: `base${s}`, path: `/andon-${s}`, layout: "grid", order: -1 },
      { id: `hidden${s}`, type: "ui-group", name: "Header Bar", page: `page${s}`, width: "12", height: "1", order: 1, disp: false },
      { id: `shown${s}`, type: "ui-group", name: "Target", page: `page${s}`, width: "8", height: "2", order: 2, disp: true },
      { id: `css${s}`, type: "ui-template", z: `tab${s}`, group: `hidden${s}`, dashboard: `base${s}`, page: `page${s}`, name: "CSS", order: 1, width: 0, height: 0, head: "", format: ".align-right { text-align: right; }", storeOutMessages: true, fwdInMessages: true, resendOnRefresh: true, templateScope: "page:style", className: "", x: 410, y: 40, wires: [[]] },
      { id: `site${s}`, type: "ui-template", z: `tab${s}`, dashboard: `base${s}`, name: "site CSS", format: "body { margin: 0; }", templateScope: "site:style", x: 410, y: 80, wires: [[]] },
      { id: `text${s}`, type: "ui-text", z: `tab${s}`, group: `shown${s}`, order: 1, width: "4", height: "2", name: "", label: "Target", format: "{{msg.payload}}", layout: "row-spread", x: 630, y: 360, wires: [] },
      // Two widgets of order 0: shown in the flow's order (a label above its value), not by id.
      { id: `zlabel${s}`, type: "ui-text", z: `tab${s}`, group: `hidden${s}`, order: 0, width: "0", height: "0", label: "Shift", format: "{{msg.payload}}", layout: "row-left", x: 1410, y: 640, wires: [] },
      { id: `avalue${s}`, type: "ui-text", z: `tab${s}`, group: `hidden${s}`, order: 0, width: "0", height: "0", label: "Friday Early", format: "{{msg.payload}}", layout: "row-left", x: 1430, y: 680, wires: [] },
    ];
    const dry = await request("POST", "/flows/import?dry_run=true", { token, body: { flows: file } });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.report.filter((r: { support: string }) => r.support !== "supported")).toEqual([]);
    const imported = await request("POST", "/flows/import", { token, body: { flows: file } });
    expect(imported.status, imported.text).toBe(201);
    expect((await request("GET", `/config-nodes/hidden${s}`, { token })).body.config_node.config).toMatchObject({ showTitle: false });
    expect((await request("GET", `/config-nodes/shown${s}`, { token })).body.config_node.config).toMatchObject({ showTitle: true });
    const nodes = imported.body.flows[0].nodes as Array<{ id: string; config: Record<string, unknown> }>;
    expect(nodes.find((n) => n.id === `site${s}`)!.config).toMatchObject({ ui: `base${s}`, templateScope: "site:style" });
    expect((await request("POST", `/flows/${imported.body.flows[0].id}/deploy`, { token })).status).toBe(200);
    const slug = (await request("GET", "/auth/profile", { token })).body.organization.slug as string;
    const socket = connect(dash.url(slug, `/andon-${s}`), await sessionCookie(testApp.app, owner));
    const page = await socket.next((f) => f.type === "dashboard.page");
    expect(page.view.groups.map((g: { name: string; showTitle: boolean }) => [g.name, g.showTitle])).toEqual([
      ["Header Bar", false],
      ["Target", true],
    ]);
    // The page CSS names a group and a page (as the blueprint's does): it is the page's CSS, not a widget of the group.
    expect(page.view.groups[0].widgets.map((w: { id: string }) => w.id)).toEqual([`zlabel${s}`, `avalue${s}`]);
    expect(page.view.headless.map((w: { id: string }) => w.id).sort()).toEqual([`css${s}`, `site${s}`]);
    socket.ws.close();
  });
  it("numbers Dashboard 2.0's editor stores as text, where the property also takes nothing (a chart's ymin \"0\", ymax \"10\"), and a table's column titles and types, as FlowFuse's Getting Started blueprint has them", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    const s = Math.random().toString(36).slice(2, 8);
    const file = [
      { id: `tab${s}`, type: "tab", label: "Getting started" },
      { id: `base${s}`, type: "ui-base", name: "FlowFuse Dashboard", path: "/dashboard" },
      { id: `page${s}`, type: "ui-page", name: "Data Visualisation", ui: `base${s}`, path: `/vis-${s}`, layout: "notebook", order: 4 },
      { id: `group${s}`, type: "ui-group", name: "Slider > Chart", page: `page${s}`, width: "6", height: "1", order: 1, showTitle: true },
      { id: `chart${s}`, type: "ui-chart", z: `tab${s}`, group: `group${s}`, label: "Line Chart", order: 1, chartType: "line", category: "topic", categoryType: "msg", xAxisType: "time", xmin: "", xmax: "", ymin: "0", ymax: "10", removeOlder: 1, removeOlderUnit: "3600", removeOlderPoints: "", bins: "", pointRadius: "", width: "3", height: "6", x: 390, y: 600, wires: [[]] },
      {
        id: `table${s}`, type: "ui-table", z: `tab${s}`, group: `group${s}`, order: 2, width: "9", height: "1", maxrows: 0, autocols: false, showSearch: true, selectionType: "none", action: "append", x: 290, y: 460, wires: [[]],
        columns: [
          { title: "Product", key: "name", keyType: "key", type: "text", width: "", align: "start" },
          { title: "", key: "stock", keyType: "key", type: "progress", width: "", align: "center" },
          { title: "", key: "isAvailable", keyType: "key", type: "tickcross", width: "", align: "center" },
          { title: "Note", key: "fixed text", keyType: "str", type: "a-type-from-tomorrow", align: "end" },
        ],
      },
      { id: `form${s}`, type: "ui-form", z: `tab${s}`, group: `group${s}`, order: 3, options: [{ label: "Name", key: "name", type: "text", required: true, rows: null }], splitLayout: "true", x: 150, y: 460, wires: [[]] },
      // FlowFuse's Multi-user blueprint: a chart saved before the y type existed, its x "msg" with no property.
      { id: `older${s}`, type: "ui-chart", z: `tab${s}`, group: `group${s}`, label: "chart", order: 4, chartType: "bar", category: "x", categoryType: "property", xAxisProperty: "", xAxisPropertyType: "msg", xAxisType: "category", yAxisProperty: "y", ymin: "", ymax: "", action: "replace", x: 570, y: 1240, wires: [[]] },
    ];
    const dry = await request("POST", "/flows/import?dry_run=true", { token, body: { flows: file } });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.report.filter((r: { support: string }) => r.support !== "supported")).toEqual([]);
    const imported = await request("POST", "/flows/import", { token, body: { flows: file } });
    expect(imported.status, imported.text).toBe(201);
    const config = (id: string) => (imported.body.flows[0].nodes as Array<{ id: string; config: Record<string, unknown> }>).find((n) => n.id === id)!.config;
    expect(config(`chart${s}`)).toMatchObject({ ymin: 0, ymax: 10, xmin: "", xmax: "", removeOlderPoints: "" });
    expect(config(`form${s}`)).toMatchObject({ splitLayout: true });
    // As Dashboard 2.0 reads such a chart: y a key of each point, x the time it arrived.
    expect(config(`older${s}`)).toMatchObject({ yAxisProperty: "y", yAxisPropertyType: "property", xAxisProperty: "", xAxisPropertyType: "property", category: "x", categoryType: "property" });
    expect(config(`chart${s}`)).toMatchObject({ yAxisPropertyType: "property" });
    expect(config(`table${s}`).columns).toEqual([
      { title: "Product", label: "", key: "name", keyType: "key", type: "text", width: "", align: "start" },
      { title: "", label: "", key: "stock", keyType: "key", type: "progress", width: "", align: "center" },
      { title: "", label: "", key: "isAvailable", keyType: "key", type: "tickcross", width: "", align: "center" },
      // A type this version does not know is shown as text.
      { title: "Note", label: "", key: "fixed text", keyType: "str", type: "text", align: "end" },
    ]);
  });

  it("groups and pages of one order stand in the file's order, as Dashboard 2.0 registers them (FlowFuse's Andon Operator Terminal: three groups of order -1), and an export keeps it", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    const s = Math.random().toString(36).slice(2, 8);
    // Ids against the file's order, so that an order by id would show it.
    const file = [
      { id: `tab${s}`, type: "tab", label: "terminal" },
      { id: `zbase${s}`, type: "ui-base", name: "Andon", path: "/dashboard" },
      { id: `zpage${s}`, type: "ui-page", name: "Terminal", ui: `zbase${s}`, path: `/terminal-${s}`, layout: "grid", order: 1 },
      { id: `apage${s}`, type: "ui-page", name: "Second", ui: `zbase${s}`, path: `/second-${s}`, layout: "grid", order: 1 },
      { id: `zgroup${s}`, type: "ui-group", name: "Station status", page: `zpage${s}`, width: "12", height: "1", order: -1, showTitle: true },
      { id: `mgroup${s}`, type: "ui-group", name: "Raise", page: `zpage${s}`, width: "6", height: "1", order: -1, showTitle: true },
      { id: `agroup${s}`, type: "ui-group", name: "Details", page: `zpage${s}`, width: "6", height: "1", order: -1, showTitle: true },
      ...["zgroup", "mgroup", "agroup"].map((g, i) => ({ id: `text${i}${s}`, type: "ui-text", z: `tab${s}`, group: `${g}${s}`, order: 1, width: "3", height: "1", label: g, format: "{{msg.payload}}", layout: "row-spread", x: 200, y: 80 + i * 40, wires: [] })),
      { id: `atext${s}`, type: "ui-text", z: `tab${s}`, group: `agroup${s}`, order: 0, width: "3", height: "1", label: "second page", format: "{{msg.payload}}", layout: "row-spread", x: 400, y: 80, wires: [] },
    ];
    const imported = await request("POST", "/flows/import", { token, body: { flows: file } });
    expect(imported.status, imported.text).toBe(201);
    const flowId = imported.body.flows[0].id as string;
    expect((await request("POST", `/flows/${flowId}/deploy`, { token })).status).toBe(200);
    const slug = (await request("GET", "/auth/profile", { token })).body.organization.slug as string;
    const socket = connect(dash.url(slug, `/terminal-${s}`), await sessionCookie(testApp.app, owner));
    const page = await socket.next((f) => f.type === "dashboard.page");
    expect(page.view.groups.map((g: { name: string }) => g.name)).toEqual(["Station status", "Raise", "Details"]);
    expect(page.view.pages.map((p: { name: string }) => p.name)).toEqual(["Terminal", "Second"]);
    socket.ws.close();
    // The export writes the configuration nodes its nodes name (not the second page: as Node-RED's
    // export of a flow) in the same order: imported into Node-RED again, the page looks the same.
    const exported = await request("GET", `/flows/${flowId}/export`, { token });
    expect(exported.status, exported.text).toBe(200);
    const items = (Array.isArray(exported.body) ? exported.body : exported.body.flows) as Array<{ id: string; type: string }>;
    expect(items.filter((n) => n.type.startsWith("ui-") && !n.type.startsWith("ui-text")).map((n) => n.id)).toEqual([`zbase${s}`, `zpage${s}`, `zgroup${s}`, `mgroup${s}`, `agroup${s}`]);
  });

  it("numbers stored as text inside lists (a gauge's segments, a page's breakpoints) are numbers, a segment's tile text comes along (env read at start), and a value that cannot be taken is reported, not silently replaced", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    const s = Math.random().toString(36).slice(2, 8);
    expect((await request("POST", "/variables", { token, body: { name: "CO2_HIGH", value: "Open a window" } })).status).toBe(201);
    const segments = [
      { from: "0", color: "#5cd65c", text: "No", textType: "str" },
      { from: "800", color: "#ffc800", text: "", textType: "value" },
      { from: "1000", color: "#ea5353", text: "CO2_HIGH", textType: "env" },
    ];
    const breakpoints = [
      { name: "Default", px: "0", cols: "4" },
      { name: "Tablet", px: "576", cols: "8" },
    ];
    const file = [
      { id: `tab${s}`, type: "tab", label: "air" },
      { id: `base${s}`, type: "ui-base", name: "Air", path: "/dashboard" },
      { id: `page${s}`, type: "ui-page", name: "Air", ui: `base${s}`, path: `/air-${s}`, layout: "grid", order: 1, breakpoints },
      { id: `group${s}`, type: "ui-group", name: "CO2", page: `page${s}`, width: "6", height: "1", order: 1, showTitle: true },
      { id: `co2${s}`, type: "ui-gauge", z: `tab${s}`, group: `group${s}`, order: 1, width: 3, height: 3, gtype: "gauge-tile", gstyle: "needle", title: "CO2", units: "ppm", min: 0, max: "2000", segments, x: 300, y: 100, wires: [] },
      // A segment whose colour is no colour text at all: the list cannot be taken, and the report says so.
      { id: `bad${s}`, type: "ui-gauge", z: `tab${s}`, group: `group${s}`, order: 2, title: "Bad", segments: [{ from: "0", color: { r: 1 } }], x: 300, y: 160, wires: [] },
    ];
    const dry = await request("POST", "/flows/import?dry_run=true", { token, body: { flows: file } });
    expect(dry.status, dry.text).toBe(200);
    const reportOf = (id: string) => dry.body.report.find((r: { node_id: string }) => r.node_id === id);
    expect(reportOf(`co2${s}`)).toMatchObject({ support: "supported" });
    expect(reportOf(`page${s}`)).toMatchObject({ support: "supported" });
    expect(reportOf(`bad${s}`)).toMatchObject({ support: "partial", reason: expect.stringContaining("not carried over: segments") });
    const imported = await request("POST", "/flows/import", { token, body: { flows: file } });
    expect(imported.status, imported.text).toBe(201);
    const flow = imported.body.flows[0];
    expect(flow.nodes.find((n: { id: string }) => n.id === `co2${s}`).config).toMatchObject({ max: 2000, segments: segments.map((x) => ({ ...x, from: Number(x.from) })) });
    expect((await request("GET", `/config-nodes/page${s}`, { token })).body.config_node.config.breakpoints).toEqual([
      { name: "Default", px: 0, cols: 4 },
      { name: "Tablet", px: 576, cols: 8 },
    ]);
    // Exported as Dashboard 2.0 reads it (its runtime takes the numbers as they are).
    const exported = await request("GET", `/flows/${flow.id}/export`, { token });
    const gauge = (Array.isArray(exported.body) ? exported.body : exported.body.flows).find((n: { id: string }) => n.id === `co2${s}`);
    expect(gauge.segments[2]).toEqual({ from: 1000, color: "#ea5353", text: "CO2_HIGH", textType: "env" });

    expect((await request("POST", `/flows/${flow.id}/deploy`, { token })).status).toBe(200);
    const slug = (await request("GET", "/auth/profile", { token })).body.organization.slug as string;
    const socket = connect(dash.url(slug, `/air-${s}`), await sessionCookie(testApp.app, owner));
    const page = await socket.next((f) => f.type === "dashboard.page");
    const widget = page.view.groups[0].widgets.find((w: { id: string }) => w.id === `co2${s}`);
    // The env segment's text is the variable's value when the flow started, kept as the widget's state.
    expect(widget.state.props.segments[2]).toEqual({ from: 1000, color: "#ea5353", text: "Open a window", textType: "str" });
    socket.ws.close();
  });
});
