/**
 * The dashboard socket (SPEC §21): `DASHBOARD_SOCKET_PATH/{org-slug}?path=/p[&share=token]`.
 *
 * - Admission: the browser's next-auth cookie (from our own origin) of a member of that
 *   organization, any role, or a live share link's token for that page. No credentials: closed
 *   4401; anything else (not a member, no such page, another page's link): 4404, as a missing page.
 * - Sends `dashboard.page` (what is deployed, with each widget's durable state), then
 *   `dashboard.update` / `dashboard.control` for that page's widgets only (from the store's
 *   pub/sub, so from whichever instance runs the flow), and `dashboard.page` again when a deploy
 *   changes the page. Never debug, statuses or other flows' events.
 * - Accepts `dashboard.input` (zod-checked, refused for view-only links, 50 a second) and
 *   `dashboard.event` (page views for ui-event / ui-control) and `dashboard.group` (a group that
 *   can be collapsed folded or opened, for ui-control), published to the instance running
 *   the widget's flow with `_client`.
 * - A revoked share link closes its sockets (4410) within 2 s on every instance; a session that
 *   ended or a membership removed closes within the recheck period.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import type { AppServices } from "../app-services";
import { AppError, toAppError } from "../errors";
import { randomToken } from "../ids";
import { browserSessionId } from "../auth/browser-session";
import { durableSubscription, type DurableSubscription } from "../store/durable-subscription";
import { SESSION_REVOKED_CHANNEL } from "../auth/session-store";
import { ACCESS_CHANGED_CHANNEL } from "../auth/revocation-channels";
import type { AccessChangedMessage } from "../auth/access-cache";
import { orgEventsChannel } from "../../shared/realtime";
import { eventLines } from "../realtime/org-events";
import {
  DASHBOARD_CLOSE,
  DASHBOARD_LIMITS,
  DASHBOARD_SOCKET_PATH,
  dashboardClientFrameSchema,
  type DashboardClientFrame,
  type DashboardPageView,
  type DashboardServerFrame,
} from "../../shared/dashboard";
import type { DashboardClientRef } from "../runtime/types";
import type { DashboardOut } from "./bus";
import { isTabId, PrivateStates, privateKeyOf } from "./private-states";
import { dashboardUserOf, resolveDashboardViewer, shareLinkLive, viewerOptions, viewerPage, type DashboardViewer } from "../services/dashboards/dashboards";
import { buildPageView, findPageByPath, loadDashboardModel, widgetIdsOfPage, type DashboardConfigNode, type DashboardModel } from "../services/dashboards/model";

/** Topics of the organization's events after which a page may have changed. */
const PAGE_EVENTS = new Set(["flow.deployed", "flow.deleted", "flow.updated", "flow.state"]);
/** A viewer further behind than this is closed (4408): one slow reader never holds more memory. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** An upload with no chunk for this long is dropped (its page went quiet). */
const UPLOAD_STALL_MS = 30_000;
/** Bytes of files being received on this instance at once, all sockets together. */
const UPLOAD_BUDGET_BYTES = 64 * 1024 * 1024;

interface Viewer {
  id: string;
  /** What this socket's inputs carry as `msg._client`. */
  client: DashboardClientRef;
  ws: WebSocket;
  viewer: DashboardViewer;
  orgId: string;
  path: string;
  pageId: string;
  /** The page as ui-event's messages describe it (Dashboard 2.0's page object). */
  page: Record<string, unknown>;
  widgetIds: Set<string>;
  /** Ids of the page's ui-event and ui-control widgets (they get page events). */
  eventWidgets: string[];
  /** Ids of the page's ui-file-input widgets (they take uploads). */
  uploadWidgets: Set<string>;
  /** The page's groups that can be collapsed: id → Dashboard 1's name of it ("Page_Group", spaces as underscores). */
  collapsibleGroups: Map<string, string>;
  /** The upload under way (one at a time per socket): the file's bytes so far, in a buffer of its size. */
  upload?: { id: string; widgetId: string; file: { name: string; size: number; type: string }; bytes: Buffer; received: number; next: number; stall: NodeJS.Timeout };
  /** Bytes of files this socket may still send now (a bucket of DASHBOARD_MAX_FILE_BYTES, refilled as much a second). */
  uploadBytes: number;
  uploadRefilledAt: number;
  /** The page's layout as last sent, without states: a redeploy that changes it sends the page again. */
  layoutKey: string;
  /** The browser session behind a member's socket (rechecked). */
  sessionId?: string;
  /** A member's tab (its session and the tab id the browser sends): its own messages follow it from page to page. */
  privateKey?: string;
  tokens: number;
  refilledAt: number;
  /**
   * Frames of the organization's out channel that came while this socket's page was being built
   * (how many builds are under way, and the frames): sent after the page, which the browser applies
   * first. An update that came then may be in the states the page read, or newer: a shared one is
   * sent as a replay, whose state the browser takes instead of applying its message again (a
   * chart's point, a table's row would show twice); a message for this tab alone is applied.
   */
  building: number;
  held: string[];
  heldBytes: number;
}

export interface DashboardSocketOptions {
  /** How often each socket's credentials are checked again (session, membership, share link). */
  recheckMs?: number;
  /** How long a built model is reused by sockets opening meanwhile. */
  modelTtlMs?: number;
  /** How long an upload may go without a chunk before it is dropped (UPLOAD_STALL_MS). */
  uploadStallMs?: number;
}

export interface DashboardSocketServer {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Open dashboard sockets on this instance. */
  size(): number;
  close(): Promise<void>;
}

/** The organization slug of a dashboard socket path, or null when the path is not one. */
export function dashboardSlugOf(pathname: string): string | null {
  if (!pathname.startsWith(`${DASHBOARD_SOCKET_PATH}/`)) return null;
  const rest = pathname.slice(DASHBOARD_SOCKET_PATH.length + 1);
  if (!rest || rest.includes("/")) return null;
  try {
    return decodeURIComponent(rest);
  } catch {
    return null;
  }
}

const layoutKeyOf = (view: DashboardPageView) =>
  JSON.stringify({ ...view, groups: view.groups.map((g) => ({ ...g, widgets: g.widgets.map((w) => ({ ...w, state: null })) })), headless: view.headless.map((w) => ({ ...w, state: null })) });

export function createDashboardSocketServer(app: AppServices, options: DashboardSocketOptions = {}): DashboardSocketServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: DASHBOARD_LIMITS.maxClientFrameBytes });
  const viewers = new Set<Viewer>();
  const orgs = new Map<string, { viewers: Set<Viewer>; stopOut: () => void; events: DurableSubscription; rebuild: NodeJS.Timeout | null }>();
  const models = new Map<string, { at: number; model: Promise<DashboardModel> }>();
  const modelTtl = options.modelTtlMs ?? 1000;
  const log = app.logger;
  let closing = false;
  let uploadBytesInFlight = 0;
  const privateStates = new PrivateStates(app.store, (err) => log.warn({ err }, "a viewer's own widget state could not be kept or read"));
  /**
   * Sockets' tabs, by socket id: open ones, and closed ones for a minute (the message a click
   * caused may come after its page changed: it is the tab's, and reaches the tab's next page).
   */
  const tabsOfSockets = new Map<string, string>();

  const stopRevoked = app.dashboards.onShareRevoked((shareId) => {
    for (const v of viewers) if (v.viewer.share?.id === shareId) v.ws.close(DASHBOARD_CLOSE.shareRevoked, "share link revoked");
  });

  const recheck = setInterval(() => void recheckAll(), options.recheckMs ?? 30_000);
  recheck.unref();

  // As /ws: a revoked session's viewers close at once, on every instance, and a change of access
  // (a member removed, an account or organization deleted) checks its viewers again now, not at
  // the next 30-second pass.
  const watch = (channel: string, handler: (message: string) => void): DurableSubscription =>
    durableSubscription(app.store, channel, handler, { onRetry: (err, attempt) => log.warn({ err, channel, attempt }, "store subscription failed; retrying") });
  const sessionRevocations = watch(SESSION_REVOKED_CHANNEL, (message) => {
    let sessionId: unknown;
    try {
      sessionId = (JSON.parse(message) as { session_id?: unknown }).session_id;
    } catch {
      return;
    }
    for (const v of viewers) if (v.sessionId !== undefined && v.sessionId === sessionId) v.ws.close(DASHBOARD_CLOSE.unauthenticated, "session revoked");
  });
  const accessChanges = watch(ACCESS_CHANGED_CHANNEL, (message) => {
    let scope: Partial<AccessChangedMessage> = {};
    try {
      scope = JSON.parse(message) as AccessChangedMessage;
    } catch {
      // Unreadable: every signed-in viewer is checked.
    }
    // As the hub: the viewers of the organization or the user it names, everyone's when it names neither.
    const named = Boolean(scope.organization_id || scope.user_id);
    void recheckAll((v) => !v.viewer.share && (!named || (!!scope.organization_id && scope.organization_id === v.orgId) || (!!scope.user_id && scope.user_id === v.viewer.userId)));
  });

  function modelOf(org: DashboardViewer["organization"], fresh = false): Promise<DashboardModel> {
    const known = models.get(org.id);
    if (!fresh && known && Date.now() - known.at < modelTtl) return known.model;
    const model = loadDashboardModel(app, org);
    models.set(org.id, { at: Date.now(), model });
    model.catch(() => models.delete(org.id));
    return model;
  }

  function send(v: Viewer, frame: DashboardServerFrame) {
    if (v.ws.readyState !== v.ws.OPEN) return;
    if (v.ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      v.ws.close(DASHBOARD_CLOSE.tooSlow, "too far behind");
      return;
    }
    v.ws.send(JSON.stringify(frame));
  }

  function onOut(orgId: string, m: DashboardOut) {
    const set = orgs.get(orgId)?.viewers;
    if (!set) return;
    // One text for every viewer it goes to.
    let text: string | null = null;
    const tab = m.socket_id ? tabsOfSockets.get(m.socket_id) : undefined;
    if (tab && m.kind === "update" && m.own_state !== undefined) void privateStates.record(orgId, tab, m.widget_id, m.own_state, m.msg);
    for (const v of set) {
      if (!v.widgetIds.has(m.widget_id)) continue;
      if (m.socket_id && m.socket_id !== v.id && (tab === undefined || v.privateKey !== tab)) continue;
      if (v.ws.readyState !== v.ws.OPEN) continue;
      if (v.ws.bufferedAmount > MAX_BUFFERED_BYTES) {
        v.ws.close(DASHBOARD_CLOSE.tooSlow, "too far behind");
        continue;
      }
      text ??= JSON.stringify(
        m.kind === "control"
          ? ({ type: "dashboard.control", msg: { ...m.msg, widget_id: m.widget_id } } satisfies DashboardServerFrame)
          : ({ type: "dashboard.update", widget_id: m.widget_id, msg: m.msg, state: m.state ?? null } satisfies DashboardServerFrame),
      );
      if (v.building === 0) v.ws.send(text);
      else if ((v.heldBytes += text.length) > MAX_BUFFERED_BYTES) v.ws.close(DASHBOARD_CLOSE.tooSlow, "too far behind");
      else v.held.push(m.kind === "update" && !m.socket_id && m.state != null ? JSON.stringify({ type: "dashboard.update", widget_id: m.widget_id, msg: m.msg, state: m.state, replay: true } satisfies DashboardServerFrame) : text);
    }
  }

  function join(v: Viewer) {
    viewers.add(v);
    let org = orgs.get(v.orgId);
    if (!org) {
      const orgId = v.orgId;
      org = {
        viewers: new Set(),
        stopOut: app.dashboards.onOut(orgId, (m) => onOut(orgId, m)),
        events: durableSubscription(app.store, orgEventsChannel(orgId), (raw) => {
          for (const line of eventLines(raw)) {
            try {
              const topic = (JSON.parse(line) as { topic?: string }).topic;
              if (topic && PAGE_EVENTS.has(topic)) scheduleRebuild(orgId);
            } catch {
              // Not an event line.
            }
          }
        }),
        rebuild: null,
      };
      orgs.set(orgId, org);
    }
    org.viewers.add(v);
  }

  function leave(v: Viewer) {
    viewers.delete(v);
    const org = orgs.get(v.orgId);
    if (!org) return;
    org.viewers.delete(v);
    if (org.viewers.size === 0) {
      orgs.delete(v.orgId);
      org.stopOut();
      void org.events.stop();
      if (org.rebuild) clearTimeout(org.rebuild);
      models.delete(v.orgId);
    }
  }

  function scheduleRebuild(orgId: string) {
    const org = orgs.get(orgId);
    if (!org || org.rebuild) return;
    org.rebuild = setTimeout(() => {
      org.rebuild = null;
      void rebuild(orgId);
    }, 100);
  }

  /** After a deploy: every viewer of the organization whose page changed gets it again. */
  async function rebuild(orgId: string) {
    const org = orgs.get(orgId);
    const first = org?.viewers.values().next().value;
    if (!org || !first) return;
    let model: DashboardModel;
    try {
      model = await modelOf(first.viewer.organization, true);
    } catch (err) {
      log.warn({ err, organizationId: orgId }, "dashboard pages could not be rebuilt after a deploy");
      return;
    }
    for (const v of [...org.viewers]) {
      const page = findPageByPath(model, v.path);
      if (!page || (v.viewer.share && v.viewer.share.pageId !== page.id)) {
        v.ws.close(DASHBOARD_CLOSE.notFound, "page no longer deployed");
        continue;
      }
      await sendPage(v, model).catch((err: unknown) => log.warn({ err }, "dashboard page could not be sent"));
    }
  }

  /** Builds and sends the viewer's page; the out channel's frames that come meanwhile follow it. */
  async function sendPage(v: Viewer, model: DashboardModel, force = false) {
    v.building += 1;
    try {
      await buildAndSendPage(v, model, force);
    } finally {
      v.building -= 1;
      if (v.building === 0 && v.held.length > 0) {
        const held = v.held;
        v.held = [];
        v.heldBytes = 0;
        for (const text of held) if (v.ws.readyState === v.ws.OPEN) v.ws.send(text);
      }
    }
  }

  async function buildAndSendPage(v: Viewer, model: DashboardModel, force: boolean) {
    const page = viewerPage(model, v.viewer, v.path);
    const built = await buildPageView(app, model, page, viewerOptions(v.viewer));
    // The layout key holds no states: a rebuild that changes nothing here reads nothing more.
    const key = layoutKeyOf(built);
    if (!force && key === v.layoutKey) return;
    // This tab's own states (its messages that carried msg._client) over the shared ones.
    const own = v.privateKey ? await privateStates.read(v.orgId, v.privateKey) : new Map<string, unknown>();
    const mine = <W extends { id: string; state: unknown }>(w: W): W => (own.has(w.id) ? { ...w, state: own.get(w.id) } : w);
    const view = own.size === 0 ? built : { ...built, groups: built.groups.map((g) => ({ ...g, widgets: g.widgets.map(mine) })), headless: built.headless.map(mine) };
    v.layoutKey = key;
    v.pageId = page.id;
    v.page = eventPageOf(page);
    v.widgetIds = widgetIdsOfPage(model, page);
    v.eventWidgets = view.headless.filter((w) => w.type === "ui-event" || w.type === "ui-control").map((w) => w.id);
    v.uploadWidgets = new Set(view.groups.flatMap((g) => g.widgets.filter((w) => w.type === "ui-file-input").map((w) => w.id)));
    v.collapsibleGroups = new Map(view.groups.filter((g) => g.collapse).map((g) => [g.id, `${page.name} ${g.name}`.replace(/ /g, "_")]));
    if (v.upload && !v.uploadWidgets.has(v.upload.widgetId)) dropUpload(v);
    send(v, { type: "dashboard.page", socket_id: v.id, view: v.client.user ? { ...view, user: v.client.user } : view });
  }

  async function recheckAll(which: (v: Viewer) => boolean = () => true) {
    for (const v of [...viewers].filter(which)) {
      try {
        if (v.viewer.share) {
          if (!(await shareLinkLive(app, v.viewer.share.id))) v.ws.close(DASHBOARD_CLOSE.shareRevoked, "share link revoked");
        } else if (v.sessionId) {
          await resolveDashboardViewer(app, { slug: v.viewer.organization.slug, credentials: { browserSessionId: v.sessionId } });
        }
      } catch (err) {
        const e = toAppError(err);
        if (e.code === "UNAVAILABLE") continue;
        v.ws.close(e.code === "NOT_FOUND" ? DASHBOARD_CLOSE.notFound : DASHBOARD_CLOSE.unauthenticated, e.code);
      }
    }
  }

  function takeToken(v: Viewer): boolean {
    const now = Date.now();
    const rate = DASHBOARD_LIMITS.inputsPerSecond;
    v.tokens = Math.min(rate, v.tokens + ((now - v.refilledAt) / 1000) * rate);
    v.refilledAt = now;
    if (v.tokens < 1) return false;
    v.tokens -= 1;
    return true;
  }

  function onFrame(v: Viewer, data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) {
    if (isBinary) return send(v, { type: "dashboard.error", code: "VALIDATION_FAILED", message: "frames are JSON text" });
    let raw: unknown;
    try {
      raw = JSON.parse(Buffer.isBuffer(data) ? data.toString("utf8") : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString("utf8"));
    } catch {
      return send(v, { type: "dashboard.error", code: "INVALID_JSON", message: "a frame is one JSON object" });
    }
    const parsed = dashboardClientFrameSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return send(v, { type: "dashboard.error", code: "VALIDATION_FAILED", message: `${issue?.path.join(".") || "frame"}: ${issue?.message ?? "invalid"}` });
    }
    const frame = parsed.data;
    if (frame.type === "ping") return;
    const client = v.client;
    if (frame.type === "dashboard.input") {
      if (!viewerOptions(v.viewer).interactive) return send(v, { type: "dashboard.error", code: "FORBIDDEN", message: "this share link is view-only" });
      if (!v.widgetIds.has(frame.widget_id)) return send(v, { type: "dashboard.error", code: "NOT_FOUND", message: "no such widget on this page" });
      if (frame.event === "upload") return send(v, { type: "dashboard.error", code: "VALIDATION_FAILED", message: "files are sent as dashboard.upload" });
      if (!takeToken(v)) return send(v, { type: "dashboard.error", code: "RATE_LIMITED", message: `at most ${DASHBOARD_LIMITS.inputsPerSecond} inputs a second` });
      const msg = { ...frame.msg };
      delete msg._client;
      delete msg._msgid;
      void app.dashboards.publishInput(v.orgId, { widget_id: frame.widget_id, event: frame.event, msg, client });
      return;
    }
    if (frame.type === "dashboard.upload") return onUpload(v, frame, client);
    if (frame.type === "dashboard.group") {
      // Dashboard 1's collapse event: ui-control sends { payload: "group", group: "Page_Group", open }.
      if (frame.page_id !== v.pageId) return send(v, { type: "dashboard.error", code: "NOT_FOUND", message: "not the page of this socket" });
      const group = v.collapsibleGroups.get(frame.group_id);
      if (group === undefined) return send(v, { type: "dashboard.error", code: "NOT_FOUND", message: "no group of that id on this page can be collapsed" });
      if (!takeToken(v)) return;
      for (const id of v.eventWidgets) void app.dashboards.publishInput(v.orgId, { widget_id: id, event: "$group", msg: { topic: "$group", payload: { group, open: frame.open } }, client });
      return;
    }
    // dashboard.event: the page the viewer is on, for its dashboard's ui-event and ui-control nodes.
    if (frame.page_id !== v.pageId) return send(v, { type: "dashboard.error", code: "NOT_FOUND", message: "not the page of this socket" });
    if (!takeToken(v)) return;
    const payload = { page: v.page, query: frame.query ?? {} };
    for (const id of v.eventWidgets) void app.dashboards.publishInput(v.orgId, { widget_id: id, event: frame.event, msg: { topic: frame.event, payload }, client });
  }

  /**
   * A ui-file-input's file in chunks (`dashboard.upload`): one upload at a time per socket (a new
   * one replaces an unfinished one), at most DASHBOARD_MAX_FILE_BYTES, and as many bytes of files a
   * second per socket; every chunk but the last is full-sized, so a file's memory is one buffer of
   * its declared size, and all uploads under way on the instance share UPLOAD_BUDGET_BYTES. An
   * upload silent for UPLOAD_STALL_MS is dropped. Each chunk is answered; the whole file goes to the
   * widget's flow as one input (base64 on the bus, a Buffer in the flow) and is answered `done` once
   * published.
   */
  function onUpload(v: Viewer, frame: Extract<DashboardClientFrame, { type: "dashboard.upload" }>, client: DashboardClientRef) {
    const refuse = (code: string, message: string) => {
      if (v.upload?.id === frame.upload_id) dropUpload(v);
      send(v, { type: "dashboard.error", code, message, upload_id: frame.upload_id });
    };
    if (!viewerOptions(v.viewer).interactive) return refuse("FORBIDDEN", "this share link is view-only");
    if (!v.uploadWidgets.has(frame.widget_id)) return refuse("NOT_FOUND", "no file input of that id on this page");
    const max = app.config.env.DASHBOARD_MAX_FILE_BYTES;
    if (frame.seq === 0) {
      if (!frame.file) return refuse("VALIDATION_FAILED", "file: the first chunk names the file");
      if (frame.file.size > max) return refuse("PAYLOAD_TOO_LARGE", `the file is larger than ${max} bytes`);
      if (v.upload) dropUpload(v);
      const now = Date.now();
      v.uploadBytes = Math.min(max, v.uploadBytes + ((now - v.uploadRefilledAt) / 1000) * max);
      v.uploadRefilledAt = now;
      if (v.uploadBytes < frame.file.size) return refuse("RATE_LIMITED", `at most ${max} bytes of files a second; try again in a moment`);
      if (uploadBytesInFlight + frame.file.size > UPLOAD_BUDGET_BYTES) return refuse("UNAVAILABLE", "the server is taking many files at once; try again in a moment");
      if (!takeToken(v)) return refuse("RATE_LIMITED", `at most ${DASHBOARD_LIMITS.inputsPerSecond} inputs a second`);
      v.uploadBytes -= frame.file.size;
      uploadBytesInFlight += frame.file.size;
      v.upload = { id: frame.upload_id, widgetId: frame.widget_id, file: frame.file, bytes: Buffer.alloc(frame.file.size), received: 0, next: 0, stall: setTimeout(() => dropUpload(v), options.uploadStallMs ?? UPLOAD_STALL_MS) };
    }
    const up = v.upload;
    if (!up || up.id !== frame.upload_id || up.widgetId !== frame.widget_id || up.next !== frame.seq) return refuse("VALIDATION_FAILED", "seq: chunks come in order, from 0, one upload at a time");
    if (!frame.last && frame.data.length !== DASHBOARD_LIMITS.uploadChunkChars) return refuse("VALIDATION_FAILED", `data: every chunk but the last has ${DASHBOARD_LIMITS.uploadChunkChars} base64 characters`);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(frame.data) || frame.data.length % 4 !== 0) return refuse("VALIDATION_FAILED", "data: base64");
    const chunk = Buffer.from(frame.data, "base64");
    if (up.received + chunk.length > up.file.size) return refuse("VALIDATION_FAILED", "data: more bytes than the file's size");
    chunk.copy(up.bytes, up.received);
    up.received += chunk.length;
    up.next++;
    up.stall.refresh();
    if (!frame.last) return send(v, { type: "dashboard.upload", upload_id: up.id, received: up.received, done: false });
    dropUpload(v);
    if (up.received !== up.file.size) return refuse("VALIDATION_FAILED", "data: fewer bytes than the file's size");
    void app.dashboards.publishInput(v.orgId, { widget_id: up.widgetId, event: "upload", msg: { payload: up.bytes.toString("base64"), file: up.file }, client }).then((published) =>
      send(v, published ? { type: "dashboard.upload", upload_id: up.id, received: up.received, done: true } : { type: "dashboard.error", code: "UNAVAILABLE", message: "the file could not be handed to the flow; upload it again", upload_id: up.id }),
    );
  }

  /** Forgets the socket's upload under way (finished, refused, replaced, stalled or closed). */
  function dropUpload(v: Viewer) {
    const up = v.upload;
    if (!up) return;
    clearTimeout(up.stall);
    uploadBytesInFlight -= up.file.size;
    v.upload = undefined;
  }

  /**
   * The page in a ui-event's `msg.payload.page`, as Dashboard 2.0's UIEvent.vue sends it: the
   * ui-page's properties with its id, name and type (`_groups`, its user groups, empty).
   */
  function eventPageOf(page: DashboardConfigNode): Record<string, unknown> {
    const c = page.config;
    return { ...c, id: page.id, type: "ui-page", name: page.name, path: typeof c.path === "string" ? c.path : "/", _groups: [] };
  }

  async function admit(req: IncomingMessage, ws: WebSocket, slug: string, url: URL) {
    const path = url.searchParams.get("path") ?? "/";
    const share = url.searchParams.get("share") ?? undefined;
    const tab = url.searchParams.get("tab");
    const sessionId = share ? undefined : await browserSessionId(app, { cookie: req.headers.cookie ?? null, origin: req.headers.origin ?? null });
    if (!share && !sessionId) throw new AppError("UNAUTHENTICATED", "sign in to see this page");
    if (!path.startsWith("/") || path.length > 200) throw new AppError("NOT_FOUND", "page not found");
    const viewer = await resolveDashboardViewer(app, { slug, share, credentials: sessionId ? { browserSessionId: sessionId } : undefined });
    const [model, user] = await Promise.all([modelOf(viewer.organization), viewer.userId ? dashboardUserOf(app, viewer.userId) : undefined]);
    const page = viewerPage(model, viewer, path);
    const id = randomToken(12);
    const v: Viewer = {
      id,
      client: { socketId: id, ...(viewer.userId ? { user_id: viewer.userId } : {}), ...(viewer.share ? { share_id: viewer.share.id } : {}), ...(user ? { user } : {}) },
      ws,
      viewer,
      orgId: viewer.organization.id,
      path,
      pageId: page.id,
      page: eventPageOf(page),
      widgetIds: widgetIdsOfPage(model, page),
      eventWidgets: [],
      uploadWidgets: new Set(),
      collapsibleGroups: new Map(),
      uploadBytes: app.config.env.DASHBOARD_MAX_FILE_BYTES,
      uploadRefilledAt: Date.now(),
      layoutKey: "",
      ...(sessionId ? { sessionId } : {}),
      ...(sessionId && isTabId(tab) ? { privateKey: privateKeyOf(sessionId, tab) } : {}),
      tokens: DASHBOARD_LIMITS.inputsPerSecond,
      refilledAt: Date.now(),
      // Held from the join on: the first page is built after the subscription is ready.
      building: 1,
      held: [],
      heldBytes: 0,
    };
    if (ws.readyState !== ws.OPEN || closing) return;
    // Listen before reading the states, so no update falls between the page and the live frames.
    join(v);
    if (v.privateKey) tabsOfSockets.set(v.id, v.privateKey);
    ws.on("close", () => {
      dropUpload(v);
      leave(v);
      if (v.privateKey) setTimeout(() => tabsOfSockets.delete(v.id), 60_000).unref();
    });
    // A share link revoked between its check above and the join was announced to no socket of it yet
    // (the close above leaves, however this ends: revoked, the check failing, the client gone).
    if (v.viewer.share && !(await shareLinkLive(app, v.viewer.share.id))) {
      ws.close(DASHBOARD_CLOSE.shareRevoked, "share link revoked");
      return;
    }
    if (ws.readyState !== ws.OPEN) return;
    try {
      await app.dashboards.outReady(v.orgId);
      ws.on("message", (data, isBinary) => onFrame(v, data, isBinary));
    } finally {
      v.building -= 1;
    }
    await sendPage(v, model, true);
  }

  return {
    handleUpgrade(req, socket, head) {
      let url: URL;
      try {
        url = new URL(req.url ?? "/", "http://localhost");
      } catch {
        socket.destroy();
        return;
      }
      const slug = dashboardSlugOf(url.pathname);
      wss.handleUpgrade(req, socket, head, (ws) => {
        if (slug === null || closing) {
          ws.close(closing ? DASHBOARD_CLOSE.goingAway : DASHBOARD_CLOSE.notFound, closing ? "server shutting down" : "NOT_FOUND");
          return;
        }
        // Frames that arrive before admission are dropped (the browser waits for dashboard.page).
        admit(req, ws, slug, url).catch((err: unknown) => {
          const e = toAppError(err);
          if (e.code === "INTERNAL") log.error({ err }, "dashboard socket admission failed");
          const code =
            e.code === "UNAUTHENTICATED"
              ? DASHBOARD_CLOSE.unauthenticated
              : e.code === "UNAVAILABLE" || e.code === "RATE_LIMITED"
                ? DASHBOARD_CLOSE.tryAgainLater
                : e.status >= 500
                  ? DASHBOARD_CLOSE.internalError
                  : DASHBOARD_CLOSE.notFound;
          ws.close(code, e.status === 404 || e.status === 403 ? "NOT_FOUND" : e.code);
        });
      });
    },
    size: () => viewers.size,
    async close() {
      closing = true;
      clearInterval(recheck);
      stopRevoked();
      void sessionRevocations.stop();
      void accessChanges.stop();
      for (const v of [...viewers]) v.ws.close(DASHBOARD_CLOSE.goingAway, "server shutting down");
      for (const org of orgs.values()) {
        org.stopOut();
        void org.events.stop();
        if (org.rebuild) clearTimeout(org.rebuild);
      }
      orgs.clear();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
