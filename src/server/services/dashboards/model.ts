/**
 * What an organization's dashboards are made of right now (SPEC §21): the configuration nodes
 * (ui-base, ui-page, ui-group, ui-theme) the running deployments carry, and the widget nodes of
 * deployed, enabled flows. Pages show what is deployed, never the saved graphs.
 */
import type { AppServices } from "../../app-services";
import type { DeploymentSnapshot } from "../../flow-runtime/types";
import type { NodeRegistry } from "../../nodes/registry";
import {
  DASHBOARD_HEADLESS_TYPES,
  DASHBOARD_WIDGET_TYPES,
  safeLinkUrl,
  type DashboardGroupView,
  type DashboardLink,
  type DashboardPageSummary,
  type DashboardPageView,
  type DashboardTheme,
  type DashboardWidgetType,
  type DashboardWidgetView,
} from "../../../shared/dashboard";

const WIDGET_TYPES = new Set<string>(DASHBOARD_WIDGET_TYPES);
const HEADLESS = new Set<string>(DASHBOARD_HEADLESS_TYPES);

export interface DashboardConfigNode {
  id: string;
  name: string;
  revision: number;
  /** Its place in the organization's order of creation (see ConfigNodeSnapshot.seq). */
  seq?: number;
  config: Record<string, unknown>;
}

export interface DashboardWidget {
  id: string;
  type: DashboardWidgetType;
  name: string;
  flow_id: string;
  config: Record<string, unknown>;
}

export interface DashboardModel {
  organization: { id: string; slug: string; name: string };
  bases: Map<string, DashboardConfigNode>;
  /** By id; a page whose path another page of the organization took first is left out. */
  pages: Map<string, DashboardConfigNode>;
  groups: Map<string, DashboardConfigNode>;
  themes: Map<string, DashboardConfigNode>;
  /** ui-link: items of a dashboard's navigation that leave it. */
  links: Map<string, DashboardConfigNode>;
  widgets: DashboardWidget[];
}

const DEFAULT_THEME: DashboardTheme = {
  colors: { surface: "#fcfcfd", primary: "#0d74ce", bgPage: "#f9f9fb", groupBg: "#ffffff", groupOutline: "#d9d9e0" },
  sizes: { density: "default", pagePadding: "12px", groupGap: "12px", groupBorderRadius: "4px", widgetGap: "12px" },
};

function parsed(registry: NodeRegistry, type: string, config: Record<string, unknown>): Record<string, unknown> {
  const schema = registry.get(type)?.configSchema;
  if (!schema) return config;
  const r = schema.safeParse(config);
  if (r.success) return r.data;
  const fallback = schema.safeParse({});
  return fallback.success ? { ...fallback.data, ...config } : config;
}

const str = (v: unknown, d = "") => (typeof v === "string" ? v : d);
const int = (v: unknown, d: number) => (typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) : d);
const bool = (v: unknown, d: boolean) => (typeof v === "boolean" ? v : d);
/**
 * Pages, groups and links by their order; ties keep the model's order (a stable sort), which is
 * Node-RED's order of the configuration nodes, as Dashboard 2.0 registers them.
 */
const byOrder = (a: { order: number }, b: { order: number }) => a.order - b.order;

/** Configuration nodes in the organization's order of creation; those deployed before it was kept, by id after them. */
function inCreationOrder<T extends { id: string; seq?: number }>(map: Map<string, T>): Map<string, T> {
  const seq = (c: T) => c.seq ?? Number.MAX_SAFE_INTEGER;
  return new Map([...map].sort(([, a], [, b]) => seq(a) - seq(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
}
/**
 * Widgets of one order keep their place in the flow (a stable sort), as Dashboard 2.0 shows them in
 * the order Node-RED creates them: a label above its value when both are order 0.
 */
const byWidgetOrder = (a: { order: number }, b: { order: number }) => a.order - b.order;

/** Builds the organization's dashboards from its running deployments (two queries). */
export async function loadDashboardModel(app: AppServices, organization: { id: string; slug: string; name: string }): Promise<DashboardModel> {
  const flows = await app.db.prisma.flow.findMany({
    where: { organizationId: organization.id, deletedAt: null, enabled: true, currentDeploymentId: { not: null } },
    select: { id: true, currentDeploymentId: true },
  });
  const ids = flows.map((f) => f.currentDeploymentId!).filter(Boolean);
  const deployments = ids.length ? await app.db.prisma.deployment.findMany({ where: { id: { in: ids }, organizationId: organization.id }, select: { flowId: true, snapshot: true } }) : [];
  const model: DashboardModel = { organization, bases: new Map(), pages: new Map(), groups: new Map(), themes: new Map(), links: new Map(), widgets: [] };
  const maps: Record<string, Map<string, DashboardConfigNode>> = { "ui-base": model.bases, "ui-page": model.pages, "ui-group": model.groups, "ui-theme": model.themes, "ui-link": model.links };
  // Flows in a stable order, so that the same deployments always give the same page.
  deployments.sort((a, b) => (a.flowId < b.flowId ? -1 : a.flowId > b.flowId ? 1 : 0));
  for (const d of deployments) {
    const snapshot = d.snapshot as unknown as DeploymentSnapshot;
    // In their order of creation: spacers of one order stand in it, as Dashboard 2.0's in the flow's.
    for (const c of inCreationOrder(new Map(Object.entries(snapshot.config_nodes ?? {}))).values()) {
      // A spacer (Dashboard 2.0 stores it as a configuration node naming its group) is a widget of that group, once.
      if (c.type === "ui-spacer") {
        if (!model.widgets.some((w) => w.id === c.id)) model.widgets.push({ id: c.id, type: "ui-spacer", name: c.name, flow_id: d.flowId, config: parsed(app.nodes, c.type, c.config) });
        continue;
      }
      const map = maps[c.type];
      if (!map) continue;
      const known = map.get(c.id);
      // Two flows deployed at different times may carry two revisions: the newer is what was deployed last.
      if (!known || known.revision < c.revision) map.set(c.id, { id: c.id, name: c.name, revision: c.revision, ...(c.seq !== undefined ? { seq: c.seq } : (known?.seq !== undefined ? { seq: known.seq } : {})), config: parsed(app.nodes, c.type, c.config) });
      // One revision in two deployments, one made before seq was kept: the place is the same node's.
      else if (known.seq === undefined && c.seq !== undefined) known.seq = c.seq;
    }
    for (const n of snapshot.nodes ?? []) {
      if (!WIDGET_TYPES.has(n.type) || n.disabled) continue;
      model.widgets.push({ id: n.id, type: n.type as DashboardWidgetType, name: n.name, flow_id: d.flowId, config: parsed(app.nodes, n.type, n.config) });
    }
  }
  for (const key of ["bases", "pages", "groups", "themes", "links"] as const) model[key] = inCreationOrder(model[key]);
  // Paths are unique in the organization (import and the configuration-node writes keep them so);
  // should two deployed pages still share one, the first by order keeps it.
  const taken = new Set<string>();
  for (const p of [...model.pages.values()].sort((a, b) => int(a.config.order, -1) - int(b.config.order, -1))) {
    const path = str(p.config.path, "/");
    if (taken.has(path)) model.pages.delete(p.id);
    else taken.add(path);
  }
  return model;
}

export function pageSummary(p: DashboardConfigNode): DashboardPageSummary {
  const icon = str(p.config.icon);
  return { id: p.id, name: p.name || str(p.config.path, "/"), path: str(p.config.path, "/"), ...(icon ? { icon } : {}), order: int(p.config.order, -1), visible: bool(p.config.visible, true) };
}

export function findPageByPath(model: DashboardModel, path: string): DashboardConfigNode | undefined {
  for (const p of model.pages.values()) if (str(p.config.path, "/") === path) return p;
  return undefined;
}

/** The pages of one dashboard (ui-base), in navigation order. */
export function pagesOf(model: DashboardModel, uiId: string): DashboardPageSummary[] {
  return [...model.pages.values()]
    .filter((p) => str(p.config.ui) === uiId)
    .map(pageSummary)
    .sort(byOrder);
}

/** The links (ui-link) of one dashboard, in navigation order; one without a safe URL is disabled. */
export function linksOf(model: DashboardModel, uiId: string): DashboardLink[] {
  return [...model.links.values()]
    .filter((l) => str(l.config.ui) === uiId)
    .map((l): DashboardLink => {
      const url = str(l.config.path);
      const ok = safeLinkUrl(url);
      const icon = str(l.config.icon);
      return { id: l.id, name: l.name || url || "link", url: ok ? url.trim() : "", ...(icon ? { icon } : {}), order: int(l.config.order, -1), visible: bool(l.config.visible, true), disabled: !ok || bool(l.config.disabled, false) };
    })
    .sort(byOrder);
}

/** Widgets of a page: in its groups, and the headless ones of its dashboard (notifications, controls, events). */
export function widgetsOfPage(model: DashboardModel, page: DashboardConfigNode): { grouped: Map<string, DashboardWidget[]>; headless: DashboardWidget[] } {
  const grouped = new Map<string, DashboardWidget[]>();
  const headless: DashboardWidget[] = [];
  const ui = str(page.config.ui);
  for (const w of model.widgets) {
    // A ui-template is placed by its scope alone, as Dashboard 2.0's ui_template.js clears the other
    // references: a page:style template that still names a group is CSS for the page, not a widget of the group.
    const scope = w.type === "ui-template" ? str(w.config.templateScope, "local") : "";
    const pageRef = scope === "" || scope === "widget:page" || scope === "page:style" ? str(w.config.page) : "";
    const uiRef = scope === "" || scope === "widget:ui" || scope === "site:style" ? str(w.config.ui) : "";
    // ui-audio is placed by its mode, as Dashboard 2.0 registers it: a player in its group, speech on its dashboard.
    const group = (w.type === "ui-audio" && w.config.mode === "tts") || (scope !== "" && scope !== "local") ? "" : str(w.config.group);
    if (group) {
      const g = model.groups.get(group);
      if (g && str(g.config.page) === page.id) {
        const list = grouped.get(group);
        if (list) list.push(w);
        else grouped.set(group, [w]);
      }
      continue;
    }
    // Widgets placed on a page or a whole dashboard rather than in a group.
    if (w.type === "ui-audio" && w.config.mode !== "tts") continue;
    if (scope === "local") continue;
    if (pageRef === page.id || (HEADLESS.has(w.type) && ui !== "" && uiRef === ui) || (w.type === "ui-template" && ui !== "" && uiRef === ui)) headless.push(w);
  }
  return { grouped, headless };
}

/** The ids of every widget a page shows (its socket forwards only these). */
export function widgetIdsOfPage(model: DashboardModel, page: DashboardConfigNode): Set<string> {
  const { grouped, headless } = widgetsOfPage(model, page);
  const ids = new Set<string>();
  for (const list of grouped.values()) for (const w of list) ids.add(w.id);
  for (const w of headless) ids.add(w.id);
  return ids;
}

function widgetView(w: DashboardWidget, state: unknown, maxFileBytes?: number): DashboardWidgetView {
  const props: Record<string, unknown> = { ...w.config, name: w.name };
  // Dashboard 2.0's file input gets the server's limit as its maxFileSize (the page refuses a larger file).
  if (w.type === "ui-file-input" && maxFileBytes !== undefined) props.maxFileSize = maxFileBytes;
  return {
    id: w.id,
    type: w.type,
    flow_id: w.flow_id,
    width: Math.min(12, Math.max(0, int(w.config.width, 0))),
    height: Math.min(64, Math.max(0, int(w.config.height, 0))),
    order: int(w.config.order, 0),
    props,
    state: state ?? null,
  };
}

function themeOf(model: DashboardModel, page: DashboardConfigNode): DashboardTheme {
  const t = model.themes.get(str(page.config.theme));
  if (!t) return DEFAULT_THEME;
  const colors = (t.config.colors ?? {}) as Record<string, unknown>;
  const sizes = (t.config.sizes ?? {}) as Record<string, unknown>;
  const c = DEFAULT_THEME.colors;
  const density = str(sizes.density, "default");
  return {
    colors: {
      surface: str(colors.surface, c.surface),
      primary: str(colors.primary, c.primary),
      bgPage: str(colors.bgPage, c.bgPage),
      groupBg: str(colors.groupBg, c.groupBg),
      groupOutline: str(colors.groupOutline, c.groupOutline),
    },
    sizes: {
      density: density === "comfortable" || density === "compact" ? density : "default",
      pagePadding: str(sizes.pagePadding, "12px"),
      groupGap: str(sizes.groupGap, "12px"),
      groupBorderRadius: str(sizes.groupBorderRadius, "4px"),
      widgetGap: str(sizes.widgetGap, "12px"),
    },
  };
}

/**
 * A page as its viewer gets it (`dashboard.page`, `dashboards.page`): layout, widgets and each
 * widget's state. `onlyThisPage`: a share link's visitor sees no other page in the navigation.
 */
export function pageView(model: DashboardModel, page: DashboardConfigNode, states: Map<string, unknown>, options: { interactive: boolean; onlyThisPage: boolean; maxFileBytes?: number }): DashboardPageView {
  const ui = str(page.config.ui);
  const base = model.bases.get(ui);
  const { grouped, headless } = widgetsOfPage(model, page);
  const groups: DashboardGroupView[] = [...model.groups.values()]
    .filter((g) => str(g.config.page) === page.id)
    .map((g) => {
      const cls = str(g.config.className);
      return {
        id: g.id,
        name: g.name,
        width: Math.min(12, Math.max(1, int(g.config.width, 6))),
        height: Math.min(64, Math.max(0, int(g.config.height, 1))),
        order: int(g.config.order, -1),
        showTitle: bool(g.config.showTitle, true),
        collapse: bool(g.config.showTitle, true) && bool(g.config.collapse, false),
        ...(cls ? { className: cls } : {}),
        visible: bool(g.config.visible, true),
        disabled: bool(g.config.disabled, false),
        widgets: (grouped.get(g.id) ?? []).map((w) => widgetView(w, states.get(w.id), options.maxFileBytes)).sort(byWidgetOrder),
      };
    })
    .sort(byOrder);
  const summary = pageSummary(page);
  const layout = str(page.config.layout, "grid");
  return {
    organization: { slug: model.organization.slug, name: model.organization.name },
    title: base?.name || "Dashboard",
    basePath: str(base?.config.path, "/dashboard"),
    header: headerOf(base?.config ?? {}),
    page: { ...summary, layout: layout === "flex" || layout === "notebook" || layout === "tabs" ? layout : "grid", ...(str(page.config.className) ? { className: str(page.config.className) } : {}) },
    pages: options.onlyThisPage ? [summary] : pagesOf(model, ui),
    links: options.onlyThisPage ? [] : linksOf(model, ui),
    theme: themeOf(model, page),
    groups,
    headless: headless.map((w) => widgetView(w, states.get(w.id))).sort(byWidgetOrder),
    interactive: options.interactive,
  };
}

/** The ui-base's app bar and connection notices (its config is parsed: a base saved before they existed has the defaults). */
function headerOf(config: Record<string, unknown>): DashboardPageView["header"] {
  const content = str(config.headerContent, "page");
  return {
    content: content === "dashboard" || content === "dashpage" || content === "none" ? content : "page",
    disconnectNotice: bool(config.showDisconnectNotification, true),
    reconnectNotice: bool(config.showReconnectNotification, true),
    noticeSeconds: int(config.notificationDisplayTime, 5),
  };
}

/** The page as its viewer gets it, with the widgets' durable states read. */
export async function buildPageView(app: AppServices, model: DashboardModel, page: DashboardConfigNode, options: { interactive: boolean; onlyThisPage: boolean }): Promise<DashboardPageView> {
  const states = await app.dashboards.states.read(model.organization.id, [...widgetIdsOfPage(model, page)]);
  return pageView(model, page, states, { ...options, maxFileBytes: app.config.env.DASHBOARD_MAX_FILE_BYTES });
}
