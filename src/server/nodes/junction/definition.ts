import { z } from "zod";
import { defineNode } from "../types";
import { JUNCTION_TYPE } from "../../../shared/subflows";

/** A junction has no configuration (Node-RED's has none either). */
export const junctionConfig = z.object({});

export const junctionNode = defineNode({
  type: JUNCTION_TYPE,
  version: 1,
  category: "common",
  name: "Junction",
  description: "A point wires pass through: every message arriving leaves unchanged on its one output.",
  help: `A point on the canvas that wires pass through, to route many wires tidily (Node-RED's junction). Every message that arrives leaves, unchanged, to every node wired to its output.

### Inputs

Any message.

### Outputs

1. The same message, unchanged.

### Details

A junction has no name and no properties; it is drawn as a small dot. Several wires may enter it and several may leave it: each message entering is sent to every wire leaving, as a node's output is.`,
  inputs: 1,
  outputs: 1,
  configSchema: junctionConfig,
  nodeRed: {
    type: JUNCTION_TYPE,
    toNodeRed: () => ({}),
    fromNodeRed: () => ({}),
  },
});
