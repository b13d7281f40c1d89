"use client";

import { useCallback, useRef, useState, type RefObject } from "react";
import {
  applyEdgeChanges,
  useReactFlow,
  useStoreApi,
  type Connection as RfConnection,
  type EdgeChange,
  type IsValidConnection,
  type NodeChange,
  type OnConnectEnd,
} from "@xyflow/react";
import { edgeId, portOf, toEditorEdge, type EditorEdge, type EditorNode } from "../model";
import type { Snapshot } from "../graph/graph-model";
import type { GraphAccess } from "../graph/use-flow-graph";
import type { MiniMapHandle } from "./mini-map";
import { continuesKeyMove, keyOf, planNodeChanges, type KeyMoveBurst } from "./node-changes";

const positionsOf = (changes: NodeChange<EditorNode>[]) => changes.flatMap((c) => (c.type === "position" && c.position ? [{ id: c.id, ...c.position }] : []));

/** Where the quick-add menu opens (a wire dropped on empty canvas) and what it wires from. */
export interface QuickAddAt {
  x: number;
  y: number;
  flowX: number;
  flowY: number;
  source: string;
  port: number;
}

/**
 * React Flow's event handlers for the canvas: selection and drags (`onNodesChange`,
 * `onEdgesChange`), connecting (`isValidConnection`, `onConnect`) and a wire dropped on empty
 * canvas, which opens the quick-add menu (`onConnectEnd`).
 */
export function useCanvasHandlers({
  graph,
  pushHistory,
  amendHistory,
  readOnly,
  canvasRef,
  miniMap,
}: {
  graph: GraphAccess;
  pushHistory: (label: string, before: Snapshot, after: Snapshot) => number;
  amendHistory: (entry: number, after: Snapshot) => number | null;
  readOnly: boolean;
  canvasRef: RefObject<HTMLDivElement | null>;
  miniMap: RefObject<MiniMapHandle | null>;
}) {
  const rf = useReactFlow<EditorNode, EditorEdge>();
  const rfStore = useStoreApi<EditorNode, EditorEdge>();
  const { graphRef, setGraph, commit } = graph;
  const dragStart = useRef<Snapshot | null>(null);
  const keyMove = useRef<KeyMoveBurst | null>(null);
  const [quickAdd, setQuickAdd] = useState<QuickAddAt | null>(null);

  /**
   * A drag's moves skip React: React Flow's own store gets the moved nodes (its node components
   * subscribe to it one by one) and `graphRef` stays the truth for every reader, but the editor's
   * state, and with it the editor, the sidebar, useEditor() readers and the "changed since
   * deploy" diff, changes once, on the drop, as one undo entry. Letting every pointer move re-render
   * the editor cost two vsyncs a frame (docs/BENCHMARKS.md, "Editor").
   */
  const onNodesChange = useCallback(
    (changes: NodeChange<EditorNode>[]) => {
      const plan = planNodeChanges(graphRef.current, changes, { readOnly, dragStart: dragStart.current });
      switch (plan.kind) {
        case "ignore":
          return;
        case "drag":
          dragStart.current = plan.dragStart;
          miniMap.current?.moveNodes(positionsOf(changes));
          graphRef.current = plan.next;
          rfStore.getState().setNodes(plan.next.nodes);
          return;
        case "drop":
          dragStart.current = null;
          miniMap.current?.moveNodes(positionsOf(changes));
          setGraph(plan.next);
          if (plan.moved) pushHistory("move", plan.before, plan.next);
          return;
        case "key-move": {
          // Arrow keys: an edit like a drag's drop (undoable, unsaved); a burst of presses on the
          // same selection stays one entry.
          const before = graphRef.current;
          miniMap.current?.moveNodes(positionsOf(changes));
          setGraph(plan.next);
          const now = Date.now();
          const last = keyMove.current;
          const amended = continuesKeyMove(last, plan.moved, now) ? amendHistory(last.entry, plan.next) : null;
          keyMove.current = { entry: amended ?? pushHistory("move", before, plan.next), ids: keyOf(plan.moved), at: now };
          return;
        }
        case "set":
          dragStart.current = plan.dragStart;
          setGraph(plan.next);
      }
    },
    [readOnly, setGraph, pushHistory, amendHistory, rfStore, graphRef, miniMap],
  );

  const onEdgesChange = useCallback(
    (changes: EdgeChange<EditorEdge>[]) => {
      const relevant = changes.filter((c) => c.type === "select");
      if (relevant.length === 0) return;
      const current = graphRef.current;
      setGraph({ ...current, edges: applyEdgeChanges(relevant, current.edges) });
    },
    [setGraph, graphRef],
  );

  const isValidConnection: IsValidConnection<EditorEdge> = useCallback(
    (c) => {
      if (readOnly) return false;
      const target = graphRef.current.nodes.find((n) => n.id === c.target);
      const source = graphRef.current.nodes.find((n) => n.id === c.source);
      if (!target || !source || target.data.inputs === 0 || c.targetHandle !== "in") return false;
      if (portOf(c.sourceHandle) >= source.data.outputs) return false;
      const id = edgeId({ source: c.source, source_port: portOf(c.sourceHandle), target: c.target });
      return !graphRef.current.edges.some((e) => e.id === id);
    },
    [readOnly, graphRef],
  );

  const onConnect = useCallback(
    (c: RfConnection) => {
      if (!isValidConnection(c)) return;
      const current = graphRef.current;
      const edge = toEditorEdge({ source: c.source, source_port: portOf(c.sourceHandle), target: c.target });
      commit("connect", { ...current, edges: [...current.edges, edge] });
    },
    [commit, isValidConnection, graphRef],
  );

  const onConnectEnd: OnConnectEnd = useCallback(
    (event, state) => {
      if (readOnly || state.isValid || !state.fromNode || state.fromHandle?.type !== "source") return;
      const point = "changedTouches" in event ? event.changedTouches[0]! : event;
      const under = document.elementFromPoint(point.clientX, point.clientY);
      if (!under || !canvasRef.current?.contains(under) || under.closest(".react-flow__node, .react-flow__controls, .react-flow__minimap")) return;
      const bounds = canvasRef.current!.getBoundingClientRect();
      const pos = rf.screenToFlowPosition({ x: point.clientX, y: point.clientY });
      setQuickAdd({ x: point.clientX - bounds.left, y: point.clientY - bounds.top, flowX: pos.x, flowY: pos.y, source: state.fromNode.id, port: portOf(state.fromHandle.id) });
    },
    [readOnly, rf, canvasRef],
  );

  const closeQuickAdd = useCallback(() => setQuickAdd(null), []);

  return { onNodesChange, onEdgesChange, isValidConnection, onConnect, onConnectEnd, quickAdd, closeQuickAdd };
}
