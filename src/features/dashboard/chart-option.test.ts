import { describe, expect, it } from "vitest";
import type { ChartData } from "./chart-model";
import { chartOption, pointSymbol } from "./widgets/chart";

/** ui-chart's points as Dashboard 2.0's ECharts chart draws them (UIChart.vue, chartJsToECharts.js). */
describe("a line chart's points", () => {
  it("take Dashboard 2.0's shapes: rectangles, triangles, diamonds; none for false; a circle for any other", () => {
    expect(["circle", "rect", "rectangle", "triangle", "diamond", "false", "cross", "crossRot", "star", "line", "dash"].map(pointSymbol)).toEqual([
      "circle",
      "rect",
      "rect",
      "triangle",
      "diamond",
      "none",
      "circle",
      "circle",
      "circle",
      "circle",
      "circle",
    ]);
  });

  it("are the radius in size (4 without one), on line charts only", () => {
    const data: ChartData = { series: [{ name: "a", data: [[1, 2]] }], version: 1 };
    const series = (props: Record<string, unknown>) => (chartOption(props, data, "#000").series as Array<Record<string, unknown>>)[0]!;
    expect(series({ chartType: "line", pointShape: "cross", pointRadius: "" })).toMatchObject({ symbol: "circle", symbolSize: 4 });
    expect(series({ chartType: "line", pointShape: "triangle", pointRadius: 6 })).toMatchObject({ symbol: "triangle", symbolSize: 6 });
    expect(series({ chartType: "scatter", pointRadius: 6 })).not.toHaveProperty("symbolSize");
    expect(series({ chartType: "bar", pointRadius: 6 })).not.toHaveProperty("symbol");
  });
});
