import { z } from "zod";
import { defineNode } from "../types";
import { nodeIdSchema } from "../../../shared/flow-graph";

export const catchConfig = z.object({
  /** The nodes whose errors this node catches; null: every node of the flow. */
  scope: z.array(nodeIdSchema).max(500).nullable().default(null),
});

export const catchNode = defineNode({
  type: "catch",
  version: 1,
  category: "common",
  name: "Catch",
  description: "Starts a message when a node of the flow fails on a message: the message, with msg.error = {message, source: {id, type, name}}.",
  inputs: 0,
  outputs: 1,
  configSchema: catchConfig,
  nodeRed: {
    type: "catch",
    toNodeRed: (c) => ({ scope: c.scope, uncaught: false }),
    fromNodeRed: (p) => ({ scope: Array.isArray(p.scope) ? p.scope : null }),
  },
});
