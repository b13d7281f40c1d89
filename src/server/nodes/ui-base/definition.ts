import { z } from "zod";
import { defineNode } from "../types";
import { dashboardNodeRed } from "../dashboard-support";

const shape = {
  path: z.string().max(200).default("/dashboard").meta({ title: "Path", description: "Dashboard 2.0's base path, kept for export; pages are served at /dashboard/{organization}/{page path}" }),
  appIcon: z.string().max(2000).default("").meta({ title: "App icon", description: "URL of the icon shown in the app bar" }),
  includeClientData: z.boolean().default(true).meta({ title: "Include client data", description: "Dashboard 2.0's switch, kept for export: here messages from viewers always carry msg._client" }),
  acceptsClientConfig: z.array(z.string().max(64)).max(50).default(["ui-notification", "ui-control"]).meta({ title: "Widgets that honour the viewer", description: "Dashboard 2.0's list, kept for export: here every widget sends a message carrying msg._client to that viewer only" }),
  showPathInSidebar: z.boolean().default(false).meta({ title: "Show paths in the navigation" }),
  showPageTitle: z.boolean().default(true).meta({ title: "Show the page's title" }),
  navigationStyle: z.enum(["default", "fixed", "icon", "temporary", "none"]).default("default").meta({ title: "Navigation style" }),
  titleBarStyle: z.enum(["default", "hidden", "fixed"]).default("default").meta({ title: "Title bar style" }),
};

export const uiBaseConfig = z.object(shape);

export const uiBaseNode = defineNode({
  type: "ui-base",
  version: 1,
  category: "config",
  kind: "config",
  name: "Dashboard",
  description: "A dashboard (Dashboard 2.0's ui-base): its pages, title and navigation.",
  help: `A dashboard, as Dashboard 2.0's \`ui-base\`: the pages (\`ui-page\`) that name it make one app with one navigation, and its name is the title in the app bar.

### Inputs

None: a configuration node has no wires.

### Outputs

None.

### Details

- Pages are served at \`/dashboard/{organization}/{page path}\` to every member of the organization, and to visitors of a page's share link.
- Messages a viewer's input sends carry \`msg._client\` (\`socketId\`; \`user_id\` for a signed-in member, \`share_id\` for a share link's visitor). A message that carries \`msg._client\` back to a widget goes to that viewer only.
- **Include client data** and **Widgets that honour the viewer** are kept for export: here every input carries \`msg._client\` and every widget honours it (SPEC §21), whatever they say.
- **Navigation style** and **title bar style** are Dashboard 2.0's options, sent with the page.

### Differences from Node-RED

- The base **path** is kept for export but does not change where pages are served: the organization's dashboard lives at \`/dashboard/{organization}/\`.`,
  inputs: 0,
  outputs: 0,
  configSchema: uiBaseConfig,
  nodeRed: dashboardNodeRed("ui-base", shape),
});
