import { z } from "zod";
import { defineNode } from "../types";

export const commentConfig = z.object({ info: z.string().max(65536).default("").meta({ title: "Text", description: "The note itself (Markdown)" }) });

export const commentNode = defineNode({
  type: "comment",
  version: 1,
  category: "common",
  name: "Comment",
  description: "A note on the canvas; it does nothing.",
  help: `A note on the canvas, to document a flow. It does nothing.

### Inputs

None.

### Outputs

None.

### Details

Its name shows on the canvas; its text (Markdown) in the Node tab when it is selected.`,
  inputs: 0,
  outputs: 0,
  configSchema: commentConfig,
  form: { info: { widget: "multiline" } },
  nodeRed: {
    type: "comment",
    toNodeRed: (c) => ({ info: c.info }),
    fromNodeRed: (p) => ({ info: String(p.info ?? "") }),
  },
});
