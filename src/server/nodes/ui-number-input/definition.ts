import { z } from "zod";
import { defineNode } from "../types";
import { className, dashboardNodeRed, groupRef, height, label, order, passthru, tooltip, topic, topicType, width } from "../dashboard-support";

const shape = {
  group: groupRef,
  order,
  width: width(0),
  height: height(0),
  label: label("number"),
  tooltip,
  min: z.number().default(0).meta({ title: "Minimum" }),
  max: z.number().default(10).meta({ title: "Maximum" }),
  step: z.number().positive().default(1).meta({ title: "Step" }),
  delay: z.number().int().min(0).max(60_000).default(300).meta({ title: "Delay (ms)" }),
  passthru: passthru(true),
  sendOnDelay: z.boolean().default(false).meta({ title: "Send after a pause" }),
  sendOnBlur: z.boolean().default(true).meta({ title: "Send on leaving the field" }),
  sendOnEnter: z.boolean().default(true).meta({ title: "Send on Enter" }),
  className,
  clearable: z.boolean().default(false).meta({ title: "Clearable" }),
  icon: z.string().max(100).default("").meta({ title: "Icon" }),
  iconPosition: z.enum(["left", "right"]).default("left").meta({ title: "Icon position" }),
  iconInnerPosition: z.enum(["inside", "outside"]).default("inside").meta({ title: "Icon placement" }),
  // Dashboard 2.0's editor offers "default" (its label: inline) and "stacked"; "inline" and "hidden" are this app's earlier words, still read.
  spinner: z
    .enum(["default", "stacked", "inline", "hidden"])
    .default("default")
    .meta({ title: "Spinner", description: "The − and + buttons: side by side (default) or stacked up and down", enumLabels: { default: "Inline", stacked: "Stacked", inline: "Inline (earlier name)", hidden: "None" } }),
  // Not Dashboard 2.0's: Dashboard 1's ui_numeric showed its value in a format ("{{value}} °C"), kept as text around the field.
  prefix: z.string().max(100).default("").meta({ title: "Prefix", description: "Text before the field (Dashboard 1's value format)" }),
  suffix: z.string().max(100).default("").meta({ title: "Suffix", description: "Text after the field, such as a unit (Dashboard 1's value format)" }),
  topic,
  topicType,
};

export const uiNumberInputConfig = z.object(shape);

export const uiNumberInputNode = defineNode({
  type: "ui-number-input",
  version: 1,
  category: "dashboard",
  name: "Number input",
  description: "A number field on a dashboard page: the number a viewer enters is sent.",
  help: `A number field on a dashboard page, as Dashboard 2.0's \`ui-number-input\`: the number a viewer enters is sent as \`msg.payload\`.

### Inputs

- \`payload\` (number): sets the field's value (and is passed on with **Pass messages through**).
- \`ui_update\` (object): changes \`label\`, \`min\`, \`max\`, \`step\` … while the page is open; \`enabled\`, \`visible\` and \`class\` too.

### Outputs

- \`payload\` (number): the number, or null when the field was cleared.
- \`topic\`: the configured topic.
- \`_client\` (object): who entered it.

### Details

A value that is not a number is refused (nothing is sent). The value is kept: every viewer sees the last one.

The − and + buttons (the **Spinner**: side by side, or stacked up and down) change the value by one step within the minimum and maximum, as typing does: it is sent after the delay with **Send after a pause**, else on Enter or on leaving the field. The arrow keys do the same in the field.`,
  inputs: 1,
  outputs: 1,
  configSchema: uiNumberInputConfig,
  nodeRed: dashboardNodeRed("ui-number-input", shape),
});
