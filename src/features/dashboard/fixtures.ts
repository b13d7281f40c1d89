import type { DashboardPageView, DashboardWidgetType, DashboardWidgetView } from "@/shared/dashboard";

/**
 * A DashboardPageView with one widget of every type, for the client's tests and the browser
 * benchmark (a page served without a server flow). Property names are Dashboard 2.0's.
 */
export function fixtureWidget(id: string, type: DashboardWidgetType, props: Record<string, unknown> = {}, extra: Partial<DashboardWidgetView> = {}): DashboardWidgetView {
  return { id, type, flow_id: "f1", width: 0, height: 0, order: 0, props, state: null, ...extra };
}

export function fixturePageView(overrides: Partial<DashboardPageView> = {}): DashboardPageView {
  return {
    organization: { slug: "acme", name: "Acme" },
    title: "Plant",
    basePath: "/dashboard",
    header: { content: "page", disconnectNotice: true, reconnectNotice: true, noticeSeconds: 5 },
    page: { id: "p1", name: "Overview", path: "/overview", order: 1, visible: true, layout: "grid" },
    pages: [
      { id: "p1", name: "Overview", path: "/overview", order: 1, visible: true },
      { id: "p2", name: "Settings", path: "/settings", order: 2, visible: true },
    ],
    links: [],
    theme: { colors: { surface: "#ffffff", primary: "#0094CE", bgPage: "#eeeeee", groupBg: "#ffffff", groupOutline: "#cccccc" }, sizes: { density: "default" } },
    groups: [
      {
        id: "g1",
        name: "Controls",
        width: 6,
        height: 0,
        order: 1,
        showTitle: true,
        collapse: false,
        visible: true,
        disabled: false,
        widgets: [
          fixtureWidget("w-button", "ui-button", { label: "Start" }, { order: 1 }),
          fixtureWidget("w-text", "ui-text", { label: "Status", format: "{{msg.payload}}", layout: "row-spread" }, { order: 2, state: { msg: { payload: "idle" } } }),
          fixtureWidget("w-switch", "ui-switch", { label: "Pump", onvalue: true, onvalueType: "bool", offvalue: false, offvalueType: "bool" }, { order: 3 }),
          fixtureWidget("w-slider", "ui-slider", { label: "Speed", min: 0, max: 100, step: 5 }, { order: 4, state: { msg: { payload: 40 } } }),
          fixtureWidget("w-dropdown", "ui-dropdown", { label: "Mode", options: [{ label: "Auto", value: "auto", type: "str" }, { label: "Manual", value: "manual", type: "str" }] }, { order: 5 }),
        ],
      },
      {
        id: "g2",
        name: "Trends",
        width: 6,
        height: 0,
        order: 2,
        showTitle: true,
        collapse: false,
        visible: true,
        disabled: false,
        widgets: [
          fixtureWidget("w-chart", "ui-chart", { label: "Temperature", chartType: "line", xAxisType: "time", category: "topic", categoryType: "msg" }, { order: 1 }),
          fixtureWidget("w-gauge", "ui-gauge", { title: "Pressure", gtype: "gauge-half", min: 0, max: 10, units: "bar", segments: [{ from: 0, color: "#5cd65c" }, { from: 7, color: "#ffc800" }, { from: 9, color: "#ea5353" }] }, { order: 2, state: { msg: { payload: 4.2 } } }),
        ],
      },
    ],
    headless: [fixtureWidget("w-note", "ui-notification", { position: "top right", displayTime: 3 })],
    interactive: true,
    ...overrides,
  };
}
