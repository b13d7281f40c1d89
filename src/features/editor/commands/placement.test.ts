import { describe, expect, it } from "vitest";
import { NODE_WIDTH, type EditorNode } from "../model";
import { freeSpot } from "./placement";

const node = (id: string, x: number, y: number, width = NODE_WIDTH, height = 40) => ({ id, position: { x, y }, width, height, measured: { width, height }, data: {} }) as unknown as EditorNode;
const size = { width: NODE_WIDTH, height: 40 };
const overlap = (a: { x: number; y: number }, b: { x: number; y: number }) => Math.abs(a.x - b.x) < NODE_WIDTH && Math.abs(a.y - b.y) < 40;

describe("where a node added from the keyboard goes", () => {
  it("in the middle of the view when that is free", () => {
    expect(freeSpot([], { x: 100, y: 100 }, size)).toEqual({ x: 100, y: 100 });
    expect(freeSpot([node("far", 800, 800)], { x: 100, y: 100 }, size)).toEqual({ x: 100, y: 100 });
  });

  it("never on a node already there: Enter pressed again and again makes a column of separate nodes", () => {
    const placed: EditorNode[] = [];
    for (let i = 0; i < 12; i++) {
      const at = freeSpot(placed, { x: 100, y: 100 }, size);
      for (const n of placed) expect(overlap(at, n.position), `node ${i} covers ${n.id}`).toBe(false);
      placed.push(node(`n${i}`, at.x, at.y));
    }
    // Below the first, then in a column to the right.
    expect(placed[1]!.position.x).toBe(100);
    expect(placed[1]!.position.y).toBeGreaterThanOrEqual(140);
    expect(placed[11]!.position.x).toBeGreaterThan(100 + NODE_WIDTH);
  });

  it("keeps clear of a node that sits slightly off the middle (the old 30 px step landed on it)", () => {
    const at = freeSpot([node("a", 130, 110)], { x: 100, y: 100 }, size);
    expect(overlap(at, { x: 130, y: 110 })).toBe(false);
  });

  it("respects a tall node's height", () => {
    const at = freeSpot([node("tall", 100, 100, NODE_WIDTH, 200)], { x: 100, y: 100 }, size);
    expect(at.y >= 300 || at.x >= 100 + NODE_WIDTH).toBe(true);
  });
});
