import { DASHBOARD_DYNAMIC_KEYS, type DashboardWidgetView } from "@/shared/dashboard";
import { tableRowsAfter } from "@/shared/dashboard-values";
import { applyChartMessage, chartPointsFromState, type ChartData } from "./chart-model";

/**
 * What the browser keeps per widget: the last message the widget node forwarded (Dashboard 2.0's
 * `messages[id]`), the dynamic properties set by `msg.ui_update` (and `msg.enabled`,
 * `msg.visible`, `msg.class`, Dashboard 2.0's data tracker), and a chart's points.
 */
export interface WidgetState {
  msg: Record<string, unknown> | null;
  props: Record<string, unknown>;
  chart?: ChartData;
  /** ui-audio: the last message that arrived, counted, for what it asks of the player (playback). */
  event?: { n: number; msg: Record<string, unknown> };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * The widget's state from the server's durable state (`DashboardWidgetView.state`). The server
 * keeps `{ msg, props }` (and `points` for a chart); a bare message or a bare array of points is
 * read too.
 */
export function initialWidgetState(widget: Pick<DashboardWidgetView, "type" | "props" | "state">): WidgetState {
  const s = widget.state;
  const out: WidgetState = { msg: null, props: {} };
  if (isRecord(s)) {
    if (isRecord(s.msg)) out.msg = s.msg;
    else if ("payload" in s) out.msg = { payload: s.payload, ...(s.topic !== undefined ? { topic: s.topic } : {}) };
    else if ("value" in s) out.msg = { payload: s.value };
    if (isRecord(s.props)) out.props = { ...s.props };
    if (isRecord(s.ui_update)) out.props = { ...out.props, ...s.ui_update };
    for (const key of ["enabled", "visible", "class"] as const) if (key in s && !(key in out.props)) out.props[key] = s[key];
    // A table's rows are kept apart from its last message (which may have added to them).
    if (Array.isArray(s.rows)) out.msg = { ...(out.msg ?? {}), payload: s.rows };
  }
  if (widget.type === "ui-chart") out.chart = chartPointsFromState(s, widget.props);
  return out;
}

/** Applies one `dashboard.update` message the way Dashboard 2.0's client does. */
export function applyWidgetMessage(widget: Pick<DashboardWidgetView, "type" | "props">, current: WidgetState, msg: Record<string, unknown>): WidgetState {
  let props = current.props;
  if (isRecord(msg.ui_update)) props = { ...props, ...msg.ui_update };
  for (const key of ["enabled", "visible", "class"] as const) {
    if (key in msg) props = props === current.props ? { ...props, [key]: msg[key] } : Object.assign(props, { [key]: msg[key] });
  }
  const hasPayload = "payload" in msg;
  if (widget.type === "ui-chart") {
    const chart = hasPayload ? applyChartMessage(current.chart ?? chartPointsFromState(null, widget.props), msg, { ...widget.props, ...props }) : current.chart;
    return { msg: hasPayload ? msg : current.msg, props, chart };
  }
  if (widget.type === "ui-table" && hasPayload) {
    // As Dashboard 2.0's table: a message's rows are added to those shown, or replace them (the
    // server says "replace" when it replaced).
    const shown = Array.isArray(current.msg?.payload) ? (current.msg.payload as unknown[]) : [];
    return { msg: { ...msg, payload: tableRowsAfter(shown, msg.payload, { msg: msg.action, node: props.action ?? widget.props.action }).rows }, props };
  }
  if (widget.type === "ui-audio") {
    // Dashboard 2.0's player: a string payload is the source; every message may ask for playback.
    const keep = typeof msg.payload === "string" || (hasPayload && widget.props.mode === "tts");
    return { msg: keep ? msg : current.msg, props, event: { n: (current.event?.n ?? 0) + 1, msg } };
  }
  if (widget.type === "ui-iframe") {
    // FlowFuse's ui-iframe shows the last message's src (its store binds every message): one
    // without src shows the node's URL again. Only a message of dynamic properties keeps it.
    const keep = Object.keys(msg).some((k) => k !== "_client" && !DASHBOARD_DYNAMIC_KEYS.has(k));
    return { msg: keep ? msg : current.msg, props };
  }
  // A message with only ui_update changes properties and keeps the shown value.
  return { msg: hasPayload ? msg : current.msg, props, ...(current.chart ? { chart: current.chart } : {}) };
}

/** The widget's properties with its dynamic ones on top. */
export function effectiveProps(widget: Pick<DashboardWidgetView, "props">, state: WidgetState): Record<string, unknown> {
  return Object.keys(state.props).length === 0 ? widget.props : { ...widget.props, ...state.props };
}
