import { z } from "zod";
import { defineNode } from "../types";
import { propertyPath } from "../property-path";
import { MAX_PARSER_INPUT_CHARS } from "../parsers/input";

/** A property name for attributes or text: empty means xml2js's default ($ or _). */
const keyName = z
  .string()
  .max(64)
  .refine((k) => !["__proto__", "constructor", "prototype"].includes(k), "must not be __proto__, constructor or prototype")
  .default("");

export const xmlConfig = z.object({
  property: propertyPath.default("payload").meta({ title: "Property", description: "The message property converted, payload by default." }),
  attribute_key: keyName.meta({ title: "Property name for XML tag attributes", description: "Where a tag's attributes go in the object; empty: $." }),
  text_key: keyName.meta({ title: "Property name for tag text content", description: "Where a tag's text goes when it also has attributes or children; empty: _." }),
});

const help = `Converts between an XML string and its JavaScript object representation, in either direction.

### Inputs

- **payload** (object | string): a JavaScript object or XML string.
- **options** (object, optional): any of the options of xml2js, the library that converts to and from XML (see the xml2js README, "Options"), e.g. \`explicitArray: false\` or \`headless: true\`.

### Outputs

- **payload** (object | string): if the input is a string, the node parses it as XML and creates a JavaScript object; if the input is a JavaScript object, the node builds an XML string.

### Details

When converting from XML to an object, the attributes of a tag are added as a property named \`$\` by default, and its text content as a property named \`_\`. These property names can be set in the node's configuration (a name set there wins over \`msg.options.attrkey\` / \`charkey\`).

For example, \`<p class="tag">Hello World</p>\` becomes \`{"p": {"$": {"class": "tag"}, "_": "Hello World"}}\`.

Without \`msg.options\`, an object is written as XML without indentation. As in Node-RED, the node sets \`async\` (and, for parsing, \`attrkey\`/\`charkey\`) on the \`msg.options\` it was given, so they are seen on the message it sends. An XML string that does not parse is an error (xml2js's message, e.g. "Unexpected close tag") that catch nodes receive; a number or boolean is dropped with the warning "This node only handles xml strings or js objects.". A message without the property passes through unchanged.

Entities: only XML's predefined entities (\`&amp;\`, \`&lt;\`…) and character references are understood. Entities a DOCTYPE declares, internal or external (\`SYSTEM "file:…"\`), are never expanded or fetched: in the default strict mode they are an "Invalid character entity" error, with \`strict: false\` they stay as written.

### Differences from Node-RED

- Text over ${MAX_PARSER_INPUT_CHARS / 1024 / 1024} MiB is refused with a node error.
- \`msg.options\` naming \`__proto__\`, \`constructor\` or \`prototype\` as the attribute or text key is refused with a node error.
- Bytes (a Buffer) are parsed as UTF-8 XML text; Node-RED treats a Buffer as an object and builds XML from its byte values.
`;

export const xmlNode = defineNode({
  type: "xml",
  version: 1,
  category: "parser",
  name: "XML",
  description: "Converts a property between an XML string and an object.",
  help,
  inputs: 1,
  outputs: 1,
  configSchema: xmlConfig,
  nodeRed: {
    type: "xml",
    toNodeRed: (c) => ({ property: c.property, attr: c.attribute_key, chr: c.text_key }),
    fromNodeRed: (p) => ({
      property: String(p.property || "payload"),
      attribute_key: typeof p.attr === "string" ? p.attr : "",
      text_key: typeof p.chr === "string" ? p.chr : "",
    }),
  },
});
