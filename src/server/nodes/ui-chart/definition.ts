import { z } from "zod";
import { defineNode, type NodeRedProps } from "../types";
import { className, dashboardNodeRed, fromDashboardProps, groupRef, height, label, order, width } from "../dashboard-support";

const optionalNumber = (title: string) => z.union([z.number(), z.literal("")]).default("").meta({ title });

const shape = {
  group: groupRef,
  order,
  width: width(0),
  height: height(0),
  label: label("chart"),
  chartType: z.enum(["line", "bar", "scatter", "pie", "doughnut", "histogram"]).default("line").meta({ title: "Type" }),
  category: z.union([z.string().max(1000), z.array(z.string().max(200)).max(50)]).default("topic").meta({ title: "Series", description: "Where each point's series comes from (msg.topic by default)" }),
  categoryType: z.enum(["msg", "str", "property", "json", "none"]).default("msg").meta({ title: "Series type", description: "none: one series, without a legend" }),
  xAxisLabel: z.string().max(200).default("").meta({ title: "X axis label" }),
  xAxisProperty: z.string().max(1000).default("").meta({ title: "X", description: "The x of each point (empty: the time it arrived)" }),
  xAxisPropertyType: z.enum(["timestamp", "msg", "property", "str"]).default("timestamp").meta({ title: "X type" }),
  xAxisType: z.enum(["time", "linear", "category", "radial", "bins"]).default("time").meta({ title: "X axis" }),
  xAxisFormat: z.string().max(100).default("").meta({ title: "X axis format" }),
  xAxisFormatType: z.string().max(32).default("auto").meta({ title: "X axis format type" }),
  xmin: optionalNumber("X minimum"),
  xmax: optionalNumber("X maximum"),
  yAxisLabel: z.string().max(200).default("").meta({ title: "Y axis label" }),
  yAxisProperty: z.string().max(1000).default("payload").meta({ title: "Y", description: "The y of each point" }),
  yAxisPropertyType: z.enum(["msg", "property"]).default("msg").meta({ title: "Y type" }),
  ymin: optionalNumber("Y minimum"),
  ymax: optionalNumber("Y maximum"),
  bins: z.number().int().min(1).max(1000).default(10).meta({ title: "Bins" }),
  action: z.enum(["append", "replace"]).default("append").meta({ title: "Action", description: "append: add the points; replace: each message's points replace the chart's" }),
  stackSeries: z.boolean().default(false).meta({ title: "Stack series" }),
  pointShape: z.string().max(32).default("circle").meta({ title: "Point shape" }),
  pointRadius: z.number().min(0).max(100).default(4).meta({ title: "Point radius" }),
  showLegend: z.boolean().default(true).meta({ title: "Show the legend" }),
  removeOlder: z.number().min(0).default(1).meta({ title: "Keep points for", description: "With a time axis: how many units back points are kept (0: no limit)" }),
  removeOlderUnit: z.enum(["1", "60", "3600", "86400", "604800"]).default("3600").meta({ title: "Unit (seconds)" }),
  removeOlderPoints: optionalNumber("Points kept per series"),
  colors: z.array(z.string().max(64)).max(50).default(["#0095FF", "#FF0000", "#FF7F0E", "#2CA02C", "#A347E1", "#D62728", "#FF9896", "#9467BD", "#C5B0D5"]).meta({ title: "Colors" }),
  textColor: z.array(z.string().max(64)).max(4).default(["#666666"]).meta({ title: "Text color" }),
  textColorDefault: z.boolean().default(true).meta({ title: "Default text color" }),
  gridColor: z.array(z.string().max(64)).max(4).default(["#e5e5e5"]).meta({ title: "Grid color" }),
  gridColorDefault: z.boolean().default(true).meta({ title: "Default grid color" }),
  interpolation: z.enum(["linear", "step", "bezier", "cubic", "cubic-mono"]).default("linear").meta({ title: "Line" }),
  className,
};

export const uiChartConfig = z.object(shape);

export const uiChartNode = defineNode({
  type: "ui-chart",
  version: 1,
  category: "dashboard",
  name: "Chart",
  description: "A line, bar, scatter or pie chart on a dashboard page; its points survive restarts.",
  help: `A chart on a dashboard page, as Dashboard 2.0's \`ui-chart\`: line, bar, scatter, pie, doughnut or histogram. Each message adds a point (or several) to a series.

### Inputs

- \`payload\` (number): a point: y is the number, x the time it arrived (or the configured X), its series \`msg.topic\`.
- \`payload\` (object): a point with \`x\` and \`y\` (or the configured properties); an array: several points at once.
- \`payload\` \`[]\`: clears the chart.
- \`payload\` \`[{ series, data, labels }]\` (Dashboard 1's whole-chart data: the series' names, each series' points, the x labels of plain numbers): replaces everything the chart holds, as in Dashboard 1; kept so for a reload and for viewers who open the page later.
- \`action\` (string): \`replace\` or \`append\`, for this message only.
- \`ui_update.chartOptions\` (object): changes the chart's options while the page is open.

### Outputs

The message, passed on.

### Details

- Points are kept within the chart's limits: **Points kept per series** (the newest), and with a time axis **Keep points for** (older ones dropped); at most 10,000 in all. They survive a restart, a redeploy and a failover: a viewer opening the page sees them.
- On a category axis (bars of a category), each series keeps one point per category: the newest.
- A message carrying \`msg._client\` is drawn for that viewer only and not kept.`,
  inputs: 1,
  outputs: 1,
  configSchema: uiChartConfig,
  nodeRed: {
    ...dashboardNodeRed("ui-chart", shape),
    // Dashboard 2.0's sane defaults (ui_chart.js, ui_chart.html): a chart saved before the y type
    // existed reads y as a key of each point; "msg" with no property is a key too; an x type it
    // does not know is the time the point arrived.
    fromNodeRed: (p: NodeRedProps, refused?: string[]) => {
      const props = { ...p };
      if (!["msg", "property"].includes(String(props.yAxisPropertyType ?? ""))) props.yAxisPropertyType = "property";
      if (!["msg", "str", "property", "timestamp"].includes(String(props.xAxisPropertyType ?? ""))) props.xAxisPropertyType = "timestamp";
      if (props.xAxisPropertyType === "msg" && !props.xAxisProperty) props.xAxisPropertyType = "property";
      if (props.yAxisPropertyType === "msg" && !props.yAxisProperty) props.yAxisPropertyType = "property";
      return fromDashboardProps(shape, props, refused);
    },
  },
});
