import { z } from "zod";
import { defineNode } from "../types";
import { propertyPath } from "../property-path";
import { MAX_PARSER_INPUT_CHARS } from "../parsers/input";

export const htmlConfig = z.object({
  property: propertyPath.default("payload").meta({ title: "Property", description: "The message property holding the HTML, payload by default." }),
  out_property: propertyPath.default("payload").meta({ title: "Output property", description: "Where the result goes, payload by default." }),
  selector: z.string().max(1024).default("").meta({ title: "Selector", description: "A CSS selector (css-select and jQuery extensions); empty: msg.select is used." }),
  return: z
    .enum(["html", "text", "attr", "compl"])
    .default("html")
    .meta({
      title: "Output",
      description:
        "html: the HTML content of the elements; text: only their text content; attr: an object of their attributes; compl: an object of their attributes and HTML content.",
    }),
  output_as: z
    .enum(["single", "multi"])
    .default("single")
    .meta({ title: "Send", description: "single: one message whose value is an array of the matched elements; multi: one message per element, with msg.parts." }),
  content_key: z
    .string()
    .min(1)
    .max(64)
    .refine((k) => !["__proto__", "constructor", "prototype"].includes(k), "must not be __proto__, constructor or prototype")
    .default("_")
    .meta({ title: "Property name for HTML content", description: "With the output 'compl', the property holding the element's HTML content." }),
});

const help = `Extracts elements from an HTML document held in \`msg.payload\` using a CSS selector.

### Inputs

- **payload** (string): the HTML string from which to extract elements.
- **select** (string, optional): if no selector is configured in the node, the selector can be set as a property of msg.

### Outputs

- **payload** (array | string | object): the result can be either a single message with a payload containing an array of the matched elements, or multiple messages that each contain a matched element. If multiple messages are sent they also have \`parts\` set (\`{id, index, count, type: "string", ch: ""}\`), so a join node can put them back together.

### Details

This node supports a combination of CSS and jQuery selectors (css-select's syntax, as Node-RED, through cheerio). For each matched element the node returns, as configured:

- **html**: the HTML content of the element (XML-serialized, so an unclosed \`<img>\` becomes \`<img src="…"/>\`),
- **text**: only its text content,
- **attr**: an object of its attributes,
- **compl**: an object of its attributes and its HTML content (under the configured property name, \`_\` by default).

The document is parsed as a whole document. A selector matching nothing gives an empty array (single mode) or no message (multiple). In multiple mode an element whose HTML or text is empty sends no message, as in Node-RED. The input and output properties may be other than \`payload\`. A message without the property passes through; a value that is not a string (or bytes) and an invalid selector are errors catch nodes receive.

### Differences from Node-RED

- Text over ${MAX_PARSER_INPUT_CHARS / 1024 / 1024} MiB is refused with a node error.
- In multiple mode with an output property other than the input property, each message carries a copy of the HTML; when those copies would exceed 64 Mi characters in all, the node reports an error instead of sending.
- Node-RED hands any value to cheerio, which fails on most non-strings with its own messages; here every value that is neither a string nor bytes fails with "cheerio.load() expects a string".
`;

export const htmlNode = defineNode({
  type: "html",
  version: 1,
  category: "parser",
  name: "HTML",
  description: "Extracts elements from an HTML document with a CSS selector: their HTML, text or attributes.",
  help,
  inputs: 1,
  outputs: 1,
  configSchema: htmlConfig,
  nodeRed: {
    type: "html",
    toNodeRed: (c) => ({ property: c.property, outproperty: c.out_property, tag: c.selector, ret: c.return, as: c.output_as, chr: c.content_key }),
    fromNodeRed: (p) => {
      const property = String(p.property || "payload");
      return {
        property,
        out_property: String(p.outproperty || property),
        selector: typeof p.tag === "string" ? p.tag : "",
        return: ["html", "text", "attr", "compl"].includes(String(p.ret)) ? p.ret : "html",
        output_as: p.as === "multi" ? "multi" : "single",
        content_key: typeof p.chr === "string" && p.chr ? p.chr : "_",
      };
    },
  },
});
