import { z } from "zod";
import { defineNode } from "../types";
import { dashboardNodeRed } from "../dashboard-support";

const shape = {
  path: z.string().max(200).default("/dashboard").meta({ title: "Path", description: "Dashboard 2.0's base path, kept for export; pages are served at /dashboard/{organization}/{page path}" }),
  appIcon: z.string().max(2000).default("").meta({ title: "App icon", description: "URL of the icon shown in the app bar" }),
  includeClientData: z.boolean().default(true).meta({ title: "Include client data", description: "Messages from viewers carry msg._client (socket id, user id)" }),
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
- **Include client data**: messages a viewer's input sends carry \`msg._client\` (\`socketId\`, and \`user_id\` when signed in). A message that carries \`msg._client\` back to a widget goes to that viewer only.
- **Accept msg._client** is kept for export; here every widget honours \`msg._client\` (SPEC §21), not only the types listed.
- **Navigation style** and **title bar style** are Dashboard 2.0's options, sent with the page.

### Differences from Node-RED

- The base **path** is kept for export but does not change where pages are served: the organization's dashboard lives at \`/dashboard/{organization}/\`.`,
  inputs: 0,
  outputs: 0,
  configSchema: uiBaseConfig,
  nodeRed: dashboardNodeRed("ui-base", shape),
});
