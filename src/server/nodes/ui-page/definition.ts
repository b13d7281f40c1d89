import { z } from "zod";
import { defineNode } from "../types";
import { configNodeRef } from "../../../shared/config-nodes";
import { dashboardNodeRed, MAX_ORDER } from "../dashboard-support";

const shape = {
  ui: configNodeRef("ui-base", { title: "Dashboard", description: "The dashboard (ui-base) the page belongs to" }),
  path: z
    .string()
    .max(200)
    .regex(/^\/[A-Za-z0-9._~\-/]*$/, "starts with / and holds letters, digits and . _ ~ - /")
    .default("/page1")
    .meta({ title: "Path", description: "Where the page is served: /dashboard/{organization}{path}; unique in the organization" }),
  icon: z.string().max(100).default("home").meta({ title: "Icon", description: "A Material Design icon name, shown in the navigation" }),
  layout: z.enum(["grid", "flex", "notebook", "tabs"]).default("grid").meta({ title: "Layout" }),
  theme: configNodeRef("ui-theme", { title: "Theme" }),
  breakpoints: z
    .array(z.object({ name: z.string().max(64).meta({ title: "Name" }), px: z.number().int().min(0).meta({ title: "From width (px)" }), cols: z.number().int().min(1).max(24).meta({ title: "Columns" }) }))
    .max(10)
    .default([
      { name: "Default", px: 0, cols: 3 },
      { name: "Tablet", px: 576, cols: 6 },
      { name: "Small Desktop", px: 768, cols: 9 },
      { name: "Desktop", px: 1024, cols: 12 },
    ])
    .meta({ title: "Breakpoints", description: "Columns of the grid from each screen width" }),
  order: z.number().int().min(-1).max(MAX_ORDER).default(-1).meta({ title: "Order", description: "Position in the navigation (smallest first)" }),
  className: z.string().max(500).default("").meta({ title: "Class" }),
  visible: z.boolean().default(true).meta({ title: "Visible in the navigation" }),
  disabled: z.boolean().default(false).meta({ title: "Disabled" }),
};

export const uiPageConfig = z.object(shape);

export const uiPageNode = defineNode({
  type: "ui-page",
  version: 1,
  category: "config",
  kind: "config",
  name: "Dashboard page",
  description: "A page of a dashboard (Dashboard 2.0's ui-page): its path, layout and theme.",
  help: `A page of a dashboard, as Dashboard 2.0's \`ui-page\`: its groups (\`ui-group\`) and their widgets are laid out on it, and it is served at \`/dashboard/{organization}{path}\`.

### Inputs

None: a configuration node has no wires.

### Outputs

None.

### Details

- **Path** starts with \`/\` and is unique in the organization: an import that brings a page whose path is taken gives it a suffix (\`/home-2\`) and says so.
- **Layout**: \`grid\` (Dashboard 2.0's 12-column grid; groups take their width in columns), \`flex\`, \`notebook\` or \`tabs\`. **Breakpoints** say how many columns the grid has from each screen width, so a page works on a phone.
- **Theme** names a \`ui-theme\`; none: the default colors.
- Every member of the organization may open the page; admins may publish it with a share link (view-only or interactive).
- A page shows what is deployed: the widgets of deployed, enabled flows.`,
  inputs: 0,
  outputs: 0,
  configSchema: uiPageConfig,
  nodeRed: dashboardNodeRed("ui-page", shape),
});
