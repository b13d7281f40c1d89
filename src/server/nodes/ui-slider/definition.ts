import { z } from "zod";
import { defineNode } from "../types";
import { className, dashboardNodeRed, groupRef, height, label, order, passthru, tooltip, topic, topicType, width } from "../dashboard-support";

const shape = {
  group: groupRef,
  order,
  width: width(0),
  height: height(0),
  label: label("slider"),
  tooltip,
  passthru: passthru(false),
  outs: z.enum(["all", "end"]).default("all").meta({ title: "Send", description: "all: while sliding; end: when released" }),
  thumbLabel: z.union([z.boolean(), z.literal("always")]).default(true).meta({ title: "Show the value on the thumb" }),
  showTicks: z.union([z.boolean(), z.enum(["always", "true", "false"])]).default("always").meta({ title: "Show ticks" }),
  min: z.number().default(0).meta({ title: "Minimum" }),
  max: z.number().default(10).meta({ title: "Maximum" }),
  step: z.number().positive().default(1).meta({ title: "Step" }),
  className,
  iconPrepend: z.string().max(100).default("").meta({ title: "Icon before" }),
  iconAppend: z.string().max(100).default("").meta({ title: "Icon after" }),
  color: z.string().max(64).default("").meta({ title: "Color" }),
  colorTrack: z.string().max(64).default("").meta({ title: "Track color" }),
  colorThumb: z.string().max(64).default("").meta({ title: "Thumb color" }),
  showTextField: z.boolean().default(false).meta({ title: "Show a number field" }),
  topic,
  topicType,
};

export const uiSliderConfig = z.object(shape);

export const uiSliderNode = defineNode({
  type: "ui-slider",
  version: 1,
  category: "dashboard",
  name: "Slider",
  description: "A slider on a dashboard page: the value a viewer picks is sent.",
  help: `A slider on a dashboard page, as Dashboard 2.0's \`ui-slider\`: the number a viewer picks is sent as \`msg.payload\`, when released or continuously as configured.

### Inputs

- \`payload\` (number): moves the slider (passed on with **Pass messages through**).
- \`ui_update\` (object): changes \`label\`, \`min\`, \`max\`, \`step\`, colors while the page is open; \`enabled\`, \`visible\` and \`class\` too.

### Outputs

- \`payload\` (number): the value, within minimum and maximum.
- \`topic\`: the configured topic.
- \`_client\` (object): who moved it.

### Details

The position is kept: every viewer sees it, after a restart too.`,
  inputs: 1,
  outputs: 1,
  configSchema: uiSliderConfig,
  nodeRed: dashboardNodeRed("ui-slider", shape),
});
