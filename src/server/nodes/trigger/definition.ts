import { z } from "zod";
import { defineNode } from "../types";
import { numberOrVariable, variableFromNodeRed } from "../../runtime/number-or-variable";
import { propertyPath } from "../property-path";
import { MAX_TOPICS } from "../sequence-support";
import { operandProblem, OPERAND_TYPE_TITLES, type OperandType } from "../../runtime/operands";

/** Operand types a trigger value may have, plus Node-RED's three of its own. */
const VALUE_TYPES = ["str", "num", "bool", "json", "bin", "date", "flow", "global", "env"] as const satisfies readonly OperandType[];
const SPECIAL_TITLES = { pay: "the original message", payl: "the latest message", nul: "nothing" } as const;

const typeSchema = <T extends string>(types: readonly [T, ...T[]], title: string, fallback: T) =>
  z
    .enum(types)
    .default(fallback as never)
    .meta({
      title,
      description: `How the value is read: ${types.map((t) => (OPERAND_TYPE_TITLES as Record<string, string>)[t] ?? (SPECIAL_TITLES as Record<string, string>)[t]).join(", ")}`,
    });

export const triggerConfig = z
  .object({
    op1: z.string().max(65536).default("1").meta({ title: "Send", description: "The first message's payload (a string may use {{mustache}} over the message)." }),
    op1_type: typeSchema([...VALUE_TYPES, "pay", "nul"], "Send (type)", "str"),
    duration: numberOrVariable(z.number().finite().min(-86_400_000).max(86_400_000))
      .default(250)
      .meta({ title: "Then wait for", description: "How long before the second message; 0: wait to be reset; negative: resend the first message every that long. Or ${NAME}, read when the flow starts." }),
    units: z.enum(["ms", "s", "min", "hr"]).default("ms").meta({ title: "Units" }),
    extend: z.boolean().default(false).meta({ title: "Extend delay if new message arrives" }),
    override_delay: z.boolean().default(false).meta({ title: "Override delay with msg.delay", description: "msg.delay, in milliseconds, replaces the duration." }),
    op2: z.string().max(65536).default("0").meta({ title: "Then send", description: "The second message's payload (a string may use {{mustache}} over the message)." }),
    op2_type: typeSchema([...VALUE_TYPES, "pay", "payl", "nul"], "Then send (type)", "str"),
    outputs: z
      .number()
      .int()
      .min(1)
      .max(2)
      .default(1)
      .meta({ title: "Outputs", description: "2: send the second message to a separate (second) output." }),
    reset: z.string().max(1000).default("").meta({ title: "Reset the trigger if msg.payload is", description: "Besides msg.reset; empty for none." }),
    by_topic: z.enum(["all", "topic"]).default("all").meta({ title: "Handling", description: "all: one trigger for all messages; topic: one per value of the topic property." }),
    topic: propertyPath.default("topic").meta({ title: "Topic property", description: "With per-topic handling: the message property that separates the streams." }),
  })
  .superRefine((c, ctx) => {
    for (const key of ["op1", "op2"] as const) {
      const type = c[`${key}_type`];
      if (type === "pay" || type === "payl" || type === "nul") continue;
      if (type === "str" && c[key].includes("{{")) continue;
      const problem = operandProblem(c[key], type);
      if (problem) ctx.addIssue({ code: "custom", path: [key], message: problem });
    }
  });

export type TriggerConfig = z.infer<typeof triggerConfig>;

const help = `When triggered, can send a message, and then optionally a second message, unless extended or reset.

### Inputs

- **delay** (number, optional): the delay, in milliseconds, for this message; only if the node is
  configured to let \`msg.delay\` override its own.
- **reset** (optional): a message with this property clears any timeout or repeat in progress;
  nothing is sent.

### Outputs

- The first message, at once (unless set to send nothing), and the second one when the time is up
  (on the second output if configured so).

### Details

This node can be used to create a timeout within a flow. By default, when it receives a message,
it sends a message with a payload of \`"1"\`. It then waits 250 ms before sending a second message
with a payload of \`"0"\`. This could be used, for example, to blink an LED.

The payloads of each message sent can be configured to a variety of values, including the option
to send nothing. For example, with the first message set to *nothing* and the timer extended with
each received message, the node acts as a watchdog: it only sends a message if nothing is received
within the interval. The first message may also be *the original message*; the second, *the
original message* or *the latest message* received.

A string value supports the mustache template syntax (\`{{payload}}\`) over the message.

The delay can be overridden by \`msg.delay\` if that option is enabled; the value is in milliseconds.
A delay of 0 waits until the node is reset.

If the node receives a message with a \`reset\` property, or a payload that matches the configured
reset value, any timeout or repeat in progress is cleared and no message is sent.

The node can be configured to resend the first message at a regular interval (a negative
duration) until it is reset.

Optionally, the node treats messages as separate streams, using a message property to identify
each one (\`msg.topic\` by default).

The status shows that the node is active; with several streams, how many are held.

### Differences from Node-RED

While the flow holds more waiting messages than its backpressure mark, a resend tick is skipped
(as inject's repeats are) rather than added to the backlog. The node holds at most
${MAX_TOPICS.toLocaleString("en-US")} topics at once: a message of a new topic past that is dropped with an error.
`;

const UNIT_TYPES = new Set(["ms", "s", "min", "hr"]);

/** Node-RED's legacy "val" type: true/false are booleans, null is null, anything else a string. */
const KNOWN_TYPES = new Set<string>(["str", "num", "bool", "json", "bin", "date", "flow", "global", "env", "pay", "payl", "nul"]);

function fromValType(value: string, type: unknown): { value: string; type: string } {
  // A type Node-RED does not know evaluates to the text as written.
  if (type !== "val" && type !== undefined) return { value, type: KNOWN_TYPES.has(String(type)) ? String(type) : "str" };
  if (value === "true" || value === "false") return { value, type: "bool" };
  if (value === "null") return { value: "null", type: "json" };
  return { value, type: "str" };
}

export const triggerNode = defineNode({
  type: "trigger",
  version: 1,
  category: "function",
  name: "Trigger",
  description: "Sends a message, then optionally a second one after a delay, unless extended or reset; or resends at an interval.",
  help,
  inputs: 1,
  outputs: { value_of: "outputs" },
  configSchema: triggerConfig,
  nodeRed: {
    type: "trigger",
    toNodeRed: (c: TriggerConfig) => ({
      op1: c.op1,
      op2: c.op2,
      op1type: c.op1_type,
      op2type: c.op2_type,
      duration: String(c.duration),
      extend: c.extend,
      overrideDelay: c.override_delay,
      units: c.units,
      reset: c.reset,
      bytopic: c.by_topic,
      topic: c.topic,
      outputs: c.outputs,
    }),
    fromNodeRed: (p) => {
      const op1 = fromValType(p.op1 === undefined ? "1" : String(p.op1), p.op1type);
      const op2 = fromValType(p.op2 === undefined ? "0" : String(p.op2), p.op2type);
      // Node-RED: a date with the editor's default "1"/"0" is the current time.
      if (op1.type === "date" && op1.value === "1") op1.value = "";
      if (op2.type === "date" && op2.value === "0") op2.value = "";
      const duration = Number.parseFloat(String(p.duration));
      return {
        op1: op1.value,
        op1_type: op1.type,
        op2: op2.value,
        op2_type: op2.type,
        duration: variableFromNodeRed(p.duration) ?? (Number.isNaN(duration) ? 250 : duration),
        units: UNIT_TYPES.has(p.units as string) ? p.units : "ms",
        extend: p.extend === true || p.extend === "true",
        override_delay: p.overrideDelay === true || p.overrideDelay === "true",
        reset: p.reset === undefined || p.reset === null ? "" : String(p.reset),
        by_topic: p.bytopic === "topic" ? "topic" : "all",
        topic: typeof p.topic === "string" && p.topic !== "" ? p.topic : "topic",
        outputs: Number(p.outputs) === 2 ? 2 : 1,
      };
    },
  },
});
