import { z } from "zod";
import { defineNode } from "../types";
import { className, cssColor, dashboardNodeRed, groupRef, height, label, order, passthru, topic, topicType, width } from "../dashboard-support";

const buttonOption = z.object({
  label: z.string().max(1000).default("").meta({ title: "Label" }),
  icon: z.string().max(100).default("").meta({ title: "Icon", description: "A Material Design icon name" }),
  value: z.unknown().meta({ title: "Value" }),
  valueType: z.enum(["str", "num", "bool", "json"]).default("str").meta({ title: "Value type" }),
  color: cssColor("", { title: "Colour", description: "The button's colour when chosen (with the theme's colours off)" }),
});

const shape = {
  group: groupRef,
  order,
  width: width(6),
  height: height(1),
  label: label("button group"),
  className,
  rounded: z.boolean().default(true).meta({ title: "Rounded" }),
  useThemeColors: z.boolean().default(true).meta({ title: "Use the theme's colours", description: "Off: a chosen button takes its option's colour" }),
  passthru: passthru(false),
  options: z.array(buttonOption).max(100).default([]).meta({ title: "Options", description: "The buttons: each a label or icon, and the value it sends" }),
  topic,
  topicType,
};

export const uiButtonGroupConfig = z.object(shape);

export const uiButtonGroupNode = defineNode({
  type: "ui-button-group",
  version: 1,
  category: "dashboard",
  name: "Button group",
  description: "A row of buttons on a dashboard page, one of them chosen: the chosen one's value is sent.",
  help: `A row of buttons on a dashboard page, as Dashboard 2.0's \`ui-button-group\`: one of them is chosen at a time, and choosing one sends its value as \`msg.payload\`.

### Inputs

- \`payload\`: chooses the button with that value (passed on with **Pass messages through**).
- \`ui_update\` (object): \`options\` replaces the buttons, \`label\` … while the page is open; \`enabled\`, \`visible\` and \`class\` too.

### Outputs

- \`payload\`: the chosen button's value, typed as its option says (text, number, boolean or JSON).
- \`topic\`: the configured topic.
- \`_client\` (object): who chose.

### Details

The node's status shows the chosen button. A value that is none of the options is refused. The choice is kept: every viewer sees it. The arrow keys move between the buttons.`,
  inputs: 1,
  outputs: 1,
  configSchema: uiButtonGroupConfig,
  nodeRed: dashboardNodeRed("ui-button-group", shape),
});
