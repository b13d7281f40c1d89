import { z } from "zod";
import { defineNode } from "../types";
import { propertyPath } from "../property-path";
import { MAX_PARSER_INPUT_CHARS } from "../parsers/input";

export const jsonConfig = z.object({
  action: z
    .enum(["auto", "str", "obj"])
    .default("auto")
    .meta({
      title: "Action",
      description: "Convert between JSON string and object (auto), always produce a JSON string (str), or always produce an object (obj).",
    }),
  property: propertyPath.default("payload").meta({ title: "Property", description: "The message property converted, payload by default." }),
  pretty: z.boolean().default(false).meta({ title: "Format JSON string", description: "Indent the JSON string it produces (4 spaces)." }),
});

const help = `Converts between a JSON string and its JavaScript object representation, in either direction.

### Inputs

- **payload** (object | string): a JavaScript object or JSON string (or bytes holding one).
- **schema** (object, optional): a JSON Schema to validate the value against. It is deleted before the message is sent on.

### Outputs

- **payload** (object | string): if the input is a JSON string, the node parses it to a JavaScript object; if the input is a JavaScript value, the node creates a JSON string, optionally well-formatted (4-space indent).
- **schemaError** (array): when JSON Schema validation fails, the message a catch node receives carries the validator's errors here.

### Details

By default the node works on \`msg.payload\`; it can convert any message property.

The node can also ensure a particular encoding instead of toggling between the two. This can be used, for example, with the http-in node to ensure the payload is a parsed object even if the request did not set its content type correctly.

If the node is set to ensure a string and receives a string, it makes no further checks: it does not check that the string is valid JSON nor reformat it.

With \`msg.schema\`, the value is validated (JSON Schema draft-06/07, with Ajv) before it is sent; a value that fails is not sent and the node reports the error "JSON Schema error: …" to catch nodes, with \`msg.schemaError\`. A schema that does not compile reports "JSON Schema error: failed to compile schema". A message without the property passes through unchanged. A value that is neither text, bytes, object, number nor boolean is dropped with the warning "Ignored unsupported payload type".

### Differences from Node-RED

- Text over ${MAX_PARSER_INPUT_CHARS / 1024 / 1024} MiB is refused with a node error instead of parsed, so one message cannot take the memory shared with other flows.
- With a nested property (\`one.two\`), \`msg.schema\` validates that property's value; Node-RED validates \`msg["one.two"]\`, a top-level property of that literal name, which is never there.
- \`pattern\` and \`patternProperties\` in a schema run on a linear-time regular-expression engine (RE2 syntax), so a schema cannot stall the runtime; a pattern RE2 cannot express (backreferences, lookaround) makes the schema fail to compile. Schemas larger than 64 KiB are refused the same way.
`;

export const jsonNode = defineNode({
  type: "json",
  version: 1,
  category: "parser",
  name: "JSON",
  description: "Converts a property between a JSON string and an object, optionally validating it against msg.schema.",
  help,
  inputs: 1,
  outputs: 1,
  configSchema: jsonConfig,
  nodeRed: {
    type: "json",
    toNodeRed: (c) => ({ property: c.property, action: c.action === "auto" ? "" : c.action, pretty: c.pretty }),
    fromNodeRed: (p) => ({ property: String(p.property || "payload"), action: p.action === "str" || p.action === "obj" ? p.action : "auto", pretty: Boolean(p.pretty) }),
  },
});
