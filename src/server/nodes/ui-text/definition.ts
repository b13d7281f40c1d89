import { z } from "zod";
import { defineNode } from "../types";
import { className, dashboardNodeRed, groupRef, height, label, order, SHOWN_VALUE_TYPES, checkShownValue, width } from "../dashboard-support";

const shape = {
  group: groupRef,
  order,
  width: width(0),
  height: height(0),
  label: label("text"),
  format: z.string().max(65_536).default("{{msg.payload}}").meta({ title: "Value format", description: "How the value is shown; {{msg.payload}} is the value" }),
  layout: z.enum(["row-left", "row-center", "row-right", "row-spread", "col-center"]).default("row-spread").meta({ title: "Layout" }),
  style: z.boolean().default(false).meta({ title: "Own style" }),
  font: z.string().max(100).default("Helvetica").meta({ title: "Font" }),
  fontSize: z.number().min(1).max(500).default(16).meta({ title: "Font size" }),
  color: z.string().max(64).default("#717171").meta({ title: "Text color" }),
  wrapText: z.boolean().default(false).meta({ title: "Wrap text" }),
  className,
  value: z.string().max(1000).default("payload").meta({ title: "Value", description: "The message property shown" }),
  valueType: z.enum(SHOWN_VALUE_TYPES).default("msg").meta({ title: "Value type" }),
};

export const uiTextConfig = z.object(shape).superRefine(checkShownValue);

export const uiTextNode = defineNode({
  type: "ui-text",
  version: 1,
  category: "dashboard",
  name: "Text",
  description: "Shows a value with a label on a dashboard page.",
  help: `Shows a value on a dashboard page with its label, as Dashboard 2.0's \`ui-text\`: each message replaces the value shown.

### Inputs

- \`payload\`: the value shown (with **Value** \`payload\`). **Value** may name another message property, or be text, a number, a JSONata expression over the message, flow or global context or an env variable, as Dashboard 2.0's; a JSONata expression that fails leaves the payload as it came, with a warning.
- \`ui_update\` (object): changes \`label\`, \`format\`, \`layout\`, \`font\`, \`fontSize\`, \`color\` while the page is open; \`enabled\`, \`visible\` and \`class\` too.

### Outputs

None.

### Details

The last value is kept: a viewer who opens the page later, after a restart or a redeploy, sees it. A message carrying \`msg._client\` is shown to that viewer only, and not kept.`,
  inputs: 1,
  outputs: 0,
  configSchema: uiTextConfig,
  nodeRed: dashboardNodeRed("ui-text", shape),
});
