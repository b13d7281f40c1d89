import { describe, expect, it } from "vitest";
import { linksOf, pageView, widgetsOfPage, type DashboardModel } from "./model";

const node = (id: string, config: Record<string, unknown>, name = id) => ({ id, name, revision: 1, config });

function model(): DashboardModel {
  return {
    organization: { id: "org", slug: "acme", name: "Acme" },
    bases: new Map([["base", node("base", {})]]),
    pages: new Map([["page", node("page", { ui: "base", path: "/p" })]]),
    groups: new Map([["group", node("group", { page: "page" })]]),
    themes: new Map(),
    links: new Map([
      ["l2", node("l2", { ui: "base", path: "https://example.com/", order: 2 }, "Site")],
      ["l1", node("l1", { ui: "base", path: "javascript:alert(1)", order: 1 }, "Bad")],
      ["other", node("other", { ui: "another", path: "/x", order: 0 })],
    ]),
    widgets: [
      { id: "player", type: "ui-audio", name: "", flow_id: "f", config: { mode: "src", group: "group", ui: "" } },
      { id: "speech-in-group", type: "ui-audio", name: "", flow_id: "f", config: { mode: "tts", group: "group", ui: "base" } },
      { id: "speech", type: "ui-audio", name: "", flow_id: "f", config: { mode: "tts", group: "", ui: "base" } },
      { id: "player-without-group", type: "ui-audio", name: "", flow_id: "f", config: { mode: "src", group: "", ui: "base" } },
    ],
  };
}

describe("a dashboard page's model", () => {
  it("places ui-audio by its mode, as Dashboard 2.0 registers it: a player in its group, speech on its dashboard (whatever group it still names)", () => {
    const m = model();
    const { grouped, headless } = widgetsOfPage(m, m.pages.get("page")!);
    expect(grouped.get("group")?.map((w) => w.id)).toEqual(["player"]);
    expect(headless.map((w) => w.id).sort()).toEqual(["speech", "speech-in-group"]);
  });

  it("places a ui-template by its scope alone, as Dashboard 2.0 clears its other references: page CSS that still names a group takes no place in it", () => {
    const m = model();
    const t = (id: string, config: Record<string, unknown>) => ({ id, type: "ui-template" as const, name: "", flow_id: "f", config });
    m.widgets = [
      t("local", { templateScope: "local", group: "group", page: "page", ui: "base" }),
      t("page-css", { templateScope: "page:style", group: "group", page: "page", ui: "" }),
      t("page-widget", { templateScope: "widget:page", group: "group", page: "page" }),
      t("site-css", { templateScope: "site:style", group: "group", page: "other-page", ui: "base" }),
      t("ui-widget", { templateScope: "widget:ui", group: "", page: "", ui: "base" }),
      t("local-without-group", { templateScope: "local", group: "", page: "page", ui: "base" }),
      t("other-page-css", { templateScope: "page:style", group: "group", page: "other-page" }),
    ];
    const { grouped, headless } = widgetsOfPage(m, m.pages.get("page")!);
    expect(grouped.get("group")?.map((w) => w.id)).toEqual(["local"]);
    expect(headless.map((w) => w.id)).toEqual(["page-css", "page-widget", "site-css", "ui-widget"]);
  });

  it("keeps a page's ui-event and ui-control nodes in the flow's order (Node-RED creates them so, and so they hear a page view), the base's path in the view", () => {
    const m = model();
    const e = (id: string) => ({ id, type: "ui-event" as const, name: "", flow_id: "f", config: { ui: "base" } });
    // FlowFuse's multi-user blueprint: the event that stores the user comes first in the flow, its id sorts after.
    m.widgets = [e("b6f12d52781c9f0a"), e("98871d9e2d48bd52"), { id: "ctl", type: "ui-control", name: "", flow_id: "f", config: { ui: "base" } }];
    m.bases.set("base", node("base", { path: "/ops" }));
    const view = pageView(m, m.pages.get("page")!, new Map(), { interactive: true, onlyThisPage: false });
    expect(view.headless.map((w) => w.id)).toEqual(["b6f12d52781c9f0a", "98871d9e2d48bd52", "ctl"]);
    expect(view.basePath).toBe("/ops");
  });

  it("lists a dashboard's links by order; one whose URL is not safe is disabled and carries no URL", () => {
    expect(linksOf(model(), "base")).toEqual([
      { id: "l1", name: "Bad", url: "", order: 1, visible: true, disabled: true },
      { id: "l2", name: "Site", url: "https://example.com/", order: 2, visible: true, disabled: false },
    ]);
  });
});
