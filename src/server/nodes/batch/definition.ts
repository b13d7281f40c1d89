import { z } from "zod";
import { defineNode } from "../types";
import { MAX_HELD_MESSAGES } from "../sequence-support";

export const batchConfig = z
  .object({
    mode: z
      .enum(["count", "interval", "concat"])
      .default("count")
      .meta({ title: "Mode", description: "count: sequences of a number of messages; interval: the messages of each time interval; concat: concatenate incoming sequences by topic." }),
    count: z.number().int().min(1).max(MAX_HELD_MESSAGES).default(10).meta({ title: "Number of messages", description: "Count mode: messages per sequence." }),
    overlap: z.number().int().min(0).max(MAX_HELD_MESSAGES).default(0).meta({ title: "Overlap", description: "Count mode: how many messages at the end of a sequence start the next one too." }),
    interval_seconds: z.number().min(0).max(86_400).default(10).meta({ title: "Interval (seconds)", description: "Interval mode: every interval, the messages that arrived form a sequence." }),
    allow_empty_sequence: z.boolean().default(false).meta({ title: "Send empty message when no message arrives", description: "Interval mode: an interval without messages sends one message with a null payload." }),
    topics: z
      .array(z.string().max(1000))
      .max(100)
      .default([])
      .meta({ title: "Topics", description: "Concat mode: the topics of the sequences to concatenate, in order." }),
    honour_parts: z.boolean().default(false).meta({ title: "Honour msg.parts", description: "Count mode: a message that ends an incoming sequence (msg.parts) also ends the batch." }),
  })
  .superRefine((c, ctx) => {
    if (c.mode === "count" && c.overlap >= c.count) ctx.addIssue({ code: "custom", path: ["overlap"], message: "must be less than the number of messages" });
    if (c.mode === "interval" && c.interval_seconds === 0) ctx.addIssue({ code: "custom", path: ["interval_seconds"], message: "must be more than 0" });
  });

export type BatchConfig = z.infer<typeof batchConfig>;

const help = `Creates sequences of messages based on various rules.

### Inputs

- **reset** (optional): if set, the messages held are deleted and not sent.
- **topic** and **parts**: in concatenate mode, identify the sequence a message belongs to.

### Outputs

- **parts** (object): \`id\` (the \`_msgid\` of the sequence's first message), \`index\` and \`count\`,
  set on each message of the sequence it creates (an existing \`msg.parts\` is updated).

### Details

There are three modes for creating message sequences:

- **Number of messages**: groups messages into sequences of a given length. The *overlap* option
  says how many messages at the end of one sequence are repeated at the start of the next one.
  With *honour msg.parts*, a message that is the last of its incoming sequence also ends the batch.
- **Time interval**: groups the messages that arrive within each interval. If no message arrives
  within an interval, the node can send an empty message (\`payload: null\`) instead.
- **Concatenate sequences**: makes one sequence by concatenating incoming sequences. Each message
  must have a \`msg.topic\` and a \`msg.parts\` that identifies its sequence; the node is configured
  with the list of topics, in the order their sequences are concatenated. Messages of other topics
  are ignored.

#### Storing messages

The node holds messages to work across sequences, at most ${MAX_HELD_MESSAGES.toLocaleString("en-US")}: past that it reports
"too many pending messages in batch node" and drops what it held. A message with \`msg.reset\`
deletes the held messages without sending them.

### Differences from Node-RED

Node-RED holds any number of messages unless its \`nodeMessageBufferMaxLength\` setting is set; a
runtime shared by organizations bounds every node to ${MAX_HELD_MESSAGES.toLocaleString("en-US")} held messages. The interval
must be more than 0 (Node-RED accepts 0 and then never sends). While the flow holds more waiting
messages than its backpressure mark, an empty-interval message is skipped, as inject's repeats are.
`;

export const batchNode = defineNode({
  type: "batch",
  version: 1,
  category: "sequence",
  name: "Batch",
  description: "Groups messages into sequences by count (with overlap), by time interval, or by concatenating sequences.",
  help,
  inputs: 1,
  outputs: 1,
  configSchema: batchConfig,
  nodeRed: {
    type: "batch",
    toNodeRed: (c: BatchConfig) => ({
      mode: c.mode,
      count: c.count,
      overlap: c.overlap,
      interval: c.interval_seconds,
      allowEmptySequence: c.allow_empty_sequence,
      topics: c.topics.map((topic) => ({ topic })),
      honourParts: c.honour_parts,
    }),
    fromNodeRed: (p) => ({
      mode: p.mode === "interval" || p.mode === "concat" ? p.mode : "count",
      count: Number(p.count || 1),
      overlap: Number(p.overlap || 0),
      interval_seconds: Number(p.interval ?? 10),
      allow_empty_sequence: Boolean(p.allowEmptySequence),
      topics: Array.isArray(p.topics) ? p.topics.map((t: { topic?: unknown }) => String(t?.topic ?? "")) : [],
      honour_parts: Boolean(p.honourParts),
    }),
  },
});
