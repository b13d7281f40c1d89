import { z } from "zod";
import { defineNode } from "../types";
import { className, cssColor, dashboardNodeRed, groupRef, height, order, width } from "../dashboard-support";
import { LED_VALUE_TYPES } from "../../../shared/dashboard-values";

const ledState = z.object({
  color: cssColor("#00FF00", { title: "Colour", description: "A CSS colour (#00ff00, green, rgb(0,255,0))" }),
  value: z.unknown().meta({ title: "Value", description: "The payload that lights the LED in this colour" }),
  valueType: z.enum(LED_VALUE_TYPES).default("str").meta({ title: "Value type" }),
});

const shape = {
  group: groupRef,
  order,
  width: width(0),
  height: height(0),
  label: z.string().max(1000).default("").meta({ title: "Label", description: "Shown beside the LED" }),
  labelPlacement: z.enum(["left", "right"]).default("left").meta({ title: "Label placement", description: "Which side of the LED the label is on" }),
  // FlowFuse's ui-led editor stores the CSS words (flex-start, center, flex-end); its first default was "left".
  labelAlignment: z
    .enum(["left", "center", "right", "flex-start", "flex-end"])
    .default("left")
    .meta({ title: "Label alignment", description: "How the label is aligned in its space", enumLabels: { left: "Left", center: "Center", right: "Right", "flex-start": "Left (start)", "flex-end": "Right (end)" } }),
  states: z
    .array(ledState)
    .max(100)
    .default([
      { color: "#FF0000", value: false, valueType: "bool" },
      { color: "#00FF00", value: true, valueType: "bool" },
    ])
    .meta({ title: "Colours for values", description: "The first entry whose value equals msg.payload gives the LED its colour; no match: grey" }),
  allowColorForValueInMessage: z
    .boolean()
    .default(false)
    .meta({ title: "Colours from messages", description: "A message's colorForValue (a list of {value, color}, or an object of value: colour) replaces the colours above" }),
  shape: z.enum(["circle", "square"]).default("circle").meta({ title: "Shape" }),
  showBorder: z.boolean().default(true).meta({ title: "Border", description: "A dark rim around the LED, as a physical one has" }),
  showGlow: z.boolean().default(true).meta({ title: "Glow", description: "The LED glows in its colour once it has a value" }),
  className,
};

export const uiLedConfig = z.object(shape);

export const uiLedNode = defineNode({
  type: "ui-led",
  version: 1,
  category: "dashboard",
  name: "LED",
  description: "A status light on a dashboard page: msg.payload picks its colour.",
  help: `A status light on a dashboard page, as FlowFuse's Dashboard 2.0 add-on \`ui-led\` (\`@flowfuse/node-red-dashboard-2-ui-led\`) and Dashboard 1's \`ui_led\` (\`node-red-contrib-ui-led\`), which imports as this node.

### Inputs

- \`payload\`: the value looked up in **Colours for values**. The first entry whose value equals it lights the LED in that entry's colour; a value found nowhere turns it grey.
- \`colorForValue\` (array or object): with **Colours from messages** on, replaces the table, as Dashboard 1's LED does: a list of \`{ "value": …, "color": … }\`, or an object of value → colour (\`{ "on": "green", "off": "red" }\`, looked up by the payload as text). The table given stays until another replaces it. Without the option, it is ignored.
- \`ui_update\` (object): \`label\`, \`states\`, \`shape\`, \`showGlow\` and \`showBorder\` change the LED while the page is open; \`enabled\`, \`visible\` and \`class\` too.

### Outputs

None.

### Details

Each entry's value is typed: text, number, boolean, JSON or a buffer (a JSON array of bytes). Equality is strict, as in both Dashboards: the number \`1\` does not match the text \`"1"\` (an MQTT payload is text unless the MQTT node parses it). An object or array matches one with the same JSON. Until the first message the LED is grey and unlit. The last message is kept: a viewer who opens the page later sees the LED as it is.

Dashboard 1's LED had no border; it imports with **Border** off. To assistive technology the LED is an image named by its label and its value.`,
  inputs: 1,
  outputs: 0,
  configSchema: uiLedConfig,
  nodeRed: dashboardNodeRed("ui-led", shape),
});
