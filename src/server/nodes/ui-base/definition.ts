import { z } from "zod";
import { defineNode } from "../types";
import { dashboardNodeRed, fromDashboardProps } from "../dashboard-support";

const shape = {
  path: z.string().max(200).default("/dashboard").meta({ title: "Path", description: "Dashboard 2.0's base path, kept for export; pages are served at /dashboard/{organization}/{page path}" }),
  appIcon: z.string().max(2000).default("").meta({ title: "App icon", description: "URL of the icon shown in the app bar" }),
  includeClientData: z.boolean().default(true).meta({ title: "Include client data", description: "Dashboard 2.0's switch, kept for export: here messages from viewers always carry msg._client" }),
  acceptsClientConfig: z.array(z.string().max(64)).max(50).default(["ui-notification", "ui-control"]).meta({ title: "Widgets that honour the viewer", description: "Dashboard 2.0's list, kept for export: here every widget sends a message carrying msg._client to that viewer only" }),
  showPathInSidebar: z.boolean().default(false).meta({ title: "Show paths in the navigation" }),
  /** Dashboard 2.0's earlier switch, which headerContent replaced: kept for export; read when headerContent is absent. */
  showPageTitle: z.boolean().default(true).meta({ title: "Show the page's title (earlier setting)", description: "Read only when the header content is not set: on shows the page's name, off nothing" }),
  headerContent: z
    .enum(["page", "dashboard", "dashpage", "none"])
    .default("page")
    .meta({ title: "Header content", description: "What the app bar says: the page's name, the dashboard's, both (\"Dashboard (Page)\"), or nothing" }),
  navigationStyle: z.enum(["default", "fixed", "icon", "temporary", "none"]).default("default").meta({ title: "Navigation style" }),
  titleBarStyle: z.enum(["default", "hidden", "fixed"]).default("default").meta({ title: "Title bar style" }),
  showDisconnectNotification: z.boolean().default(true).meta({ title: "Say when the connection is lost" }),
  showReconnectNotification: z.boolean().default(true).meta({ title: "Say when it is back" }),
  notificationDisplayTime: z.number().int().min(1).max(3600).default(5).meta({ title: "How long those notices show (seconds)" }),
  allowInstall: z.boolean().default(false).meta({ title: "Allow installing as an app", description: "Dashboard 2.0's switch, kept for export: pages here are not offered as an installable app" }),
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
- Messages a viewer's input sends carry \`msg._client\` (\`socketId\`; \`share_id\` for a share link's visitor; for a signed-in member \`user_id\` and \`user\`: \`{ userId, username, email, name, image }\`, as FlowFuse's user add-on for Dashboard 2.0 gives it, so its multi-user flows work unchanged. \`username\` is the sign-in email, \`image\` the profile's avatar or null). A message that carries \`msg._client\` back to a widget goes to that viewer only; the other viewers keep seeing the widget's shared state. It follows that viewer's browser tab for five minutes: a page the tab opens next shows it (Dashboard 2.0 keeps it in the tab, whose pages share one connection), so a button that fills a widget of another page and changes the page with ui-control works as there.
- **Include client data** and **Widgets that honour the viewer** are kept for export: here every input carries \`msg._client\` and every widget honours it (SPEC §21), whatever they say.
- **Header content**: what the app bar says, as Dashboard 2.0's: the page's name (the default), the dashboard's, both as "Dashboard (Page)", or nothing (the page keeps a heading for screen readers). A dashboard from before this setting follows its **Show the page's title**.
- **Say when the connection is lost** and **Say when it is back**: a notice for **How long those notices show** seconds when a viewer's page loses its connection to the server and when it is back (the app bar always shows the connection's state).
- **Navigation style** and **title bar style** are Dashboard 2.0's options, sent with the page.

### Differences from Node-RED

- The base **path** is kept for export but does not change where pages are served: the organization's dashboard lives at \`/dashboard/{organization}/\`.
- **Allow installing as an app** is kept for export: pages are not offered as an installable app here.`,
  inputs: 0,
  outputs: 0,
  configSchema: uiBaseConfig,
  nodeRed: {
    ...dashboardNodeRed("ui-base", shape),
    // As Dashboard 2.0's editor: a dashboard from before headerContent shows the page's name, or nothing if showPageTitle was off.
    fromNodeRed: (p, refused) => ({ ...fromDashboardProps(shape, p, refused), ...(p.headerContent === undefined ? { headerContent: p.showPageTitle === false || p.showPageTitle === "false" ? "none" : "page" } : {}) }),
  },
});
