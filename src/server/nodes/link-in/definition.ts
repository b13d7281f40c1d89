import { z } from "zod";
import { defineNode } from "../types";
import { nodeIdSchema } from "../../../shared/flow-graph";

export const linkInConfig = z.object({
  links: z
    .array(nodeIdSchema)
    .max(500)
    .default([])
    .meta({ title: "Linked from", description: "The link-out nodes wired to this node (in any flow of the organization). The link-out's own list decides where messages go; this one is kept for the editor and Node-RED." }),
});

export const linkInNode = defineNode({
  type: "link-in",
  version: 1,
  category: "common",
  name: "Link in",
  description: "Receives the messages of link-out and link-call nodes of any flow of the organization: a virtual wire between flows.",
  help: `Creates virtual wires between flows: the messages that link-out nodes (in "send to all" mode) and link-call nodes send to this node leave it as if they had come over a wire.

### Inputs

None: messages arrive from link-out and link-call nodes that name this node.

### Outputs

The message as the link-out or link-call node sent it.

### Details

A link-in can be reached from a link-out or link-call node in any flow of the organization, wherever that flow runs (flows of one organization may run on different instances of the cluster). A link-call reaches it by its id, or, in dynamic mode, by its name (\`msg.target\`).

A flow called by a link-call should end with a link-out node in "return" mode, which sends the answer back to the calling node.

### Differences from Node-RED

Links reach only flows of the same organization, never another's, even given another organization's node id. Links into or out of subflows are not supported (nor are they in Node-RED).`,
  labelHidden: true,
  inputs: 0,
  outputs: 1,
  configSchema: linkInConfig,
  roles: { linkTarget: true },
  nodeRed: {
    type: "link in",
    references: ["links"],
    toNodeRed: (c) => ({ links: c.links }),
    fromNodeRed: (p) => ({ links: Array.isArray(p.links) ? p.links : [] }),
  },
});
