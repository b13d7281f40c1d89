import { z } from "zod";
import { defineNode } from "../types";
import { className, dashboardNodeRed, groupRef, height, order, width } from "../dashboard-support";

const shape = {
  group: groupRef,
  order,
  width: width(0),
  height: height(0),
  content: z.string().max(262_144).default("# Markdown Content\n\nStatic value: 1\n\nDynamic value: {{msg.payload}}").meta({ title: "Content" }),
  className,
};

export const uiMarkdownConfig = z.object(shape);

export const uiMarkdownNode = defineNode({
  type: "ui-markdown",
  version: 1,
  category: "dashboard",
  name: "Markdown",
  description: "Shows Markdown on a dashboard page, with {{msg.payload}} filled in.",
  help: `Shows Markdown on a dashboard page, as Dashboard 2.0's \`ui-markdown\`: the content may show the last message's properties (\`{{msg.payload}}\`).

### Inputs

- \`payload\`, and any property the content names: shown in place of \`{{msg.…}}\`.
- \`ui_update\` (object): \`content\` replaces the Markdown while the page is open; \`enabled\`, \`visible\` and \`class\` too.

### Outputs

The message, passed on.

### Details

The content is rendered in the browser as Markdown, without scripts. The last message is kept: every viewer sees it, after a restart too.

As in Dashboard 2.0, the Markdown is rendered first and the values are filled into its text: \`**{{ msg.payload }}**\` is the payload in bold (and nothing before a message), and a value's own Markdown or HTML is shown as written. A \`{{ }}\` holds a property path, a quoted text or a number, with \`||\` for a fallback (\`{{ msg.machine || 'none' }}\`).

### Differences from Node-RED

Dashboard 2.0 runs any JavaScript expression between \`{{ }}\` (it compiles the content as a Vue template); here only paths, literals and \`||\` are read, and anything else is shown as written. Mermaid diagrams and code highlighting are not drawn.`,
  inputs: 1,
  outputs: 1,
  configSchema: uiMarkdownConfig,
  form: { content: { widget: "multiline" } },
  nodeRed: dashboardNodeRed("ui-markdown", shape),
});
