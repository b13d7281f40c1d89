"use client";

import { memo, useCallback, useMemo, useRef, type PointerEvent as ReactPointerEvent } from "react";
import { ViewportPortal, useReactFlow, useStore, useStoreApi } from "@xyflow/react";
import { nodesInGroup } from "@/shared/group-tree";
import type { FlowGroup } from "@/shared/subflows";
import { useEditor } from "../editor-api";
import { useGraphAccess } from "../graph/use-flow-graph";
import { groupBoxes } from "../groups/group-geometry";
import { useGroupUi, type GroupUi } from "../groups/group-context";
import type { EditorEdge, EditorNode } from "../model";

const str = (v: unknown, fallback: string) => (typeof v === "string" && v ? v : fallback);
const num = (v: unknown, fallback: number) => (typeof v === "number" && Number.isFinite(v) ? v : typeof v === "string" && v !== "" && Number.isFinite(Number(v)) ? Number(v) : fallback);

/** The group's accessible name (SPEC §10: "Group <name>"). */
export const groupLabel = (g: FlowGroup) => `Group ${g.name || "(unnamed)"}`;

/**
 * Group boxes (SPEC §16), a canvas layer behind the nodes (React Flow's viewport portal, in flow
 * coordinates): a box padded around its members in the group's stroke and fill, its name in the
 * label strip. Positions come from React Flow's store, so a box follows a node while it is dragged.
 * The label strip is the group's handle: a button (Tab reaches it, named "Group <name>") that
 * selects the group with its nodes on click or Enter, opens its dialog on double-click, and moves
 * the group with its members when dragged (one undo entry).
 */
export function GroupBoxes() {
  const { groups, readOnly } = useEditor();
  // React Flow's nodes array changes on every drag move (the re-render), its lookup map answers by id.
  const rfNodes = useStore((s) => s.nodes);
  const lookup = useStore((s) => s.nodeLookup);
  const ui = useGroupUi();
  const boxes = useMemo(() => {
    if (groups.length === 0 || rfNodes.length === 0) return [];
    return groupBoxes(groups, (id) => {
      const n = lookup.get(id);
      const w = n?.width ?? n?.measured?.width;
      const h = n?.height ?? n?.measured?.height;
      // A node not measured yet is not on screen (React Flow hides it until it is): a box drawn from
      // its zero size would be the wrong size for a frame, then jump.
      return n && w !== undefined && h !== undefined ? { x: n.position.x, y: n.position.y, w, h } : undefined;
    });
  }, [groups, rfNodes, lookup]);
  const drag = useGroupDrag(readOnly);
  if (boxes.length === 0) return null;
  return (
    <ViewportPortal>
      <div className="fp-groups">
        {boxes.map(({ group, box }) => (
          <GroupBox key={group.id} group={group} x={box.x} y={box.y} w={box.w} h={box.h} selected={ui.selected.has(group.id)} ui={ui} drag={drag} />
        ))}
      </div>
    </ViewportPortal>
  );
}

/** One box; memoized, so while a node is dragged only its group's box renders again. */
const GroupBox = memo(function GroupBox({ group, x, y, w, h, selected, ui, drag }: { group: FlowGroup; x: number; y: number; w: number; h: number; selected: boolean; ui: GroupUi; drag: GroupDrag }) {
  const s = group.style as Record<string, unknown>;
  return (
    <div className={`fp-group${selected ? " selected" : ""}`} data-group-id={group.id} style={{ left: x, top: y, width: w, height: h }}>
      <div className="fp-group-fill" style={{ borderColor: str(s.stroke, "#999999"), borderStyle: s.stroke === "none" ? "none" : "solid" }}>
        <div className="fp-group-bg" style={{ background: s.fill === "none" ? "transparent" : str(s.fill, "transparent"), opacity: num(s["fill-opacity"], 1) }} />
      </div>
      {/* The border takes the pointer too (selects and drags like the label); the inside stays the pane's. */}
      <svg className="fp-group-edge nodrag nopan" width={w} height={h} aria-hidden="true">
        <rect x={1} y={1} width={Math.max(0, w - 2)} height={Math.max(0, h - 2)} rx={6} onPointerDown={(e) => drag(e, group.id)} onDoubleClick={() => ui.edit(group.id)} />
      </svg>
      <button
        type="button"
        className="fp-group-label nodrag nopan"
        aria-label={groupLabel(group)}
        aria-pressed={selected}
        style={{ color: str(s.color, "#3f3f3f") }}
        onPointerDown={(e) => drag(e, group.id)}
        onClick={(e) => {
          // Enter or Space (a click without a pointer): the pointer's press has selected already.
          if (e.detail === 0) ui.select(group.id, e.shiftKey || e.ctrlKey || e.metaKey);
        }}
        onDoubleClick={() => ui.edit(group.id)}
      >
        {s.label === false ? "" : group.name}
      </button>
    </div>
  );
});

type GroupDrag = (e: ReactPointerEvent<Element>, groupId: string) => void;

/** Pointer down on a label strip: select the group, then drag its nodes with the pointer. */
function useGroupDrag(readOnly: boolean): GroupDrag {
  const { graphRef, commit } = useGraphAccess();
  const rf = useReactFlow<EditorNode, EditorEdge>();
  const rfStore = useStoreApi<EditorNode, EditorEdge>();
  const ui = useGroupUi();
  const active = useRef(false);
  return useCallback((e: ReactPointerEvent<Element>, groupId: string) => {
    if (e.button !== 0 || active.current) return;
    e.stopPropagation();
    ui.select(groupId, e.shiftKey || e.ctrlKey || e.metaKey);
    if (readOnly) return;
    const before = graphRef.current;
    const members = new Set(nodesInGroup(before.groups, groupId));
    // Every selected node moves along (another selected group's, too).
    for (const n of before.nodes) if (n.selected) members.add(n.id);
    const start = { x: e.clientX, y: e.clientY };
    const zoom = rf.getZoom();
    // The label (a button) or the border (an SVG rect): both are elements with pointer events.
    const target = e.currentTarget as HTMLElement;
    target.setPointerCapture?.(e.pointerId);
    active.current = true;
    let moved: typeof before | null = null;
    const move = (ev: PointerEvent) => {
      const dx = Math.round((ev.clientX - start.x) / zoom);
      const dy = Math.round((ev.clientY - start.y) / zoom);
      if (!moved && Math.hypot(dx, dy) < 3) return;
      const base = graphRef.current;
      const nodes = base.nodes.map((n) => {
        if (!members.has(n.id)) return n;
        const orig = before.nodes.find((o) => o.id === n.id) ?? n;
        return { ...n, position: { x: orig.position.x + dx, y: orig.position.y + dy } };
      });
      moved = { ...base, nodes };
      graphRef.current = moved;
      rfStore.getState().setNodes(nodes);
    };
    const end = () => {
      target.removeEventListener("pointermove", move);
      target.removeEventListener("pointerup", end);
      target.removeEventListener("pointercancel", end);
      active.current = false;
      if (!moved) return;
      const next = moved;
      // One undo entry, from the graph before the drag.
      graphRef.current = before;
      commit("move group", next);
    };
    target.addEventListener("pointermove", move);
    target.addEventListener("pointerup", end);
    target.addEventListener("pointercancel", end);
  }, [readOnly, graphRef, commit, rf, rfStore, ui]);
}
