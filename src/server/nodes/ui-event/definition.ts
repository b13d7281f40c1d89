import { z } from "zod";
import { defineNode } from "../types";
import { dashboardNodeRed, uiRef } from "../dashboard-support";

const shape = {
  ui: uiRef,
};

export const uiEventConfig = z.object(shape);

export const uiEventNode = defineNode({
  type: "ui-event",
  version: 1,
  category: "dashboard",
  name: "Dashboard event",
  description: "Sends a message when a viewer opens or leaves a page of a dashboard.",
  help: `Sends a message when a viewer opens or leaves a page of a dashboard, as Dashboard 2.0's \`ui-event\`.

### Inputs

None.

### Outputs

- \`topic\`: \`$pageview\` (a page was opened) or \`$pageleave\` (it was left).
- \`payload.page\` (object): the page, as Dashboard 2.0's: its \`id\`, \`name\`, \`path\`, \`type\` and its ui-page properties (\`icon\`, \`layout\`, \`theme\`, \`order\`, \`visible\` …; \`_groups\` empty).
- \`payload.query\` (object): the page URL's query parameters (\`?machine=3\` gives \`{ machine: "3" }\`), without a share link's token.
- \`_client\` (object): the viewer (\`socketId\`; for a member \`user_id\` and \`user\`, see ui-base).

### Details

Every page of the dashboard (ui-base) it names reports to it.`,
  inputs: 0,
  outputs: 1,
  configSchema: uiEventConfig,
  nodeRed: dashboardNodeRed("ui-event", shape),
});
