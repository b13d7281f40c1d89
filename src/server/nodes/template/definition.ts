import { z } from "zod";
import { defineNode } from "../types";
import { checkOperand, operandTypeSchema } from "../../runtime/operands";

export const templateConfig = z
  .object({
    // As long as a function's code (a template that is a whole web page, served by http in → template → http response, is real: 260 KB in the sixth survey).
    template: z.string().max(1_000_000, "must be at most 1,000,000 characters").default("This is the payload: {{payload}} !").meta({ title: "Template", description: "Mustache template; {{flow.x}}, {{global.x}} and {{env.NAME}} read context and variables" }),
    syntax: z.enum(["mustache", "plain"]).default("mustache").meta({ title: "Syntax", description: "mustache: fill in {{...}}; plain: the text as it is" }),
    /** Where the result is written. */
    field: z.string().min(1).max(256).default("payload").meta({ title: "Set property", description: "The message property, or flow or global context key, that gets the result" }),
    field_type: operandTypeSchema(["msg", "flow", "global"] as const, "Property type").default("msg"),
    output: z.enum(["str", "json", "yaml"]).default("str").meta({ title: "Output as", description: "str: the text; json or yaml: the text parsed" }),
    /** The editor's syntax highlighting in Node-RED (kept for export). */
    format: z.string().max(32).default("handlebars").meta({ title: "Syntax highlight" }),
  })
  .superRefine((c, ctx) => checkOperand(ctx, ["field"], c.field, c.field_type));

const HELP = `Sets a property from a template: by default a [mustache](https://mustache.github.io/mustache.5.html) template filled with the message's properties.

### Inputs
- **msg** the message whose properties fill the template.
- **template** *string*: the template to use when the node has none of its own.

### Outputs
- **msg** the message, with the configured property set to the result (or the message unchanged, when the result goes to flow or global context).

### Details
A template of \`Hello {{payload.name}}. Today is {{date}}\` with the message \`{"date": "Monday", "payload": {"name": "Fred"}}\` gives \`Hello Fred. Today is Monday\`.

\`{{flow.name}}\` and \`{{global.name}}\` read flow and global context (nested keys too, such as \`{{flow.stats.total}}\`), and \`{{env.COLOUR}}\` a variable.

Mustache escapes HTML entities in the values it substitutes: use \`{{{triple}}}\` braces to prevent it. To use \`{{ }}\` in your content, change the delimiters on the first line, for example \`{{=[[ ]]=}}\`.

*Output as* parses the text: **json** (string values are escaped so the result stays valid JSON) or **yaml**. A text that does not parse is an error and the message is not sent.

### Differences from Node-RED
- Context uses the default store only: \`{{flow[store].name}}\` reads the same value as \`{{flow.name}}\`.`;

export const templateNode = defineNode({
  type: "template",
  version: 1,
  category: "function",
  name: "Template",
  description: "Sets a property from a mustache template filled with the message's properties, context and variables.",
  help: HELP,
  inputs: 1,
  outputs: 1,
  configSchema: templateConfig,
  nodeRed: {
    type: "template",
    toNodeRed: (c) => ({ field: c.field, fieldType: c.field_type, format: c.format, syntax: c.syntax, template: c.template, output: c.output }),
    fromNodeRed: (p) => ({
      template: String(p.template ?? ""),
      syntax: p.syntax === "plain" ? "plain" : "mustache",
      field: String(p.field || "payload"),
      field_type: String(p.fieldType || "msg"),
      output: p.output === "json" || p.output === "yaml" ? p.output : "str",
      format: String(p.format || "handlebars"),
    }),
  },
});
