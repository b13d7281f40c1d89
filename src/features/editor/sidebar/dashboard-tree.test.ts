import { describe, expect, it } from "vitest";
import type { ConfigNodeView } from "@/shared/config-nodes";
import { buildDashboardTree, reorder } from "./dashboard-tree";

function node(id: string, type: string, config: Record<string, unknown>): ConfigNodeView {
  return { id, type, name: id, config, credentials: {}, revision: 1, used_by: [], created_at: "", updated_at: "" };
}

describe("the Dashboard tab's tree", () => {
  const nodes = [
    node("base", "ui-base", { name: "My Dashboard" }),
    node("p2", "ui-page", { ui: "base", path: "/two", order: 2 }),
    node("p1", "ui-page", { ui: "base", path: "/one", order: 1 }),
    node("g2", "ui-group", { page: "p1", order: 2 }),
    node("g1", "ui-group", { page: "p1", order: 1 }),
    node("lost", "ui-group", { page: "gone", order: 1 }),
  ];

  it("lists pages and groups in order, and what has no parent under Unassigned", () => {
    const tree = buildDashboardTree(nodes);
    expect(tree[0]!.pages.map((p) => [p.node.id, p.path, p.groups.map((g) => g.id)])).toEqual([
      ["p1", "/one", ["g1", "g2"]],
      ["p2", "/two", []],
    ]);
    expect(tree[1]!.node).toBeNull();
    expect(tree[1]!.pages[0]!.groups.map((g) => g.id)).toEqual(["lost"]);
  });

  it("a move renumbers only what changes", () => {
    const pages = buildDashboardTree(nodes)[0]!.pages.map((p) => p.node);
    expect(reorder(pages, 1, 0).map((c) => [c.node.id, c.order])).toEqual([
      ["p2", 1],
      ["p1", 2],
    ]);
    expect(reorder(pages, 0, 0)).toEqual([]);
    expect(reorder(pages, 0, 5)).toEqual([]);
  });
});
