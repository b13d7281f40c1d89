import { z } from "zod";
import { defineNode } from "../types";
import { numberOrVariable, variableFromNodeRed } from "../../runtime/number-or-variable";
import { nodeIdSchema } from "../../../shared/flow-graph";

export const linkCallConfig = z.object({
  link_type: z
    .enum(["static", "dynamic"])
    .default("static")
    .meta({ title: "Link type", description: "static: call the link-in node chosen here; dynamic: call the link-in named by msg.target (its id or its name)." }),
  links: z
    .array(nodeIdSchema)
    .max(1)
    .default([])
    .meta({ title: "Target", description: "The link-in node to call (static link type), in any flow of the organization." }),
  timeout_seconds: numberOrVariable(z.number().min(0).max(86_400))
    .default(30)
    .meta({ title: "Timeout (seconds)", description: "How long to wait for the called flow's answer before reporting the error \"timeout\" (to catch nodes). Or ${NAME}, read when the flow starts." }),
});

export const linkCallNode = defineNode({
  type: "link-call",
  version: 1,
  category: "common",
  name: "Link call",
  description: "Calls a flow that starts with a link-in node (in any flow of the organization) and sends on its answer.",
  help: `Calls a flow that starts with a link-in node and passes on the response.

### Inputs

- \`target\` (string): with **Link type** "dynamic", the id or the name of the link-in node to call.

### Outputs

The message the called flow returned through a link-out node in "return" mode.

### Details

This node can call a link-in node in any flow of the organization, wherever that flow runs. The flow connected to that link-in must end with a link-out node in "return" mode.

When this node receives a message, it passes it to the link-in node and waits for the response, which it then sends on. If no response comes within the timeout (30 seconds by default), it reports the error \`timeout\`, which a catch node can handle.

With **Link type** "dynamic", \`msg.target\` names the link-in node by id or by name:

- a link-in with that id is called;
- else a link-in with that name in this flow, else the one link-in with that name in the organization's flows;
- two or more link-in nodes with that name give the error \`Multiple link-in nodes named '…' found\`, and none \`target link-in node '…' not found\`.

A link-in of a flow that does not run (stopped, or moving between instances) is not reached: the call times out.

### Differences from Node-RED

Calls reach only link-in nodes of the same organization; another organization's node id is "not found".`,
  inputs: 1,
  outputs: 1,
  configSchema: linkCallConfig,
  roles: { linkCall: true },
  nodeRed: {
    type: "link call",
    references: ["links"],
    toNodeRed: (c) => ({ links: c.links, linkType: c.link_type, timeout: String(c.timeout_seconds) }),
    fromNodeRed: (p) => {
      const timeout = parseFloat(String(p.timeout || "30"));
      return {
        link_type: p.linkType === "dynamic" ? "dynamic" : "static",
        links: typeof p.links === "string" ? [p.links] : Array.isArray(p.links) ? p.links.slice(0, 1) : [],
        timeout_seconds: variableFromNodeRed(p.timeout) ?? (Number.isNaN(timeout) ? 30 : timeout),
      };
    },
  },
});
