import { z } from "zod";
import { defineNode } from "../types";
import { MAX_PARSER_INPUT_CHARS } from "../parsers/input";
import { parseCsv } from "./rfc4180";

export const csvConfig = z
  .object({
    spec: z
      .enum(["rfc", "legacy"])
      .default("rfc")
      .meta({
        title: "Parser",
        description: "rfc: RFC 4180 parsing (the default for new nodes); legacy: Node-RED's parser before 4.0, which flows imported without a parser setting use.",
      }),
    columns: z.string().max(10_000).default("").meta({ title: "Columns", description: "Comma-separated column names (even with another separator); empty: col1, col2… or the header row." }),
    separator: z
      .string()
      .min(1)
      .max(2)
      .default(",")
      .meta({ title: "Separator", description: "One character (\\t for a tab), as in Node-RED: comma, tab, space, semicolon, colon, hashtag or another." }),
    skip_lines: z.number().int().min(0).max(1_000_000).default(0).meta({ title: "Skip first lines", description: "Lines ignored at the start of the CSV." }),
    header_in: z.boolean().default(false).meta({ title: "First row contains column names" }),
    parse_numbers: z.boolean().default(true).meta({ title: "Parse numerical values", description: "Numeric strings become numbers." }),
    include_empty_strings: z.boolean().default(false).meta({ title: "Include empty strings", description: 'A "" cell gives an empty string instead of no property.' }),
    include_null_values: z.boolean().default(false).meta({ title: "Include null values", description: "An empty cell gives null instead of no property." }),
    output: z
      .enum(["one", "mult"])
      .default("one")
      .meta({ title: "Output", description: "one: a message per row (with msg.parts); mult: a single message with an array of rows." }),
    header_out: z
      .enum(["none", "all", "once"])
      .default("none")
      .meta({ title: "Include column name row", description: "When writing CSV: never, in every message, or once (until a msg.reset)." }),
    newline: z
      .enum(["\\r\\n", "\\n", "\\r"])
      .default("\\r\\n")
      .meta({ title: "Newline", description: "Line ending of the CSV the node writes: Windows (\\r\\n, RFC 4180), Linux (\\n) or Mac (\\r)." }),
  })
  .superRefine((c, ctx) => {
    // Node-RED's RFC mode refuses to start with a template that does not parse strictly; here the flow is refused when saved.
    if (c.spec !== "rfc") return;
    try {
      parseCsv(c.columns, { separator: ",", quote: '"', outputStyle: "array", strict: true });
    } catch (err) {
      ctx.addIssue({ code: "custom", path: ["columns"], message: `Malformed columns template: ${(err as Error).message}` });
    }
  });

const help = `Converts between a CSV formatted string and its JavaScript object representation, in either direction.

### Inputs

- **payload** (object | array | string): a JavaScript object, array or CSV string.
- **columns** (string, optional): when writing CSV without a configured template, a comma-separated list of the properties to write, in order.
- **reset** (any, optional): makes a node set to send the column names once send them again.
- **parts** (object, optional): the node accepts a multi-part input (from a split node, say) as long as \`parts\` is set correctly.

### Outputs

- **payload** (object | array | string):
  - If the input is a string, the node parses it as CSV and creates a JavaScript object of key/value pairs for each line. It then either sends a message for each line (with \`parts\` set, forming a complete message sequence), or a single message containing an array of objects.
  - If the input is a JavaScript object, it builds a CSV string.
  - If the input is an array of simple values, it builds a single-line CSV string.
  - If the input is an array of arrays, or an array of objects, it builds a multiple-line CSV string.
- **columns** (string): the column names, comma-separated.

### Details

The column template can hold an ordered list of column names. When converting CSV to an object, the column names are used as the property names. Alternatively, the column names can be taken from the first row of the CSV. With the RFC parser, the column template must be RFC 4180 compliant (a template that is not is refused when the flow is saved). **Note:** the column template is comma-separated even if another separator is chosen for the data.

When converting to CSV, the column template says which properties to take from the object and in what order. If the template is blank, \`msg.columns\` (a simple comma-separated list) can say it; if neither is present, every property is written in the order found in the first row. If the input is an array, the template is only used to write an optional row of column titles.

With "parse numerical values", numeric strings become numbers (the middle value of \`1,"1.5",2\`). With "include empty strings", empty strings are kept (the middle value of \`"1","",3\`); with "include null values", empty cells are kept as null (the middle value of \`"1",,3\`).

If the node is set to send the column names only once, setting \`msg.reset\` to any value makes it send them again.

Two parsers, as in Node-RED 4.1: **RFC 4180** (the default for new nodes) and **legacy**, Node-RED's parser before 4.0, which a Node-RED flow without a parser setting imports with, so old flows give the messages they always gave. In RFC mode, malformed CSV headers and an input that is neither a string nor an object are errors catch nodes receive (with a red status); in legacy mode the latter is a warning, and unbalanced quotes warn "Malformed CSV data - output probably corrupt.".

### Differences from Node-RED

- CSV text over ${MAX_PARSER_INPUT_CHARS / 1024 / 1024} MiB is refused with a node error.
- One message per row is bounded by the runtime's loop guard: the rows of one input share its message id, and a message id that passes through more than 10,000 nodes is dropped with an error. Use "a single message" output for larger files.
`;

export const csvNode = defineNode({
  type: "csv",
  version: 1,
  category: "parser",
  name: "CSV",
  description: "Converts between a CSV string and objects or arrays, in either direction (RFC 4180 or Node-RED's legacy parser).",
  help,
  inputs: 1,
  outputs: 1,
  configSchema: csvConfig,
  nodeRed: {
    type: "csv",
    toNodeRed: (c) => ({
      spec: c.spec === "rfc" ? "rfc" : "",
      sep: c.separator,
      hdrin: c.header_in,
      hdrout: c.header_out,
      multi: c.output,
      ret: c.newline,
      temp: c.columns,
      skip: String(c.skip_lines),
      strings: c.parse_numbers,
      include_empty_strings: c.include_empty_strings,
      include_null_values: c.include_null_values,
    }),
    fromNodeRed: (p) => {
      const spec = p.spec === "rfc" ? "rfc" : "legacy";
      // Node-RED's own defaults where a property is missing: "\r\n" in RFC mode, "\n" in legacy.
      const ret = String(p.ret || (spec === "rfc" ? "\\r\\n" : "\\n"))
        .replace(/\r/g, "\\r")
        .replace(/\n/g, "\\n");
      const hdrout = p.hdrout === true || p.hdrout === "all" ? "all" : p.hdrout === "once" ? "once" : "none";
      return {
        spec,
        columns: String(p.temp ?? ""),
        separator: String(p.sep || ","),
        skip_lines: Math.max(0, parseInt(String(p.skip ?? "0"), 10) || 0),
        header_in: Boolean(p.hdrin),
        parse_numbers: p.strings === undefined ? true : Boolean(p.strings),
        include_empty_strings: Boolean(p.include_empty_strings),
        include_null_values: Boolean(p.include_null_values),
        // Node-RED sends one array for any value but "one" (its own tests use "yes").
        output: p.multi && p.multi !== "one" ? "mult" : "one",
        header_out: hdrout,
        newline: ["\\r\\n", "\\n", "\\r"].includes(ret) ? ret : "\\n",
      };
    },
  },
});
