import type { DashboardPageView, DashboardServerFrame, DashboardWidgetView } from "@/shared/dashboard";
import { sameValue } from "@/shared/dashboard-values";
import { applyWidgetMessage, initialWidgetState, type WidgetState } from "./widget-state";

export interface Notice {
  key: number;
  widgetId: string;
  msg: Record<string, unknown>;
}

/** What `dashboard.control` changed on this page (Dashboard 2.0's ui-control). */
export interface PageControl {
  hiddenGroups: Set<string>;
  shownGroups: Set<string>;
  disabledGroups: Set<string>;
  enabledGroups: Set<string>;
  hiddenPages: Set<string>;
  shownPages: Set<string>;
}

type Listener = () => void;

/** Where a browser remembers the groups it folded (Dashboard 1 kept each in localStorage too). */
export const COLLAPSED_GROUPS_KEY = "flowplane.dashboard.collapsedGroups";
/** Group ids remembered at most (the oldest forgotten first). */
const COLLAPSED_GROUPS_MAX = 500;

function readCollapsed(): Set<string> {
  try {
    const raw = typeof localStorage === "undefined" ? null : localStorage.getItem(COLLAPSED_GROUPS_KEY);
    const ids: unknown = raw ? JSON.parse(raw) : [];
    return new Set(Array.isArray(ids) ? ids.filter((x): x is string => typeof x === "string").slice(-COLLAPSED_GROUPS_MAX) : []);
  } catch {
    return new Set();
  }
}

function writeCollapsed(ids: Set<string>) {
  try {
    if (typeof localStorage !== "undefined") localStorage.setItem(COLLAPSED_GROUPS_KEY, JSON.stringify([...ids].slice(-COLLAPSED_GROUPS_MAX)));
  } catch {
    // Storage full or refused (a private window): the fold lasts for this page only.
  }
}

function emptyControl(): PageControl {
  return { hiddenGroups: new Set(), shownGroups: new Set(), disabledGroups: new Set(), enabledGroups: new Set(), hiddenPages: new Set(), shownPages: new Set() };
}

/**
 * Whether two states show the same: the same message, properties and chart points, by value (keys
 * in any order: PostgreSQL's jsonb keeps its own).
 */
function sameWidgetState(a: WidgetState, b: WidgetState): boolean {
  if (a.event || b.event) return false;
  return sameValue(a.msg, b.msg) && sameValue(a.props, b.props) && sameValue(a.chart?.series ?? null, b.chart?.series ?? null);
}

/**
 * The page's state outside React: the view, each widget's state and the page-level events
 * (notifications, control). Widgets subscribe to their own id (useSyncExternalStore), so an
 * update re-renders one widget, never the page: 50 widgets × 10 updates a second stay in budget.
 */
export class DashboardStore {
  private view: DashboardPageView | null;
  private widgets = new Map<string, DashboardWidgetView>();
  private states = new Map<string, WidgetState>();
  private readonly widgetListeners = new Map<string, Set<Listener>>();
  private readonly pageListeners = new Set<Listener>();
  private notices: Notice[] = [];
  private noticeKey = 0;
  private control: PageControl = emptyControl();
  private socketId: string | null = null;
  /** Widgets changed since the last paint: their listeners run once per animation frame. */
  private readonly dirty = new Set<string>();
  private flushScheduled = false;
  /** ui-control's "navigate" (page name, path, "+1" / "-1") for the app to follow. */
  private onNavigate: ((target: string) => void) | null = null;
  /** Folded groups (their ids), as this browser remembers them; a new Set on every change. */
  private collapsed: Set<string> = readCollapsed();
  /** Told when a group is folded or opened, by its button or by ui-control (the app tells the flow). */
  private onGroupToggle: ((groupId: string, open: boolean) => void) | null = null;

  constructor(view: DashboardPageView | null) {
    this.view = null;
    if (view) this.setView(view, null);
  }

  setNavigator(fn: ((target: string) => void) | null) {
    this.onNavigate = fn;
  }

  setGroupToggleListener(fn: ((groupId: string, open: boolean) => void) | null) {
    this.onGroupToggle = fn;
  }

  getCollapsed = (): ReadonlySet<string> => this.collapsed;

  /**
   * Folds or opens a group of this page that can be collapsed (Dashboard 1's caret): remembered by
   * this browser and told to the flow. Nothing happens for a group that cannot, or is already so.
   */
  setGroupOpen(groupId: string, open: boolean) {
    const group = this.view?.groups.find((g) => g.id === groupId);
    if (!group?.collapse || this.collapsed.has(groupId) === !open) return;
    const next = new Set(this.collapsed);
    if (open) next.delete(groupId);
    else next.add(groupId);
    this.collapsed = next;
    writeCollapsed(next);
    this.emitPage();
    this.onGroupToggle?.(groupId, open);
  }

  getView = (): DashboardPageView | null => this.view;
  getNotices = (): Notice[] => this.notices;
  getControl = (): PageControl => this.control;
  getSocketId = (): string | null => this.socketId;

  getWidget(id: string): DashboardWidgetView | undefined {
    return this.widgets.get(id);
  }

  getState(id: string): WidgetState | undefined {
    return this.states.get(id);
  }

  subscribeWidget(id: string, listener: Listener): () => void {
    let set = this.widgetListeners.get(id);
    if (!set) this.widgetListeners.set(id, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  subscribePage = (listener: Listener): (() => void) => {
    this.pageListeners.add(listener);
    return () => this.pageListeners.delete(listener);
  };

  dismissNotice(key: number) {
    this.notices = this.notices.filter((n) => n.key !== key);
    this.emitPage();
  }

  handle(frame: DashboardServerFrame) {
    switch (frame.type) {
      case "dashboard.page":
        this.setView(frame.view, frame.socket_id);
        return;
      case "dashboard.update":
        if (frame.replay && frame.state !== null && frame.state !== undefined) this.replace(frame.widget_id, frame.state, frame.msg);
        else this.update(frame.widget_id, frame.msg);
        return;
      case "dashboard.control":
        this.applyControl(frame.msg);
        return;
      case "dashboard.error":
        return;
    }
  }

  setView(view: DashboardPageView, socketId: string | null) {
    const pageChanged = this.view?.page.id !== view.page.id;
    this.view = view;
    this.socketId = socketId;
    const all = [...view.groups.flatMap((g) => g.widgets), ...view.headless];
    this.widgets = new Map(all.map((w) => [w.id, w]));
    // The server's state is the durable truth after a (re)connect or a deploy. A widget whose state
    // it confirms keeps the object it has: the page already shows it, and a template is not handed
    // its last message again (its msg watcher would run twice; Dashboard 2.0's runs once).
    const before = pageChanged ? new Map<string, WidgetState>() : this.states;
    const kept = new Set<string>();
    this.states = new Map(
      all.map((w) => {
        const fresh = initialWidgetState(w);
        const old = before.get(w.id);
        if (old && sameWidgetState(old, fresh)) {
          kept.add(w.id);
          return [w.id, old];
        }
        return [w.id, fresh];
      }),
    );
    if (pageChanged) this.control = emptyControl();
    this.emitPage();
    for (const id of this.widgetListeners.keys()) if (!kept.has(id)) this.emitWidget(id);
  }

  /** A widget's state as the server kept it (an update that may already be in the page's states). */
  replace(widgetId: string, state: unknown, msg: Record<string, unknown>) {
    const widget = this.widgets.get(widgetId);
    if (!widget) return;
    // Not a state these show: a notification or a control is an event, never in the page's states.
    if (widget.type === "ui-notification" || widget.type === "ui-control") return this.update(widgetId, msg);
    const fresh = initialWidgetState({ ...widget, state } as DashboardWidgetView);
    const old = this.states.get(widgetId);
    if (old && sameWidgetState(old, fresh)) return;
    this.states.set(widgetId, fresh);
    this.emitWidget(widgetId);
  }

  update(widgetId: string, msg: Record<string, unknown>) {
    const widget = this.widgets.get(widgetId);
    if (!widget) return;
    if (widget.type === "ui-notification") {
      this.notices = [...this.notices, { key: ++this.noticeKey, widgetId, msg }];
      this.emitPage();
      return;
    }
    if (widget.type === "ui-control") {
      this.applyControl(msg);
      return;
    }
    const current = this.states.get(widgetId) ?? initialWidgetState(widget);
    this.states.set(widgetId, applyWidgetMessage(widget, current, msg));
    this.emitWidget(widgetId);
  }

  /** A value this viewer chose in an input widget: shown at once, as Dashboard 2.0 does. */
  setLocalValue(widgetId: string, payload: unknown) {
    const widget = this.widgets.get(widgetId);
    if (!widget) return;
    const current = this.states.get(widgetId) ?? initialWidgetState(widget);
    this.states.set(widgetId, { ...current, msg: { ...(current.msg ?? {}), payload } });
    this.emitWidget(widgetId);
  }

  /** Opens a page of this dashboard (its name, path or id) as the navigation does. */
  navigate(target: string) {
    this.onNavigate?.(target);
  }

  /**
   * ui-control's payloads (Dashboard 2.0): `{ page: name|path }` or a bare string navigates;
   * `{ groups: { show, hide, enable, disable } }` and `{ pages: { show, hide } }` name groups as
   * "Page:Group" or by name or id; "refresh"/"reload" reloads. Dashboard 1's `{ group: { show,
   * hide, open, close, focus } }` names groups "Page_Group" with spaces as underscores.
   */
  applyControl(msg: Record<string, unknown>) {
    const payload = msg.payload;
    if (typeof payload === "string") {
      if (payload === "" || payload === "refresh" || payload === "reload") {
        if (typeof window !== "undefined") window.location.reload();
        return;
      }
      this.onNavigate?.(payload);
      return;
    }
    if (!payload || typeof payload !== "object") return;
    const p = payload as Record<string, unknown>;
    if (typeof p.page === "string" || typeof p.tab === "string") {
      this.onNavigate?.(String(p.page ?? p.tab));
    } else if (typeof p.page === "number" || typeof p.tab === "number") {
      const index = Number(p.page ?? p.tab);
      const target = this.view?.pages.filter((x) => x.visible)[index];
      if (target) this.onNavigate?.(target.path);
    }
    const widgets = p.widgets as Record<string, unknown> | undefined;
    if (widgets && typeof widgets === "object") {
      const set = (names: unknown, key: "visible" | "enabled", value: boolean) => {
        if (!Array.isArray(names)) return;
        for (const n of names) {
          const w = this.widgets.get(String(n)) ?? [...this.widgets.values()].find((x) => x.props.name === n || x.props.label === n);
          if (!w) continue;
          const current = this.states.get(w.id) ?? initialWidgetState(w);
          this.states.set(w.id, { ...current, props: { ...current.props, [key]: value } });
          this.emitWidget(w.id);
        }
      };
      set(widgets.show, "visible", true);
      set(widgets.hide, "visible", false);
      set(widgets.enable, "enabled", true);
      set(widgets.disable, "enabled", false);
    }
    if (typeof p.url === "string" && /^https?:\/\//i.test(p.url) && typeof window !== "undefined") {
      window.open(p.url, typeof p.target === "string" ? p.target : "_blank", "noopener,noreferrer");
    }
    const c: PageControl = { ...this.control };
    const groupIds = (names: unknown): string[] => (Array.isArray(names) ? names.flatMap((n) => this.resolveGroup(String(n))) : []);
    const pageIds = (names: unknown): string[] => (Array.isArray(names) ? names.flatMap((n) => this.resolvePage(String(n))) : []);
    const groups = (p.groups ?? p.group) as Record<string, unknown> | undefined;
    if (groups && typeof groups === "object") {
      const toggle = (add: keyof PageControl, remove: keyof PageControl, ids: string[]) => {
        if (ids.length === 0) return;
        c[add] = new Set([...c[add], ...ids]);
        c[remove] = new Set([...c[remove]].filter((x) => !ids.includes(x)));
      };
      toggle("shownGroups", "hiddenGroups", groupIds(groups.show));
      toggle("hiddenGroups", "shownGroups", groupIds(groups.hide));
      toggle("enabledGroups", "disabledGroups", groupIds(groups.enable));
      toggle("disabledGroups", "enabledGroups", groupIds(groups.disable));
      // Dashboard 1's open / close: as a viewer's click on the group's button (told to the flow too).
      for (const id of groupIds(groups.open)) this.setGroupOpen(id, true);
      for (const id of groupIds(groups.close)) this.setGroupOpen(id, false);
      // Dashboard 1's focus: the page scrolls to the (first) group just shown, once it is drawn.
      const focus = groups.focus === true ? groupIds(groups.show)[0] : undefined;
      if (focus && typeof document !== "undefined") setTimeout(() => document.getElementById(`nrdb-ui-group-${focus}`)?.scrollIntoView({ block: "nearest" }), 50);
    }
    const pages = p.pages as Record<string, unknown> | undefined;
    if (pages && typeof pages === "object") {
      const show = pageIds(pages.show);
      const hide = pageIds(pages.hide);
      c.shownPages = new Set([...[...c.shownPages].filter((x) => !hide.includes(x)), ...show]);
      c.hiddenPages = new Set([...[...c.hiddenPages].filter((x) => !show.includes(x)), ...hide]);
    }
    this.control = c;
    this.emitPage();
  }

  private resolveGroup(name: string): string[] {
    const groups = this.view?.groups ?? [];
    const pageName = this.view?.page.name;
    const d1 = (g: { name: string }) => `${pageName} ${g.name}`.replace(/ /g, "_");
    return groups.filter((g) => g.id === name || g.name === name || `${pageName}:${g.name}` === name || `${pageName}_${g.name}` === name || d1(g) === name).map((g) => g.id);
  }

  private resolvePage(name: string): string[] {
    const items: Array<{ id: string; name: string; path?: string }> = [...(this.view?.pages ?? []), ...(this.view?.links ?? [])];
    return items.filter((p) => p.id === name || p.name === name || (p.path !== undefined && p.path === name)).map((p) => p.id);
  }

  private emitPage() {
    for (const l of this.pageListeners) l();
  }

  /**
   * Widget updates are coalesced to one React render per animation frame: 50 widgets × 10
   * messages a second are 500 socket messages, but at most 60 renders (each of the widgets that
   * changed). The state is applied at once; only the notification waits.
   */
  private emitWidget(id: string) {
    this.dirty.add(id);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    if (typeof requestAnimationFrame === "function" && typeof document !== "undefined" && document.visibilityState !== "hidden") requestAnimationFrame(this.flush);
    else setTimeout(this.flush, 16);
  }

  /** Runs the listeners of the widgets changed since the last flush (tests call it directly). */
  readonly flush = () => {
    this.flushScheduled = false;
    const ids = [...this.dirty];
    this.dirty.clear();
    for (const id of ids) {
      const set = this.widgetListeners.get(id);
      if (set) for (const l of set) l();
    }
  };
}

/** Whether a group shows, after ui-control. */
export function groupVisible(group: { id: string; visible: boolean }, control: PageControl): boolean {
  if (control.hiddenGroups.has(group.id)) return false;
  if (control.shownGroups.has(group.id)) return true;
  return group.visible;
}

export function groupDisabled(group: { id: string; disabled: boolean }, control: PageControl): boolean {
  if (control.disabledGroups.has(group.id)) return true;
  if (control.enabledGroups.has(group.id)) return false;
  return group.disabled;
}

export function pageVisible(page: { id: string; visible: boolean }, control: PageControl): boolean {
  if (control.hiddenPages.has(page.id)) return false;
  if (control.shownPages.has(page.id)) return true;
  return page.visible;
}
