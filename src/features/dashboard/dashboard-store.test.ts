import { describe, expect, it, vi } from "vitest";
import { COLLAPSED_GROUPS_KEY, DashboardStore, groupVisible } from "./dashboard-store";
import { fixturePageView } from "./fixtures";
import { substitute } from "./format";
import { applyWidgetMessage, initialWidgetState } from "./widget-state";
import { themeVariables, contrastText } from "./theme";

describe("widget state", () => {
  it("starts from the durable state in any of its shapes", () => {
    expect(initialWidgetState({ type: "ui-text", props: {}, state: { msg: { payload: 1 }, props: { label: "L" } } })).toEqual({ msg: { payload: 1 }, props: { label: "L" } });
    expect(initialWidgetState({ type: "ui-text", props: {}, state: { payload: "x", topic: "t" } }).msg).toEqual({ payload: "x", topic: "t" });
    expect(initialWidgetState({ type: "ui-text", props: {}, state: null })).toEqual({ msg: null, props: {} });
  });

  it("ui_update changes properties and keeps the value; enabled/visible/class are dynamic", () => {
    const w = { type: "ui-button" as const, props: { label: "A" } };
    let s = applyWidgetMessage(w, { msg: { payload: 1 }, props: {} }, { ui_update: { label: "B" } });
    expect(s).toEqual({ msg: { payload: 1 }, props: { label: "B" } });
    s = applyWidgetMessage(w, s, { enabled: false, payload: 2 });
    expect(s.props).toEqual({ label: "B", enabled: false });
    expect(s.msg).toEqual({ enabled: false, payload: 2 });
  });

  it("a table adds each message's rows to those shown, as Dashboard 2.0's (its action), and replaces them when told", () => {
    // FlowFuse's Getting Started blueprint: a form adds one product per submit to an "append" table.
    const w = { type: "ui-table" as const, props: { action: "append" } };
    let s = initialWidgetState({ ...w, state: { rows: [{ name: "Bolt" }] } });
    s = applyWidgetMessage(w, s, { payload: { name: "Widget", stock: 40 } });
    s = applyWidgetMessage(w, s, { payload: [{ name: "Gadget", stock: 85 }] });
    expect(s.msg?.payload).toEqual([{ name: "Bolt" }, { name: "Widget", stock: 40 }, { name: "Gadget", stock: 85 }]);
    // The server's word when it replaced (msg.action "replace", or a replace table), and [] clears.
    s = applyWidgetMessage(w, s, { payload: [{ name: "Nut" }], action: "replace" });
    expect(s.msg?.payload).toEqual([{ name: "Nut" }]);
    s = applyWidgetMessage(w, s, { payload: [] });
    expect(s.msg?.payload).toEqual([]);
    const r = { type: "ui-table" as const, props: { action: "replace" } };
    let t = applyWidgetMessage(r, initialWidgetState({ ...r, state: null }), { payload: [{ a: 1 }] });
    t = applyWidgetMessage(r, t, { payload: [{ a: 2 }] });
    expect(t.msg?.payload).toEqual([{ a: 2 }]);
    t = applyWidgetMessage(r, t, { payload: [{ a: 3 }], action: "append" });
    expect(t.msg?.payload).toEqual([{ a: 2 }, { a: 3 }]);
    // A message without a payload changes properties only.
    t = applyWidgetMessage(r, t, { ui_update: { label: "L" } });
    expect(t.msg?.payload).toEqual([{ a: 2 }, { a: 3 }]);
  });
});

describe("DashboardStore", () => {
  it("a replay (an update that came while the page was built) takes the server's state: a chart's point already in the page is not drawn twice", () => {
    const view = fixturePageView();
    const points = [{ x: 1, y: 20, series: "t" }];
    const withPoint = { ...view, groups: view.groups.map((g) => ({ ...g, widgets: g.widgets.map((w) => (w.id === "w-chart" ? { ...w, state: { points } } : w)) })) };
    const store = new DashboardStore(withPoint);
    const before = store.getState("w-chart");
    // The page already holds the point; its replay changes nothing.
    store.handle({ type: "dashboard.update", widget_id: "w-chart", msg: { payload: 20, topic: "t" }, state: { points }, replay: true });
    expect(store.getState("w-chart")).toBe(before);
    // A newer one replaces the state with the server's (two points, not three).
    const two = [...points, { x: 2, y: 21, series: "t" }];
    store.handle({ type: "dashboard.update", widget_id: "w-chart", msg: { payload: 21, topic: "t" }, state: { points: two }, replay: true });
    expect(store.getState("w-chart")).toEqual(initialWidgetState({ type: "ui-chart", props: {}, state: { points: two } }));
    // A notification is an event, never in the page's states: shown once.
    store.handle({ type: "dashboard.update", widget_id: "w-note", msg: { payload: "Door open" }, state: { msg: { payload: "Door open" } }, replay: true });
    expect(store.getNotices().map((n) => n.msg.payload)).toEqual(["Door open"]);
  });

  it("notifies only the updated widget", () => {
    const store = new DashboardStore(fixturePageView());
    const text = vi.fn();
    const button = vi.fn();
    store.subscribeWidget("w-text", text);
    store.subscribeWidget("w-button", button);
    store.handle({ type: "dashboard.update", widget_id: "w-text", msg: { payload: "running" }, state: null });
    store.handle({ type: "dashboard.update", widget_id: "w-text", msg: { payload: "running fast" }, state: null });
    // Coalesced: one notification per frame for any number of messages.
    expect(text).not.toHaveBeenCalled();
    store.flush();
    expect(text).toHaveBeenCalledTimes(1);
    expect(store.getState("w-text")!.msg).toEqual({ payload: "running fast" });
    expect(button).not.toHaveBeenCalled();
    // Unknown widget ids (another page's) are ignored.
    store.handle({ type: "dashboard.update", widget_id: "nope", msg: { payload: 1 }, state: null });
  });

  it("a new dashboard.page replaces the states with the server's", () => {
    const store = new DashboardStore(fixturePageView());
    store.handle({ type: "dashboard.update", widget_id: "w-text", msg: { payload: "local" }, state: null });
    store.handle({ type: "dashboard.page", socket_id: "s1", view: fixturePageView() });
    expect(store.getState("w-text")!.msg).toEqual({ payload: "idle" });
    expect(store.getSocketId()).toBe("s1");
  });

  it("a dashboard.page that confirms a widget's state keeps its object and notifies no one (a template's msg watcher does not run again); one that changes it replaces it", () => {
    const store = new DashboardStore(fixturePageView());
    const kept = store.getState("w-text");
    const listener = vi.fn();
    store.subscribeWidget("w-text", listener);
    // The socket's first page after the server-rendered one, as on a slow admission (PostgreSQL + Redis).
    // The same state read back from PostgreSQL: jsonb orders keys its own way.
    const reread = fixturePageView();
    reread.groups[0]!.widgets[1]!.state = { msg: { payload: "idle" } };
    store.handle({ type: "dashboard.page", socket_id: "s1", view: reread });
    expect(store.getState("w-text")).toBe(kept);
    const withTopic = fixturePageView();
    withTopic.groups[0]!.widgets[1]!.state = { msg: { payload: "idle", topic: "t" } };
    const store2 = new DashboardStore(withTopic);
    const kept2 = store2.getState("w-text");
    const reordered = fixturePageView();
    reordered.groups[0]!.widgets[1]!.state = { msg: { topic: "t", payload: "idle" } };
    store2.handle({ type: "dashboard.page", socket_id: "s1", view: reordered });
    expect(store2.getState("w-text")).toBe(kept2);
    store.flush();
    expect(listener).not.toHaveBeenCalled();
    const changed = fixturePageView();
    changed.groups[0]!.widgets[1]!.state = { msg: { payload: "running" } };
    store.handle({ type: "dashboard.page", socket_id: "s1", view: changed });
    expect(store.getState("w-text")).not.toBe(kept);
    expect(store.getState("w-text")!.msg).toEqual({ payload: "running" });
    store.flush();
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it("notifications queue and dismiss", () => {
    const store = new DashboardStore(fixturePageView());
    store.handle({ type: "dashboard.update", widget_id: "w-note", msg: { payload: "Hello" }, state: null });
    expect(store.getNotices().map((n) => n.msg.payload)).toEqual(["Hello"]);
    store.dismissNotice(store.getNotices()[0]!.key);
    expect(store.getNotices()).toEqual([]);
  });

  it("ui-control navigates, shows and hides groups by name, id or Page:Group", () => {
    const store = new DashboardStore(fixturePageView());
    const nav = vi.fn();
    store.setNavigator(nav);
    store.applyControl({ payload: { page: "Settings" } });
    expect(nav).toHaveBeenCalledWith("Settings");
    store.applyControl({ payload: { groups: { hide: ["Overview:Trends", "g1"] } } });
    const g = fixturePageView().groups;
    expect(g.map((x) => groupVisible(x, store.getControl()))).toEqual([false, false]);
    store.applyControl({ payload: { groups: { show: ["Controls"] } } });
    expect(g.map((x) => groupVisible(x, store.getControl()))).toEqual([true, false]);
    store.applyControl({ payload: { widgets: { disable: ["w-button"] } } });
    expect(store.getState("w-button")!.props.enabled).toBe(false);
  });

  it("a group that can be collapsed folds and opens, is remembered by the browser, and is told; ui-control and Dashboard 1's names do it too", () => {
    const saved = new Map<string, string>();
    vi.stubGlobal("localStorage", { getItem: (k: string) => saved.get(k) ?? null, setItem: (k: string, v: string) => void saved.set(k, String(v)) });
    try {
      const view = fixturePageView();
      view.page.name = "Living room";
      view.groups[0]!.collapse = true;
      view.groups[1]!.name = "Heat pump";
      view.groups[1]!.collapse = true;
      const store = new DashboardStore(view);
      const told = vi.fn();
      store.setGroupToggleListener(told);
      store.setGroupOpen("g1", false);
      expect([...store.getCollapsed()]).toEqual(["g1"]);
      expect(JSON.parse(saved.get(COLLAPSED_GROUPS_KEY)!)).toEqual(["g1"]);
      expect(told).toHaveBeenLastCalledWith("g1", false);
      // Already folded: nothing again.
      store.setGroupOpen("g1", false);
      expect(told).toHaveBeenCalledTimes(1);
      // Another browser tab (a new store) starts from what this browser remembers.
      expect([...new DashboardStore(view).getCollapsed()]).toEqual(["g1"]);
      // Dashboard 1's ui_control: { group: { open, close } } with "Page_Group" names, spaces as underscores.
      store.applyControl({ payload: { group: { open: ["Living_room_Controls"], close: ["Living_room_Heat_pump"] } } });
      expect([...store.getCollapsed()]).toEqual(["g2"]);
      expect(told.mock.calls).toEqual([["g1", false], ["g1", true], ["g2", false]]);
      // Dashboard 2.0-style names work for open / close as for show / hide.
      store.applyControl({ payload: { groups: { open: ["Living room:Heat pump"] } } });
      expect([...store.getCollapsed()]).toEqual([]);
      // A group that cannot be collapsed is never folded.
      const plain = fixturePageView();
      const other = new DashboardStore(plain);
      other.setGroupOpen("g2", false);
      other.applyControl({ payload: { groups: { close: ["Trends"] } } });
      expect([...other.getCollapsed()]).toEqual([]);
      // A corrupt entry is forgotten, not a failure.
      saved.set(COLLAPSED_GROUPS_KEY, "{not json");
      expect([...new DashboardStore(view).getCollapsed()]).toEqual([]);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe("substitution", () => {
  it("inserts message properties as text, never evaluates", () => {
    expect(substitute("T: {{msg.payload}} {{ msg.topic }} {{value}}", { payload: 3, topic: "x" })).toBe("T: 3 x 3");
    expect(substitute("{{msg.payload.a}}", { payload: { a: [1] } })).toBe("[1]");
    expect(substitute("{{msg.constructor}}{{alert(1)}}", { payload: 1 })).toBe("{{alert(1)}}");
    // Fallbacks as Dashboard 2.0's help writes them; anything else stays as written.
    expect(substitute("{{ msg.payload || 'none' }}|{{ msg.topic || \"-\" }}|{{ msg.payload.a || msg.topic || 0 }}", {})).toBe("none|-|0");
    expect(substitute("{{ msg.payload || 'none' }} {{ msg.payload[1] }}", { payload: [5, 6] })).toBe("[5,6] 6");
    expect(substitute("{{ msg.payload + 1 }} {{ 'a' }} {{ msg.__proto__ || 'x' }}", { payload: 1 })).toBe("{{ msg.payload + 1 }} a x");
  });
});

describe("theme", () => {
  it("maps ui-theme colours to CSS variables and refuses values that are not colours", () => {
    const vars = themeVariables({ colors: { surface: "#000", primary: "red", bgPage: "url(javascript:x)", groupBg: "#fff", groupOutline: "#ccc" } }) as Record<string, string>;
    expect(vars["--db-primary"]).toBe("red");
    expect(vars["--db-bg-page"]).toBe("#eeeeee");
    expect(vars["--db-on-surface"]).toBe("#ffffff");
    expect(contrastText("#ffffff")).toBe("#1b1f24");
  });
});
