"use client";

import { useContext, useMemo, useState, type ReactNode, type RefObject } from "react";
import { Background, Controls, ReactFlow } from "@xyflow/react";
import type { EditorEdge, EditorNode } from "../model";
import { CANVAS_LAYERS } from "./layers";
import { initialViewOf } from "./initial-view";
import { CANVAS_ID } from "../skip-link";
import { DecorationsContext } from "./decorations";
import { EditorMiniMap, type MiniMapHandle } from "./mini-map";
import { nodeTypes } from "./node-types";
import type { useCanvasHandlers } from "./use-canvas-handlers";

// React Flow's props at module scope: a new object or function on every render of the editor
// would re-render the node list (NodeRenderer is memoized on its props) and every minimap node.
const MULTI_SELECT_KEYS = ["Meta", "Control", "Shift"];
const EDGE_OPTIONS = { interactionWidth: 12 };
const PRO_OPTIONS = { hideAttribution: false };
const miniMapColor = (n: EditorNode) => (n.data.disabled ? "#ccc" : "#8f1d2c");

/**
 * The canvas region: React Flow with the background, the canvas layers (layers.ts), our minimap
 * and the zoom controls, and what floats over it (`overlay`: the notice, the quick-add menu).
 */
export function FlowCanvas({
  nodes,
  edges,
  initialNodes,
  handlers,
  onNodeDoubleClick,
  readOnly,
  canvasRef,
  miniMap,
  overlay,
}: {
  nodes: EditorNode[];
  edges: EditorEdge[];
  /** The graph as loaded: where the first view looks. */
  initialNodes: EditorNode[];
  handlers: ReturnType<typeof useCanvasHandlers>;
  onNodeDoubleClick: (event: unknown, node: EditorNode) => void;
  readOnly: boolean;
  canvasRef: RefObject<HTMLDivElement | null>;
  miniMap: RefObject<MiniMapHandle | null>;
  overlay: ReactNode;
}) {
  // Decided once, from the graph as loaded (initial-view.ts): an empty flow never fits, so the
  // first node dropped stays where it was dropped.
  const [initialView] = useState(() => initialViewOf(initialNodes));
  // Decorated wires get their class; without decorations the edges pass through unchanged.
  const decorations = useContext(DecorationsContext);
  const shownEdges = useMemo(() => {
    if (decorations.edges.size === 0) return edges;
    return edges.map((e) => {
      const d = decorations.edges.get(e.id);
      return d ? { ...e, className: [e.className, d.className].filter(Boolean).join(" "), animated: d.animated ?? e.animated } : e;
    });
  }, [edges, decorations]);
  return (
    // The skip link's target (skip-link.tsx): focusable from script and from the link's #hash.
    <div className="editor-canvas" id={CANVAS_ID} tabIndex={-1} ref={canvasRef} aria-label="Canvas" role="region">
      <ReactFlow<EditorNode, EditorEdge>
        nodes={nodes}
        edges={shownEdges}
        nodeTypes={nodeTypes}
        onNodesChange={handlers.onNodesChange}
        onEdgesChange={handlers.onEdgesChange}
        onConnect={handlers.onConnect}
        onConnectEnd={handlers.onConnectEnd}
        isValidConnection={handlers.isValidConnection}
        onNodeDoubleClick={onNodeDoubleClick}
        nodesDraggable={!readOnly}
        nodesConnectable={!readOnly}
        deleteKeyCode={null}
        zoomOnDoubleClick={false}
        selectionKeyCode="Shift"
        multiSelectionKeyCode={MULTI_SELECT_KEYS}
        onlyRenderVisibleElements={nodes.length > 150}
        fitView={initialView.fitView}
        fitViewOptions={initialView.fitViewOptions}
        minZoom={0.05}
        defaultEdgeOptions={EDGE_OPTIONS}
        proOptions={PRO_OPTIONS}
      >
        <Background gap={20} />
        {CANVAS_LAYERS.map(({ id, component: Layer }) => (
          <Layer key={id} />
        ))}
        <EditorMiniMap ref={miniMap} nodes={nodes} nodeColor={miniMapColor} ariaLabel="Mini map" />
        <Controls showInteractive={false} />
      </ReactFlow>
      {overlay}
    </div>
  );
}
