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

The content is rendered in the browser as Markdown, without scripts. The last message is kept: every viewer sees it, after a restart too.`,
  inputs: 1,
  outputs: 1,
  configSchema: uiMarkdownConfig,
  form: { content: { widget: "multiline" } },
  nodeRed: dashboardNodeRed("ui-markdown", shape),
});
