import { z } from "zod";
import { defineNode } from "../types";
import { propertyPath } from "../property-path";
import { isByteArray, MAX_HELD_MESSAGES } from "../sequence-support";

export const joinConfig = z
  .object({
    mode: z
      .enum(["auto", "manual"])
      .default("auto")
      .meta({ title: "Mode", description: "auto: reverse a split using msg.parts; manual: join as configured below." }),
    build: z
      .enum(["string", "buffer", "array", "object", "merged"])
      .default("object")
      .meta({ title: "Combine each", description: "Manual mode: what the sequence becomes: a string, a buffer, an array, a key/value object or a merged object." }),
    property_type: z
      .enum(["msg", "full"])
      .default("msg")
      .meta({ title: "Take", description: "msg: a property of each message; full: each whole message." }),
    property: propertyPath.default("payload").meta({ title: "Property", description: "Manual mode: the message property that is joined." }),
    key: propertyPath.default("topic").meta({ title: "Key from", description: "Key/value object: the message property whose value is the key." }),
    joiner_type: z.enum(["str", "bin"]).default("str").meta({ title: "Join using (type)", description: "str: a string; bin: bytes as a JSON array." }),
    joiner: z.string().max(1000).default("\\n").meta({ title: "Join using", description: "String or buffer: what goes between the parts (\\n, \\r, \\t allowed; bytes as [13,10])." }),
    use_parts: z.boolean().default(false).meta({ title: "Treat as a sequence (use msg.parts)", description: "Manual mode: keep msg.parts of the incoming messages (else only an enclosing sequence's parts are kept)." }),
    count: z
      .number()
      .int()
      .min(0)
      .max(MAX_HELD_MESSAGES)
      .nullable()
      .default(null)
      .meta({ title: "After a number of message parts", description: "Send once this many parts arrived; empty: use msg.parts.count (and group by msg.parts.id)." }),
    accumulate: z.boolean().default(false).meta({ title: "And every subsequent message", description: "Key/value object: keep the object after sending and send again on each later message." }),
    timeout_seconds: z
      .number()
      .min(0)
      .max(86_400)
      .default(0)
      .meta({ title: "After a timeout following the first message (seconds)", description: "Manual mode: send what arrived so far after this long; 0 for none." }),
  })
  .superRefine((c, ctx) => {
    if (c.joiner_type === "bin" && !isByteArray(c.joiner || "[]")) ctx.addIssue({ code: "custom", path: ["joiner"], message: "must be a JSON array of bytes such as [13,10]" });
  });

export type JoinConfig = z.infer<typeof joinConfig>;

const help = `Joins sequences of messages into a single message.

There are two modes:

- **automatic**: paired with the **split** node, it reverses the split that was performed;
- **manual**: joins sequences of messages in a variety of ways.

### Inputs

- **parts** (object, optional): to join a sequence automatically, every message should carry it.
  The **split** node sets it, but it can be written by hand. Its properties:
  - \`id\`: an identifier for the group of messages;
  - \`index\`: the position within the group;
  - \`count\`: the number of messages in the group;
  - \`type\`: \`string\`, \`array\`, \`object\` or \`buffer\`;
  - \`ch\`: for a string or buffer, what was split at (a string or an array of bytes);
  - \`key\`: for an object, the key of the property this message was made from;
  - \`len\`: the length of each message when split into fixed lengths.
- **complete** (optional): if set, the node adds the message's property and then sends the output
  message in its current state. To send without adding, delete the property from the message.
- **reset** (optional): if set, the node drops any partly complete message without sending it.
- **restartTimeout** (optional): if set, and a timeout is configured, that timeout starts again.

### Outputs

- **payload** (or the configured property): the joined value. \`msg.parts\` is removed, or restored
  to the enclosing sequence's parts if the sequence was itself part of one.

### Details

#### Automatic mode

Automatic mode uses the \`parts\` property of incoming messages to work out how the sequence is
joined, so it reverses a **split** node.

#### Manual mode

In manual mode the node joins sequences of messages into:

- a **string** or **buffer**: the selected property of each message, joined with the given
  characters or bytes;
- an **array**: each selected property, or each whole message, added to the array;
- a **key/value object**: a property of each message gives the key under which its value is stored;
- a **merged object**: the property of each message merged into one object.

The other properties of the output message are taken from the last message received before the
result is sent.

A *count* sets how many messages must arrive before the output message is made. For object
outputs, once the count is reached the node can send a message for every later message too.

A *timeout* sends whatever has arrived so far. It restarts when a message with
\`msg.restartTimeout\` arrives.

A message with \`msg.complete\` finalises and sends the output message; a message with
\`msg.reset\` deletes the partly complete one without sending it. Both reset part counts.

#### Storing messages

The node holds messages until their sequence is complete. It holds at most ${MAX_HELD_MESSAGES.toLocaleString("en-US")}
messages: past that it reports "too many pending messages in join node" and drops what it held.

### Differences from Node-RED

Node-RED holds any number of messages unless its \`nodeMessageBufferMaxLength\` setting is set; a
runtime shared by organizations bounds every node to ${MAX_HELD_MESSAGES.toLocaleString("en-US")} held messages.
`;

const MODE_TO_NODE_RED = { auto: "auto", manual: "custom" } as const;

export const joinNode = defineNode({
  type: "join",
  version: 1,
  category: "sequence",
  name: "Join",
  description: "Joins a sequence of messages (msg.parts, a count or a timeout) into one message.",
  help,
  inputs: 1,
  outputs: 1,
  configSchema: joinConfig,
  nodeRed: {
    type: "join",
    toNodeRed: (c: JoinConfig) => ({
      mode: MODE_TO_NODE_RED[c.mode],
      build: c.build,
      property: c.property_type === "full" ? "" : c.property,
      propertyType: c.property_type,
      key: c.key,
      joiner: c.joiner,
      joinerType: c.joiner_type,
      useparts: c.use_parts,
      accumulate: c.accumulate,
      timeout: c.timeout_seconds === 0 ? "" : String(c.timeout_seconds),
      count: c.count === null ? "" : String(c.count),
      reduceRight: false,
      reduceExp: undefined,
      reduceInit: undefined,
      reduceInitType: undefined,
      reduceFixup: undefined,
    }),
    fromNodeRed: (p) => ({
      mode: p.mode === "custom" ? "manual" : p.mode === "reduce" ? "reduce" : "auto",
      build: p.build ?? "array",
      property_type: p.propertyType === "full" ? "full" : "msg",
      property: typeof p.property === "string" && p.property !== "" ? p.property : "payload",
      key: typeof p.key === "string" && p.key !== "" ? p.key : "topic",
      joiner: typeof p.joiner === "string" ? p.joiner : "",
      joiner_type: p.joinerType === "bin" ? "bin" : "str",
      // Node-RED's runtime treats an absent useparts as true (flows from before the option).
      use_parts: p.useparts === undefined ? true : Boolean(p.useparts),
      accumulate: p.accumulate === true || p.accumulate === "true",
      timeout_seconds: Number(p.timeout || 0),
      count: p.count === undefined || p.count === "" ? null : Number(p.count),
    }),
  },
});
