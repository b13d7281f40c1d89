import { z } from "zod";
import { defineNode } from "../types";
import { nodeIdSchema } from "../../../shared/flow-graph";

export const linkOutConfig = z.object({
  mode: z
    .enum(["link", "return"])
    .default("link")
    .meta({ title: "Mode", description: "link: send to all the link-in nodes listed; return: send the message back to the link-call node that called this flow." }),
  links: z
    .array(nodeIdSchema)
    .max(500)
    .default([])
    .meta({ title: "Send to", description: "The link-in nodes (of any flow of the organization) that get the messages, in link mode." }),
});

export const linkOutNode = defineNode({
  type: "link-out",
  version: 1,
  category: "common",
  name: "Link out",
  description: "Sends each message to link-in nodes of any flow of the organization, or back to the link-call node that called this flow.",
  help: `Creates virtual wires between flows: sends each message to the link-in nodes it is connected to, or back to the link-call node that triggered the flow.

### Inputs

- \`_linkSource\` (array): in "return" mode, where the answer goes: set by the link-call node that called the flow (its last entry is used and removed).

### Outputs

None: the message leaves through the link-in nodes, or the link-call node, it reaches.

### Details

In **send to all connected link nodes** mode (\`link\`), the message goes to every link-in node listed in **Send to**, in any flow of the organization, wherever that flow runs. A link-in whose flow is not running is skipped.

In **return to calling link node** mode (\`return\`), the message goes back to the link-call node that called this flow (found from \`msg._linkSource\`), which sends it on. Without that information the node warns "Missing return node information" and the message stops here.

### Differences from Node-RED

Links reach only flows of the same organization, never another's. Node-RED also sends to link-in nodes that list this node without being listed here; our link-out sends to the nodes it lists itself (an import adds those link-in nodes to the list).`,
  labelHidden: true,
  inputs: 1,
  outputs: 0,
  configSchema: linkOutConfig,
  nodeRed: {
    type: "link out",
    references: ["links"],
    toNodeRed: (c) => ({ mode: c.mode, links: c.links }),
    fromNodeRed: (p) => ({ mode: p.mode === "return" ? "return" : "link", links: Array.isArray(p.links) ? p.links : [] }),
  },
});
