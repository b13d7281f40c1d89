import { z } from "zod";
import { defineNode } from "../types";
import { propertyPath } from "../property-path";
import { MAX_TOPICS } from "../sequence-support";

export const filterConfig = z.object({
  mode: z
    .enum(["rbe", "rbei", "deadband", "deadbandEq", "narrowband", "narrowbandEq"])
    .default("rbe")
    .meta({
      title: "Mode",
      description:
        "rbe: block unless the value changes; rbei: same, ignoring the first value; deadband(Eq): block unless the value changes by more than (or at least) the gap; narrowband(Eq): block if it changes by more than (or at least) the gap.",
    }),
  gap: z.number().finite().min(0).default(0).meta({ title: "Band gap", description: "Dead- and narrowband modes: the change that counts." }),
  gap_is_percent: z.boolean().default(false).meta({ title: "Gap in percent", description: "The gap is a percentage of the value compared against." }),
  start: z
    .number()
    .finite()
    .nullable()
    .default(null)
    .meta({ title: "Start value", description: "Narrowband modes: the value compared against before the first one arrives; empty: the first value." }),
  inout: z
    .enum(["out", "in"])
    .default("out")
    .meta({ title: "Compare with", description: "out: the last value sent (values out of range are ignored); in: the last value received (allows drift or a step change)." }),
  per_topic: z.boolean().default(true).meta({ title: "Apply per topic", description: "Keep one last value per value of the topic property." }),
  property: propertyPath.default("payload").meta({ title: "Property", description: "The message property that is compared." }),
  topic_property: propertyPath.default("topic").meta({ title: "Topic property", description: "The message property that separates topics." }),
});

export type FilterConfig = z.infer<typeof filterConfig>;

const help = `Passes a message on only if its value changed (report by exception), or only if it changed
by more (deadband) or less (narrowband) than a gap.

### Inputs

- **payload** (number | string | object): *block unless value changes* modes accept numbers,
  strings and simple objects; the other modes need a value that parses as a number.
- **topic** (string): the node works per topic; the property can be set in its configuration.
- **reset** (any): if set, clears the stored value for the message's \`msg.topic\`, or for all
  topics if \`msg.topic\` is not set.

### Outputs

- The message as it arrived, when it passes.

### Details

In *block unless value changes* mode (rbe) the node blocks until the value (\`msg.payload\` or the
selected property) differs from the previous one. It can ignore the first value (rbei), so that
nothing is sent at start.

The *deadband* modes block a value unless it differs from the previous value by more than (or, in
the "Eq" variant, at least) the band gap. The *narrowband* modes block a value if it differs from
the previous value by more than (or at least) the gap: useful to ignore outliers from a faulty
sensor. Both need a value that parses as a number (the node warns otherwise), and both accept a
gap in percent: the message passes if (or unless) the value differs by more than that percentage
of the previous value.

Both compare against either the last value sent (values out of range are ignored) or the last
value received, which resets the set point (allowing gradual drift in deadband, or a step change
in narrowband).

This works per \`msg.topic\`, though another property can be chosen, so one filter node can handle
several topics at once.

### Differences from Node-RED

Node-RED's \`rbe\` node is called \`filter\` here. The gap and the start value are numbers (Node-RED
stores them as text, the gap with an optional \`%\`, which is the *gap in percent* option here).
The node remembers at most ${MAX_TOPICS.toLocaleString("en-US")} topics: past that, the topic stored longest ago is
forgotten (its next value counts as a first one).
`;

export const filterNode = defineNode({
  type: "filter",
  version: 1,
  category: "function",
  name: "Filter",
  description: "Report by exception: passes a message only when its value changed, or changed by more (or less) than a gap.",
  help,
  inputs: 1,
  outputs: 1,
  configSchema: filterConfig,
  nodeRed: {
    type: "rbe",
    toNodeRed: (c: FilterConfig) => ({
      func: c.mode,
      gap: c.gap === 0 && !c.gap_is_percent ? "" : `${c.gap}${c.gap_is_percent ? "%" : ""}`,
      start: c.start === null ? "" : String(c.start),
      inout: c.inout,
      septopics: c.per_topic,
      property: c.property,
      topi: c.topic_property,
    }),
    fromNodeRed: (p) => {
      const gap = typeof p.gap === "string" ? p.gap : p.gap === undefined ? "" : String(p.gap);
      const start = p.start === undefined || p.start === "" ? null : Number(p.start);
      return {
        mode: p.func ?? "rbe",
        gap: gap === "" ? 0 : Number.parseFloat(gap),
        gap_is_percent: gap.endsWith("%"),
        start,
        inout: p.inout === "in" ? "in" : "out",
        per_topic: p.septopics !== false,
        property: typeof p.property === "string" && p.property !== "" ? p.property : "payload",
        topic_property: typeof p.topi === "string" && p.topi !== "" ? p.topi : "topic",
      };
    },
  },
});
