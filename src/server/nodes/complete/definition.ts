import { z } from "zod";
import { defineNode } from "../types";
import { nodeIdSchema } from "../../../shared/flow-graph";

export const completeConfig = z.object({
  scope: z
    .array(nodeIdSchema)
    .max(500)
    .default([])
    .meta({ title: "Nodes", description: "The nodes whose completed messages start a message here (there is no \"all nodes\" mode)." }),
});

export const completeNode = defineNode({
  type: "complete",
  version: 1,
  category: "common",
  name: "Complete",
  description: "Starts a message when a node in its scope has finished handling a message: a copy of it with msg.complete = {source: {id, type, name}}.",
  help: `Triggers a flow when another node completes its handling of a message.

### Inputs

None: a message starts each time a node in its scope finishes with a message.

### Outputs

A copy of the message the node finished with, and:

- \`complete.source\` (object): \`id\`, \`type\` (as Node-RED names it) and \`name\` (left out when empty) of the node that finished.

### Details

When a node tells the runtime it has finished handling a message (every node here does, once its work for that message is over, the asynchronous ones when their work ends), this node can start a second flow, for example after a node with no output.

It must be set to handle selected nodes of the flow: unlike the catch node, it has no "all nodes" mode. A node this complete node is wired to is left out of its scope. A node that fails on a message does not complete it (the error goes to catch nodes instead).`,
  inputs: 0,
  outputs: 1,
  configSchema: completeConfig,
  roles: { complete: (c) => ({ scope: c.scope }) },
  nodeRed: {
    type: "complete",
    references: ["scope"],
    toNodeRed: (c) => ({ scope: c.scope, uncaught: false }),
    fromNodeRed: (p) => ({ scope: Array.isArray(p.scope) ? p.scope : [] }),
  },
});
