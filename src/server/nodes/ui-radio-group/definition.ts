import { z } from "zod";
import { defineNode } from "../types";
import { className, dashboardNodeRed, groupRef, height, label, optionsList, order, passthru, topic, topicType, width } from "../dashboard-support";

const shape = {
  group: groupRef,
  order,
  width: width(0),
  height: height(0),
  label: label("Select Option:"),
  columns: z.number().int().min(1).max(12).default(1).meta({ title: "Columns" }),
  passthru: passthru(false),
  options: optionsList,
  payload: z.string().max(65_536).default("").meta({ title: "Initial value" }),
  className,
  topic,
  topicType,
};

export const uiRadioGroupConfig = z.object(shape);

export const uiRadioGroupNode = defineNode({
  type: "ui-radio-group",
  version: 1,
  category: "dashboard",
  name: "Radio group",
  description: "Radio buttons on a dashboard page: the option a viewer picks is sent.",
  help: `Radio buttons on a dashboard page, as Dashboard 2.0's \`ui-radio-group\`: the option a viewer picks is sent as \`msg.payload\`.

### Inputs

- \`payload\`: selects the option with that value (passed on with **Pass messages through**).
- \`ui_update\` (object): \`options\` replaces the choices, \`label\`, \`columns\` … while the page is open; \`enabled\`, \`visible\` and \`class\` too.

### Outputs

- \`payload\`: the chosen option's value.
- \`topic\`: the configured topic.
- \`_client\` (object): who chose.

### Details

A value that is none of the options is refused. The choice is kept: every viewer sees it.`,
  inputs: 1,
  outputs: 1,
  configSchema: uiRadioGroupConfig,
  nodeRed: dashboardNodeRed("ui-radio-group", shape),
});
