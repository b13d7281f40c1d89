import { z } from "zod";
import { defineNode } from "../types";
import { nodeIdSchema } from "../../../shared/flow-graph";

export const statusConfig = z.object({
  scope: z
    .array(nodeIdSchema)
    .max(500)
    .nullable()
    .default(null)
    .meta({ title: "Report status from", description: "The nodes whose status is reported; empty (null): every node of the flow." }),
});

export const statusNode = defineNode({
  type: "status",
  version: 1,
  category: "common",
  name: "Status",
  description: "Starts a message each time a node of the flow reports a status: msg.status = {fill, shape, text, source: {id, type, name}}.",
  help: `Reports status messages from other nodes of the same flow.

### Inputs

None: a message starts each time a node in its scope reports a status.

### Outputs

- \`status.text\` (string): the status text.
- \`status.fill\`, \`status.shape\` (string): the status colour and shape, when given.
- \`status.source.type\` (string): the type of the node that reported the status, as Node-RED names it (\`link call\`).
- \`status.source.id\` (string): the id of the node that reported the status.
- \`status.source.name\` (string): the name of the node that reported the status (left out when it has none).

### Details

This node does not produce a \`payload\`.

By default the node reports the status of every node of the flow. It can be set to report the status of selected nodes only; a node this status node is wired to is left out (so that the simplest loop cannot form). A cleared status arrives as \`status\` with only its \`source\`.

### Differences from Node-RED

A Node-RED flow whose status node's scope is *group* imports with that scope as the list of the group's nodes (and of the groups inside it) at import; nodes added to the group later are not in it. In no group, *group* covers the whole flow, as in Node-RED.`,
  inputs: 0,
  outputs: 1,
  configSchema: statusConfig,
  roles: { status: (c) => ({ scope: c.scope }) },
  nodeRed: {
    type: "status",
    references: ["scope"],
    toNodeRed: (c) => ({ scope: c.scope }),
    // "group" is kept as is and refused by the schema (see catch).
    fromNodeRed: (p) => ({ scope: p.scope === undefined ? null : p.scope }),
  },
});
