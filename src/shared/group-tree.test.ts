import { describe, expect, it } from "vitest";
import { groupSelection, nodesInGroup, pruneGroups, ungroup } from "./group-tree";
import { mergeGroups } from "./graph-merge";
import type { FlowGroup } from "./subflows";

const g = (id: string, nodes: string[], name = ""): FlowGroup => ({ id, name, style: {}, nodes, env: [] });

describe("group operations (SPEC §16)", () => {
  it("groups the selection, taking nodes out of a partly selected group and wholly selected groups in", () => {
    const groups = [g("A", ["a", "b"]), g("B", ["c", "d"])];
    const next = groupSelection(groups, new Set(["b", "c", "d"]), "N")!;
    expect(next.find((x) => x.id === "A")!.nodes).toEqual(["a"]);
    expect(next.find((x) => x.id === "N")!.nodes.sort()).toEqual(["B", "b"]);
    expect(nodesInGroup(next, "N").sort()).toEqual(["b", "c", "d"]);
  });

  it("puts a new group inside the group all its members shared", () => {
    const next = groupSelection([g("A", ["a", "b", "c"])], new Set(["a", "b"]), "N")!;
    expect(next.find((x) => x.id === "A")!.nodes).toEqual(["c", "N"]);
  });

  it("refuses an empty selection", () => {
    expect(groupSelection([], new Set(), "N")).toBeNull();
  });

  it("ungroups into the parent", () => {
    expect(ungroup([g("A", ["x", "B"]), g("B", ["b", "c"])], new Set(["B"]))).toEqual([g("A", ["x", "b", "c"])]);
    expect(ungroup([g("B", ["b"])], new Set(["B"]))).toEqual([]);
  });

  it("prunes deleted members and groups left empty, up the tree", () => {
    expect(pruneGroups([g("A", ["B", "z"]), g("B", ["gone"])], new Set(["z"]))).toEqual([g("A", ["z"])]);
    expect(pruneGroups([g("A", ["B"]), g("B", ["gone"])], new Set())).toEqual([]);
  });

  it("merges groups by id: one side's change wins, both sides' change takes mine, dropped nodes leave", () => {
    const base = [g("A", ["a"], "one")];
    expect(mergeGroups(base, base, [g("A", ["a"], "theirs")], new Set(["a"]))[0]!.name).toBe("theirs");
    expect(mergeGroups(base, [g("A", ["a"], "mine")], [g("A", ["a"], "theirs")], new Set(["a"]))[0]!.name).toBe("mine");
    expect(mergeGroups(base, base, [g("A", ["a", "b"]), g("T", ["t"])], new Set(["a"]))).toEqual([g("A", ["a"])]);
  });
});
