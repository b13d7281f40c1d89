import { z } from "zod";
import { defineNode } from "../types";
import { propertyPath } from "../property-path";
import { isByteArray, MAX_HELD_MESSAGES } from "../sequence-support";
import { checkOperand, operandTypeSchema, type OperandType } from "../../runtime/operands";
import { jsonataProblem } from "../../runtime/jsonata";

const INIT_TYPES = ["flow", "global", "str", "num", "bool", "json", "bin", "date", "jsonata", "env"] as const satisfies readonly OperandType[];

export const joinConfig = z
  .object({
    mode: z
      .enum(["auto", "manual", "reduce"])
      .default("auto")
      .meta({ title: "Mode", description: "auto: reverse a split using msg.parts; manual: join as configured below; reduce: reduce a sequence with a JSONata expression." }),
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
    reduce_expression: z
      .string()
      .max(65536)
      .default("")
      .meta({ title: "Reduce expression", description: "Reduce mode: a JSONata expression evaluated for each message; $A is the accumulated value, $I the message's index, $N the number of messages." }),
    reduce_init: z.string().max(65536).default("0").meta({ title: "Initial value", description: "Reduce mode: the first accumulated value ($A)." }),
    reduce_init_type: operandTypeSchema(INIT_TYPES, "Initial value type").default("num"),
    reduce_fixup: z
      .string()
      .max(65536)
      .default("")
      .meta({ title: "Fix-up expression", description: "Reduce mode: an optional JSONata expression applied to the result ($A, $N); empty for none." }),
    reduce_right: z.boolean().default(false).meta({ title: "Evaluate in reverse order (last to first)" }),
  })
  .superRefine((c, ctx) => {
    if (c.joiner_type === "bin" && !isByteArray(c.joiner || "[]")) ctx.addIssue({ code: "custom", path: ["joiner"], message: "must be a JSON array of bytes such as [13,10]" });
    if (c.mode !== "reduce") return;
    const problem = c.reduce_expression.trim() === "" ? "is required in reduce mode" : jsonataProblem(c.reduce_expression);
    if (problem) ctx.addIssue({ code: "custom", path: ["reduce_expression"], message: problem });
    if (c.reduce_fixup.trim() !== "") {
      const fixup = jsonataProblem(c.reduce_fixup);
      if (fixup) ctx.addIssue({ code: "custom", path: ["reduce_fixup"], message: fixup });
    }
    checkOperand(ctx, ["reduce_init"], c.reduce_init, c.reduce_init_type);
  });

export type JoinConfig = z.infer<typeof joinConfig>;

const help = `Joins sequences of messages into a single message.

There are three modes:

- **automatic**: paired with the **split** node, it reverses the split that was performed;
- **manual**: joins sequences of messages in a variety of ways;
- **reduce sequence**: applies an expression to every message of a sequence to reduce it to one message.

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

#### Reduce sequence mode

In reduce mode, an expression is applied to each message of a sequence (grouped by
\`msg.parts.id\`, complete when \`msg.parts.count\` messages arrived) and the result accumulated
to produce a single message: the sequence's last message (by \`msg.parts.index\`), its
\`payload\` replaced by the result. A message without \`msg.parts\` passes unchanged.

- **Initial value**: the first accumulated value (\`$A\`).
- **Reduce expression**: a JSONata expression called for each message of the sequence, in order
  of \`msg.parts.index\`; its result is the next call's accumulated value. It can use \`$A\` (the
  accumulated value), \`$I\` (the message's index in the sequence) and \`$N\` (the number of
  messages in the sequence).
- **Fix-up expression**: an optional JSONata expression applied once all messages were reduced,
  with \`$A\` (the accumulated value) and \`$N\`.

By default the expression is applied in order, from the first message of the sequence to the
last; it can be applied in reverse order. \`$N\` counts the messages that arrive, even identical ones.

For example, with *reduce expression* \`$A+payload\`, *initial value* \`0\` and *fix-up
expression* \`$A/$N\`, a sequence of numbers becomes their average.

JSONata expressions run with the same time and memory limits as function code.

#### Storing messages

The node holds messages until their sequence is complete. It holds at most ${MAX_HELD_MESSAGES.toLocaleString("en-US")}
messages: past that it reports "too many pending messages in join node" and drops what it held.

### Differences from Node-RED

Node-RED holds any number of messages unless its \`nodeMessageBufferMaxLength\` setting is set; a
runtime shared by organizations bounds every node to ${MAX_HELD_MESSAGES.toLocaleString("en-US")} held messages.
`;

const MODE_TO_NODE_RED = { auto: "auto", manual: "custom", reduce: "reduce" } as const;

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
      reduceRight: c.reduce_right,
      reduceExp: c.reduce_expression,
      reduceInit: c.reduce_init,
      reduceInitType: c.reduce_init_type,
      reduceFixup: c.reduce_fixup,
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
      reduce_expression: typeof p.reduceExp === "string" ? p.reduceExp : "",
      // The editor's typed input defaults to a number, and Node-RED reads "" as 0.
      reduce_init_type: typeof p.reduceInitType === "string" && p.reduceInitType !== "" ? p.reduceInitType : "num",
      reduce_init: p.reduceInit === undefined || p.reduceInit === null || (p.reduceInit === "" && (p.reduceInitType ?? "num") === "num") ? "0" : String(p.reduceInit),
      reduce_fixup: typeof p.reduceFixup === "string" ? p.reduceFixup : "",
      reduce_right: p.reduceRight === true || p.reduceRight === "true",
    }),
  },
});
