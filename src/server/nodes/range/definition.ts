import { z } from "zod";
import { defineNode } from "../types";
import { numberOrVariable, variableFromNodeRed } from "../../runtime/number-or-variable";
import { propertyPath } from "../property-path";

const finite = (title: string, description: string, fallback: number) => numberOrVariable(z.number().finite()).default(fallback).meta({ title, description: `${description} Or \${NAME}, read when the flow starts.` });

export const rangeConfig = z
  .object({
    action: z
      .enum(["scale", "clamp", "roll", "drop"])
      .default("scale")
      .meta({ title: "Action", description: "scale: unconstrained; clamp: scale and limit to the target range; roll: scale and wrap within it; drop: scale, but drop inputs outside the input range." }),
    min_in: finite("Input range from", "The low end of the input range.", 0),
    max_in: finite("Input range to", "The high end of the input range.", 10),
    min_out: finite("Target range from", "The low end of the target range.", 0),
    max_out: finite("Target range to", "The high end of the target range.", 100),
    round: z.boolean().default(false).meta({ title: "Round result to the nearest integer" }),
    property: propertyPath.default("payload").meta({ title: "Property", description: "The message property holding the number." }),
  })
  .superRefine((c, ctx) => {
    if (c.min_in === c.max_in) ctx.addIssue({ code: "custom", path: ["max_in"], message: "must differ from the input range's low end" });
  });

export type RangeConfig = z.infer<typeof rangeConfig>;

const help = `Maps a numeric value to a different range.

### Inputs

- **payload** (number): the value to map. Anything else is parsed as a number (\`Number(value)\`)
  and the message dropped if that fails. A message without the property passes unchanged.

### Outputs

- **payload** (number): the value mapped to the new range.

### Details

This node scales the received value linearly. By default the result is not constrained to the
target range.

- *Scale and limit to the target range* (clamp): the result is never outside the target range.
- *Scale and wrap within the target range* (roll): the result wraps around within the target range.
- *Scale, but drop if outside the input range* (drop): inputs outside the input range are dropped.

For example, an input range 0 – 10 mapped to 0 – 100:

| mode | input | output |
|---|---|---|
| scale | 12 | 120 |
| limit | 12 | 100 |
| wrap | 12 | 20 |
| drop | 12 | (no output) |

### Differences from Node-RED

The input range's two ends must differ (Node-RED divides by zero and sends NaN or Infinity).
`;

export const rangeNode = defineNode({
  type: "range",
  version: 1,
  category: "function",
  name: "Range",
  description: "Maps a number from one range to another (scale, limit, wrap or drop).",
  help,
  inputs: 1,
  outputs: 1,
  configSchema: rangeConfig,
  nodeRed: {
    type: "range",
    toNodeRed: (c: RangeConfig) => ({
      minin: String(c.min_in),
      maxin: String(c.max_in),
      minout: String(c.min_out),
      maxout: String(c.max_out),
      action: c.action,
      round: c.round,
      property: c.property,
    }),
    fromNodeRed: (p) => ({
      min_in: variableFromNodeRed(p.minin) ?? Number(p.minin),
      max_in: variableFromNodeRed(p.maxin) ?? Number(p.maxin),
      min_out: variableFromNodeRed(p.minout) ?? Number(p.minout),
      max_out: variableFromNodeRed(p.maxout) ?? Number(p.maxout),
      action: ["clamp", "roll", "drop"].includes(p.action as string) ? p.action : "scale",
      round: Boolean(p.round),
      property: typeof p.property === "string" && p.property !== "" ? p.property : "payload",
    }),
  },
});
