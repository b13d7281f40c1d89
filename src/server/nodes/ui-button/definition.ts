import { z } from "zod";
import { defineNode } from "../types";
import { className, cssColor, dashboardNodeRed, groupRef, height, label, order, tooltip, topic, topicType, valueType, width } from "../dashboard-support";

const shape = {
  group: groupRef,
  order,
  width: width(0),
  height: height(0),
  label: label("button"),
  tooltip,
  buttonColor: cssColor("", { title: "Button color", description: "A CSS colour; empty: the theme's" }),
  textColor: cssColor("", { title: "Text color" }),
  iconColor: cssColor("", { title: "Icon color" }),
  /** Dashboard 2.0's earlier names for the text and button colours, still read (buttonColor and textColor win). */
  color: cssColor("", { title: "Text color (earlier name)" }),
  bgcolor: cssColor("", { title: "Background color (earlier name)" }),
  className,
  icon: z.string().max(100).default("").meta({ title: "Icon", description: "A Material Design icon name" }),
  iconPosition: z.enum(["left", "right"]).default("left").meta({ title: "Icon position" }),
  payload: z.string().max(65_536).default("").meta({ title: "Payload", description: "What a click sends as msg.payload" }),
  payloadType: valueType("Payload type"),
  topic,
  topicType,
  emulateClick: z.boolean().default(false).meta({ title: "An incoming message clicks", description: "A message arriving on the input acts as a click" }),
  enableClick: z.boolean().default(true).meta({ title: "Send on click" }),
  // Dashboard 2.0's "hold" buttons: a message when the button is pressed and another when it is let go.
  enablePointerdown: z.boolean().default(false).meta({ title: "Send when pressed", description: "A message with the payload below when the button is pressed down (pointer or key)" }),
  pointerdownPayload: z.string().max(65_536).default("").meta({ title: "Pressed payload" }),
  pointerdownPayloadType: valueType("Pressed payload type"),
  enablePointerup: z.boolean().default(false).meta({ title: "Send when released", description: "A message with the payload below when the button is let go" }),
  pointerupPayload: z.string().max(65_536).default("").meta({ title: "Released payload" }),
  pointerupPayloadType: valueType("Released payload type"),
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

- \`payload\`: with **An incoming message clicks**, any message acts as a click; otherwise it only updates the button (a label with \`{{msg.payload}}\`), and is not sent on, as Dashboard 2.0's button does.
- \`ui_update\` (object): changes properties while the page is open (\`label\`, \`icon\`, \`color\` …); \`enabled\`, \`visible\` and \`class\` too.

### Outputs

- \`payload\`: the configured payload (text, number, boolean, JSON, a timestamp, or a flow/global context value); with **Send when pressed** or **Send when released**, pressing and letting go each send their own payload too (a "hold" button: start a motor while it is held).
- \`topic\`: the configured topic.
- \`_event\` (object): what the viewer did: \`type\` (\`click\`, \`pointerdown\` or \`pointerup\`), and where (\`clientX\`, \`clientY\`, the button's \`bbox\`).
- \`_client\` (object): who clicked: \`socketId\`, and \`user_id\` for a signed-in member.

### Details

A viewer of a view-only share link sees the button but cannot click it. A keyboard user presses and lets go with Enter or Space, as a pointer does.`,
  inputs: 1,
  outputs: 1,
  configSchema: uiButtonConfig,
  nodeRed: {
    ...dashboardNodeRed("ui-button", shape),
    // Dashboard 2.0's earlier buttons wrote passthru; since its button handles input itself, it reads it nowhere.
    absorbed: ["passthru"],
  },
});
