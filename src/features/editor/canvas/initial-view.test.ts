import { describe, expect, it } from "vitest";
import type { EditorNode } from "../model";
import { initialViewOf } from "./initial-view";

const nodes = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `n${i}`, position: { x: (i % 50) * 200, y: Math.floor(i / 50) * 80 }, data: {} }) as unknown as EditorNode);

describe("where the canvas first looks", () => {
  it("a flow opened empty does not fit the view (a queued fit would move the first dropped node away from the drop point)", () => {
    expect(initialViewOf([]).fitView).toBe(false);
  });

  it("a flow opened with nodes fits them", () => {
    expect(initialViewOf(nodes(3))).toEqual({ fitView: true, fitViewOptions: { maxZoom: 1, padding: 0.15 } });
  });

  it("a big flow opens on its top-left corner", () => {
    const view = initialViewOf(nodes(400));
    expect(view.fitView).toBe(true);
    expect(view.fitViewOptions?.nodes).toHaveLength(40);
    expect(view.fitViewOptions?.nodes?.[0]).toEqual({ id: "n0" });
  });
});
