import { z } from "zod";
import { defineNode } from "../types";
import { cssColor, dashboardNodeRed } from "../dashboard-support";

const color = (d: string, title: string) => cssColor(d, { title });
const shape = {
  colors: z
    .object({
      surface: color("#fcfcfd", "Surface (app bar)"),
      primary: color("#0d74ce", "Primary"),
      bgPage: color("#f9f9fb", "Page background"),
      groupBg: color("#ffffff", "Group background"),
      groupOutline: color("#d9d9e0", "Group outline"),
    })
    .default({ surface: "#fcfcfd", primary: "#0d74ce", bgPage: "#f9f9fb", groupBg: "#ffffff", groupOutline: "#d9d9e0" })
    .meta({ title: "Colors" }),
  sizes: z
    .object({
      density: z.enum(["default", "comfortable", "compact"]).default("default").meta({ title: "Density" }),
      pagePadding: z.string().max(32).default("12px").meta({ title: "Page padding" }),
      groupGap: z.string().max(32).default("12px").meta({ title: "Gap between groups" }),
      groupBorderRadius: z.string().max(32).default("4px").meta({ title: "Group corner radius" }),
      widgetGap: z.string().max(32).default("12px").meta({ title: "Gap between widgets" }),
    })
    .default({ density: "default", pagePadding: "12px", groupGap: "12px", groupBorderRadius: "4px", widgetGap: "12px" })
    .meta({ title: "Sizes" }),
};

export const uiThemeConfig = z.object(shape);

export const uiThemeNode = defineNode({
  type: "ui-theme",
  version: 1,
  category: "config",
  kind: "config",
  name: "Dashboard theme",
  description: "Colors and sizes of dashboard pages (Dashboard 2.0's ui-theme).",
  help: `Colors and spacing of the dashboard pages that name it, as Dashboard 2.0's \`ui-theme\`.

### Inputs

None: a configuration node has no wires.

### Outputs

None.

### Details

- **Colors**: the app bar (surface), the primary color of buttons and active controls, the page background, and each group's background and outline.
- **Sizes**: density of the widgets, the page's padding, the gaps between groups and between widgets, and the groups' corner radius (CSS lengths such as \`12px\`).
- A page without a theme uses these defaults.`,
  inputs: 0,
  outputs: 0,
  configSchema: uiThemeConfig,
  nodeRed: dashboardNodeRed("ui-theme", shape),
});
