"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import type { ChartData } from "../chart-model";
import { substitute } from "../format";
import { loadECharts, type ECharts } from "./echarts-loader";
import { bool, num, str, type WidgetProps } from "./widget";

const PALETTE = ["#1F77B4", "#AEC7E8", "#FF7F0E", "#2CA02C", "#98DF8A", "#D62728", "#FF9896", "#9467BD", "#C5B0D5"];

/**
 * A point shape (Dashboard 2.0 keeps Chart.js's names) as Dashboard 2.0's ECharts chart draws it
 * (`chartJsToECharts.symbol`): rectangles, triangles and diamonds; "false" none; any other shape
 * (cross, star, line, …) a circle.
 */
export function pointSymbol(shape: string): string {
  if (shape === "false") return "none";
  if (shape === "rect" || shape === "rectangle") return "rect";
  if (shape === "triangle" || shape === "diamond") return shape;
  return "circle";
}

/** ECharts options for the chart's type and data (Dashboard 2.0's ui-chart properties). */
export function chartOption(props: Record<string, unknown>, data: ChartData, textColor: string): Record<string, unknown> {
  const type = str(props, "chartType", "line");
  const colors = Array.isArray(props.colors) && props.colors.length > 0 ? (props.colors as string[]) : PALETTE;
  const legend = bool(props, "showLegend", true) && data.series.length > 1 ? { show: true, top: 0, textStyle: { color: textColor } } : { show: false };
  const total = data.series.reduce((n, s) => n + s.data.length, 0);
  const big = total > 2000;
  if (type === "pie" || type === "doughnut") {
    const slices = data.series.flatMap((s) => s.data.map(([x, y]) => ({ name: String(data.series.length > 1 ? `${s.name} ${x}` : x), value: y })));
    return {
      animation: false,
      color: colors,
      tooltip: { trigger: "item" },
      legend: { show: bool(props, "showLegend", true), top: 0, textStyle: { color: textColor } },
      series: [{ type: "pie", radius: type === "doughnut" ? ["40%", "70%"] : "70%", data: slices, label: { color: textColor } }],
    };
  }
  const xType = type === "bar" || str(props, "xAxisType") === "category" ? "category" : str(props, "xAxisType", "time") === "linear" ? "value" : "time";
  const ymin = props.ymin === "" || props.ymin === undefined ? undefined : num(props, "ymin", 0);
  const ymax = props.ymax === "" || props.ymax === undefined ? undefined : num(props, "ymax", 0);
  const categories = xType === "category" ? [...new Set(data.series.flatMap((s) => s.data.map((d) => String(d[0]))))] : undefined;
  const interpolation = str(props, "interpolation", "linear");
  return {
    // Live series move every update: animating each one keeps the canvas redrawing (bars animate).
    animation: type === "bar" && !big,
    color: colors,
    grid: { left: 48, right: 16, top: legend.show ? 32 : 16, bottom: 32, containLabel: false },
    tooltip: { trigger: type === "scatter" ? "item" : "axis" },
    legend,
    xAxis: { type: xType, name: str(props, "xAxisLabel") || undefined, data: categories, axisLabel: { color: textColor, hideOverlap: true }, splitLine: { show: false } },
    yAxis: { type: "value", min: ymin, max: ymax, name: str(props, "yAxisLabel") || undefined, axisLabel: { color: textColor } },
    series: data.series.map((s) => ({
      name: s.name,
      type: type === "bar" ? "bar" : type === "scatter" ? "scatter" : "line",
      data: xType === "category" ? categories!.map((c) => s.data.find((d) => String(d[0]) === c)?.[1] ?? null) : s.data,
      showSymbol: type === "scatter" || (!big && bool(props, "showPoints", total < 200)),
      // As Dashboard 2.0 (UIChart.vue): a line's points have its shape and the radius as their
      // size (4 without one); other types keep ECharts' own.
      ...(type === "line" ? { symbol: pointSymbol(str(props, "pointShape", "circle")), symbolSize: Number(props.pointRadius) || 4 } : {}),
      step: interpolation === "step" ? "end" : undefined,
      smooth: interpolation === "bezier" || interpolation === "cubic" || interpolation === "cubic-mono",
      sampling: type === "line" ? "lttb" : undefined,
      large: type === "scatter" && big,
      stack: bool(props, "stackSeries", false) ? "total" : undefined,
      areaStyle: type === "area" ? {} : undefined,
    })),
  };
}

/**
 * ui-chart on ECharts (canvas, lazy-loaded). Updates are drawn at most once an animation frame
 * with `setOption(…, { lazyUpdate })`, so 10 updates a second cost 10 draws and a 10,000-point
 * load one.
 */
export function ChartWidget({ widget, props, state }: WidgetProps) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<ECharts | null>(null);
  const [ready, setReady] = useState(false);
  const [failed, setFailed] = useState(false);
  const data = useMemo(() => state.chart ?? { series: [], version: 0 }, [state.chart]);

  useEffect(() => {
    let disposed = false;
    let observer: ResizeObserver | undefined;
    loadECharts().then(
      (echarts) => {
        if (disposed || !box.current) return;
        chart.current = echarts.init(box.current, undefined, { renderer: "canvas" });
        observer = new ResizeObserver(() => chart.current?.resize());
        observer.observe(box.current);
        setReady(true);
      },
      () => setFailed(true),
    );
    return () => {
      disposed = true;
      observer?.disconnect();
      chart.current?.dispose();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    if (!ready || !chart.current || !box.current) return;
    const textColor = getComputedStyle(box.current).color || "#444";
    const t0 = performance.now();
    chart.current.setOption(chartOption(props, data, textColor), { notMerge: false, replaceMerge: ["series", "xAxis"], lazyUpdate: true });
    box.current.dataset.points = String(data.series.reduce((n, s) => n + s.data.length, 0));
    box.current.dataset.version = String(data.version);
    box.current.dataset.setOptionMs = (performance.now() - t0).toFixed(1);
    // `data.version` moves on every change; the series arrays are mutated in place.
  }, [ready, props, data, data.version]);

  const label = substitute(str(props, "label"), state.msg);
  const points = data.series.reduce((n, s) => n + s.data.length, 0);
  return (
    <figure className="db-chart" aria-label={label || "Chart"}>
      {label ? <figcaption>{label}</figcaption> : null}
      <div ref={box} className="db-chart-canvas" data-chart-id={widget.id} role="img" aria-label={`${label || "Chart"}: ${data.series.length} series, ${points} points`} />
      {failed ? <p className="db-muted">The chart could not be loaded.</p> : null}
    </figure>
  );
}
