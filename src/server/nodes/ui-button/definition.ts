import { z } from "zod";
import { defineNode } from "../types";
import { className, dashboardNodeRed, groupRef, height, label, order, tooltip, topic, topicType, valueType, width } from "../dashboard-support";

const shape = {
  group: groupRef,
  order,
  width: width(0),
  height: height(0),
  label: label("button"),
  tooltip,
  color: z.string().max(64).default("").meta({ title: "Text color" }),
  bgcolor: z.string().max(64).default("").meta({ title: "Background color" }),
  className,
  icon: z.string().max(100).default("").meta({ title: "Icon", description: "A Material Design icon name" }),
  iconPosition: z.enum(["left", "right"]).default("left").meta({ title: "Icon position" }),
  payload: z.string().max(65_536).default("").meta({ title: "Payload", description: "What a click sends as msg.payload" }),
  payloadType: valueType("Payload type"),
  topic,
  topicType,
  emulateClick: z.boolean().default(false).meta({ title: "An incoming message clicks", description: "A message arriving on the input acts as a click" }),
  enableClick: z.boolean().default(true).meta({ title: "Send on click" }),
};

export const uiButtonConfig = z.object(shape);

export const uiButtonNode = defineNode({
  type: "ui-button",
  version: 1,
  category: "dashboard",
  name: "Button",
  description: "A button on a dashboard page: a click sends a message.",
  help: `A button on a dashboard page, as Dashboard 2.0's \`ui-button\`: each click by a viewer sends a message with the configured payload and topic.

### Inputs

- \`payload\`: with **An incoming message clicks**, any message acts as a click; otherwise the message is passed on.
- \`ui_update\` (object): changes properties while the page is open (\`label\`, \`icon\`, \`color\` …); \`enabled\`, \`visible\` and \`class\` too.

### Outputs

- \`payload\`: the configured payload (text, number, boolean, JSON, a timestamp, or a flow/global context value).
- \`topic\`: the configured topic.
- \`_client\` (object): who clicked: \`socketId\`, and \`user_id\` for a signed-in member.

### Details

A viewer of a view-only share link sees the button but cannot click it.`,
  inputs: 1,
  outputs: 1,
  configSchema: uiButtonConfig,
  nodeRed: dashboardNodeRed("ui-button", shape),
});
