"use client";

import { useCallback, type RefObject } from "react";
import { useReactFlow } from "@xyflow/react";
import type { NodeEdit } from "../edit-dialog";
import { ICON_NODE_WIDTH, NODE_WIDTH, newNodeId, toEditorEdge, toEditorNode, withData, type Catalog, type EditorEdge, type EditorNode } from "../model";
import type { GraphAccess } from "../graph/use-flow-graph";
import { freeSpot } from "./placement";

/** Focus a canvas node once React Flow has drawn it (after an add, a dialog, a find). */
export function focusNode(id: string) {
  requestAnimationFrame(() => requestAnimationFrame(() => document.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(id)}"]`)?.focus()));
}

/**
 * The graph edits the palette, the keyboard, the dialog and the sidebar call: add (at a point, in
 * the middle of the view, by a drop), delete the selection, apply a node's edit, select one node
 * or all of them. Each undoable one is one `commit`.
 */
export function useGraphCommands({ graph, catalog, canvasRef }: { graph: GraphAccess; catalog: Catalog; canvasRef: RefObject<HTMLDivElement | null> }) {
  const rf = useReactFlow<EditorNode, EditorEdge>();
  const { graphRef, commit, setGraph } = graph;

  const newNode = useCallback(
    (type: string, x: number, y: number): EditorNode => {
      const entry = catalog.get(type);
      const position = { x: Math.round(x), y: Math.round(y) };
      // A type only the target device has (SPEC §22): a Node-RED node of that type, its properties edited as JSON.
      const node = entry
        ? toEditorNode(catalog, { id: newNodeId(), type, name: "", position, config: structuredClone(entry.defaults), disabled: false })
        : toEditorNode(catalog, { id: newNodeId(), type: "unknown", name: "", position, config: { original_type: type, properties: {}, outputs: 1 }, disabled: false });
      return { ...node, selected: true };
    },
    [catalog],
  );

  /** Adds a node with its top-left at a flow position, selected alone. */
  const addNodeAt = useCallback(
    (type: string, x: number, y: number, wireFrom?: { source: string; port: number }) => {
      const node = newNode(type, x, y);
      const current = graphRef.current;
      const nodesNext = [...current.nodes.map((n) => (n.selected ? { ...n, selected: false } : n)), node];
      const edgesNext = wireFrom ? [...current.edges, toEditorEdge({ source: wireFrom.source, source_port: wireFrom.port, target: node.id })] : current.edges;
      commit(wireFrom ? "add and wire" : "add", { ...current, nodes: nodesNext, edges: edgesNext });
      return node;
    },
    [commit, newNode, graphRef],
  );

  const addNodeInView = useCallback(
    (type: string) => {
      const bounds = canvasRef.current!.getBoundingClientRect();
      const centre = rf.screenToFlowPosition({ x: bounds.left + bounds.width / 2, y: bounds.top + bounds.height / 2 });
      // Never on top of a node (several Enter presses in a row): the first free place below, or to the right.
      const probe = newNode(type, 0, 0);
      const width = probe.measured?.width ?? (catalog.get(type)?.label_hidden ? ICON_NODE_WIDTH : NODE_WIDTH);
      const { x, y } = freeSpot(graphRef.current.nodes, { x: centre.x - width / 2, y: centre.y - 20 }, { width, height: probe.measured?.height ?? 40 });
      const node = addNodeAt(type, x, y);
      focusNode(node.id);
    },
    [addNodeAt, newNode, rf, canvasRef, graphRef, catalog],
  );

  const dropFromPalette = useCallback(
    (type: string, clientX: number, clientY: number) => {
      const bounds = canvasRef.current?.getBoundingClientRect();
      if (!bounds || clientX < bounds.left || clientX > bounds.right || clientY < bounds.top || clientY > bounds.bottom) return;
      const pos = rf.screenToFlowPosition({ x: clientX, y: clientY });
      addNodeAt(type, pos.x - (catalog.get(type)?.label_hidden ? ICON_NODE_WIDTH : NODE_WIDTH) / 2, pos.y - 20);
    },
    [addNodeAt, rf, canvasRef, catalog],
  );

  const deleteSelection = useCallback(() => {
    const current = graphRef.current;
    const gone = new Set(current.nodes.filter((n) => n.selected).map((n) => n.id));
    const edgesNext = current.edges.filter((e) => !e.selected && !gone.has(e.source) && !gone.has(e.target));
    if (gone.size === 0 && edgesNext.length === current.edges.length) return;
    const left = current.nodes.filter((n) => !gone.has(n.id));
    commit("delete", { ...current, nodes: left, edges: edgesNext });
    // The keyboard's place: a deleted node (or the edge) had the focus, and the page would get it.
    // It goes to the nearest node left (focused, not selected: another Delete removes nothing), else the canvas.
    const removed = current.nodes.filter((n) => gone.has(n.id));
    const at = removed.length > 0 ? { x: removed.reduce((s, n) => s + n.position.x, 0) / removed.length, y: removed.reduce((s, n) => s + n.position.y, 0) / removed.length } : null;
    const nearest = at ? [...left].sort((a, b) => Math.hypot(a.position.x - at.x, a.position.y - at.y) - Math.hypot(b.position.x - at.x, b.position.y - at.y))[0] : undefined;
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        const active = document.activeElement;
        if (active && active !== document.body && active.isConnected) return;
        const node = nearest ? document.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(nearest.id)}"]`) : null;
        (node ?? canvasRef.current)?.focus();
      }),
    );
  }, [commit, graphRef, canvasRef]);

  /** A node's dialog answered Done: its name, config, disabled flag, description, appearance and output wires, as one entry. */
  const applyEdit = useCallback(
    (nodeId: string, edit: NodeEdit) => {
      const current = graphRef.current;
      const nodesNext = current.nodes.map((n) => (n.id === nodeId ? withData(catalog, n, { name: edit.name, config: edit.config, disabled: edit.disabled, description: edit.description || undefined, appearance: edit.appearance }) : n));
      // Its input closed by the edit (an mqtt in's dynamic subscription turned off): the wires into it go too, as in Node-RED.
      const closed = nodesNext.find((n) => n.id === nodeId)?.data.inputs === 0;
      const edgesNext = [...current.edges.filter((e) => e.source !== nodeId && !(closed && e.target === nodeId)), ...edit.wires.map(toEditorEdge)];
      commit("edit", { ...current, nodes: nodesNext, edges: edgesNext });
    },
    [catalog, commit, graphRef],
  );

  /**
   * Some of a node's configuration set from outside its dialog (a debug node's button), as one
   * entry; several nodes' at once (every debug node switched) are one entry too.
   */
  const setNodeConfig = useCallback(
    (nodeId: string | readonly string[], patch: Record<string, unknown>) => {
      const current = graphRef.current;
      const ids = new Set(typeof nodeId === "string" ? [nodeId] : nodeId);
      if (!current.nodes.some((n) => ids.has(n.id))) return;
      commit("edit", { ...current, nodes: current.nodes.map((n) => (ids.has(n.id) ? withData(catalog, n, { config: { ...n.data.config, ...patch } }) : n)) });
    },
    [catalog, commit, graphRef],
  );

  /** Select one node (deselecting the rest), bring it into view and focus it. */
  const selectNode = useCallback(
    (nodeId: string) => {
      const current = graphRef.current;
      const node = current.nodes.find((n) => n.id === nodeId);
      if (!node) return;
      setGraph({ ...current, nodes: current.nodes.map((n) => (n.id === nodeId ? (n.selected ? n : { ...n, selected: true }) : n.selected ? { ...n, selected: false } : n)) });
      void rf.setCenter(node.position.x + (node.width ?? NODE_WIDTH) / 2, node.position.y + 20, { zoom: Math.max(rf.getZoom(), 1), duration: 200 });
      focusNode(nodeId);
    },
    [rf, setGraph, graphRef],
  );

  const selectAll = useCallback(() => {
    const current = graphRef.current;
    setGraph({ ...current, nodes: current.nodes.map((n) => (n.selected ? n : { ...n, selected: true })) });
  }, [setGraph, graphRef]);

  return { addNodeAt, addNodeInView, dropFromPalette, deleteSelection, applyEdit, setNodeConfig, selectNode, selectAll };
}

export type GraphCommands = ReturnType<typeof useGraphCommands>;
