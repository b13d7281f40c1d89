import { z } from "zod";

/**
 * SPEC §21: dashboards. One contract for the server (the widget nodes in `src/server/nodes/ui-*`,
 * the dashboard socket and state store) and the browser (the page at `/dashboard/{org}/{path}`,
 * `src/features/dashboard/`).
 *
 * Names and properties are Dashboard 2.0's (`@flowfuse/node-red-dashboard`): configuration nodes
 * `ui-base`, `ui-page`, `ui-group`, `ui-theme` (organization resources, SPEC §19) and the widget node
 * types of `DASHBOARD_WIDGET_TYPES`, whose `config` keeps Dashboard 2.0's property names (`label`,
 * `group`, `width`, `height`, `order`, `chartType`, `options`, …).
 *
 * How a page reaches a browser:
 * 1. The browser opens `/dashboard/{org-slug}/{page path}` (a Next page; signed-in member of the
 *    organization, any role, else 404; or `?share={token}` of a share link).
 * 2. It opens a WebSocket at `DASHBOARD_SOCKET_PATH` + `/{org-slug}?path={page path}` (plus
 *    `&share={token}`), authenticated by the browser session cookie or the share token. The socket
 *    receives only that page's frames (SPEC §21: never debug, statuses or other flows' events).
 * 3. The server sends `dashboard.page` (layout, widgets and each widget's durable state), then
 *    `dashboard.update` frames as widget nodes receive messages, and `dashboard.page` again after a
 *    deploy that changes the page.
 * 4. Input widgets send `dashboard.input`; the widget node sends the message into its flow with
 *    `msg._client` (`DashboardClient`). A message that carries `msg._client` (with `socketId`)
 *    goes to that viewer only.
 *
 * Layout is what is deployed: the configuration nodes (ui-base/page/group/theme) in the running
 * deployments' snapshots, and the widget nodes of deployed, enabled flows.
 */

export const DASHBOARD_SOCKET_PATH = "/ws/dashboard";

/**
 * Close codes of the dashboard socket: no credentials (4401), not a member / no such page / a
 * share link for another page (4404, as a missing page), the share link was revoked (4410), the
 * viewer fell too far behind (4408), the server is busy or a dependency is away (1013, reconnect
 * later), the server is stopping (1001), a frame too large (1009).
 */
export const DASHBOARD_CLOSE = {
  goingAway: 1001,
  tooLarge: 1009,
  internalError: 1011,
  tryAgainLater: 1013,
  unauthenticated: 4401,
  notFound: 4404,
  tooSlow: 4408,
  shareRevoked: 4410,
} as const;

/** Widget node types (Dashboard 2.0), in the palette's order. */
export const DASHBOARD_WIDGET_TYPES = [
  "ui-button",
  "ui-text",
  "ui-text-input",
  "ui-number-input",
  "ui-switch",
  "ui-slider",
  "ui-dropdown",
  "ui-radio-group",
  "ui-button-group",
  "ui-form",
  "ui-file-input",
  "ui-notification",
  "ui-audio",
  "ui-chart",
  "ui-gauge",
  "ui-progress",
  "ui-led",
  "ui-table",
  "ui-markdown",
  "ui-template",
  "ui-iframe",
  "ui-spacer",
  "ui-control",
  "ui-event",
] as const;
export type DashboardWidgetType = (typeof DASHBOARD_WIDGET_TYPES)[number];

export const DASHBOARD_CONFIG_TYPES = ["ui-base", "ui-page", "ui-link", "ui-group", "ui-theme"] as const;

/**
 * A ui-link's URL as a page may follow it: http(s), mailto and tel, or a relative one ("/x",
 * "../x", "#x", "x"); any other scheme (javascript:, data:, file:) is no link.
 */
export function safeLinkUrl(url: string): boolean {
  const v = url.trim();
  if (v === "" || v.length > 2000 || [...v].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return false;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(v);
  return !scheme || ["http", "https", "mailto", "tel"].includes(scheme[1]!.toLowerCase());
}

/**
 * A message's keys that change a widget's properties (Dashboard 2.0's dynamic ones), not what it
 * shows: a message of these alone keeps the widget's last message (server and page alike).
 */
export const DASHBOARD_DYNAMIC_KEYS: ReadonlySet<string> = new Set(["ui_update", "enabled", "visible", "class", "topic"]);

/**
 * A ui-iframe's address as the server accepts it (the node's `src`, `msg.src`): empty, or http(s),
 * absolute or relative ("/grafana", "cam.html"); any other scheme (javascript:, data:, file:) is
 * refused. The page then shows it only when it resolves to another origin (frameTarget).
 */
export function safeFrameUrl(url: string): boolean {
  const v = url.trim();
  if (v === "") return true;
  if (v.length > 2000 || [...v].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return false;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(v);
  return !scheme || ["http", "https"].includes(scheme[1]!.toLowerCase());
}

/**
 * Where a ui-iframe on a page at `pageUrl` may point: the absolute http(s) address, or why not.
 * The dashboard's own origin is refused: a page of this site in a frame would run with the
 * viewer's session, and a widget's address is set by whoever edits the flow.
 */
export function frameTarget(src: string, pageUrl: string): { url: string } | { refused: "empty" | "scheme" | "same-origin" } {
  if (src.trim() === "") return { refused: "empty" };
  if (!safeFrameUrl(src)) return { refused: "scheme" };
  let url: URL;
  try {
    url = new URL(src.trim(), pageUrl);
  } catch {
    return { refused: "scheme" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { refused: "scheme" };
  if (url.origin === new URL(pageUrl).origin) return { refused: "same-origin" };
  return { url: url.href };
}

/** Widgets with no place on the page (they act on it or report from it); ui-audio when it speaks (no group). */
export const DASHBOARD_HEADLESS_TYPES: readonly DashboardWidgetType[] = ["ui-notification", "ui-control", "ui-event", "ui-audio"];

/** Dashboard 1 (`node-red-dashboard`) node types and the 2.0 type each imports as. */
export const DASHBOARD1_TYPE_MAP: Readonly<Record<string, string>> = {
  ui_base: "ui-base",
  ui_tab: "ui-page",
  ui_group: "ui-group",
  ui_button: "ui-button",
  ui_text: "ui-text",
  ui_text_input: "ui-text-input",
  ui_numeric: "ui-number-input",
  ui_switch: "ui-switch",
  ui_slider: "ui-slider",
  ui_dropdown: "ui-dropdown",
  ui_form: "ui-form",
  ui_toast: "ui-notification",
  ui_chart: "ui-chart",
  ui_gauge: "ui-gauge",
  ui_table: "ui-table",
  ui_template: "ui-template",
  ui_ui_control: "ui-control",
  ui_audio: "ui-audio",
  ui_colour_picker: "ui-text-input",
  ui_date_picker: "ui-text-input",
  ui_link: "ui-link",
  ui_spacer: "ui-spacer",
  // node-red-contrib-ui-led: not Dashboard 1's own, but in many of its flows; FlowFuse's 2.0 add-on is ui-led.
  ui_led: "ui-led",
  // node-red-contrib-ui-multistate-switch: a row of states, one chosen; Dashboard 2.0's button group.
  ui_multistate_switch: "ui-button-group",
};

/** Who sent a message from a dashboard (Dashboard 2.0's `msg._client`). */
export const dashboardClientSchema = z.object({
  /** The dashboard socket; a message carrying it goes to that socket only. */
  socketId: z.string(),
  /** Signed-in viewer's user id; absent for a share link's visitor. */
  user_id: z.string().optional(),
  /** Share link id when the viewer came through one. */
  share_id: z.string().optional(),
  /**
   * The signed-in viewer, as FlowFuse's user add-on for Dashboard 2.0 (`msg._client.user`) gives
   * it: `username` is the sign-in email (there is no other handle), `image` the profile's avatar.
   */
  user: z
    .object({ userId: z.string(), username: z.string(), email: z.string(), name: z.string(), image: z.string().nullable() })
    .optional(),
});
export type DashboardClient = z.infer<typeof dashboardClientSchema>;

export const dashboardThemeSchema = z.object({
  colors: z.object({
    surface: z.string(),
    primary: z.string(),
    bgPage: z.string(),
    groupBg: z.string(),
    groupOutline: z.string(),
  }),
  sizes: z
    .object({
      density: z.enum(["default", "comfortable", "compact"]).optional(),
      pagePadding: z.string().optional(),
      groupGap: z.string().optional(),
      groupBorderRadius: z.string().optional(),
      widgetGap: z.string().optional(),
    })
    .optional(),
});
export type DashboardTheme = z.infer<typeof dashboardThemeSchema>;

export const dashboardWidgetViewSchema = z.object({
  /** The widget node's id (unique in the organization's deployed flows). */
  id: z.string(),
  type: z.enum(DASHBOARD_WIDGET_TYPES),
  flow_id: z.string(),
  /** 0 = the group's width (Dashboard 2.0's "auto"), else columns of the group's grid. */
  width: z.number().int().min(0).max(12),
  height: z.number().int().min(0).max(64),
  order: z.number().int(),
  /** The node's configuration (Dashboard 2.0 property names), secrets and flow wiring left out. */
  props: z.record(z.string(), z.unknown()),
  /** The widget's durable state (last value, chart points within its limit, dynamic props); null: none yet. */
  state: z.unknown().nullable(),
});
export type DashboardWidgetView = z.infer<typeof dashboardWidgetViewSchema>;

export const dashboardGroupViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** Columns of the page's 12-column grid the group takes (Dashboard 2.0 `width`, default 6). */
  width: z.number().int().min(1).max(12),
  height: z.number().int().min(0).max(64),
  order: z.number().int(),
  showTitle: z.boolean(),
  /** The title has a button that folds the group (Dashboard 1's `collapse`); only with the title shown. */
  collapse: z.boolean(),
  className: z.string().optional(),
  visible: z.boolean(),
  disabled: z.boolean(),
  widgets: z.array(dashboardWidgetViewSchema),
});
export type DashboardGroupView = z.infer<typeof dashboardGroupViewSchema>;

export const dashboardPageSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  /** Starts with "/" (Dashboard 2.0's page `path`), unique in the organization. */
  path: z.string(),
  icon: z.string().optional(),
  order: z.number().int(),
  visible: z.boolean(),
});
export type DashboardPageSummary = z.infer<typeof dashboardPageSummarySchema>;

/** A ui-link: an item of the navigation that leaves for its URL (Dashboard 2.0's), ordered among the pages. */
export const dashboardLinkSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** Only a URL safeLinkUrl accepts. */
  url: z.string(),
  icon: z.string().optional(),
  order: z.number().int(),
  visible: z.boolean(),
  disabled: z.boolean(),
});
export type DashboardLink = z.infer<typeof dashboardLinkSchema>;

export const dashboardPageViewSchema = z.object({
  organization: z.object({ slug: z.string(), name: z.string() }),
  /** The ui-base (Dashboard 2.0's "base"): its name. */
  title: z.string(),
  /**
   * The ui-base's path (Dashboard 2.0's, "/dashboard" by default): a link its widgets write to
   * `<path><page path>`, as Dashboard 2.0 serves pages, opens that page here.
   */
  basePath: z.string().default("/dashboard"),
  /**
   * The ui-base's app bar and connection notices (Dashboard 2.0's headerContent, show…Notification,
   * notificationDisplayTime): what the app bar says, and whether losing and regaining the connection
   * are announced, for how many seconds.
   */
  header: z
    .object({
      content: z.enum(["page", "dashboard", "dashpage", "none"]).default("page"),
      disconnectNotice: z.boolean().default(true),
      reconnectNotice: z.boolean().default(true),
      noticeSeconds: z.number().int().min(1).max(3600).default(5),
    })
    .default({ content: "page", disconnectNotice: true, reconnectNotice: true, noticeSeconds: 5 }),
  page: dashboardPageSummarySchema.extend({
    layout: z.enum(["grid", "flex", "notebook", "tabs"]).default("grid"),
    /** The ui-page's class (Dashboard 2.0's), on the page's element beside `nrdb-ui-page`. */
    className: z.string().optional(),
  }),
  /** Every page of the same ui-base the viewer may open, for navigation. */
  pages: z.array(dashboardPageSummarySchema),
  /** The dashboard's ui-links, for navigation (none for a share link's visitor). */
  links: z.array(dashboardLinkSchema).default([]),
  theme: dashboardThemeSchema,
  groups: z.array(dashboardGroupViewSchema),
  /** Widgets of the page with no place in a group (ui-notification, ui-control, ui-event). */
  headless: z.array(dashboardWidgetViewSchema),
  /** Whether this viewer may use input widgets (false for a view-only share link). */
  interactive: z.boolean(),
  /**
   * The signed-in viewer as their inputs carry it (`msg._client.user`), for ui-template's
   * `setup.socketio.auth.user` (Dashboard 2.0 with FlowFuse's user add-on); absent for a share link.
   */
  user: dashboardClientSchema.shape.user,
});
export type DashboardPageView = z.infer<typeof dashboardPageViewSchema>;

/** The browser tab's title for a page, as its ui-base's header content says (server metadata and client navigation alike). */
export function dashboardDocumentTitle(view: Pick<DashboardPageView, "title" | "header" | "page">): string {
  return view.header.content === "dashboard" ? view.title : view.header.content === "dashpage" ? `${view.title} (${view.page.name})` : `${view.page.name} · ${view.title}`;
}

/** Frames the dashboard socket sends. */
export type DashboardServerFrame =
  | { type: "dashboard.page"; socket_id: string; view: DashboardPageView }
  /**
   * A widget node received a message: `msg` is what Dashboard 2.0 sends its widget (payload, topic,
   * and for dynamic properties `ui_update`, for charts a point or an array of points, `[]` to clear);
   * `state` the widget's durable state after it.
   */
  | {
      type: "dashboard.update";
      widget_id: string;
      msg: Record<string, unknown>;
      state: unknown;
      /**
       * It came while this socket's page was being built, and is sent after the page: the page's
       * states may already hold it, so the browser takes `state` (when not null) rather than
       * applying `msg` again (a chart's point, a table's row would show twice).
       */
      replay?: true;
    }
  /** ui-control: navigate, show/hide/enable/disable groups or pages, reload. */
  | { type: "dashboard.control"; msg: Record<string, unknown> }
  /** A ui-file-input upload's chunk arrived (`received` bytes so far); `done`: the file went to the flow. */
  | { type: "dashboard.upload"; upload_id: string; received: number; done: boolean }
  /** `upload_id`: the upload it refuses (that upload is dropped). */
  | { type: "dashboard.error"; code: string; message: string; upload_id?: string };

/** Frames a browser sends on the dashboard socket. */
export const dashboardClientFrameSchema = z.discriminatedUnion("type", [
  /** An input widget's value: the widget node sends `{...msg, _client}` into its flow. */
  z.object({
    type: z.literal("dashboard.input"),
    widget_id: z.string().min(1).max(64),
    /** Which of the widget's events (Dashboard 2.0: "change", "click", "submit", "send" from ui-template). */
    // "$…" names are the page's own events (page views, a group folded), sent only as their own frames.
    event: z
      .string()
      .min(1)
      .max(32)
      .refine((e) => !e.startsWith("$"), "a widget's event does not start with $")
      .default("change"),
    msg: z.record(z.string(), z.unknown()),
  }),
  /**
   * A ui-file-input's file, in chunks of at most DASHBOARD_LIMITS.uploadChunkChars base64
   * characters, in order from `seq` 0 (which names the file); each is answered with
   * `dashboard.upload`, the last (`last`) once the file went to the flow as a Buffer.
   */
  z.object({
    type: z.literal("dashboard.upload"),
    widget_id: z.string().min(1).max(64),
    upload_id: z.string().min(1).max(64),
    seq: z.number().int().min(0),
    file: z.object({ name: z.string().max(255), size: z.number().int().min(0), type: z.string().max(255) }).optional(),
    data: z.string().max(192 * 1024), // DASHBOARD_LIMITS.uploadChunkChars
    last: z.boolean(),
  }),
  /** Page views and navigation, for ui-event ("$pageview", "$pageleave"). */
  z.object({
    type: z.literal("dashboard.event"),
    event: z.enum(["$pageview", "$pageleave"]),
    page_id: z.string().max(64),
    /** The page URL's query (Dashboard 2.0's `$route.query`): ui-event's `msg.payload.query`. */
    query: z
      .record(z.string().max(100), z.string().max(1000))
      .refine((q) => Object.keys(q).length <= 50, "at most 50 query parameters")
      .optional(),
  }),
  /**
   * A group that can be collapsed was folded (`open: false`) or opened by this viewer (its button,
   * or a ui-control's open / close): the dashboard's ui-control nodes tell their flows.
   */
  z.object({
    type: z.literal("dashboard.group"),
    page_id: z.string().max(64),
    group_id: z.string().min(1).max(64),
    open: z.boolean(),
  }),
  z.object({ type: z.literal("ping") }),
]);
export type DashboardClientFrame = z.infer<typeof dashboardClientFrameSchema>;

/** Bounds of the dashboard socket and the state store. */
export const DASHBOARD_LIMITS = {
  /** Bytes of one client frame. */
  maxClientFrameBytes: 256 * 1024,
  /** Input frames a socket may send per second (burst). */
  inputsPerSecond: 50,
  /** Points a chart keeps when its node sets no smaller limit. */
  chartMaxPoints: 10_000,
  /** Rows a table keeps and shows (the newest). */
  tableMaxRows: 10_000,
  /** Base64 characters of one upload chunk (3 bytes per 4: 144 KiB of a file), within a client frame. */
  uploadChunkChars: 192 * 1024,
  /** Bytes of one widget's durable state. */
  maxStateBytes: 1024 * 1024,
} as const;

/** A share link of a page (admins publish, SPEC §21). */
export const dashboardShareLinkSchema = z.object({
  id: z.string(),
  page_id: z.string(),
  page_path: z.string(),
  interactive: z.boolean(),
  url: z.string(),
  created_at: z.string(),
  created_by: z.string().nullable(),
  revoked_at: z.string().nullable(),
});
export type DashboardShareLink = z.infer<typeof dashboardShareLinkSchema>;

/**
 * A widget's durable state as the server keeps it and sends it (`DashboardWidgetView.state`,
 * `dashboard.update`'s `state`); every key optional:
 * - `msg`: the last message the widget showed (Dashboard 2.0's datastore), `_msgid`/`_client` left out;
 * - `props`: dynamic properties set by messages (`enabled`, `visible`, `class`, and `ui_update`'s keys);
 * - `points`: a chart's points, oldest first, within its limits (`removeOlder*`, `chartMaxPoints`);
 * - `rows`: a table's rows (within `maxrows` when set).
 */
export interface DashboardWidgetState {
  msg?: Record<string, unknown>;
  props?: Record<string, unknown>;
  points?: DashboardChartPoint[];
  rows?: unknown[];
}

/** One chart point (Dashboard 2.0's `_datapoint`): its series (`msg.topic` by default), x (ms since the epoch on a time axis, or a category) and y. */
export interface DashboardChartPoint {
  category: string;
  x: number | string | null;
  y: unknown;
}

/** Creating a share link (admins): one page, view-only unless `interactive`. */
export const createDashboardShareLinkInput = z.object({
  page_id: z.string().min(1).max(64),
  interactive: z.boolean().default(false),
});

/** The answer to creating a share link: the token is shown once (only its hash is stored). */
export const createdDashboardShareLinkSchema = dashboardShareLinkSchema.extend({ token: z.string() });
