import type { FlowGroup } from "@/shared/subflows";

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export const GROUP_PAD = 20;
/** Room above the members for the label strip. */
export const GROUP_HEADER = 26;

/**
 * Every group's box in flow coordinates, from its members' boxes (node boxes from `boxOf`, nested
 * groups' from their own members), as Node-RED draws them: padded around the members. A group with
 * no member on the canvas has no box. Nested groups come after their parents (drawn on top).
 */
export function groupBoxes(groups: FlowGroup[], boxOf: (nodeId: string) => Box | undefined): Array<{ group: FlowGroup; box: Box; depth: number }> {
  const byId = new Map(groups.map((g) => [g.id, g]));
  const memo = new Map<string, Box | null>();
  const visiting = new Set<string>();
  const boxFor = (g: FlowGroup): Box | null => {
    if (memo.has(g.id)) return memo.get(g.id)!;
    if (visiting.has(g.id)) return null;
    visiting.add(g.id);
    let x1 = Infinity, y1 = Infinity, x2 = -Infinity, y2 = -Infinity;
    for (const m of g.nodes) {
      const inner = byId.get(m);
      const b = inner ? boxFor(inner) : boxOf(m);
      if (!b) continue;
      x1 = Math.min(x1, b.x); y1 = Math.min(y1, b.y); x2 = Math.max(x2, b.x + b.w); y2 = Math.max(y2, b.y + b.h);
    }
    visiting.delete(g.id);
    const box = x1 === Infinity ? null : { x: x1 - GROUP_PAD, y: y1 - GROUP_PAD - GROUP_HEADER, w: x2 - x1 + 2 * GROUP_PAD, h: y2 - y1 + 2 * GROUP_PAD + GROUP_HEADER };
    memo.set(g.id, box);
    return box;
  };
  const parent = new Map<string, string>();
  for (const g of groups) for (const m of g.nodes) if (byId.has(m)) parent.set(m, g.id);
  const depthOf = (id: string): number => { let d = 0; for (let p = parent.get(id); p && d < 50; p = parent.get(p)) d++; return d; };
  const out: Array<{ group: FlowGroup; box: Box; depth: number }> = [];
  for (const g of groups) {
    const box = boxFor(g);
    if (box) out.push({ group: g, box, depth: depthOf(g.id) });
  }
  return out.sort((a, b) => a.depth - b.depth);
}
