import { z } from "zod";
import { defineNode } from "../types";
import { configNodeRef } from "../../../shared/config-nodes";
import { safeLinkUrl } from "../../../shared/dashboard";
import { fromDashboardProps, MAX_ORDER } from "../dashboard-support";

const shape = {
  ui: configNodeRef("ui-base", { title: "Dashboard", description: "The dashboard (ui-base) whose navigation shows the link" }),
  path: z
    .string()
    .max(2000)
    .refine((v) => v === "" || safeLinkUrl(v), "is an http(s), mailto or tel URL, or a relative one")
    .default("")
    .meta({ title: "URL", description: "Where the link goes: https://…, mailto:…, tel:… or a path on this site" }),
  icon: z.string().max(100).default("home").meta({ title: "Icon", description: "A Material Design icon name, shown in the navigation" }),
  order: z.number().int().min(-1).max(MAX_ORDER).default(-1).meta({ title: "Order", description: "Position in the navigation among the pages (smallest first)" }),
  visible: z.boolean().default(true).meta({ title: "Visible in the navigation" }),
  disabled: z.boolean().default(false).meta({ title: "Disabled" }),
};

export const uiLinkConfig = z.object(shape);

export const uiLinkNode = defineNode({
  type: "ui-link",
  version: 1,
  category: "config",
  kind: "config",
  name: "Dashboard link",
  description: "A link in a dashboard's navigation to another site (Dashboard 2.0's ui-link).",
  help: `A link in a dashboard's navigation, as Dashboard 2.0's \`ui-link\`: shown among the pages at its **order**, with its icon and name, it leaves the dashboard for its **URL**.

### Inputs

None: a configuration node has no wires.

### Outputs

None.

### Details

- **URL**: \`https://…\`, \`http://…\`, \`mailto:…\`, \`tel:…\` or a path on this site. Other schemes (\`javascript:\`, \`data:\`, \`file:\`) are refused: a dashboard is shared with people who did not write it. A link without a URL is shown disabled.
- **Visible** and **Disabled** are the defaults; a \`ui-control\` node can show or hide the link by its name, as it does pages.
- The link shows once a flow with a widget on one of its dashboard's pages is deployed (it goes with that flow's deployment, as the dashboard does). A share link's visitor sees only the shared page, and no links.`,
  inputs: 0,
  outputs: 0,
  configSchema: uiLinkConfig,
  nodeRed: {
    type: "ui-link",
    toNodeRed(c: never) {
      return { ...(c as object) };
    },
    // Dashboard 2.0's editor stores -1 as the path of a link not given one.
    fromNodeRed: (p: Record<string, unknown>, refused?: string[]) => fromDashboardProps(shape, p.path === -1 || p.path === "-1" ? { ...p, path: "" } : p, refused),
  },
});
