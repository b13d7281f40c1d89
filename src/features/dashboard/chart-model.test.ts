import { describe, expect, it } from "vitest";
import { applyChartMessage, chartPointsFromState, emptyChart } from "./chart-model";

const line = { chartType: "line", xAxisType: "time", category: "topic", categoryType: "msg" };

describe("ui-chart data (Dashboard 2.0's rules)", () => {
  it("a number becomes a point at now in the series named by msg.topic", () => {
    let d = applyChartMessage(emptyChart(), { payload: 3, topic: "a" }, line, 1000);
    d = applyChartMessage(d, { payload: "4.5", topic: "b" }, line, 2000);
    d = applyChartMessage(d, { payload: 5, topic: "a" }, line, 3000);
    expect(d.series.map((s) => [s.name, s.data])).toEqual([
      ["a", [[1000, 3], [3000, 5]]],
      ["b", [[2000, 4.5]]],
    ]);
  });

  it("an empty array clears; action replace replaces", () => {
    let d = applyChartMessage(emptyChart(), { payload: 1, topic: "a" }, line, 1);
    d = applyChartMessage(d, { payload: [] }, line, 2);
    expect(d.series).toEqual([]);
    d = applyChartMessage(d, { payload: 1, topic: "a" }, line, 3);
    d = applyChartMessage(d, { payload: [{ x: 10, y: 2 }, { x: 11, y: 3 }], topic: "b", action: "replace" }, line, 4);
    expect(d.series).toEqual([{ name: "b", data: [[10, 2], [11, 3]] }]);
  });

  it("points as objects use x/y or the node's xAxisProperty/yAxisProperty; bad values are skipped", () => {
    const d = applyChartMessage(emptyChart(), { payload: [{ t: "2026-01-01T00:00:00Z", v: 7 }, { t: 5, v: "nan" }] }, { ...line, xAxisProperty: "t", yAxisProperty: "v" }, 0);
    expect(d.series[0]!.data).toEqual([[Date.parse("2026-01-01T00:00:00Z"), 7]]);
  });

  it("bar and pie keep one value per category", () => {
    const bar = { chartType: "bar", category: "topic", categoryType: "msg" };
    let d = applyChartMessage(emptyChart(), { payload: 1, topic: "north" }, bar, 0);
    d = applyChartMessage(d, { payload: 2, topic: "south" }, bar, 0);
    d = applyChartMessage(d, { payload: 5, topic: "north" }, bar, 0);
    expect(d.series).toEqual([{ name: "Series 1", data: [["north", 5], ["south", 2]] }]);
  });

  it("removeOlderPoints per series, removeOlder by time, and the 10,000-point cap", () => {
    let d = emptyChart();
    for (let i = 0; i < 10; i++) d = applyChartMessage(d, { payload: i, topic: "a" }, { ...line, removeOlderPoints: 3 }, i);
    expect(d.series[0]!.data.map((p) => p[1])).toEqual([7, 8, 9]);
    let t = emptyChart();
    for (let i = 0; i < 10; i++) t = applyChartMessage(t, { payload: i }, { ...line, removeOlder: 5, removeOlderUnit: 1 }, i * 1000);
    expect(t.series[0]!.data.map((p) => p[1])).toEqual([4, 5, 6, 7, 8, 9]);
    const many = Array.from({ length: 12_000 }, (_, i) => ({ x: i, y: i }));
    const big = applyChartMessage(emptyChart(), { payload: many }, line, 0);
    expect(big.series[0]!.data.length).toBe(10_000);
    expect(big.series[0]!.data[0]).toEqual([2000, 2000]);
  });

  it("Dashboard 1's whole-chart format replaces the data", () => {
    const d = applyChartMessage(emptyChart(), { payload: [{ series: ["A", "B"], data: [[1, 2], [3, 4]], labels: ["x1", "x2"] }] }, { chartType: "bar" }, 0);
    expect(d.series).toEqual([
      { name: "A", data: [["x1", 1], ["x2", 2]] },
      { name: "B", data: [["x1", 3], ["x2", 4]] },
    ]);
  });

  it("reads the server's durable state: series, stored messages with _datapoint, bare points", () => {
    expect(chartPointsFromState({ series: [{ name: "a", data: [[1, 2]] }] }, line).series).toEqual([{ name: "a", data: [[1, 2]] }]);
    const stored = chartPointsFromState([{ payload: 2, topic: "t", _datapoint: { x: 5, y: 2, category: "t" } }, { x: 6, y: 3, series: "t" }], line, 10);
    expect(stored.series).toEqual([{ name: "t", data: [[5, 2], [6, 3]] }]);
    expect(chartPointsFromState(null, line).series).toEqual([]);
  });
});

describe("the server's chart state", () => {
  it("points { category, x, y } group by series in one pass; an empty category is Series 1", () => {
    const d = chartPointsFromState({ points: [{ category: "", x: 1, y: 2 }, { category: "b", x: 2, y: "3" }, { category: "", x: 3, y: 4 }] }, { chartType: "line" });
    expect(d.series).toEqual([
      { name: "Series 1", data: [[1, 2], [3, 4]] },
      { name: "b", data: [[2, 3]] },
    ]);
  });
});
