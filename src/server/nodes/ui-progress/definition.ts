import { z } from "zod";
import { defineNode } from "../types";
import { className, dashboardNodeRed, groupRef, height, label, order, width } from "../dashboard-support";

const shape = {
  group: groupRef,
  order,
  width: width(0),
  height: height(0),
  label: label("Progress"),
  color: z
    .string()
    .max(64)
    .default("")
    .meta({ title: "Colour", description: "A theme colour (primary, secondary, success, error, warning, info), a Material colour (green, green-darken-2) or a CSS colour; empty: primary" }),
  className,
};

export const uiProgressConfig = z.object(shape);

export const uiProgressNode = defineNode({
  type: "ui-progress",
  version: 1,
  category: "dashboard",
  name: "Progress",
  description: "A progress bar on a dashboard page: msg.payload is the percentage done.",
  help: `A progress bar on a dashboard page, as Dashboard 2.0's \`ui-progress\`: each message's \`payload\` (a number, 0 to 100) is the part done.

### Inputs

- \`payload\` (number): the percentage shown; below 0 shows 0, above 100 shows 100, anything that is not a number shows 0.
- \`ui_update\` (object): \`label\` and \`color\` change the bar's label and colour while the page is open; \`enabled\`, \`visible\` and \`class\` too.

### Outputs

None.

### Details

With a label the bar reads "Label: 75%" (the percentage rounded up, as Dashboard 2.0's). The colour is a theme colour (\`primary\`, \`secondary\`, \`success\`, \`error\`, \`warning\`, \`info\`), a Material Design colour (\`green\`, \`green-darken-2\`, \`blue-lighten-1\`) or any CSS colour (\`#a5a5a5\`, \`rgb(165,165,165)\`). The last value is kept: a viewer who opens the page later sees it. To assistive technology the bar is a progress bar with its value.`,
  inputs: 1,
  outputs: 0,
  configSchema: uiProgressConfig,
  nodeRed: dashboardNodeRed("ui-progress", shape),
});
