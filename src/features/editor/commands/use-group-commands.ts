"use client";

import { useCallback, useMemo, useState } from "react";
import { groupSelection, nodesInGroup, ungroup } from "@/shared/group-tree";
import type { FlowGroup } from "@/shared/subflows";
import { newNodeId, type EditorNode } from "../model";
import type { GraphAccess } from "../graph/use-flow-graph";
import type { GroupUi } from "../groups/group-context";
import type { Notify } from "../canvas/editor-notice";

/**
 * Groups (SPEC §16): which are selected, "Group selection" and "Ungroup" (one undo entry each),
 * and a group's name and colours (the dialog). A group is selected by its label strip; it stays
 * selected while all its nodes are, so clicking elsewhere ends it without a hook on the pane.
 */
export function useGroupCommands({ graph, nodes, groups, notify }: { graph: GraphAccess; nodes: EditorNode[]; groups: FlowGroup[]; notify: Notify }) {
  const { graphRef, setGraph, commit } = graph;
  const [clicked, setClicked] = useState<ReadonlySet<string>>(new Set());
  const [editing, setEditing] = useState<string | null>(null);

  const selected = useMemo(() => {
    if (clicked.size === 0) return clicked;
    const sel = new Set(nodes.filter((n) => n.selected).map((n) => n.id));
    return new Set([...clicked].filter((id) => groups.some((g) => g.id === id) && nodesInGroup(groups, id).every((n) => sel.has(n))));
  }, [clicked, nodes, groups]);

  const select = useCallback(
    (groupId: string, additive: boolean) => {
      const current = graphRef.current;
      const members = new Set(nodesInGroup(current.groups, groupId));
      setGraph({ ...current, nodes: current.nodes.map((n) => {
        const want = members.has(n.id) || (additive && !!n.selected);
        return !!n.selected === want ? n : { ...n, selected: want };
      }) });
      setClicked((prev) => new Set(additive ? [...prev, groupId] : [groupId]));
    },
    [graphRef, setGraph],
  );

  const group = useCallback(() => {
    const current = graphRef.current;
    const sel = new Set(current.nodes.filter((n) => n.selected).map((n) => n.id));
    const id = newNodeId();
    const next = groupSelection(current.groups, sel, id);
    if (!next) return notify({ kind: "info", text: "Select the nodes to group first." });
    commit("group", { ...current, groups: next });
    setClicked(new Set([id]));
  }, [graphRef, commit, notify]);

  const ungroupSelected = useCallback(() => {
    const current = graphRef.current;
    const ids = new Set([...selected].filter((id) => current.groups.some((g) => g.id === id)));
    if (ids.size === 0) return notify({ kind: "info", text: "Select a group first (click its label)." });
    commit("ungroup", { ...current, groups: ungroup(current.groups, ids) });
    setClicked(new Set());
  }, [graphRef, commit, notify, selected]);

  const applyGroupEdit = useCallback(
    (groupId: string, edit: { name: string; style: FlowGroup["style"]; env: FlowGroup["env"]; description: string | undefined }) => {
      const current = graphRef.current;
      const edited = (g: FlowGroup): FlowGroup => {
        const { description: _previous, ...rest } = g;
        void _previous;
        return { ...rest, name: edit.name, style: edit.style, env: edit.env, ...(edit.description ? { description: edit.description } : {}) };
      };
      commit("edit group", { ...current, groups: current.groups.map((g) => (g.id === groupId ? edited(g) : g)) });
    },
    [graphRef, commit],
  );

  const ui = useMemo<GroupUi>(() => ({ selected, select, edit: setEditing }), [selected, select]);
  const editingGroup = editing ? (groups.find((g) => g.id === editing) ?? null) : null;
  return { ui, selected, group, ungroup: ungroupSelected, editingGroup, editGroup: setEditing, applyGroupEdit };
}
