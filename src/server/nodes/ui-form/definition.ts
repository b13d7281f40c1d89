import { z } from "zod";
import { defineNode } from "../types";
import { className, dashboardNodeRed, groupRef, height, label, order, passthru, topic, topicType, width } from "../dashboard-support";

const shape = {
  group: groupRef,
  order,
  width: width(0),
  height: height(0),
  label: label(""),
  options: z
    .array(z.object({ key: z.string().min(1).max(200).meta({ title: "Key" }), label: z.string().max(1000).default("").meta({ title: "Label" }), type: z.string().max(32).default("text").meta({ title: "Type" }), required: z.boolean().default(false).meta({ title: "Required" }), rows: z.number().int().min(1).max(100).nullable().optional().meta({ title: "Rows", description: "A multiline field's height; Dashboard 2.0 writes null for the others" }) }))
    .max(200)
    .default([])
    .meta({ title: "Fields" }),
  formValue: z.record(z.string(), z.unknown()).default({}).meta({ title: "Initial values" }),
  payload: z.string().max(65_536).default("").meta({ title: "Payload" }),
  submit: z.string().max(200).default("submit").meta({ title: "Submit button label" }),
  cancel: z.string().max(200).default("clear").meta({ title: "Cancel button label" }),
  resetOnSubmit: z.boolean().default(true).meta({ title: "Reset on submit" }),
  splitLayout: z.union([z.boolean(), z.literal("")]).default("").meta({ title: "Two columns" }),
  className,
  passthru: passthru(false),
  dropdownOptions: z.array(z.unknown()).max(200).default([]).meta({ title: "Dropdown options" }),
  topic,
  topicType,
};

export const uiFormConfig = z.object(shape);

export const uiFormNode = defineNode({
  type: "ui-form",
  version: 1,
  category: "dashboard",
  name: "Form",
  description: "A form on a dashboard page: a viewer's submit sends every field's value.",
  help: `A form on a dashboard page, as Dashboard 2.0's \`ui-form\`: on submit, the values of its fields are sent as one object.

### Inputs

- \`payload\` (object): fills the fields (keys are the fields' keys); passed on with **Pass messages through**.
- \`ui_update\` (object): \`options\` replaces the fields, \`label\` … while the page is open; \`enabled\`, \`visible\` and \`class\` too.

### Outputs

- \`payload\` (object): each field's key and value.
- \`topic\`: the configured topic.
- \`_client\` (object): who submitted.

### Details

- Each field has a \`key\`, a \`label\`, a \`type\` (text, multiline, password, email, number, checkbox, switch, date, time, dropdown) and whether it is \`required\`; a submit missing a required field, or naming a field the form does not have, is refused.
- **Reset on submit** empties the fields after a submit.`,
  inputs: 1,
  outputs: 1,
  configSchema: uiFormConfig,
  nodeRed: dashboardNodeRed("ui-form", shape),
});
