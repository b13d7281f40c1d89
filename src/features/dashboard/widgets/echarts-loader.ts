/**
 * ECharts, loaded on first use (a page without charts never downloads it) and tree-shaken to the
 * four chart types and the canvas renderer ui-chart needs. See src/server/dashboards/README.md "Dashboards"
 * for why ECharts.
 */
export type ECharts = import("echarts/core").EChartsType;
export type EChartsCore = typeof import("echarts/core");

let loading: Promise<EChartsCore> | null = null;

export function loadECharts(): Promise<EChartsCore> {
  loading ??= (async () => {
    const [core, charts, components, renderers] = await Promise.all([import("echarts/core"), import("echarts/charts"), import("echarts/components"), import("echarts/renderers")]);
    core.use([charts.LineChart, charts.BarChart, charts.ScatterChart, charts.PieChart, components.GridComponent, components.TooltipComponent, components.LegendComponent, components.TitleComponent, renderers.CanvasRenderer]);
    return core;
  })();
  return loading;
}
