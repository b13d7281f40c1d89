import { z } from "zod";
import { defineNode } from "../types";
import { className, dashboardNodeRed, uiRef } from "../dashboard-support";

const shape = {
  ui: uiRef,
  position: z.enum(["top right", "top center", "top left", "bottom right", "bottom center", "bottom left", "center center"]).default("top right").meta({ title: "Position" }),
  colorDefault: z.boolean().default(true).meta({ title: "Default color" }),
  color: z.string().max(64).nullable().default(null).meta({ title: "Color" }),
  displayTime: z.union([z.string().max(16), z.number()]).default("3").meta({ title: "Shown for (s)", description: "0: until dismissed" }),
  showCountdown: z.boolean().default(true).meta({ title: "Show a countdown" }),
  allowDismiss: z.boolean().default(true).meta({ title: "Dismiss button" }),
  dismissText: z.string().max(200).default("Close").meta({ title: "Dismiss label" }),
  allowConfirm: z.boolean().default(false).meta({ title: "Confirm button" }),
  confirmText: z.string().max(200).default("Confirm").meta({ title: "Confirm label" }),
  raw: z.boolean().default(false).meta({ title: "Accept raw HTML", description: "Shown as HTML in the page's sandbox rules; off: as text" }),
  className,
};

export const uiNotificationConfig = z.object(shape);

export const uiNotificationNode = defineNode({
  type: "ui-notification",
  version: 1,
  category: "dashboard",
  name: "Notification",
  description: "Shows a message as a notification on a dashboard's pages.",
  help: `Shows a notification (a toast) to the viewers of a dashboard, as Dashboard 2.0's \`ui-notification\`.

### Inputs

- \`payload\` (string): the text shown (Markdown-free, or HTML with **Accept raw HTML**).
- \`_client\` (object): only that viewer gets it (a message from a viewer's input carries it).
- \`ui_update\` (object): changes \`position\`, \`displayTime\`, colors … for the next notifications.

### Outputs

- \`payload\`: the notification's text, when a viewer confirms or dismisses it.
- \`topic\`: \`confirm\` or \`dismiss\`, what the viewer did.
- \`_client\` (object): who did it.

### Details

Notifications are not kept: a viewer who opens the page later does not see one shown before.`,
  inputs: 1,
  outputs: 1,
  configSchema: uiNotificationConfig,
  nodeRed: {
    ...dashboardNodeRed("ui-notification", shape),
    // Dashboard 2.0's earlier notification wrote outputs: 0; it has one output now, as ours: nothing is lost.
    absorbed: ["outputs"],
  },
});
