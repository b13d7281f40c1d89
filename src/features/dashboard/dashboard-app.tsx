"use client";

import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from "react";
import { dashboardDocumentTitle, type DashboardLink, type DashboardPageSummary, type DashboardPageView, type DashboardWidgetView } from "@/shared/dashboard";
import { DashboardContext, type DashboardContextValue } from "./dashboard-context";
import { DashboardSocket, type DashboardConnection } from "./dashboard-socket";
import { DashboardStore, groupDisabled, groupVisible, pageVisible } from "./dashboard-store";
import { Notifications } from "./notifications";
import { DEFAULT_THEME, themeVariables } from "./theme";
import { WidgetHost } from "./widget-host";
import { Speakers } from "./widgets/audio";
import { dashboardPageOfHref } from "./page-links";
import { appBarTeleport } from "@/shared/template-frame";
import { Icon } from "./widgets/icon";
import "@mdi/font/css/materialdesignicons.min.css";
import "./dashboard.css";

export interface DashboardAppProps {
  org: string;
  /** The page path asked for ("/" lets the server choose the first page). */
  path: string;
  share: string | null;
  /** The page as the server rendered it (null: wait for the socket's first `dashboard.page`). */
  initialView: DashboardPageView | null;
}

function pageHref(org: string, path: string, share: string | null): string {
  const clean = path === "/" ? "" : path.replace(/^\/+/, "");
  return `/dashboard/${encodeURIComponent(org)}${clean ? `/${clean.split("/").map(encodeURIComponent).join("/")}` : ""}${share ? `?share=${encodeURIComponent(share)}` : ""}`;
}

/** The page URL's query for ui-event (Dashboard 2.0's `$route.query`), without the share link's token. */
function pageQuery(): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(window.location.search)) if (k !== "share" && Object.keys(query).length < 50) query[k.slice(0, 100)] = v.slice(0, 1000);
  return query;
}

function ConnectionIndicator({ state, onRetry }: { state: DashboardConnection; onRetry: () => void }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (state.status !== "offline") return;
    const t = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(t);
  }, [state]);
  const text =
    state.status === "online"
      ? "Live"
      : state.status === "connecting"
        ? "Connecting…"
        : state.status === "offline"
          ? `Offline, retrying in ${Math.max(0, Math.ceil((state.retryAt - now) / 1000))} s`
          : "Disconnected";
  return (
    <div className={`db-conn ${state.status}`} role="status" aria-live="polite" data-connection={state.status}>
      <span className="db-conn-dot" aria-hidden="true" />
      <span className="db-conn-text">{text}</span>
      {state.status === "offline" ? (
        <button type="button" className="db-link" onClick={onRetry}>
          Retry now
        </button>
      ) : null}
    </div>
  );
}

/** The app bar's title as Dashboard 2.0 words it: the page's name, the dashboard's, or "Dashboard (Page)". */
function headerTitle(view: DashboardPageView): string {
  if (view.header.content === "dashboard") return view.title;
  if (view.header.content === "dashpage") return `${view.title} (${view.page.name})`;
  return view.page.name;
}

/**
 * Dashboard 2.0's connection notifications: "connection lost" when a page that was live loses the
 * server, "reconnected" when it is back, each for the ui-base's display time, each only if switched on.
 */
function ConnectionNotice({ state, header }: { state: DashboardConnection; header: DashboardPageView["header"] }) {
  const [notice, setNotice] = useState<"lost" | "back" | null>(null);
  const wasLive = useRef(false);
  const lost = useRef(false);
  const switching = state.status === "connecting" && state.switching === true;
  useEffect(() => {
    if (state.status === "online") {
      if (lost.current && header.reconnectNotice) setNotice("back");
      else if (lost.current) setNotice(null);
      lost.current = false;
      wasLive.current = true;
    } else if (wasLive.current && !lost.current && (state.status === "offline" || (state.status === "connecting" && !switching))) {
      lost.current = true;
      setNotice(header.disconnectNotice ? "lost" : null);
    }
  }, [state.status, switching, header.disconnectNotice, header.reconnectNotice]);
  useEffect(() => {
    if (!notice) return;
    const t = setTimeout(() => setNotice(null), header.noticeSeconds * 1000);
    return () => clearTimeout(t);
  }, [notice, header.noticeSeconds]);
  if (!notice) return null;
  return (
    <div className={`db-conn-notice ${notice}`} role="status" data-testid="connection-notice">
      {notice === "lost" ? "Connection lost. Reconnecting…" : "Reconnected"}
    </div>
  );
}

/**
 * A dashboard page in the browser (SPEC §21): the app bar with the ui-base's title and the pages
 * (a drawer on phones), the page's groups on Dashboard 2.0's grid, notifications, the connection
 * state. Pages of the same dashboard switch without a reload (history + a new socket path).
 */
const noneCollapsed = (): ReadonlySet<string> => NONE_COLLAPSED;
const NONE_COLLAPSED: ReadonlySet<string> = new Set();

export function DashboardApp({ org, path: initialPath, share, initialView }: DashboardAppProps) {
  const store = useMemo(() => new DashboardStore(initialView), [initialView]);
  const [socket] = useState(() => new DashboardSocket({ org, path: initialPath, share }));
  const view = useSyncExternalStore(store.subscribePage, store.getView, store.getView);
  const control = useSyncExternalStore(store.subscribePage, store.getControl, store.getControl);
  // The server renders every group open (it cannot know what this browser folded); so does hydration.
  const collapsed = useSyncExternalStore(store.subscribePage, store.getCollapsed, noneCollapsed);
  const [connection, setConnection] = useState<DashboardConnection>(socket.getState());
  const [drawer, setDrawer] = useState(false);
  const [closedReason, setClosedReason] = useState<string | null>(null);
  /** A refused frame (`dashboard.error`: rate limited, view only, …): shown for a few seconds. */
  const [refusal, setRefusal] = useState<string | null>(null);
  const viewedPage = useRef<string | null>(null);

  useEffect(() => {
    const offFrame = socket.onFrame((frame) => {
      if (frame.type === "dashboard.error") setRefusal(frame.message);
      store.handle(frame);
    });
    const offState = socket.onState((s) => {
      setConnection(s);
      if (s.status === "closed") setClosedReason(s.reason);
    });
    socket.start();
    return () => {
      offFrame();
      offState();
      socket.stop();
    };
  }, [socket, store]);

  useEffect(() => {
    if (!refusal) return;
    const t = setTimeout(() => setRefusal(null), 5000);
    return () => clearTimeout(t);
  }, [refusal]);

  // ui-event: a page view when a page's layout arrives, a page leave when the viewer goes.
  useEffect(() => {
    if (!view || connection.status !== "online") return;
    if (viewedPage.current === view.page.id) return;
    viewedPage.current = view.page.id;
    socket.send({ type: "dashboard.event", event: "$pageview", page_id: view.page.id, query: pageQuery() });
  }, [view, connection.status, socket]);
  useEffect(() => {
    const leave = () => {
      if (viewedPage.current) socket.send({ type: "dashboard.event", event: "$pageleave", page_id: viewedPage.current, query: pageQuery() });
    };
    window.addEventListener("pagehide", leave);
    return () => window.removeEventListener("pagehide", leave);
  }, [socket]);

  /** The page leave goes on the socket of the page left, before it is replaced. */
  const leavePage = useCallback(() => {
    if (viewedPage.current) socket.send({ type: "dashboard.event", event: "$pageleave", page_id: viewedPage.current, query: pageQuery() });
    viewedPage.current = null;
  }, [socket]);

  const navigate = useCallback(
    (page: DashboardPageSummary, replace = false) => {
      const href = pageHref(org, page.path, share);
      if (replace) window.history.replaceState(null, "", href);
      else window.history.pushState(null, "", href);
      setDrawer(false);
      leavePage();
      socket.setPath(page.path);
    },
    [org, share, socket, leavePage],
  );

  useEffect(() => {
    store.setNavigator((target) => {
      const pages = (store.getView()?.pages ?? []).slice().sort((a, b) => a.order - b.order);
      const here = pages.findIndex((p) => p.id === store.getView()?.page.id);
      const page =
        target === "+1" ? pages[(here + 1) % pages.length] : target === "-1" ? pages[(here - 1 + pages.length) % pages.length] : pages.find((p) => p.name === target || p.path === target || p.id === target);
      if (page) navigate(page);
    });
    return () => store.setNavigator(null);
  }, [store, navigate]);

  // A group folded or opened (its button, or ui-control): the dashboard's ui-control nodes hear it;
  // opened, its widgets measure themselves again (charts drawn while it was folded had no size).
  useEffect(() => {
    store.setGroupToggleListener((groupId, open) => {
      const pageId = store.getView()?.page.id;
      if (pageId) socket.send({ type: "dashboard.group", page_id: pageId, group_id: groupId, open });
      if (open) requestAnimationFrame(() => window.dispatchEvent(new Event("resize")));
    });
    return () => store.setGroupToggleListener(null);
  }, [store, socket]);

  useEffect(() => {
    const onPop = () => {
      leavePage();
      const rest = window.location.pathname.split("/").slice(3).map(decodeURIComponent).join("/");
      socket.setPath(`/${rest}`);
    };
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, [socket, leavePage]);

  const context: DashboardContextValue = useMemo(
    () => ({
      store,
      interactive: view?.interactive ?? false,
      sendInput: (widgetId, event, msg) => socket.send({ type: "dashboard.input", widget_id: widgetId, event, msg }),
      upload: async (widgetId, file, onProgress) => {
        const bytes = new Uint8Array(await file.arrayBuffer());
        await socket.upload(widgetId, { name: file.name.slice(0, 255), size: bytes.length, type: file.type.slice(0, 255) }, bytes, (received) => onProgress?.(bytes.length ? received / bytes.length : 1));
      },
      pageLink: (href) => {
        const now = store.getView();
        if (!now) return null;
        const path = dashboardPageOfHref(href, now.basePath, now.page.path, now.pages.map((p) => p.path));
        return path === null ? null : { href: pageHref(now.organization.slug, path, share), path };
      },
      openPage: (path) => store.navigate(path),
    }),
    [store, socket, view?.interactive, share],
  );

  // The server answered with a page path (it chose the first page for "/"): show it in the address bar.
  useEffect(() => {
    if (!view) return;
    const want = pageHref(view.organization.slug, view.page.path, share);
    if (window.location.pathname + window.location.search !== want) window.history.replaceState(null, "", want);
    document.title = dashboardDocumentTitle(view);
  }, [view, share]);

  if (!view) {
    return (
      <div className="db-root" style={themeVariables(DEFAULT_THEME)}>
        <div className="db-loading" role="status">
          {closedReason ?? "Loading the dashboard…"}
        </div>
      </div>
    );
  }

  const pages = view.pages.filter((p) => pageVisible(p, control)).sort((a, b) => a.order - b.order);
  // The navigation: pages and ui-links by their order (Dashboard 2.0 orders them together).
  const nav: Array<({ page: DashboardPageSummary } | { link: DashboardLink }) & { order: number }> = [...pages.map((page) => ({ page, order: page.order })), ...(view.links ?? []).filter((l) => pageVisible(l, control)).map((link) => ({ link, order: link.order }))].sort(
    (a, b) => a.order - b.order,
  );
  const isStyle = (w: DashboardWidgetView) => w.props.templateScope === "page:style" || w.props.templateScope === "site:style";
  // Templates whose content Dashboard 2.0 teleports to its app bar are placed in ours (their frame there).
  const toAppBar = (w: DashboardWidgetView) => w.type === "ui-template" && !isStyle(w) && appBarTeleport(String(w.props.format ?? "")) !== null;
  const appBarTemplates = [...view.groups.flatMap((g) => (groupVisible(g, control) ? g.widgets : [])), ...view.headless].filter(toAppBar);
  const groups = view.groups
    .filter((g) => groupVisible(g, control))
    .sort((a, b) => a.order - b.order)
    .map((g) => (g.widgets.some(toAppBar) ? { ...g, widgets: g.widgets.filter((w) => !toAppBar(w)) } : g));
  const templates = view.headless.filter((w) => w.type === "ui-template" && !toAppBar(w));
  const pageTemplates = templates.filter((w) => !isStyle(w));
  const styleTemplates = templates.filter(isStyle);
  const density = view.theme.sizes?.density ?? "default";
  return (
    <DashboardContext.Provider value={context}>
      <div className={`db-root nrdb-app db-density-${density}`} style={themeVariables(view.theme)} data-page-id={view.page.id}>
        <header className="db-appbar v-app-bar v-toolbar">
          {nav.length > 1 ? (
            <button type="button" className="db-menu" aria-label="Pages" aria-expanded={drawer} aria-controls="db-nav" onClick={() => setDrawer(!drawer)}>
              <span aria-hidden="true">☰</span>
            </button>
          ) : null}
          {/* What the ui-base's header content says (Dashboard 2.0's); with "none" the heading stays for screen readers. */}
          <h1 className={`db-title${view.header.content === "none" ? " visually-hidden" : ""}`}>{headerTitle(view)}</h1>
          {appBarTemplates.length > 0 ? (
            <div id="app-bar-actions" className="db-appbar-templates">
              {appBarTemplates.map((w) => (
                <WidgetHost key={w.id} widget={w} groupWidth={12} groupDisabled={false} placement="app-bar" />
              ))}
            </div>
          ) : null}
          <ConnectionIndicator state={connection} onRetry={socket.retryNow} />
          {!view.interactive ? <span className="db-badge">View only</span> : null}
        </header>
        <div className="db-body">
          {nav.length > 1 ? (
            <nav id="db-nav" className={`db-nav v-navigation-drawer${drawer ? " open" : ""}`} aria-label="Dashboard pages">
              <ul>
                {nav.map((item) =>
                  "link" in item ? (
                    <NavLink key={item.link.id} link={item.link} onFollow={() => setDrawer(false)} />
                  ) : (
                    <li key={item.page.id}>
                      <a
                        href={pageHref(org, item.page.path, share)}
                        aria-current={item.page.id === view.page.id ? "page" : undefined}
                        onClick={(e) => {
                          if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
                          e.preventDefault();
                          navigate(item.page);
                        }}
                      >
                        {item.page.icon ? <Icon name={item.page.icon} /> : null}
                        {item.page.name}
                      </a>
                    </li>
                  ),
                )}
              </ul>
            </nav>
          ) : null}
          {drawer ? <div className="db-scrim" onClick={() => setDrawer(false)} aria-hidden="true" /> : null}
          <main
            id={`nrdb-page-${view.page.id}`}
            className={`db-page db-layout-${view.page.layout} v-main nrdb-ui-page nrdb-layout--${view.page.layout}${view.page.className ? ` ${view.page.className}` : ""}`}
            aria-label={view.page.name}
          >
            {closedReason ? (
              <div className="db-closed" role="alert">
                {closedReason}
              </div>
            ) : null}
            {refusal ? (
              <div className="db-refusal" role="status">
                {refusal}
              </div>
            ) : null}
            {groups.length === 0 && pageTemplates.length === 0 ? <p className="db-empty">This page has no widgets yet. Add ui-* nodes to a group of this page and deploy the flow.</p> : null}
            {groups.map((g) => {
              const disabled = groupDisabled(g, control);
              return (
                // As Dashboard 2.0's Grid.vue: the group's cell (its class, its id) holds a div.v-card
                // (the box) whose body is .v-card-text; CSS written for Dashboard 2.0 names them.
                <div
                  role="region"
                  key={g.id}
                  id={`nrdb-ui-group-${g.id}`}
                  className={`db-group-cell nrdb-ui-group${g.className ? ` ${g.className}` : ""}${disabled ? " disabled" : ""}`}
                  data-group-id={g.id}
                  aria-label={g.name}
                  style={{ gridColumnEnd: `span min(${g.width}, var(--layout-columns))`, ["--db-group-width" as string]: g.width }}
                >
                  <div className="db-group v-card">
                    {g.showTitle && g.collapse ? (
                      // Dashboard 1's collapsible group: its title is the button (a caret beside it).
                      <h2 className="db-group-title v-card-title">
                        <button type="button" className="db-group-toggle" aria-expanded={!collapsed.has(g.id)} aria-controls={`db-group-body-${g.id}`} onClick={() => store.setGroupOpen(g.id, collapsed.has(g.id))}>
                          <span>{g.name}</span>
                          <span className="db-group-caret" aria-hidden="true">
                            {collapsed.has(g.id) ? "▾" : "▴"}
                          </span>
                        </button>
                      </h2>
                    ) : g.showTitle ? (
                      <h2 className="db-group-title v-card-title">{g.name}</h2>
                    ) : null}
                    <div
                      id={`db-group-body-${g.id}`}
                      hidden={g.collapse && collapsed.has(g.id)}
                      className="db-group-grid v-card-text"
                      style={{ gridTemplateColumns: `repeat(min(${g.width}, var(--layout-columns)), minmax(0, 1fr))` }}
                    >
                      {g.widgets
                        .slice()
                        .sort((a, b) => a.order - b.order)
                        .map((w) => (
                          <WidgetHost key={w.id} widget={w} groupWidth={g.width} groupDisabled={disabled} />
                        ))}
                    </div>
                  </div>
                </div>
              );
            })}
            {pageTemplates.length > 0 ? (
              // Dashboard 2.0's page- and dashboard-scoped templates (widget:page, widget:ui): after the groups, the page's width.
              <div className="db-page-widgets db-group-grid" style={{ gridTemplateColumns: "repeat(var(--layout-columns), minmax(0, 1fr))" }}>
                {pageTemplates.map((w) => (
                  <WidgetHost key={w.id} widget={w} groupWidth={12} groupDisabled={false} />
                ))}
              </div>
            ) : null}
          </main>
        </div>
        {styleTemplates.length > 0 ? (
          // CSS of page:style / site:style templates: a <style> applies wherever it is, so they take no place on the page.
          <div hidden>
            {styleTemplates.map((w) => (
              <WidgetHost key={w.id} widget={w} groupWidth={12} groupDisabled={false} />
            ))}
          </div>
        ) : null}
        <Notifications />
        <Speakers widgets={view.headless} />
        <ConnectionNotice state={connection} header={view.header} />
      </div>
    </DashboardContext.Provider>
  );
}

/** A ui-link in the navigation: it leaves the dashboard for its URL (disabled: shown, not followed). */
function NavLink({ link, onFollow }: { link: DashboardLink; onFollow: () => void }) {
  const icon = link.icon ? <Icon name={link.icon} /> : null;
  return (
    <li>
      {link.disabled ? (
        <a role="link" aria-disabled="true" className="disabled">
          {icon}
          {link.name}
        </a>
      ) : (
        <a href={link.url} rel="noopener noreferrer" onClick={onFollow}>
          {icon}
          {link.name}
          <span className="db-external" aria-hidden="true">
            ↗
          </span>
        </a>
      )}
    </li>
  );
}
