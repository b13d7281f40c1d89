import { z } from "zod";
import { defineNode } from "../types";
import { className, dashboardNodeRed, groupRef, height, order, SHOWN_VALUE_TYPES, checkShownValue, width } from "../dashboard-support";

/** What a tile gauge shows in a segment, as Dashboard 2.0's tile. */
export const SEGMENT_TEXT_TYPES = ["label", "value", "str", "env", "none"] as const;

const shape = {
  group: groupRef,
  order,
  width: width(3),
  height: height(3),
  value: z.string().max(1000).default("payload").meta({ title: "Value", description: "The message property shown" }),
  valueType: z.enum(SHOWN_VALUE_TYPES).default("msg").meta({ title: "Value type" }),
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
  // Not Dashboard 2.0's (it shows the value as it comes): Dashboard 1's `{{value | number:2}}`, kept when such a gauge is imported.
  decimals: z.number().int().min(0).max(10).nullable().default(null).meta({ title: "Decimals", description: "Digits after the point, with thousands separators (Dashboard 1's number filter); empty: the value as it comes" }),
  segments: z
    .array(
      z.object({
        from: z.number().meta({ title: "From" }),
        color: z.string().max(64).meta({ title: "Color", format: "color" }),
        text: z.string().max(1000).optional().meta({ title: "Text", description: "What a tile gauge shows in this segment, with Text type str (or the variable's name, with env)" }),
        textType: z.enum(SEGMENT_TEXT_TYPES).optional().meta({ title: "Text type", description: "label (default): the gauge's title; value: the value; str: the text; env: the variable the text names; none: nothing" }),
      }),
    )
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

export const uiGaugeConfig = z.object(shape).superRefine(checkShownValue);

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

**Segments** color the ranges (\`[{from, color}]\`); a \`from\` written as text (\`"800"\`, as Dashboard 2.0's editor saves it) is the number. A **tile** gauge is filled with the colour of the segment the value reached and shows that segment's text, as Dashboard 2.0's: by its \`textType\`, the gauge's title (\`label\`, the default), the value (\`value\`), its \`text\` (\`str\`), the variable its \`text\` names (\`env\`, read when the flow starts) or nothing (\`none\`); with **Always show the title** the title also sits in a corner. The last value is kept: every viewer sees it, after a restart too.

A Dashboard 1 gauge imports with its value format: \`{{value | number:2}} kWh\` becomes **Decimals** and the unit around the value, and a format that names another property (\`{{msg.payload.co2}}\`, \`{{payload.ch4 | number:1}}\`) becomes the **Value**, since Dashboard 1's needle followed that property. Dashboard 1 fell back to the payload for a message without that property; this gauge then shows no value.`,
  inputs: 1,
  outputs: 1,
  configSchema: uiGaugeConfig,
  nodeRed: dashboardNodeRed("ui-gauge", shape),
});
