import { z } from "zod";
import { defineNode } from "../types";
import { propertyPath } from "../property-path";
import { isPropertyPath } from "../../runtime/properties";
import { isByteArray } from "../sequence-support";

export const splitConfig = z
  .object({
    property: propertyPath.default("payload").meta({ title: "Split", description: "The message property to split (msg.payload by default)." }),
    split_type: z
      .enum(["str", "bin", "len"])
      .default("str")
      .meta({ title: "Split strings and buffers by", description: "str: at a string; bin: at a byte sequence; len: into chunks of a fixed length." }),
    split: z
      .string()
      .max(1000)
      .default("\\n")
      .meta({ title: "Separator or length", description: "The string (\\n, \\r, \\t allowed), the bytes as a JSON array ([13,10]) or the chunk length, by the type above." }),
    array_split: z.number().int().min(1).max(1_000_000).default(1).meta({ title: "Array chunk length", description: "Arrays are split into chunks of this many elements (1: one message per element)." }),
    stream: z.boolean().default(false).meta({ title: "Handle as a stream", description: "Strings and buffers: keep a trailing partial segment and prepend it to the next message (no parts.count)." }),
    add_name: z
      .string()
      .max(256)
      .default("")
      .meta({ title: "Copy key to", description: "Objects: also copy each key to this message property (e.g. topic); empty for none." }),
  })
  .superRefine((c, ctx) => {
    if (c.split_type === "bin" && !isByteArray(c.split)) ctx.addIssue({ code: "custom", path: ["split"], message: "must be a JSON array of bytes such as [13,10]" });
    if (c.split_type === "len" && !(Number.parseInt(c.split, 10) >= 1)) ctx.addIssue({ code: "custom", path: ["split"], message: "must be a length of at least 1" });
    if (c.add_name !== "" && !isPropertyPath(c.add_name)) ctx.addIssue({ code: "custom", path: ["add_name"], message: "must be empty or a property path such as topic" });
  });

export type SplitConfig = z.infer<typeof splitConfig>;

const help = `Splits a message into a sequence of messages.

### Inputs

- **payload** (object | string | array | buffer): what happens depends on its type:
  - **string** / **buffer**: split at the given string (default \`\\n\`) or byte sequence, or into chunks of a fixed length;
  - **array**: one message per element, or per chunk of a fixed number of elements;
  - **object**: one message per key/value pair.

### Outputs

- **parts** (object): how the message was split from the original one. Passed to a **join** node,
  the sequence can be put back together into one message. It holds:
  - \`id\`: an identifier for the group of messages;
  - \`index\`: the position within the group;
  - \`count\`: if known, the number of messages in the group (see streaming mode);
  - \`type\`: \`string\`, \`array\`, \`object\` or \`buffer\`;
  - \`ch\`: for a string or buffer, what it was split at (a string, or an array of bytes);
  - \`key\`: for an object, the key of the property this message was made from (the node can also copy it to another property, such as \`msg.topic\`);
  - \`len\`: the length of each message when split into fixed lengths.

A message that already had \`msg.parts\` keeps it as \`msg.parts.parts\`; **join** restores it.
Each message of the sequence gets a new \`_msgid\`.

### Details

This node makes it easy to perform the same actions on each part of a message and then, with
the **join** node, recombine the sequence into one message. It uses \`msg.parts\` to track the
parts of a sequence. A message whose property is missing, or is a number or boolean, is dropped.

#### Streaming mode

The node can also reflow a stream of messages: a serial device sending newline-terminated
commands may deliver a message that ends with a partial command. In streaming mode the node
splits each message and sends every complete segment; a trailing partial segment is held and
prepended to the next message. In this mode \`msg.parts.count\` is not set, since the number of
messages is unknown, so **join** cannot reassemble the stream in its automatic mode.

### Differences from Node-RED

A split that makes more messages than the flow may hold waiting (its backpressure mark) sends them
as the flow takes them, pausing meanwhile, instead of all at once; the order is the same, and
messages arriving meanwhile wait behind.
`;

export const splitNode = defineNode({
  type: "split",
  version: 1,
  category: "sequence",
  name: "Split",
  description: "Splits a message (string, buffer, array or object) into a sequence of messages with msg.parts.",
  help,
  inputs: 1,
  outputs: 1,
  configSchema: splitConfig,
  nodeRed: {
    type: "split",
    toNodeRed: (c: SplitConfig) => ({
      splt: c.split,
      spltType: c.split_type,
      arraySplt: c.array_split,
      arraySpltType: "len",
      stream: c.stream,
      addname: c.add_name,
      property: c.property,
    }),
    fromNodeRed: (p) => ({
      property: typeof p.property === "string" && p.property !== "" ? p.property : "payload",
      split_type: p.spltType === "bin" || p.spltType === "len" ? p.spltType : "str",
      split: p.splt === undefined || p.splt === "" ? "\\n" : String(p.splt),
      array_split: p.arraySplt === undefined || p.arraySplt === "" ? 1 : Number.parseInt(String(p.arraySplt), 10),
      stream: p.stream === true || p.stream === "true",
      add_name: typeof p.addname === "string" ? p.addname : "",
    }),
  },
});
