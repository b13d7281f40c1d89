"use client";

import { useContext, useMemo, useState, type ReactNode, type RefObject } from "react";
import { Background, Controls, ReactFlow } from "@xyflow/react";
import type { EditorEdge, EditorNode } from "../model";
import { CANVAS_LAYERS } from "./layers";
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
  // A big flow opens on its top-left corner at a readable zoom (only what is visible is drawn);
  // a small one fits the window.
  const [initialView] = useState(() => {
    const all = initialNodes;
    if (all.length <= 150) return { maxZoom: 1, padding: 0.15 };
    const corner = [...all].sort((a, b) => a.position.y + a.position.x / 4 - (b.position.y + b.position.x / 4)).slice(0, 40);
    return { maxZoom: 1, minZoom: 0.5, padding: 0.1, nodes: corner.map((n) => ({ id: n.id })) };
  });
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
    <div className="editor-canvas" ref={canvasRef} aria-label="Canvas" role="region">
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
        fitView
        fitViewOptions={initialView}
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
