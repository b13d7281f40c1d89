import type { NodeRegistry } from "../../nodes/registry";

/**
 * A device flow's nodes (SPEC §22): a node of a type we do not have, which the target's devices
 * reported, is kept as a Node-RED node (our `unknown` type, with its type and properties as given),
 * so it is saved, shown as JSON properties in the editor and exported to the device as it was.
 * Types neither we nor the devices have stay as they are, and validation refuses them.
 */
export function adaptDeviceNodes<T extends { type: string; config?: Record<string, unknown> }>(registry: NodeRegistry, nodes: T[], deviceTypes: ReadonlySet<string>): T[] {
  return nodes.map((n) => {
    if (registry.get(n.type) || !deviceTypes.has(n.type)) return n;
    const config = n.config ?? {};
    const outputs = typeof config.outputs === "number" && Number.isInteger(config.outputs) && config.outputs >= 0 ? config.outputs : 1;
    return { ...n, type: "unknown", config: { original_type: n.type, properties: config, outputs } };
  });
}
