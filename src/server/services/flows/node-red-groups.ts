import { NODE_DESCRIPTION_MAX_CHARS, sliceCodePoints, type FlowNode } from "../../../shared/flow-graph";
import { groupSchema, JUNCTION_TYPE, type FlowGroup } from "../../../shared/subflows";

type NrNode = Record<string, unknown>;

/** Each member's group (node ids and group ids). */
export function membershipOf(groups: readonly FlowGroup[]): Map<string, string> {
  const parent = new Map<string, string>();
  for (const g of groups) for (const member of g.nodes) if (!parent.has(member)) parent.set(member, g.id);
  return parent;
}

// Node-RED's node sizes (editor-client view.js): 100 x 30 at least, wider for a longer label, taller
// for many outputs; a junction is a 10 x 10 dot. Group boxes keep Node-RED's margins around them.
const NODE_WIDTH = 100;
const NODE_HEIGHT = 30;
const LABEL_CHAR_WIDTH = 7;
const GROUP_MARGIN_X = 25;
const GROUP_MARGIN_Y = 10;
const GROUP_LABEL_HEIGHT = 20;

/** A node's box on Node-RED's canvas, centred on its x, y (an estimate of the label's width). */
export function nodeBox(node: FlowNode, label: string, outputs: number) {
  if (node.type === JUNCTION_TYPE) return { x: node.position.x - 5, y: node.position.y - 5, w: 10, h: 10 };
  const w = Math.max(NODE_WIDTH, 20 * Math.ceil((label.length * LABEL_CHAR_WIDTH + 50) / 20));
  const h = Math.max(NODE_HEIGHT, outputs * 15);
  return { x: node.position.x - w / 2, y: node.position.y - h / 2, w, h };
}

/**
 * Groups as Node-RED writes them: `{id, type: "group", z, name, style, nodes, env?, x, y, w, h, g?}`,
 * the box drawn around the members' boxes (nested groups' boxes included), parents after their
 * children are measured. Empty env is left out, as Node-RED does.
 */
export function groupsToNodeRed(
  groups: readonly FlowGroup[],
  nodes: readonly FlowNode[],
  z: string,
  boxOf: (node: FlowNode) => { x: number; y: number; w: number; h: number },
): NrNode[] {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const groupById = new Map(groups.map((g) => [g.id, g]));
  const parent = membershipOf(groups);
  const boxes = new Map<string, { x: number; y: number; w: number; h: number }>();
  const measure = (g: FlowGroup, depth = 0): { x: number; y: number; w: number; h: number } => {
    const known = boxes.get(g.id);
    if (known) return known;
    let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
    for (const member of g.nodes) {
      const node = byId.get(member);
      const child = groupById.get(member);
      const box = node ? boxOf(node) : child && depth < groups.length ? measure(child, depth + 1) : null;
      if (!box) continue;
      minX = Math.min(minX, box.x - GROUP_MARGIN_X);
      minY = Math.min(minY, box.y - GROUP_MARGIN_Y);
      maxX = Math.max(maxX, box.x + box.w + GROUP_MARGIN_X);
      maxY = Math.max(maxY, box.y + box.h + GROUP_MARGIN_Y);
    }
    if (minX === Infinity) [minX, minY, maxX, maxY] = [0, 0, 2 * GROUP_MARGIN_X, 2 * GROUP_MARGIN_Y];
    if (g.style.label !== false) minY -= GROUP_LABEL_HEIGHT;
    const box = { x: Math.round(minX), y: Math.round(minY), w: Math.round(maxX - minX), h: Math.round(maxY - minY) };
    boxes.set(g.id, box);
    return box;
  };
  return groups.map((g) => {
    const box = measure(g);
    const up = parent.get(g.id);
    return {
      id: g.id,
      type: "group",
      z,
      ...(up ? { g: up } : {}),
      name: g.name,
      style: g.style,
      nodes: g.nodes,
      ...(g.env.length > 0 ? { env: g.env } : {}),
      ...(g.description ? { info: g.description } : {}),
      ...box,
    };
  });
}

/**
 * Node-RED groups of one tab (or subflow) → ours: ids renamed as the nodes' are, members kept
 * when they are in the same tab (nodes or groups), and only once (Node-RED's `nodes` list is the
 * membership; a member's `g` says the same). What cannot be kept is said in the warnings.
 */
export function groupsFromNodeRed(items: readonly NrNode[], newId: (id: string) => string, local: ReadonlySet<string>, warnings: string[]): FlowGroup[] {
  const groupIds = new Set(items.map((g) => newId(String(g.id))));
  const placed = new Set<string>();
  const groups: FlowGroup[] = [];
  for (const item of items) {
    const id = newId(String(item.id));
    const members: string[] = [];
    if (typeof item.info === "string" && item.info.length > NODE_DESCRIPTION_MAX_CHARS) warnings.push(`group ${id}: its description (info) has ${item.info.length.toLocaleString("en")} characters; the first ${NODE_DESCRIPTION_MAX_CHARS.toLocaleString("en")} are kept`);
    for (const raw of Array.isArray(item.nodes) ? item.nodes : []) {
      if (typeof raw !== "string") continue;
      const member = newId(raw);
      if (!local.has(member) && !groupIds.has(member)) {
        warnings.push(`group ${id}: member ${raw} is not in the same tab; left out of the group`);
        continue;
      }
      if (placed.has(member) || member === id) continue;
      placed.add(member);
      members.push(member);
    }
    const parsed = groupSchema.safeParse({
      id,
      name: typeof item.name === "string" ? item.name : "",
      style: item.style && typeof item.style === "object" ? item.style : {},
      nodes: members,
      env: Array.isArray(item.env) ? item.env : [],
      ...(typeof item.info === "string" && item.info.trim() ? { description: sliceCodePoints(item.info, NODE_DESCRIPTION_MAX_CHARS) } : {}),
    });
    if (parsed.success) groups.push(parsed.data);
    else warnings.push(`group ${id}: ${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}; the group was not kept (its nodes were)`);
  }
  const kept = new Set(groups.map((g) => g.id));
  for (const g of groups) g.nodes = g.nodes.filter((m) => local.has(m) || kept.has(m));
  return groups;
}
