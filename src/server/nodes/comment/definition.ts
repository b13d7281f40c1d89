import { z } from "zod";
import { defineNode } from "../types";

export const commentConfig = z.object({ info: z.string().max(65536).default("") });

export const commentNode = defineNode({
  type: "comment",
  version: 1,
  category: "common",
  name: "Comment",
  description: "A note on the canvas; it does nothing.",
  inputs: 0,
  outputs: 0,
  configSchema: commentConfig,
  nodeRed: {
    type: "comment",
    toNodeRed: (c) => ({ info: c.info }),
    fromNodeRed: (p) => ({ info: String(p.info ?? "") }),
  },
});
