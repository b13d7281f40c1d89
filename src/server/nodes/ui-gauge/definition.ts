import { z } from "zod";
import { defineNode } from "../types";
import { className, dashboardNodeRed, groupRef, height, order, width } from "../dashboard-support";

const shape = {
  group: groupRef,
  order,
  width: width(3),
  height: height(3),
  value: z.string().max(1000).default("payload").meta({ title: "Value", description: "The message property shown" }),
  valueType: z.enum(["msg", "str"]).default("msg").meta({ title: "Value type" }),
  gtype: z.enum(["gauge-half", "gauge-34", "gauge-tile", "gauge-battery", "gauge-tank"]).default("gauge-half").meta({ title: "Type" }),
  gstyle: z.enum(["needle", "rounded"]).default("needle").meta({ title: "Style" }),
  title: z.string().max(1000).default("gauge").meta({ title: "Title" }),
  alwaysShowTitle: z.boolean().default(false).meta({ title: "Always show the title" }),
  floatingTitlePosition: z
    .enum(["top-left", "top-right", "bottom-left", "bottom-right"])
    .default("top-left")
    .meta({ title: "Title position (tile)", description: "Where a tile gauge shows its title when it is always shown" }),
  units: z.string().max(100).default("units").meta({ title: "Units" }),
  icon: z.string().max(100).default("").meta({ title: "Icon" }),
  prefix: z.string().max(100).default("").meta({ title: "Prefix" }),
  suffix: z.string().max(100).default("").meta({ title: "Suffix" }),
  segments: z
    .array(z.object({ from: z.number().meta({ title: "From" }), color: z.string().max(64).meta({ title: "Color", format: "color" }) }))
    .max(50)
    .default([
      { from: 0, color: "#5cd65c" },
      { from: 4, color: "#ffc800" },
      { from: 7, color: "#ea5353" },
    ])
    .meta({ title: "Segments" }),
  min: z.number().default(0).meta({ title: "Minimum" }),
  max: z.number().default(10).meta({ title: "Maximum" }),
  sizeThickness: z.number().min(0).max(200).default(16).meta({ title: "Thickness" }),
  sizeGap: z.number().min(0).max(200).default(4).meta({ title: "Gap" }),
  sizeKeyThickness: z.number().min(0).max(200).default(8).meta({ title: "Key thickness" }),
  styleRounded: z.boolean().default(true).meta({ title: "Rounded" }),
  styleGlow: z.boolean().default(false).meta({ title: "Glow" }),
  className,
};

export const uiGaugeConfig = z.object(shape);

export const uiGaugeNode = defineNode({
  type: "ui-gauge",
  version: 1,
  category: "dashboard",
  name: "Gauge",
  description: "Shows a number on a gauge on a dashboard page.",
  help: `Shows a number on a gauge on a dashboard page, as Dashboard 2.0's \`ui-gauge\`: each message moves it.

### Inputs

- \`payload\` (number): the value shown.
- \`ui_update\` (object): changes \`title\`, \`min\`, \`max\`, \`segments\`, \`units\` … while the page is open; \`enabled\`, \`visible\` and \`class\` too.

### Outputs

The message, passed on.

### Details

**Segments** color the ranges (\`[{from, color}]\`). The last value is kept: every viewer sees it, after a restart too.`,
  inputs: 1,
  outputs: 1,
  configSchema: uiGaugeConfig,
  nodeRed: dashboardNodeRed("ui-gauge", shape),
});
