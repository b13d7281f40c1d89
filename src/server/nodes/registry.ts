import { defineNode, type NodeDefinition } from "./types";
import { injectNode } from "./inject/definition";
import { debugNode } from "./debug/definition";
import { functionNode } from "./function/definition";
import { changeNode } from "./change/definition";
import { switchNode } from "./switch/definition";
import { templateNode } from "./template/definition";
import { delayNode } from "./delay/definition";
import { jsonNode } from "./json/definition";
import { httpInNode } from "./http-in/definition";
import { httpResponseNode } from "./http-response/definition";
import { httpRequestNode } from "./http-request/definition";
import { deviceInNode } from "./device-in/definition";
import { deviceOutNode } from "./device-out/definition";
import { commentNode } from "./comment/definition";
import { catchNode } from "./catch/definition";
import { yamlNode } from "./yaml/definition";
import { xmlNode } from "./xml/definition";
import { htmlNode } from "./html/definition";
import { csvNode } from "./csv/definition";
import { linkInNode } from "./link-in/definition";
import { linkOutNode } from "./link-out/definition";
import { linkCallNode } from "./link-call/definition";
import { statusNode } from "./status/definition";
import { completeNode } from "./complete/definition";
import { splitNode } from "./split/definition";
import { joinNode } from "./join/definition";
import { batchNode } from "./batch/definition";
import { sortNode } from "./sort/definition";
import { filterNode } from "./filter/definition";
import { rangeNode } from "./range/definition";
import { triggerNode } from "./trigger/definition";
import { junctionNode } from "./junction/definition";
import { subflowInNode, subflowOutNode, subflowStatusNode } from "./subflow-ports/definition";
import { tlsConfigNode } from "./tls-config/definition";
import { httpProxyNode } from "./http-proxy/definition";
import { globalConfigNode } from "./global-config/definition";
import { z } from "zod";

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

Not offered, by design, in a shared runtime: \`exec\`, \`file\`, \`file in\`, \`watch\`, and listening \`tcp in\` and \`udp in\` nodes: they would reach the host's processes, files or ports.`,
  inputs: 1,
  outputs: { value_of: "outputs" },
  configSchema: unknownConfig,
});

/**
 * The catalog: one definition per type, registered once. An instance, not a module-level mutable
 * registry, so tests and the runtime can build their own.
 */
export class NodeRegistry {
  private readonly byType = new Map<string, NodeDefinition>();

  register(definition: NodeDefinition): void {
    if (this.byType.has(definition.type)) throw new Error(`node type ${definition.type} is registered already`);
    this.byType.set(definition.type, definition);
  }

  get(type: string): NodeDefinition | undefined {
    return this.byType.get(type);
  }

  /** Node-RED's type name → ours. */
  fromNodeRedType(nodeRedType: string): NodeDefinition | undefined {
    for (const d of this.byType.values()) if (d.nodeRed?.type === nodeRedType || d.type === nodeRedType) return d;
    return undefined;
  }

  list(): NodeDefinition[] {
    return [...this.byType.values()].filter((d) => d.type !== "unknown");
  }
}

export const builtinNodes: NodeDefinition[] = [
  injectNode,
  debugNode,
  functionNode,
  changeNode,
  switchNode,
  templateNode,
  delayNode,
  jsonNode,
  httpInNode,
  httpResponseNode,
  httpRequestNode,
  deviceInNode,
  deviceOutNode,
  commentNode,
  catchNode,
  yamlNode,
  xmlNode,
  htmlNode,
  csvNode,
  linkInNode,
  linkOutNode,
  linkCallNode,
  statusNode,
  completeNode,
  splitNode,
  joinNode,
  batchNode,
  sortNode,
  filterNode,
  rangeNode,
  triggerNode,
  junctionNode,
  subflowInNode,
  subflowOutNode,
  subflowStatusNode,
  tlsConfigNode,
  httpProxyNode,
  globalConfigNode,
  unknownNode,
];

export function createNodeRegistry(definitions: NodeDefinition[] = builtinNodes): NodeRegistry {
  const registry = new NodeRegistry();
  for (const d of definitions) registry.register(d);
  return registry;
}
