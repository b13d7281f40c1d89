import { z } from "zod";
import { defineNode } from "../types";
import { className, dashboardNodeRed, groupRef, height, label, order, passthru, tooltip, topic, topicType, width } from "../dashboard-support";

const shape = {
  group: groupRef,
  order,
  width: width(0),
  height: height(0),
  label: label("text"),
  tooltip,
  mode: z.enum(["text", "password", "email", "number", "tel", "color", "date", "time", "week", "month", "datetime-local", "textarea"]).default("text").meta({ title: "Mode" }),
  delay: z.number().int().min(0).max(60_000).default(300).meta({ title: "Delay (ms)", description: "With Send after a pause: how long after the last key" }),
  passthru: passthru(true),
  sendOnDelay: z.boolean().default(false).meta({ title: "Send after a pause" }),
  sendOnBlur: z.boolean().default(true).meta({ title: "Send on leaving the field" }),
  sendOnEnter: z.boolean().default(true).meta({ title: "Send on Enter" }),
  className,
  clearable: z.boolean().default(false).meta({ title: "Clearable" }),
  sendOnClear: z.boolean().default(false).meta({ title: "Send on clear" }),
  icon: z.string().max(100).default("").meta({ title: "Icon" }),
  iconPosition: z.enum(["left", "right"]).default("left").meta({ title: "Icon position" }),
  iconInnerPosition: z.enum(["inside", "outside"]).default("inside").meta({ title: "Icon placement" }),
  topic,
  topicType,
};

export const uiTextInputConfig = z.object(shape);

export const uiTextInputNode = defineNode({
  type: "ui-text-input",
  version: 1,
  category: "dashboard",
  name: "Text input",
  description: "A text field on a dashboard page: what a viewer types is sent.",
  help: `A text field on a dashboard page, as Dashboard 2.0's \`ui-text-input\`: what a viewer types is sent as \`msg.payload\` (on Enter, on leaving the field, or after a pause, as configured).

### Inputs

- \`payload\`: sets the field's value (and is passed on with **Pass messages through**).
- \`ui_update\` (object): changes \`label\`, \`mode\`, \`clearable\`, \`icon\` … while the page is open; \`enabled\`, \`visible\` and \`class\` too.

### Outputs

- \`payload\` (string): the text.
- \`topic\`: the configured topic.
- \`_client\` (object): who typed it (\`socketId\`, \`user_id\` for a member).

### Details

The value is kept: every viewer sees the last one, after a restart too. **Mode** is the field's kind (text, password, email, …, and date, time, color pickers from Dashboard 1's imports).`,
  inputs: 1,
  outputs: 1,
  configSchema: uiTextInputConfig,
  nodeRed: dashboardNodeRed("ui-text-input", shape),
});
