import { describe, expect, it } from "vitest";
import { mergeDecorationLayers } from "./decorations";

describe("canvas decoration layers", () => {
  it("join class names per node and wire; the later layer's badge wins", () => {
    const merged = mergeDecorationLayers([
      { nodes: new Map([["a", { className: "on-path", badge: "1" }]]), edges: new Map([["a:0:b", { className: "on-path" }]]) },
      { nodes: new Map([["a", { className: "found", badge: "2", badgeLabel: "second" }], ["b", { className: "x" }]]) },
    ]);
    expect(merged.nodes.get("a")).toEqual({ className: "on-path found", badge: "2", badgeLabel: "second" });
    expect(merged.nodes.get("b")).toEqual({ className: "x" });
    expect(merged.edges.get("a:0:b")).toEqual({ className: "on-path" });
  });

  it("no layers (or empty ones) give the same empty value, so nodes do not re-render", () => {
    expect(mergeDecorationLayers([])).toBe(mergeDecorationLayers([{ nodes: new Map() }]));
    expect(mergeDecorationLayers([]).nodes.size).toBe(0);
  });
});
