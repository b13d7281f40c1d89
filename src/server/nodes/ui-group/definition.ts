import { z } from "zod";
import { defineNode } from "../types";
import { configNodeRef } from "../../../shared/config-nodes";
import { dashboardNodeRed, fromDashboardProps, MAX_ORDER } from "../dashboard-support";

/**
 * The widest group: a page's breakpoints have at most 24 columns. Dashboard 2.0 keeps any width
 * (its editor offers at least 12) and draws `min(width, columns)`, so a group of 16 on a 12-column
 * page spans it; wider than 24 imports as 24, which draws the same.
 */
const MAX_GROUP_WIDTH = 24;

const shape = {
  page: configNodeRef("ui-page", { title: "Page", description: "The page the group is shown on" }),
  width: z.number().int().min(1).max(MAX_GROUP_WIDTH).default(6).meta({ title: "Width", description: "Columns of the page's grid (12 on a desktop; a wider group spans the whole page)" }),
  height: z.number().int().min(0).max(64).default(1).meta({ title: "Height", description: "Rows (at least)" }),
  order: z.number().int().min(-1).max(MAX_ORDER).default(-1).meta({ title: "Order", description: "Position on the page (smallest first)" }),
  showTitle: z.boolean().default(true).meta({ title: "Show the title" }),
  collapse: z.boolean().default(false).meta({ title: "Can be collapsed", description: "A button beside the title folds the group away (Dashboard 1's \"Allow group to be collapsed\"); needs the title shown" }),
  className: z.string().max(500).default("").meta({ title: "Class" }),
  visible: z.boolean().default(true).meta({ title: "Visible" }),
  disabled: z.boolean().default(false).meta({ title: "Disabled" }),
  groupType: z.enum(["default", "dialog"]).default("default").meta({ title: "Group type" }),
};

export const uiGroupConfig = z.object(shape);

export const uiGroupNode = defineNode({
  type: "ui-group",
  version: 1,
  category: "config",
  kind: "config",
  name: "Dashboard group",
  description: "A group of widgets on a dashboard page (Dashboard 2.0's ui-group).",
  help: `A card of widgets on a dashboard page, as Dashboard 2.0's \`ui-group\`: every widget names the group it is shown in.

### Inputs

None: a configuration node has no wires.

### Outputs

None.

### Details

- **Width** is in columns of the page's grid: 12 on a desktop (6: half the page), fewer on narrower screens, up to 24 with a page's own breakpoints. A group wider than the page's columns spans the whole page, as in Dashboard 2.0; on a phone groups stack.
- **Order** places the group on its page, smallest first; widgets are placed in the group by their own order.
- **Visible** and **Disabled** can also be changed while the page is open with a \`ui-control\` node.
- **Can be collapsed** (Dashboard 1's "Allow group to be collapsed"; Dashboard 2.0 has no such setting): the title gets a button that folds the group to its title and back. Each browser remembers which groups it folded, as Dashboard 1 did. A \`ui-control\` node opens and closes such groups (\`payload.groups.open\` / \`close\`, or Dashboard 1's \`payload.group\`) and, unless its Output is "connect" only, tells the flow when a viewer folds or opens one (\`payload: "group"\`, \`group\`, \`open\`). Without the title shown there is no button, as in Dashboard 1.
- A group from an earlier Dashboard 2.0 flow that has \`disp\` (its "display name" box) and no \`showTitle\` imports with **Show the title** as \`disp\` says, as Dashboard 2.0's editor reads it when the group is opened (its runtime shows the title whatever \`disp\` says).`,
  inputs: 0,
  outputs: 0,
  configSchema: uiGroupConfig,
  nodeRed: {
    ...dashboardNodeRed("ui-group", shape),
    // Dashboard 2.0's earlier groups wrote `disp` (its "display name" box); its editor takes it as
    // showTitle when the group is opened, so a group that hid its title keeps it hidden here.
    fromNodeRed: (p, refused) => {
      const titled = p.showTitle === undefined && [true, false, "true", "false"].includes(p.disp as never) ? { ...p, showTitle: p.disp } : p;
      // Wider than any page: the whole page, as Dashboard 2.0 draws it.
      const wide = Number(titled.width) > MAX_GROUP_WIDTH ? { ...titled, width: MAX_GROUP_WIDTH } : titled;
      return fromDashboardProps(shape, wide, refused);
    },
    absorbed: ["disp"],
  },
});
