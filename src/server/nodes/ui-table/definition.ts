import { z } from "zod";
import { defineNode } from "../types";
import { className, dashboardNodeRed, groupRef, height, label, order, passthru, width } from "../dashboard-support";

const shape = {
  group: groupRef,
  order,
  width: width(0),
  height: height(0),
  label: label(""),
  maxrows: z.number().int().min(0).max(10_000).default(0).meta({ title: "Rows per page", description: "0: every row on one page" }),
  passthru: passthru(false),
  autocols: z.boolean().default(true).meta({ title: "Columns from the data" }),
  showSearch: z.boolean().default(true).meta({ title: "Search box" }),
  deselect: z.boolean().default(true).meta({ title: "Allow deselecting" }),
  selectionType: z.enum(["none", "click", "checkbox", "radio"]).default("none").meta({ title: "Selection", description: "click: a click on a row sends it" }),
  columns: z
    .array(z.object({ key: z.string().max(200).meta({ title: "Key" }), label: z.string().max(200).default("").meta({ title: "Label" }), type: z.string().max(32).default("text").meta({ title: "Type" }), width: z.union([z.string().max(16), z.number()]).optional().meta({ title: "Width" }), align: z.string().max(16).optional().meta({ title: "Align" }) }))
    .max(100)
    .nullable()
    .default(null)
    .meta({ title: "Columns" }),
  mobileBreakpoint: z.string().max(16).default("sm").meta({ title: "Phone breakpoint" }),
  mobileBreakpointType: z.string().max(16).default("defaults").meta({ title: "Phone breakpoint type" }),
  action: z.enum(["append", "replace"]).default("append").meta({ title: "Action", description: "append: add the rows; replace: each message's rows replace the table's" }),
  className,
};

export const uiTableConfig = z.object(shape);

/** Rows a table keeps at most (the state's bound, whatever the node says). */
export const TABLE_MAX_ROWS = 10_000;

export const uiTableNode = defineNode({
  type: "ui-table",
  version: 1,
  category: "dashboard",
  name: "Table",
  description: "A table of rows on a dashboard page.",
  help: `A table on a dashboard page, as Dashboard 2.0's \`ui-table\`: each message's \`payload\`, an array of objects, adds rows (or replaces them).

### Inputs

- \`payload\` (array): rows, each an object whose keys are the columns; \`[]\` clears the table.
- \`action\` (string): \`replace\` or \`append\`, for this message only.
- \`ui_update\` (object): changes \`columns\`, \`label\` … while the page is open.

### Outputs

- With **Selection** \`click\`: the row a viewer clicked, as \`payload\`, with \`_client\`.
- With **Pass messages through**, the incoming messages.

### Details

The rows are kept (at most 10,000, the newest): every viewer sees them, after a restart too.`,
  inputs: 1,
  outputs: 1,
  configSchema: uiTableConfig,
  nodeRed: dashboardNodeRed("ui-table", shape),
});
