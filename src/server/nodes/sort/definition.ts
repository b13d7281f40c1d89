import { z } from "zod";
import { defineNode } from "../types";
import { propertyPath } from "../property-path";
import { MAX_HELD_MESSAGES } from "../sequence-support";
import { isPropertyPath } from "../../runtime/properties";
import { jsonataProblem } from "../../runtime/jsonata";

export const sortConfig = z
  .object({
    target_type: z
      .enum(["msg", "seq"])
      .default("msg")
      .meta({ title: "Sort", description: "msg: the array in a message property; seq: a sequence of messages (msg.parts)." }),
    target: propertyPath.default("payload").meta({ title: "Property", description: "The message property holding the array to sort." }),
    msg_key_type: z.enum(["elem", "jsonata"]).default("elem").meta({ title: "Key", description: "elem: each element's own value; jsonata: an expression evaluated on each element." }),
    msg_key: z.string().max(65536).default("payload").meta({ title: "Key expression", description: "Property mode with a JSONata key: the expression, evaluated on each element." }),
    seq_key_type: z.enum(["msg", "jsonata"]).default("msg").meta({ title: "Key (sequence)", description: "msg: a property of each message; jsonata: an expression evaluated on each message." }),
    seq_key: z.string().min(1).max(65536).default("payload").meta({ title: "Key property or expression", description: "Sequence mode: the message property, or the JSONata expression, whose value orders the messages." }),
    order: z.enum(["ascending", "descending"]).default("ascending").meta({ title: "Order" }),
    as_number: z.boolean().default(false).meta({ title: "As number", description: "Compare the keys as numbers (Number(key))." }),
  })
  .superRefine((c, ctx) => {
    if (c.target_type === "msg" && c.msg_key_type === "jsonata") {
      const problem = jsonataProblem(c.msg_key);
      if (problem) ctx.addIssue({ code: "custom", path: ["msg_key"], message: problem });
    }
    if (c.target_type === "seq" && c.seq_key_type === "jsonata") {
      const problem = jsonataProblem(c.seq_key);
      if (problem) ctx.addIssue({ code: "custom", path: ["seq_key"], message: problem });
    }
    if (c.seq_key_type === "msg" && !isPropertyPath(c.seq_key)) {
      ctx.addIssue({ code: "custom", path: ["seq_key"], message: "must be a property path such as payload.value (no __proto__, constructor or prototype)" });
    }
  });

export type SortConfig = z.infer<typeof sortConfig>;

const help = `Sorts a message property or a sequence of messages.

### Inputs

- **payload** (or the configured property): in property mode, the array to sort.
- **parts** (object): in sequence mode, the sequence the message belongs to: \`id\`, \`index\` and
  \`count\` (the **split** node sets it, but it can be written by hand).

### Outputs

- Property mode: the message, its array sorted. A message whose property is not an array is dropped.
- Sequence mode: the messages of the sequence, in sorted order, once all of them arrived, each
  with \`msg.parts.index\` set to its new position.

### Details

When configured to sort a message property, the node sorts the array that property holds. When
configured to sort a sequence of messages, it reorders the messages.

The sorting order can be *ascending* or *descending*. For numbers, numerical ordering can be
chosen with *as number*. The sort key can be the element's value or a JSONata expression when
sorting a property, and a message property or a JSONata expression when sorting a sequence.
Equal keys keep their order of arrival. JSONata expressions run with the same time and memory
limits as function code; one that fails drops the message (or the sequence) and reports
"Invalid JSONata expression in sort node".

#### Storing messages

In sequence mode the node holds messages until their sequence is complete, at most
${MAX_HELD_MESSAGES.toLocaleString("en-US")}: past that, the oldest incomplete sequence is dropped and its last message reports
"Too many pending messages in sort node".

### Differences from Node-RED

Node-RED holds any number of messages unless its \`nodeMessageBufferMaxLength\` setting is set; a
runtime shared by organizations bounds every node to ${MAX_HELD_MESSAGES.toLocaleString("en-US")} held messages.
`;

export const sortNode = defineNode({
  type: "sort",
  version: 1,
  category: "sequence",
  name: "Sort",
  description: "Sorts the array in a message property, or the messages of a sequence.",
  help,
  inputs: 1,
  outputs: 1,
  configSchema: sortConfig,
  nodeRed: {
    type: "sort",
    toNodeRed: (c: SortConfig) => ({
      order: c.order,
      as_num: c.as_number,
      target: c.target,
      targetType: c.target_type,
      msgKey: c.msg_key,
      msgKeyType: c.msg_key_type,
      seqKey: c.seq_key,
      seqKeyType: c.seq_key_type,
    }),
    fromNodeRed: (p) => ({
      order: p.order === "descending" ? "descending" : "ascending",
      as_number: Boolean(p.as_num),
      target: typeof p.target === "string" && p.target !== "" ? p.target : "payload",
      // Node-RED's runtime sorts a sequence unless targetType is "msg".
      target_type: p.targetType === "msg" ? "msg" : "seq",
      msg_key_type: p.msgKeyType === "jsonata" ? "jsonata" : "elem",
      msg_key: typeof p.msgKey === "string" ? p.msgKey : "payload",
      seq_key: typeof p.seqKey === "string" && p.seqKey !== "" ? p.seqKey : "payload",
      seq_key_type: p.seqKeyType === "jsonata" ? "jsonata" : "msg",
    }),
  },
});
