import { z } from "zod";
import { defineNode } from "../types";
import { className, dashboardNodeRed, groupRef, height, order, width } from "../dashboard-support";

const shape = {
  group: groupRef,
  order,
  width: width(1),
  height: height(1),
  tooltip: z.string().max(1000).default("").meta({ title: "Tooltip" }),
  className,
};

export const uiSpacerConfig = z.object(shape);

export const uiSpacerNode = defineNode({
  type: "ui-spacer",
  version: 1,
  category: "config",
  kind: "config",
  name: "Dashboard spacer",
  description: "Empty space in a dashboard group (Dashboard 2.0's ui-spacer).",
  help: `Empty space of **width** × **height** in a dashboard group, at its **order** among the group's widgets, as Dashboard 2.0's \`ui-spacer\`.

### Inputs

None: a configuration node has no wires.

### Outputs

None.

### Details

- Dashboard 2.0's layout editor stores spacers this way, as configuration nodes that name their group, and an import keeps them so.
- A spacer shows on the page once a flow with a widget in its group is deployed (it goes with that flow's deployment, as the group does).`,
  inputs: 0,
  outputs: 0,
  configSchema: uiSpacerConfig,
  nodeRed: dashboardNodeRed("ui-spacer", shape),
});
