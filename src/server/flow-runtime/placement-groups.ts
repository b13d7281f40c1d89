import type { NodeRegistry } from "../nodes/registry";
import type { DeploymentSnapshot } from "./types";

/**
 * Flows that must run on one instance (SPEC §20): those using a configuration node whose type says
 * its flows belong together (`NodeDefinition.placeTogether`: an MQTT broker with a persistent
 * session, whose client id two instances would take from each other). Derived from what is
 * deployed: a flow's keys come from its current deployment's configuration nodes.
 */

/** The placement keys of a deployment: one per configuration node it carries that keeps its flows together. */
export function placementKeysOf(nodes: NodeRegistry, organizationId: string, configNodes: DeploymentSnapshot["config_nodes"] | null | undefined): string[] {
  if (!configNodes || typeof configNodes !== "object") return [];
  const keys: string[] = [];
  for (const [id, node] of Object.entries(configNodes)) {
    const together = node && typeof node === "object" ? nodes.get(node.type)?.placeTogether : undefined;
    if (together && node.config && typeof node.config === "object" && together(node.config)) keys.push(`${organizationId}:${id}`);
  }
  return keys.sort();
}

/**
 * The groups among `flows` (flow id → its placement keys): flows sharing a key are in one group,
 * transitively (a flow using two such configuration nodes joins their groups). Returns, for every
 * flow with a key, its group's flow ids in order (one array shared by the group; a group of one
 * when no other flow shares its keys). Flows without keys are not in the map: each is placed on its own.
 */
export function placementGroups(flows: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let root = x;
    while (parent.get(root) !== root) root = parent.get(root)!;
    // Path compression: later finds are direct.
    let at = x;
    while (at !== root) {
      const next = parent.get(at)!;
      parent.set(at, root);
      at = next;
    }
    return root;
  };
  const union = (a: string, b: string) => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(ra < rb ? rb : ra, ra < rb ? ra : rb);
  };
  const byKey = new Map<string, string>();
  for (const [flowId, keys] of flows) {
    if (keys.length === 0) continue;
    parent.set(flowId, flowId);
    for (const key of keys) {
      const first = byKey.get(key);
      if (first === undefined) byKey.set(key, flowId);
      else union(first, flowId);
    }
  }
  const members = new Map<string, string[]>();
  for (const flowId of parent.keys()) {
    const root = find(flowId);
    const list = members.get(root) ?? [];
    list.push(flowId);
    members.set(root, list);
  }
  const groups = new Map<string, string[]>();
  for (const list of members.values()) {
    list.sort();
    for (const flowId of list) groups.set(flowId, list);
  }
  return groups;
}

/**
 * Which instance keeps a group whose flows are held by several (its composition changed: two groups
 * joined): the one holding the most of them, the smallest instance id on a tie, so every instance
 * reading the same leases names the same one. The others release theirs.
 */
export function groupKeeper(holders: ReadonlyArray<string | null>): string | null {
  const counts = new Map<string, number>();
  for (const holder of holders) if (holder !== null) counts.set(holder, (counts.get(holder) ?? 0) + 1);
  let best: string | null = null;
  for (const [holder, count] of counts) {
    const bestCount = best === null ? -1 : counts.get(best)!;
    if (count > bestCount || (count === bestCount && holder < best!)) best = holder;
  }
  return best;
}
