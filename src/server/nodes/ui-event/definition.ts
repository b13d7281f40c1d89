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
- \`payload.page\` (object): the page's \`id\` and \`path\`.
- \`_client\` (object): the viewer (\`socketId\`, \`user_id\` for a member).

### Details

Every page of the dashboard (ui-base) it names reports to it.`,
  inputs: 0,
  outputs: 1,
  configSchema: uiEventConfig,
  nodeRed: dashboardNodeRed("ui-event", shape),
});
