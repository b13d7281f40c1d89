import { z } from "zod";
import { defineNode } from "../types";
import { dashboardNodeRed, uiRef } from "../dashboard-support";

const shape = {
  ui: uiRef,
  events: z.enum(["all", "connect", "change"]).default("all").meta({ title: "Output", description: "Which viewer events are sent: page views (change), connections (connect) or both" }),
};

export const uiControlConfig = z.object(shape);

export const uiControlNode = defineNode({
  type: "ui-control",
  version: 1,
  category: "dashboard",
  name: "Dashboard control",
  description: "Changes what viewers of a dashboard see: navigate, show or hide groups and pages, reload.",
  help: `Changes what the viewers of a dashboard see, as Dashboard 2.0's \`ui-control\`: navigate to a page, show, hide, enable or disable groups and pages, reload.

### Inputs

- \`payload.page\` (string): go to the page of that name (or \`payload.tab\`, or \`payload\` a path); \`"+1"\` / \`"-1"\`: the next or previous page.
- \`payload.groups\` (object): \`show\`, \`hide\`, \`enable\`, \`disable\`: arrays of group names (\`Page:Group\`); \`open\`, \`close\`: unfold or fold groups that can be collapsed (Dashboard 1's). Dashboard 1's \`payload.group\` is taken too, with its names (\`Page_Group\`, spaces as underscores) and \`focus: true\` (scroll to the first group shown).
- \`payload.pages\` (object): \`show\`, \`hide\`, \`enable\`, \`disable\`: arrays of page names.
- \`payload\` \`"reload"\`: reloads the viewers' pages.
- \`_client\` (object): only that viewer.

### Outputs

- \`payload\`: \`change\` when a viewer opened a page (with **Output** all or change), \`connect\` when one connected; with **Output** all or change, \`group\` when a viewer folded or opened a group that can be collapsed, as Dashboard 1's (\`group\`: its \`Page_Group\` name, \`open\`: true or false).
- \`page\` (object): the page's \`id\` and \`path\`; \`_client\`: the viewer.

### Details

Actions go to every open page of the dashboard (a \`dashboard.control\` frame); they change what viewers see now, not what is deployed.`,
  inputs: 1,
  outputs: 1,
  configSchema: uiControlConfig,
  nodeRed: dashboardNodeRed("ui-control", shape),
});
