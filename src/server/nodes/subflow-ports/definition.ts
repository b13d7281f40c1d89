import { z } from "zod";
import { defineNode } from "../types";
import { MAX_OUTPUTS } from "../../../shared/node-ports";
import { SUBFLOW_IN_TYPE, SUBFLOW_OUT_TYPE, SUBFLOW_STATUS_TYPE } from "../../../shared/subflows";

/**
 * The port nodes of a subflow definition (SPEC §16): only inside a definition's graph (a flow
 * refuses them), and never exported as nodes (Node-RED keeps them as the subflow's in, out and
 * status arrays). The runtime gives them their behaviour when it runs an instance.
 */
export const subflowInNode = defineNode({
  type: SUBFLOW_IN_TYPE,
  version: 1,
  category: "common",
  name: "Subflow input",
  description: "Where a message sent to the subflow's instance enters the definition.",
  help: `The input of a subflow definition: every message sent to an instance of the subflow leaves this node, into the definition's nodes wired to it.

### Inputs

None (messages come from the instance's input).

### Outputs

1. The message the instance received.

### Details

A definition has at most one input; without one, its instances have no input port.`,
  inputs: 0,
  outputs: 1,
  configSchema: z.object({}),
  scope: "subflow",
});

export const subflowOutNode = defineNode({
  type: SUBFLOW_OUT_TYPE,
  version: 1,
  category: "common",
  name: "Subflow output",
  description: "A message reaching it leaves the subflow's instance on that output port.",
  help: `An output of a subflow definition: a message reaching it leaves the instance on output \`port\` (the first is 0).

### Inputs

Any message.

### Outputs

None inside the definition; the instance sends the message on its output \`port\`.

### Details

The definition's outputs are numbered 0 to n-1, one node each.`,
  inputs: 1,
  outputs: 0,
  configSchema: z.object({
    port: z.number().int().min(0).max(MAX_OUTPUTS - 1).default(0).meta({ title: "Port", description: "The instance's output port (0 is the first)" }),
  }),
  scope: "subflow",
});

export const subflowStatusNode = defineNode({
  type: SUBFLOW_STATUS_TYPE,
  version: 1,
  category: "common",
  name: "Subflow status",
  description: "A message reaching it sets the status of the subflow's instance.",
  help: `The status output of a subflow definition (Node-RED's status port): a message reaching it sets the instance's node status from \`msg.payload\` (an object with \`fill\`, \`shape\` and \`text\`, or a text).

### Inputs

A message whose \`payload\` is the status.

### Outputs

None.

### Details

A definition has at most one status output; an instance of a definition without one shows the status Node-RED would (none).`,
  inputs: 1,
  outputs: 0,
  configSchema: z.object({}),
  scope: "subflow",
});
