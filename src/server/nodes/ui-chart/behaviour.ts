import { uiChartNode } from "./definition";
import { defineBehaviour } from "../types";
import { viewOf, widgetBehaviour } from "../dashboard-support";
import { getProperty } from "../../runtime/properties";
import { DASHBOARD_LIMITS, type DashboardChartPoint, type DashboardWidgetState } from "../../../shared/dashboard";
import type { Message } from "../../runtime/types";
import { z } from "zod";

type ChartConfig = z.infer<typeof import("./definition").uiChartConfig>;

const prop = (value: unknown, path: string): unknown => {
  if (!path) return value;
  let v = value;
  for (const p of path.split(".")) {
    if (v === null || v === undefined || typeof v !== "object") return undefined;
    v = (v as Record<string, unknown>)[p];
  }
  return v;
};
const msgProp = (msg: Message, path: string) => getProperty(msg, path.startsWith("msg.") ? path.slice(4) : path);

/** Dashboard 2.0's beforeSend for ui-chart: the points a message makes (addToChart). */
export function pointsOf(c: ChartConfig, msg: Message, now: number): DashboardChartPoint[] {
  const p = msg.payload;
  const seriesOf = (point: unknown): unknown => {
    if (c.categoryType === "none") return undefined;
    if (c.categoryType === "property") return typeof c.category === "string" ? prop(point, c.category) : undefined;
    if (c.categoryType === "str") return c.category;
    if (c.categoryType === "json") return c.category;
    return typeof c.category === "string" ? msgProp(msg, c.category) : undefined;
  };
  const one = (point: unknown, series: unknown): DashboardChartPoint => {
    const category = series === undefined || series === null ? "" : String(series);
    if (typeof point === "number" || typeof point === "string") {
      const x = c.xAxisPropertyType === "msg" ? msgProp(msg, c.xAxisProperty) : c.xAxisPropertyType === "str" ? c.xAxisProperty : now;
      return { category, x: (x ?? now) as number | string, y: point };
    }
    let x: unknown = now;
    if (c.xAxisPropertyType !== "timestamp" && c.xAxisProperty !== "") x = c.xAxisPropertyType === "property" ? prop(point, c.xAxisProperty) : c.xAxisPropertyType === "msg" ? msgProp(msg, c.xAxisProperty) : c.xAxisProperty;
    else if (point && typeof point === "object" && "x" in point) x = (point as { x: unknown }).x;
    let y: unknown;
    if (c.categoryType === "json" && typeof series === "string") y = prop(point, series);
    else if (c.yAxisPropertyType === "property") y = prop(point, c.yAxisProperty);
    else if (point && typeof point === "object" && "y" in point && c.yAxisProperty === "payload") y = (point as { y: unknown }).y;
    else y = msgProp(msg, c.yAxisProperty);
    return { category, x: typeof x === "number" || typeof x === "string" ? x : x === undefined || x === null ? null : String(x), y: y ?? null };
  };
  if (Array.isArray(p)) return p.map((point) => one(point, seriesOf(point)));
  if (c.categoryType === "json" && Array.isArray(c.category)) return c.category.filter((s) => prop(p, s) !== undefined).map((s) => one(p, s));
  return [one(p, seriesOf(p))];
}

/**
 * Dashboard 1's whole-chart data, `[{ series: [names], data: [[points of each series]], labels }]`
 * (a function restoring a chart's history writes it): the points it holds, which replace the chart's,
 * as the page draws them (features/dashboard/chart-model.ts, fromD1). Null for anything else.
 */
export function dashboard1Points(payload: unknown): DashboardChartPoint[] | null {
  if (!Array.isArray(payload) || payload.length !== 1) return null;
  const d = payload[0] as { series?: unknown; data?: unknown; labels?: unknown } | null;
  if (!d || typeof d !== "object" || !Array.isArray(d.data)) return null;
  const series = Array.isArray(d.series) ? d.series : [];
  const labels = Array.isArray(d.labels) ? d.labels : [];
  const x = (v: unknown): DashboardChartPoint["x"] => (typeof v === "number" || typeof v === "string" ? v : v === undefined || v === null ? null : String(v));
  return (d.data as unknown[]).flatMap((row, i) => {
    // The page names an unnamed series "Series n"; its category here is that name too, so a reload draws the same.
    const category = series[i] === undefined || series[i] === null ? `Series ${i + 1}` : String(series[i]);
    return (Array.isArray(row) ? row : []).map((pt, j): DashboardChartPoint => {
      if (pt && typeof pt === "object" && !Array.isArray(pt)) return { category, x: x((pt as { x?: unknown }).x), y: (pt as { y?: unknown }).y ?? null };
      return { category, x: labels[j] === undefined ? String(j) : String(labels[j]), y: (pt as DashboardChartPoint["y"]) ?? null };
    });
  });
}

const timeOf = (x: DashboardChartPoint["x"]) => (typeof x === "number" ? x : typeof x === "string" ? new Date(x).getTime() : NaN);

/** Dashboard 2.0's limits: points per series, age on a time axis, one point per category; then ours (10,000). */
export function limitPoints(c: ChartConfig, points: DashboardChartPoint[], now: number): DashboardChartPoint[] {
  let out = points;
  const perSeries = typeof c.removeOlderPoints === "number" ? Math.floor(c.removeOlderPoints) : 0;
  if (perSeries > 0) {
    const counts = new Map<string, number>();
    const keep: boolean[] = [];
    for (let i = out.length - 1; i >= 0; i--) {
      const n = counts.get(out[i]!.category) ?? 0;
      keep[i] = n < perSeries;
      counts.set(out[i]!.category, n + 1);
    }
    out = out.filter((_, i) => keep[i]);
  }
  if (c.xAxisType === "time" && c.removeOlder > 0) {
    const cutOff = now - c.removeOlder * Number(c.removeOlderUnit) * 1000;
    out = out.filter((p) => !(timeOf(p.x) <= cutOff));
  } else if (c.xAxisType === "category" && c.chartType !== "histogram") {
    const latest = new Map<string, DashboardChartPoint>();
    for (const p of out) {
      const key = JSON.stringify([p.category, p.x]);
      latest.delete(key);
      latest.set(key, p);
    }
    out = [...latest.values()];
  }
  if (out.length > DASHBOARD_LIMITS.chartMaxPoints) out = out.slice(out.length - DASHBOARD_LIMITS.chartMaxPoints);
  return out;
}

export const uiChartBehaviour = defineBehaviour(uiChartNode, (ctx, c) =>
  widgetBehaviour(ctx, c, {
    onMessage(msg, state): { state: DashboardWidgetState; show: Record<string, unknown> | null } {
      // A message with no payload only changes options (ui_update): the points stay.
      if (msg.payload === undefined) return { state, show: viewOf(msg) };
      const now = Date.now();
      if (Array.isArray(msg.payload) && msg.payload.length === 0) return { state: { ...state, points: [] }, show: viewOf({ ...msg, payload: [] }) };
      const whole = dashboard1Points(msg.payload);
      if (whole) {
        // Dashboard 1's whole-chart data replaces what the chart held (kept so, for a reload and later viewers).
        // Shown as given (the page prunes nothing of it either), within our bound of points.
        return { state: { ...state, points: whole.length > DASHBOARD_LIMITS.chartMaxPoints ? whole.slice(-DASHBOARD_LIMITS.chartMaxPoints) : whole }, show: viewOf(msg) };
      }
      const replace = msg.action === "replace" || (c.action === "replace" && msg.action !== "append");
      const added = pointsOf(c, msg, now);
      const points = limitPoints(c, [...(replace ? [] : (state.points ?? [])), ...added], now);
      return { state: { ...state, points }, show: viewOf({ ...msg, _datapoint: added, ...(replace ? { action: "replace" } : {}) }) };
    },
  }),
);
