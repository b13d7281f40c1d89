import { z } from "zod";
import { defineNode } from "../types";
import { className, cssColor, dashboardNodeRed, groupRef, height, label, order, passthru, topic, topicType, valueType, width } from "../dashboard-support";

const shape = {
  group: groupRef,
  order,
  width: width(0),
  height: height(0),
  label: label("switch"),
  passthru: passthru(false),
  decouple: z.boolean().default(false).meta({ title: "Show the state of the input only", description: "The switch shows what messages set, not the viewer's click" }),
  // Dashboard 2.0's four (ui_switch.html); "row-right" and "col-center", which this form offered
  // before (they were Dashboard 2.0's for a few commits, never released), were drawn spread: read so.
  layout: z
    .preprocess((v) => (v === "row-right" || v === "col-center" ? "row-spread" : v), z.enum(["row-left", "row-left-swapped", "row-spread", "row-spread-swapped"]).default("row-spread"))
    .meta({ title: "Layout", description: "row-left: the label, then the switch; row-spread: the label at the start, the switch at the end; swapped: the switch first" }),
  clickableArea: z
    .enum(["switch", "label", "line", "none"])
    .default("switch")
    .meta({ title: "Clickable area", description: "What a viewer clicks to toggle: the switch, the label or the switch, the whole line, or nothing (the switch only shows the state)" }),
  onvalue: z.unknown().default(true).meta({ title: "On value" }),
  onvalueType: valueType("On value type", "bool"),
  onicon: z.string().max(100).default("").meta({ title: "On icon" }),
  oncolor: cssColor("", { title: "On color" }),
  offvalue: z.unknown().default(false).meta({ title: "Off value" }),
  offvalueType: valueType("Off value type", "bool"),
  officon: z.string().max(100).default("").meta({ title: "Off icon" }),
  offcolor: cssColor("", { title: "Off color" }),
  className,
  topic,
  topicType,
};

export const uiSwitchConfig = z.object(shape);

export const uiSwitchNode = defineNode({
  type: "ui-switch",
  version: 1,
  category: "dashboard",
  name: "Switch",
  description: "An on/off switch on a dashboard page: a toggle sends the on or off value.",
  help: `An on/off switch on a dashboard page, as Dashboard 2.0's \`ui-switch\`: a viewer's toggle sends the configured on or off value.

### Inputs

- \`payload\`: sets the switch: on when it equals the on value, off when it equals the off value (passed on with **Pass messages through**).
- \`ui_update\` (object): changes \`label\`, icons and colors while the page is open; \`enabled\`, \`visible\` and \`class\` too.

### Outputs

- \`payload\`: the on value or the off value (typed: boolean, number, text, JSON …).
- \`topic\`: the configured topic.
- \`_client\` (object): who toggled it.

### Details

The position is kept: every viewer sees it, after a restart too.

**Layout** and **Clickable area** are Dashboard 2.0's: with *none* the switch shows the state and takes no click (nor the keyboard's Space or Enter); with *switch* only the switch toggles (as Dashboard 2.0; its label names it for screen readers).`,
  inputs: 1,
  outputs: 1,
  configSchema: uiSwitchConfig,
  nodeRed: {
    ...dashboardNodeRed("ui-switch", shape),
    // A configuration saved with a layout word this form offered before goes out as the layout it is drawn as.
    toNodeRed: (c) => ({ ...c, layout: ["row-right", "col-center"].includes(String(c.layout)) ? "row-spread" : c.layout }),
  },
});
