import { z } from "zod";
import { defineNode } from "../types";
import { propertyPath } from "../property-path";
import { MAX_PARSER_INPUT_CHARS } from "../parsers/input";

export const MAX_YAML_VALUES = 1_000_000;

export const yamlConfig = z.object({
  property: propertyPath.default("payload").meta({ title: "Property", description: "The message property converted, payload by default." }),
});

const help = `Converts between a YAML formatted string and its JavaScript object representation, in either direction.

### Inputs

- **payload** (object | string): a JavaScript object or YAML string.

### Outputs

- **payload** (object | string): if the input is a YAML string, the node parses it to a JavaScript object; if the input is a JavaScript object, the node creates a YAML string.

### Details

By default the node works on \`msg.payload\`; it can convert any message property. A message without the property passes through unchanged. A string that is not valid YAML is an error (js-yaml's message, e.g. "end of the stream or a document separator is expected") that catch nodes receive. Numbers, booleans and bytes are dropped with a warning ("Ignored unsupported payload type", "Ignored non-object payload").

Parsing uses js-yaml's default schema, the safe one: plain YAML values only, no tags that build JavaScript functions or other custom types (such a tag is an "unknown tag" error).

### Differences from Node-RED

- Text over ${MAX_PARSER_INPUT_CHARS / 1024 / 1024} MiB is refused with a node error.
- A document whose aliases (\`*name\`) expand to more than ${MAX_YAML_VALUES.toLocaleString("en")} values once written out ("billion laughs") is refused with a node error instead of being sent, so it cannot exhaust the memory shared with other flows when it is serialized.
`;

export const yamlNode = defineNode({
  type: "yaml",
  version: 1,
  category: "parser",
  name: "YAML",
  description: "Converts a property between a YAML string and an object.",
  help,
  inputs: 1,
  outputs: 1,
  configSchema: yamlConfig,
  nodeRed: {
    type: "yaml",
    toNodeRed: (c) => ({ property: c.property }),
    fromNodeRed: (p) => ({ property: String(p.property || "payload") }),
  },
});
