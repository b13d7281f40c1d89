import { z } from "zod";
import { defineNode } from "../types";
import { className, dashboardNodeRed, groupRef, height, label, optionsList, order, passthru, tooltip, topic, topicType, width } from "../dashboard-support";

const shape = {
  group: groupRef,
  order,
  width: width(0),
  height: height(0),
  label: label("Select Option"),
  tooltip,
  passthru: passthru(false),
  multiple: z.boolean().default(false).meta({ title: "Multiple" }),
  chips: z.boolean().default(false).meta({ title: "Show as chips" }),
  clearable: z.boolean().default(false).meta({ title: "Clearable" }),
  options: optionsList,
  payload: z.string().max(65_536).default("").meta({ title: "Initial value" }),
  className,
  typeIsComboBox: z.boolean().default(true).meta({ title: "Allow searching", description: "A combo box that filters options as the viewer types" }),
  msgTrigger: z.enum(["onChange", "onClose"]).default("onChange").meta({ title: "Send" }),
  topic,
  topicType,
};

export const uiDropdownConfig = z.object(shape);

export const uiDropdownNode = defineNode({
  type: "ui-dropdown",
  version: 1,
  category: "dashboard",
  name: "Dropdown",
  description: "A dropdown on a dashboard page: the option a viewer picks is sent.",
  help: `A dropdown on a dashboard page, as Dashboard 2.0's \`ui-dropdown\`: the option (or options) a viewer picks is sent as \`msg.payload\`.

### Inputs

- \`payload\`: selects the option with that value (an array: several, with **Multiple**); passed on with **Pass messages through**.
- \`ui_update\` (object): \`options\` replaces the choices (an array of \`{value, label}\`), \`label\` … while the page is open; \`enabled\`, \`visible\` and \`class\` too.

### Outputs

- \`payload\`: the chosen option's value (an array with **Multiple**).
- \`topic\`: the configured topic.
- \`_client\` (object): who chose.

### Details

A value that is none of the options is refused. The choice is kept: every viewer sees it.`,
  inputs: 1,
  outputs: 1,
  configSchema: uiDropdownConfig,
  nodeRed: dashboardNodeRed("ui-dropdown", shape),
});
