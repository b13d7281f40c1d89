import { NODE_WIDTH, type EditorNode } from "../model";

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Space kept clear around a placed node. */
const GAP = 20;
/** How many rows a column is tried before the next column to the right. */
const ROWS = 8;

const boxOf = (n: EditorNode): Box => ({ x: n.position.x, y: n.position.y, width: n.measured?.width ?? n.width ?? NODE_WIDTH, height: n.measured?.height ?? n.height ?? 40 });
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width + GAP && b.x < a.x + a.width + GAP && a.y < b.y + b.height + GAP && b.y < a.y + a.height + GAP;

/**
 * Where a node of `size` added from the keyboard goes: at `want` (the middle of the view) when that
 * is free, else the first free place below it, then in the columns to its right, so it never covers
 * a node (several Enter presses in a row make a column). Top-left corners, flow coordinates.
 */
export function freeSpot(nodes: EditorNode[], want: { x: number; y: number }, size: { width: number; height: number }): { x: number; y: number } {
  const boxes = nodes.map(boxOf);
  const free = (x: number, y: number) => !boxes.some((b) => overlaps(b, { x, y, ...size }));
  const rowStep = Math.max(60, size.height + GAP);
  const colStep = Math.max(NODE_WIDTH, size.width) + 2 * GAP;
  for (let col = 0; col < 10; col++) {
    for (let row = 0; row < ROWS; row++) {
      const x = want.x + col * colStep;
      const y = want.y + row * rowStep;
      if (free(x, y)) return { x, y };
    }
  }
  // A crowded view: below everything.
  return { x: want.x, y: Math.max(...boxes.map((b) => b.y + b.height)) + GAP };
}
