import { z } from "zod";
import { defineNode } from "../types";
import { className, dashboardNodeRed, groupRef, height, label, order, passthru, width } from "../dashboard-support";

/** Dashboard 2.0's column types (UITableCell.vue). */
export const TABLE_CELL_TYPES = ["text", "row", "html", "link", "color", "tickcross", "progress", "sparkline-trend", "sparkline-bar", "button", "image", "datetime", "date", "time"] as const;

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
    .array(
      z.object({
        key: z.string().max(200).meta({ title: "Key", description: "The row's property (a dotted path), or the cell's text with key type str" }),
        keyType: z.enum(["key", "str"]).default("key").meta({ title: "Key type" }),
        title: z.string().max(200).default("").meta({ title: "Title" }),
        label: z.string().max(200).default("").meta({ title: "Label", description: "Dashboard 2.0's earlier name of the title" }),
        type: z.enum(TABLE_CELL_TYPES).catch("text").default("text").meta({ title: "Type" }),
        width: z.union([z.string().max(16), z.number()]).optional().meta({ title: "Width" }),
        align: z.string().max(16).optional().meta({ title: "Align" }),
      }),
    )
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
- A \`button\` column's click: the row as \`payload\`, \`column\` (its key) and \`action\` \`"button_click"\`, with \`_client\`.
- With **Pass messages through**, the incoming messages.

### Details

Columns come from the rows' keys, or from **Columns** with **Columns from the data** off: each has a **Key** (a dotted path into the row, or the cell's text with key type \`str\`), a **Title**, an alignment and a **Type**, as Dashboard 2.0's: \`text\`, \`row\` (the row's number), \`html\` (without script, event handlers or styles), \`link\` (http, https, mailto or a path of this site, in a new tab), \`color\`, \`tickcross\` (a tick for a true value, a cross otherwise), \`progress\` (0 to 100), \`sparkline-trend\` and \`sparkline-bar\` (an array of numbers), \`button\`, \`image\` and \`datetime\`, \`date\`, \`time\` (epoch seconds or milliseconds, or a date's text, in the viewer's locale).

The rows are kept (at most 10,000, the newest): every viewer sees them, after a restart too. Rows of a message that carries \`msg._client\` (one viewer's own, such as a form's submit) are added to that viewer's table only, and stay in their browser tab's table as its pages change.`,
  inputs: 1,
  outputs: 1,
  configSchema: uiTableConfig,
  nodeRed: dashboardNodeRed("ui-table", shape),
});
