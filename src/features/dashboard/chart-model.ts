import { DASHBOARD_LIMITS } from "@/shared/dashboard";
import { readPath } from "./format";

/**
 * ui-chart's data as Dashboard 2.0 keeps it: series (named by `msg.topic`, or the node's
 * `category`) of points. Line and scatter charts append; bar and pie charts keep one value per
 * category (x), as Dashboard 2.0's "clearOldCategoricalPoints". `payload: []` clears;
 * `action: "replace"` (message or node) replaces. Limits: `removeOlderPoints` per series,
 * `removeOlder` × `removeOlderUnit` seconds on a time axis, and DASHBOARD_LIMITS.chartMaxPoints.
 *
 * Pure and allocation-light: a live chart gets 10 points a second, and a page can load 10,000.
 */
export type ChartX = number | string;
export interface ChartSeries {
  name: string;
  /** [x, y] pairs (ECharts' data format, so drawing needs no copy). */
  data: [ChartX, number][];
}
export interface ChartData {
  series: ChartSeries[];
  /** Bumped on every change: the renderer redraws when it moves. */
  version: number;
}

interface Datapoint {
  x: ChartX;
  y: number;
  category: string;
}

function num(v: unknown): number | null {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  if (typeof v === "boolean") return v ? 1 : 0;
  return null;
}

function xValue(v: unknown, fallback: number): ChartX {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string") {
    const asNum = Number(v);
    if (v.trim() !== "" && Number.isFinite(asNum)) return asNum;
    const t = Date.parse(v);
    return Number.isNaN(t) ? v : t;
  }
  if (v instanceof Date) return v.getTime();
  return fallback;
}

function str(v: unknown, dflt: string): string {
  return typeof v === "string" && v !== "" ? v : dflt;
}

/** Which series a point belongs to (Dashboard 2.0's `category` / `categoryType`). */
function categoryOf(point: unknown, msg: Record<string, unknown>, props: Record<string, unknown>): string {
  const type = props.categoryType;
  const category = typeof props.category === "string" ? props.category : "topic";
  if (type === "none") return "Series 1";
  if (type === "str") return str(category, "Series 1");
  if (type === "property" && point && typeof point === "object") return str(String(readPath(point, category) ?? ""), "Series 1");
  const v = readPath(msg, category || "topic");
  return v === undefined || v === null || v === "" ? "Series 1" : String(v);
}

/** The datapoints one message carries. */
export function datapointsOf(msg: Record<string, unknown>, props: Record<string, unknown>, now: number): Datapoint[] {
  if (Array.isArray(msg._datapoint)) return msg._datapoint.flatMap((d) => fromServerDatapoint(d, now));
  if (msg._datapoint && typeof msg._datapoint === "object" && !Array.isArray(msg.payload)) return fromServerDatapoint(msg._datapoint, now);
  const payload = msg.payload;
  const xKey = typeof props.xAxisProperty === "string" && props.xAxisProperty ? props.xAxisProperty : "x";
  const yKey = typeof props.yAxisProperty === "string" && props.yAxisProperty ? props.yAxisProperty : "y";
  const categoryX = props.xAxisType === "category" || props.chartType === "bar" || props.chartType === "pie" || props.chartType === "doughnut";
  const one = (p: unknown): Datapoint[] => {
    const n = num(p);
    const category = categoryOf(p, msg, props);
    const ts = num(msg.timestamp) ?? now;
    if (n !== null) return [{ x: categoryX ? category : ts, y: n, category: categoryX ? (typeof props.categoryType === "string" && props.categoryType !== "msg" ? category : "Series 1") : category }];
    if (p && typeof p === "object") {
      const y = num(readPath(p, yKey));
      if (y === null) return [];
      const rawX = readPath(p, xKey);
      const x = categoryX ? (rawX === undefined ? category : String(rawX)) : xValue(rawX, ts);
      return [{ x, y, category: categoryX && rawX === undefined ? "Series 1" : category }];
    }
    return [];
  };
  return Array.isArray(payload) ? payload.flatMap(one) : one(payload);
}

function fromServerDatapoint(d: unknown, now: number): Datapoint[] {
  if (!d || typeof d !== "object") return [];
  const r = d as Record<string, unknown>;
  const y = num(r.y);
  if (y === null) return [];
  return [{ x: typeof r.x === "string" ? r.x : xValue(r.x, now), y, category: r.category === undefined || r.category === null || r.category === "" ? "Series 1" : String(r.category) }];
}

export function emptyChart(): ChartData {
  return { series: [], version: 0 };
}

function seriesFor(data: ChartData, name: string): ChartSeries {
  let s = data.series.find((x) => x.name === name);
  if (!s) {
    s = { name, data: [] };
    data.series.push(s);
  }
  return s;
}

function limits(props: Record<string, unknown>) {
  const perSeries = Math.max(0, Math.trunc(num(props.removeOlderPoints) ?? 0));
  const older = num(props.removeOlder) ?? 0;
  const unit = num(props.removeOlderUnit) ?? 1;
  const max = Math.max(1, Math.trunc(num(props.maxPoints) ?? DASHBOARD_LIMITS.chartMaxPoints));
  return { perSeries, ageMs: props.xAxisType === "time" || props.xAxisType === undefined ? older * unit * 1000 : 0, max };
}

function prune(data: ChartData, props: Record<string, unknown>, now: number) {
  const { perSeries, ageMs, max } = limits(props);
  for (const s of data.series) {
    if (perSeries > 0 && s.data.length > perSeries) s.data.splice(0, s.data.length - perSeries);
    if (ageMs > 0) {
      const cutoff = now - ageMs;
      let drop = 0;
      while (drop < s.data.length && typeof s.data[drop]![0] === "number" && (s.data[drop]![0] as number) < cutoff) drop++;
      if (drop > 0) s.data.splice(0, drop);
    }
  }
  let total = data.series.reduce((n, s) => n + s.data.length, 0);
  // Over the chart's limit: drop the oldest points of the longest series first.
  while (total > max) {
    const longest = data.series.reduce((a, b) => (b.data.length > a.data.length ? b : a));
    const cut = Math.min(longest.data.length, total - max);
    longest.data.splice(0, cut);
    total -= cut;
  }
}

/** Appends the message's points (a new ChartData object; series arrays are reused for speed). */
export function applyChartMessage(current: ChartData, msg: Record<string, unknown>, props: Record<string, unknown>, now = Date.now()): ChartData {
  const payload = msg.payload;
  if (Array.isArray(payload) && payload.length === 0) return { series: [], version: current.version + 1 };
  // Dashboard 1's whole-chart format: [{ series: [...], data: [[...]], labels: [...] }].
  if (Array.isArray(payload) && payload.length === 1 && isD1Chart(payload[0])) return { series: fromD1(payload[0]), version: current.version + 1 };
  const replace = msg.action === "replace" || (props.action === "replace" && msg.action !== "append");
  const data: ChartData = { series: replace ? [] : current.series.slice(), version: current.version + 1 };
  const categorical = props.chartType === "bar" || props.chartType === "pie" || props.chartType === "doughnut" || props.xAxisType === "category";
  for (const p of datapointsOf(msg, props, now)) {
    const s = seriesFor(data, p.category);
    if (categorical) {
      const at = s.data.findIndex((d) => d[0] === p.x);
      if (at >= 0) {
        s.data[at] = [p.x, p.y];
        continue;
      }
    }
    s.data.push([p.x, p.y]);
  }
  prune(data, props, now);
  return data;
}

function isD1Chart(v: unknown): v is { series?: unknown[]; data: unknown[][]; labels?: unknown[] } {
  return !!v && typeof v === "object" && Array.isArray((v as { data?: unknown }).data);
}

function fromD1(v: { series?: unknown[]; data: unknown[][]; labels?: unknown[] }): ChartSeries[] {
  return v.data.map((row, i) => ({
    name: String(v.series?.[i] ?? `Series ${i + 1}`),
    data: (Array.isArray(row) ? row : []).flatMap((pt, j): [ChartX, number][] => {
      const n = num(pt);
      if (n !== null) return [[String(v.labels?.[j] ?? j), n]];
      if (pt && typeof pt === "object") {
        const y = num((pt as Record<string, unknown>).y);
        return y === null ? [] : [[xValue((pt as Record<string, unknown>).x, j), y]];
      }
      return [];
    }),
  }));
}

/**
 * A chart's points from the durable state the server keeps: `{ points: [...] }`, `{ series: [...] }`,
 * or an array of messages / points (Dashboard 2.0 replays its stored messages on load).
 */
export function chartPointsFromState(state: unknown, props: Record<string, unknown>, now = Date.now()): ChartData {
  if (state && typeof state === "object" && !Array.isArray(state)) {
    const s = state as Record<string, unknown>;
    if (Array.isArray(s.series)) {
      const series = s.series.flatMap((x): ChartSeries[] => {
        if (!x || typeof x !== "object") return [];
        const r = x as Record<string, unknown>;
        return Array.isArray(r.data) ? [{ name: String(r.name ?? "Series 1"), data: r.data.filter((d): d is [ChartX, number] => Array.isArray(d) && d.length >= 2 && typeof d[1] === "number") }] : [];
      });
      return { series, version: 1 };
    }
    if (Array.isArray(s.points)) return chartPointsFromState(s.points, props, now);
    if (Array.isArray(s.messages)) return chartPointsFromState(s.messages, props, now);
    return emptyChart();
  }
  if (!Array.isArray(state)) return emptyChart();
  // The server's points ({ category, x, y }, already within the chart's limits): grouped in one pass.
  if (state.every((p) => p && typeof p === "object" && "category" in p && !("payload" in p))) {
    const data = emptyChart();
    const categorical = props.chartType === "bar" || props.chartType === "pie" || props.chartType === "doughnut" || props.xAxisType === "category";
    for (const p of state as Record<string, unknown>[]) {
      for (const d of fromServerDatapoint(p, now)) seriesFor(data, d.category).data.push([categorical ? String(d.x) : d.x, d.y]);
    }
    data.version = 1;
    return data;
  }
  let data = emptyChart();
  const stored: Record<string, unknown>[] = [];
  for (const item of state) {
    if (!item || typeof item !== "object") continue;
    const r = item as Record<string, unknown>;
    // A stored message ({ payload, topic, _datapoint }) or a bare point ({ x, y, category|series|topic }).
    if ("payload" in r || "_datapoint" in r) stored.push(r);
    else stored.push({ payload: { x: r.x, y: r.y }, topic: r.category ?? r.series ?? r.topic, _datapoint: r.y !== undefined ? { x: r.x, y: r.y, category: r.category ?? r.series ?? r.topic } : undefined });
  }
  for (const m of stored) data = applyChartMessage(data, m.action === "replace" ? { ...m, action: "append" } : m, { ...props, action: "append" }, now);
  return data;
}
