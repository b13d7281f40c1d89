import { z } from "zod";
import { defineNode } from "../types";
import { configNodeRef } from "../../../shared/config-nodes";
import { className, dashboardNodeRed, groupRef, height, order, passthru, width } from "../dashboard-support";

const shape = {
  group: groupRef,
  page: configNodeRef("ui-page", { title: "Page", description: "With scope widget:page or page:style: the page" }),
  ui: configNodeRef("ui-base", { title: "Dashboard", description: "With scope widget:ui or site:style: the dashboard" }),
  order,
  width: width(0),
  height: height(0),
  format: z.string().max(262_144).default("<template>\n  <div>{{ msg.payload }}</div>\n</template>").meta({ title: "Template" }),
  storeOutMessages: z.boolean().default(true).meta({ title: "Keep the last message sent" }),
  passthru: passthru(true),
  resendOnRefresh: z.boolean().default(true).meta({ title: "Resend on refresh" }),
  templateScope: z.enum(["local", "widget:page", "widget:ui", "page:style", "site:style"]).default("local").meta({ title: "Scope" }),
  className,
};

export const uiTemplateConfig = z.object(shape);

export const uiTemplateNode = defineNode({
  type: "ui-template",
  version: 1,
  category: "dashboard",
  name: "Template",
  description: "Your own HTML, CSS and script as a widget on a dashboard page, in a sandboxed frame.",
  help: `Your own HTML, CSS and script as a widget on a dashboard page, as Dashboard 2.0's \`ui-template\`, run in a sandboxed frame without the app's origin: it can never read the app's cookies, tokens or pages.

### Inputs

- \`payload\` and any property: handed to the template's script (\`msg\` events over postMessage).
- \`ui_update\` (object): changes properties while the page is open; \`enabled\`, \`visible\` and \`class\` too.

### Outputs

- What the template's script sends with \`send(msg)\`, with \`_client\` (who sent it).
- With **Pass messages through**, the incoming messages too.

### Details

- **Scope**: \`local\` (a widget in a group), \`widget:page\` / \`widget:ui\` (on every page, or every page of the dashboard, outside groups), \`page:style\` / \`site:style\` (CSS only).
- The last message is kept: a viewer opening the page later gets it first (with **Resend on refresh**).

### Differences from Node-RED

- Dashboard 2.0 runs the template as a Vue component inside the dashboard's page; here it runs in a sandboxed frame with \`send(msg)\` and message events (SPEC §21). Vue's directives are not compiled; plain HTML and JavaScript run as written.
- A Dashboard 1 \`ui_template\`'s Angular markup (\`ng-*\`, \`{{…}}\`) is kept in **Template** for reference, and not run.`,
  inputs: 1,
  outputs: 1,
  configSchema: uiTemplateConfig,
  form: { format: { widget: "multiline" } },
  nodeRed: dashboardNodeRed("ui-template", shape),
});
