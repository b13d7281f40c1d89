import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { connect } from "@/test/ws";
import { signUp } from "@/test/accounts";
import { sessionCookie, setUpDashboardSockets } from "@/test/dashboard";

/**
 * SPEC §21: a real Dashboard 1 flow (ui_base, ui_tab, ui_group and widgets) imports as Dashboard
 * 2.0's nodes, the report says what changed, and once deployed its page shows its widgets.
 */
const testApp = setUpTestApp();
const dash = setUpDashboardSockets(testApp);
const request = testApp.request;
const flows = JSON.parse(readFileSync(path.join(__dirname, "../../../test/fixtures/node-red-dashboard1.json"), "utf8")) as unknown[];

describe("Dashboard 1 import", () => {
  it("reports each ui_* node as its Dashboard 2.0 type, imports it, and its page shows the widgets", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    const dry = await request("POST", "/flows/import?dry_run=true", { token, body: { flows } });
    expect(dry.status, dry.text).toBe(200);
    const byId = new Map(dry.body.report.map((r: { node_id: string }) => [r.node_id, r]));
    expect(byId.get("22bb33cc.44dd55")).toMatchObject({ type: "ui_chart", support: "partial", reason: expect.stringContaining("imported as ui-chart") });
    expect(byId.get("99cc00dd.11ee22")).toMatchObject({ type: "ui_template", reason: expect.stringContaining("its Angular directives are rewritten as Vue's (ng-bind-html, ng-click, md-button)") });
    expect(byId.get("c1d2e3f4.a5b6c7")).toMatchObject({ type: "ui_tab", reason: expect.stringContaining("ui-page at /home") });
    expect(byId.get("88bb99cc.00dd11")).toMatchObject({ type: "ui_toast", reason: expect.stringContaining("ui-notification") });
    expect([...byId.values()].filter((r) => (r as { support: string }).support === "unsupported")).toEqual([]);
    expect(dry.body.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/^Dashboard 1: 1 ui_template node imported as ui-template \(its Angular directives are rewritten as Vue's/), "Dashboard 1: 2 ui_group nodes imported as ui-group"]));

    const imported = await request("POST", "/flows/import", { token, body: { flows } });
    expect(imported.status, imported.text).toBe(201);
    const flowId = imported.body.flows[0].id as string;
    const flow = (await request("GET", `/flows/${flowId}`, { token })).body.flow;
    const types = flow.nodes.map((n: { type: string }) => n.type).sort();
    expect(types).toEqual(["function", "inject", "ui-audio", "ui-button", "ui-button-group", "ui-chart", "ui-dropdown", "ui-gauge", "ui-led", "ui-notification", "ui-slider", "ui-switch", "ui-template", "ui-text"]);
    // Dashboard 1's chart plots msg.payload (a chart without a y type would read a key of each point, as Dashboard 2.0's older charts).
    expect(flow.nodes.find((n: { type: string }) => n.type === "ui-chart").config).toMatchObject({ yAxisProperty: "payload", yAxisPropertyType: "msg" });
    // node-red-contrib-ui-led's LED: its colorForValue rows are ui-led's states, typed as they were.
    expect(flow.nodes.find((n: { type: string }) => n.type === "ui-led").config).toMatchObject({
      label: "Lights on",
      states: [
        { color: "#ff0000", value: "off", valueType: "str" },
        { color: "#008000", value: "on", valueType: "str" },
      ],
      allowColorForValueInMessage: false,
      shape: "circle",
      showGlow: true,
      showBorder: false,
    });
    // node-red-contrib-ui-multistate-switch: a Dashboard 2.0 button group with its typed options and colours.
    expect(flow.nodes.find((n: { type: string }) => n.type === "ui-button-group").config).toMatchObject({
      label: "Fan",
      options: [
        { label: "Off", value: "0", valueType: "num", color: "#999999" },
        { label: "Low", value: "1", valueType: "num", color: "#009933" },
        { label: "High", value: "2", valueType: "num", color: "#ff6666" },
      ],
      useThemeColors: false,
      rounded: false,
      passthru: false,
    });
    expect(byId.get("bc23de45.f67a89")).toMatchObject({ type: "ui_multistate_switch", support: "partial", reason: expect.stringContaining("msg.enabled") });
    expect(byId.get("ab12cd34.ef56ab")).toMatchObject({ type: "ui_led", support: "partial", reason: expect.stringContaining("imported as ui-led") });
    expect(flow.nodes.find((n: { type: string }) => n.type === "ui-audio").config).toMatchObject({ mode: "tts", group: "", voice: "Google UK English Female" });
    expect(byId.get("ff55aa66.bb77cc")).toMatchObject({ type: "ui_audio", support: "partial", reason: expect.stringContaining("a Buffer payload (a sound) is not played") });
    // Dashboard 1's spacer and links are configuration nodes of 2.0: a ui-spacer in its group, ui-links of the dashboard.
    const configs = (await request("GET", "/config-nodes", { token })).body.config_nodes as Array<{ id: string; type: string; config: Record<string, unknown> }>;
    expect(configs.find((c) => c.type === "ui-spacer")?.config).toMatchObject({ order: 6, width: 1, height: 1 });
    expect(configs.filter((c) => c.type === "ui-link").map((c) => [c.config.path, c.config.order]).sort()).toEqual([
      ["", 3],
      ["https://weather.example/greenhouse", 2],
    ]);
    expect(byId.get("ee44ff55.aa66bb")).toMatchObject({ type: "ui_link", support: "partial" });
    const idOf = (type: string) => flow.nodes.find((n: { type: string }) => n.type === type).id as string;
    const template = flow.nodes.find((n: { type: string }) => n.type === "ui-template");
    // Its Angular directives as Vue's (angular-template.ts).
    expect(template.config.format).toBe('<div v-html="msg.payload"></div>\n<v-btn @click="send({payload: \'hello\'})">{{msg.topic}}</v-btn>');
    // Dashboard 1's button "passthru" is its "if msg arrives on input, emulate a button click": Dashboard 2.0's emulateClick.
    expect(flow.nodes.find((n: { type: string }) => n.type === "ui-button").config).toMatchObject({ emulateClick: false, payload: "water" });
    const clicking = (flows as Array<Record<string, unknown>>).map((n) => (n.type === "ui_button" ? { ...n, passthru: true } : n));
    const other = await signUp(request);
    const importedClicking = await request("POST", "/flows/import", { token: other.accessToken, body: { flows: clicking } });
    expect(importedClicking.status, importedClicking.text).toBe(201);
    expect(importedClicking.body.flows[0].nodes.find((n: { type: string }) => n.type === "ui-button").config).toMatchObject({ emulateClick: true });
    const gauge = flow.nodes.find((n: { type: string }) => n.type === "ui-gauge");
    expect(gauge.config).toMatchObject({ gtype: "gauge-half", min: 0, max: 100, segments: [{ from: 0 }, { from: 60 }, { from: 85 }] });
    expect((await request("POST", `/flows/${flowId}/deploy`, { token })).status).toBe(200);

    const slug = (await request("GET", "/auth/profile", { token })).body.organization.slug as string;
    const socket = connect(dash.url(slug, "/home"), await sessionCookie(testApp.app, owner));
    const page = await socket.next((f) => f.type === "dashboard.page");
    expect(page.view.title).toBe("Greenhouse");
    expect(page.view.theme.colors.primary).toBe("#4B7930");
    expect(page.view.groups.map((g: { name: string; widgets: Array<{ type: string }> }) => [g.name, g.widgets.map((w) => w.type)])).toEqual([
      ["Climate", ["ui-chart", "ui-slider", "ui-gauge"]],
      ["Controls", ["ui-button", "ui-text", "ui-template", "ui-switch", "ui-dropdown", "ui-spacer", "ui-led", "ui-button-group"]],
    ]);
    // The links are in the navigation after the page; a javascript: URL was not kept, so that link is disabled.
    expect(page.view.links).toEqual([
      { id: expect.any(String), name: "Weather", url: "https://weather.example/greenhouse", icon: "open_in_browser", order: 2, visible: true, disabled: false },
      { id: expect.any(String), name: "Script", url: "", icon: "open_in_browser", order: 3, visible: true, disabled: true },
    ]);
    expect(page.view.headless.map((w: { type: string }) => w.type).sort()).toEqual(["ui-audio", "ui-notification"]);
    // The imported button → function → text works.
    socket.send({ type: "dashboard.input", widget_id: idOf("ui-button"), event: "click", msg: {} });
    expect((await socket.next((f) => f.type === "dashboard.update" && f.widget_id === idOf("ui-text"))).msg.payload).toBe("started: water");
    // The switch passes its value to the LED, which gets it as its last message.
    socket.send({ type: "dashboard.input", widget_id: idOf("ui-switch"), event: "change", msg: { payload: "on" } });
    expect((await socket.next((f) => f.type === "dashboard.update" && f.widget_id === idOf("ui-led"))).msg.payload).toBe("on");
    // The multistate switch (a button group) sends its option's typed value: the number 2.
    socket.send({ type: "dashboard.input", widget_id: idOf("ui-button-group"), event: "change", msg: { payload: 2 } });
    expect((await socket.next((f) => f.type === "dashboard.update" && f.widget_id === idOf("ui-text") && f.msg.payload !== "started: water")).msg.payload).toBe(2);
    socket.ws.close();

    // The same tab imported again into a copy: its path is taken, so it gets a suffix and a warning.
    const copy = (flows as Array<Record<string, unknown>>).map((n) => (n.type === "ui_tab" ? { ...n, id: "e1e2e3e4.e5e6e7" } : n.type === "ui_group" ? { ...n, tab: "e1e2e3e4.e5e6e7" } : n));
    const again = await request("POST", "/flows/import?dry_run=true", { token, body: { flows: copy } });
    expect(again.body.warnings).toEqual(expect.arrayContaining([expect.stringContaining("the path /home is taken in this organization; imported as /home-2")]));
  });

  it("an LED with colours from messages keeps the table a message gave it, for every viewer and for pages opened later", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    // Dashboard 1's LED with "allow color for value in message", as node-red-contrib-ui-led writes
    // it, fed by injects (an MQTT input in a real flow): "hot" sends a table with its payload.
    const ledFlow = JSON.parse(readFileSync(path.join(__dirname, "../../../test/fixtures/dashboard1-led-colours.json"), "utf8")) as unknown[];
    const imported = await request("POST", "/flows/import", { token, body: { flows: ledFlow } });
    expect(imported.status, imported.text).toBe(201);
    const flowId = imported.body.flows[0].id as string;
    const flow = (await request("GET", `/flows/${flowId}`, { token })).body.flow;
    const idOf = (name: string, type = "inject") => flow.nodes.find((n: { type: string; name: string }) => n.type === type && n.name === name).id as string;
    const led = flow.nodes.find((n: { type: string }) => n.type === "ui-led");
    expect(led.config).toMatchObject({ allowColorForValueInMessage: true, states: [{ value: "hot", valueType: "str", color: "#008000" }] });
    expect((await request("POST", `/flows/${flowId}/deploy`, { token })).status).toBe(200);
    const slug = (await request("GET", "/auth/profile", { token })).body.organization.slug as string;
    const headers = await sessionCookie(testApp.app, owner);
    const socket = connect(dash.url(slug, "/boiler"), headers);
    await socket.next((f) => f.type === "dashboard.page");

    // The table comes with "hot": the LED's colours are the message's from now on.
    expect((await request("POST", `/nodes/${idOf("hot")}/inject`, { token, body: {} })).status).toBe(200);
    const hot = await socket.next((f) => f.type === "dashboard.update" && f.widget_id === led.id);
    expect(hot.msg).toMatchObject({ payload: "hot", ui_update: { colorForValue: { hot: "#ff0000", cold: "#0000ff" } } });
    expect(hot.state).toMatchObject({ msg: { payload: "hot" }, props: { colorForValue: { hot: "#ff0000", cold: "#0000ff" } } });
    // "cold" brings none: the table stays.
    expect((await request("POST", `/nodes/${idOf("cold")}/inject`, { token, body: {} })).status).toBe(200);
    const cold = await socket.next((f) => f.type === "dashboard.update" && f.widget_id === led.id && f.msg.payload === "cold");
    expect(cold.state).toMatchObject({ msg: { payload: "cold" }, props: { colorForValue: { hot: "#ff0000", cold: "#0000ff" } } });

    // A page opened later gets the table with the last message.
    await testApp.app.dashboards.states.flush();
    const later = connect(dash.url(slug, "/boiler"), headers);
    const page = await later.next((f) => f.type === "dashboard.page");
    const shown = page.view.groups[0].widgets.find((w: { id: string }) => w.id === led.id);
    expect(shown.state).toMatchObject({ msg: { payload: "cold" }, props: { colorForValue: { hot: "#ff0000", cold: "#0000ff" } } });
    for (const s of [socket, later]) s.ws.close();
  });
  it("a gauge whose format names another property (Dashboard 1's {{payload.ch4}}) moves by that property, as Dashboard 1's needle does", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    // As a surveyed mining-lab flow: one MQTT message of every reading, a gauge per gas.
    const gaugeFlow = [
      { id: "t1", type: "tab", label: "Gases" },
      { id: "ui1", type: "ui_base", theme: { name: "theme-light" } },
      { id: "tab1", type: "ui_tab", name: "Mine", order: 1 },
      { id: "g1", type: "ui_group", name: "Air", tab: "tab1", width: "6", order: 1 },
      { id: "in1", type: "inject", z: "t1", name: "reading", props: [{ p: "payload" }], payload: '{"ch4":1.2345,"co":7}', payloadType: "json", wires: [["ga1", "ga2"]] },
      { id: "ga1", type: "ui_gauge", z: "t1", group: "g1", order: 1, gtype: "gage", title: "CH4", label: "%", format: "{{payload.ch4 | number:2}}", min: 0, max: "2", wires: [] },
      { id: "ga2", type: "ui_gauge", z: "t1", group: "g1", order: 2, gtype: "gage", title: "CO", label: "ppm", format: "{{msg.payload.co}}", min: 0, max: "50", wires: [] },
    ];
    const dry = await request("POST", "/flows/import?dry_run=true", { token, body: { flows: gaugeFlow } });
    expect(dry.status, dry.text).toBe(200);
    for (const r of (dry.body.report as Array<{ type: string; reason?: string }>).filter((x) => x.type === "ui_gauge")) expect(r.reason ?? "").not.toContain("not carried");
    const imported = await request("POST", "/flows/import", { token, body: { flows: gaugeFlow } });
    expect(imported.status, imported.text).toBe(201);
    const flowId = imported.body.flows[0].id as string;
    const flow = (await request("GET", `/flows/${flowId}`, { token })).body.flow;
    const gauges = flow.nodes.filter((n: { type: string }) => n.type === "ui-gauge");
    expect(gauges.map((g: { config: Record<string, unknown> }) => [g.config.title, g.config.value, g.config.valueType, g.config.decimals])).toEqual([
      ["CH4", "payload.ch4", "msg", 2],
      ["CO", "payload.co", "msg", null],
    ]);
    expect((await request("POST", `/flows/${flowId}/deploy`, { token })).status).toBe(200);
    const slug = (await request("GET", "/auth/profile", { token })).body.organization.slug as string;
    const socket = connect(dash.url(slug, "/mine"), await sessionCookie(testApp.app, owner));
    await socket.next((f) => f.type === "dashboard.page");
    const inject = flow.nodes.find((n: { type: string }) => n.type === "inject").id as string;
    expect((await request("POST", `/nodes/${inject}/inject`, { token, body: {} })).status).toBe(200);
    const shown = [];
    for (const g of gauges as Array<{ id: string }>) shown.push((await socket.next((x) => x.type === "dashboard.update" && x.widget_id === g.id)).msg.payload);
    expect(shown).toEqual([1.2345, 7]);
    socket.ws.close();
  });
});
