import { z } from "zod";
import { defineNode } from "../types";

const unknownConfig = z.object({
  original_type: z.string().min(1).max(200).meta({ title: "Node-RED type", description: "The type of the imported node" }),
  properties: z.record(z.string(), z.unknown()).default({}).meta({ title: "Properties", description: "The imported node's properties, kept for export" }),
  outputs: z.number().int().min(0).max(64).default(1).meta({ title: "Outputs", description: "Its output ports, so its wires are kept" }),
});

/** Imported Node-RED nodes of types we lack: kept (disabled) so nothing is lost on a round trip. */
export const unknownNode = defineNode({
  type: "unknown",
  version: 1,
  category: "common",
  name: "Unknown",
  description: "A node of a type this platform does not have, kept from an import; it never runs.",
  help: `A Node-RED node of a type this platform does not offer, kept from an import so that nothing is lost: exporting the flow writes it back as it was. It is disabled and never runs.

### Inputs

Messages reaching it go nowhere.

### Outputs

None are sent; its wires are kept for export.

### Details

The import's warnings (and the dry-run report) say why it was not imported as a working node: a type the platform lacks, properties it cannot read, or a type not offered by design.

### Differences from Node-RED

Not offered, by design, in a shared runtime: \`exec\`, \`watch\`, and what listens on a port: \`tcp in\` and \`tcp out\` as a server (or replying to one) and \`udp in\`. They would reach the host's processes, files or ports; on a device they are Node-RED's own.`,
  inputs: 1,
  outputs: { value_of: "outputs" },
  configSchema: unknownConfig,
});
