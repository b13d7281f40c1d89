"use client";

import { memo, useCallback, useImperativeHandle, useMemo, useRef, type PointerEvent as ReactPointerEvent, type Ref, type WheelEvent as ReactWheelEvent } from "react";
import { Panel, useStore, useStoreApi, type ReactFlowState } from "@xyflow/react";
import type { EditorEdge, EditorNode } from "../model";

/**
 * The canvas's minimap, in place of React Flow's <MiniMap>, which gives every node its own store
 * subscription and React component: each pointer move of a drag then ran 2,000 selectors and made
 * React walk 2,000 sibling fibers to re-render the one moved rect (docs/BENCHMARKS.md, "Editor").
 * Here the rects are drawn from the editor's graph (which changes on a drop, not on a move), and a
 * drag's moves reach only the dragged nodes' rects, through `moveNodes`. Same markup, classes and
 * theme variables as React Flow's minimap; drag on it to pan, wheel on it to zoom.
 */
export interface MiniMapHandle {
  /** Draws nodes where a drag has them now (top-left flow positions), without a React render. */
  moveNodes(moves: ReadonlyArray<{ id: string; x: number; y: number }>): void;
}

const WIDTH = 200;
const HEIGHT = 150;
const OFFSET_SCALE = 5;
const RADIUS = 5;
const ZOOM_STEP = 1;
const shapeRendering = typeof window === "undefined" || "chrome" in window ? "crispEdges" : "geometricPrecision";

type View = ReturnType<typeof viewSelector>;
const sameView = (a: View, b: View) => (Object.keys(a) as (keyof View)[]).every((k) => Object.is(a[k], b[k]));
const viewSelector = (s: ReactFlowState) => ({
  tx: s.transform[0],
  ty: s.transform[1],
  zoom: s.transform[2],
  width: s.width,
  height: s.height,
  rfId: s.rfId,
  panZoom: s.panZoom,
  translateExtent: s.translateExtent,
});

interface MiniNodeProps {
  id: string;
  x: number;
  y: number;
  width: number;
  height: number;
  color: string;
  selected: boolean;
  register: (id: string, el: SVGRectElement | null) => void;
}

const MiniNode = memo(function MiniNode({ id, x, y, width, height, color, selected, register }: MiniNodeProps) {
  const ref = useCallback(
    (el: SVGRectElement | null) => {
      register(id, el);
      return () => register(id, null);
    },
    [id, register],
  );
  return (
    <rect
      ref={ref}
      className={selected ? "react-flow__minimap-node selected" : "react-flow__minimap-node"}
      x={x}
      y={y}
      rx={RADIUS}
      ry={RADIUS}
      width={width}
      height={height}
      style={{ fill: color }}
      shapeRendering={shapeRendering}
    />
  );
});

export function EditorMiniMap({ nodes, nodeColor, ariaLabel, ref }: { nodes: EditorNode[]; nodeColor: (n: EditorNode) => string; ariaLabel: string; ref?: Ref<MiniMapHandle> }) {
  const store = useStoreApi<EditorNode, EditorEdge>();
  const { tx, ty, zoom, width: flowWidth, height: flowHeight, rfId, panZoom, translateExtent } = useStore(viewSelector, sameView);
  const rects = useRef(new Map<string, SVGRectElement>());
  const register = useCallback((id: string, el: SVGRectElement | null) => {
    if (el) rects.current.set(id, el);
    else rects.current.delete(id);
  }, []);
  useImperativeHandle(
    ref,
    () => ({
      moveNodes(moves) {
        for (const m of moves) {
          const el = rects.current.get(m.id);
          if (!el) continue;
          el.setAttribute("x", String(m.x));
          el.setAttribute("y", String(m.y));
        }
      },
    }),
    [],
  );

  // The graph's bounds, once per change of the graph (a node dragged past them widens them at the drop).
  const graphBounds = useMemo(() => {
    let x1 = Infinity;
    let y1 = Infinity;
    let x2 = -Infinity;
    let y2 = -Infinity;
    for (const n of nodes) {
      if (n.hidden) continue;
      x1 = Math.min(x1, n.position.x);
      y1 = Math.min(y1, n.position.y);
      x2 = Math.max(x2, n.position.x + (n.measured?.width ?? n.width ?? 0));
      y2 = Math.max(y2, n.position.y + (n.measured?.height ?? n.height ?? 0));
    }
    return x1 === Infinity ? null : { x1, y1, x2, y2 };
  }, [nodes]);

  const viewBB = { x: -tx / zoom, y: -ty / zoom, width: flowWidth / zoom, height: flowHeight / zoom };
  const bx1 = Math.min(viewBB.x, graphBounds?.x1 ?? viewBB.x);
  const by1 = Math.min(viewBB.y, graphBounds?.y1 ?? viewBB.y);
  const bx2 = Math.max(viewBB.x + viewBB.width, graphBounds?.x2 ?? -Infinity);
  const by2 = Math.max(viewBB.y + viewBB.height, graphBounds?.y2 ?? -Infinity);
  const bounds = { x: bx1, y: by1, width: bx2 - bx1, height: by2 - by1 };
  const viewScale = Math.max(bounds.width / WIDTH, bounds.height / HEIGHT);
  const viewWidth = viewScale * WIDTH;
  const viewHeight = viewScale * HEIGHT;
  const offset = OFFSET_SCALE * viewScale;
  const x = bounds.x - (viewWidth - bounds.width) / 2 - offset;
  const y = bounds.y - (viewHeight - bounds.height) / 2 - offset;
  const width = viewWidth + offset * 2;
  const height = viewHeight + offset * 2;

  // Panning and zooming the canvas from the minimap, as React Flow's XYMinimap does.
  const panFrom = useRef<{ x: number; y: number; pointer: number } | null>(null);
  const onPointerDown = (e: ReactPointerEvent<SVGSVGElement>) => {
    if (e.button !== 0) return;
    e.currentTarget.setPointerCapture(e.pointerId);
    panFrom.current = { x: e.clientX, y: e.clientY, pointer: e.pointerId };
  };
  const onPointerMove = (e: ReactPointerEvent<SVGSVGElement>) => {
    const from = panFrom.current;
    if (!from || from.pointer !== e.pointerId || !panZoom) return;
    const [ftx, fty, fzoom] = store.getState().transform;
    const moveScale = viewScale * Math.max(fzoom, Math.log(fzoom));
    const dx = e.clientX - from.x;
    const dy = e.clientY - from.y;
    panFrom.current = { ...from, x: e.clientX, y: e.clientY };
    void panZoom.setViewportConstrained(
      { x: ftx - dx * moveScale, y: fty - dy * moveScale, zoom: fzoom },
      [
        [0, 0],
        [flowWidth, flowHeight],
      ],
      translateExtent,
    );
  };
  const onPointerUp = (e: ReactPointerEvent<SVGSVGElement>) => {
    if (panFrom.current?.pointer === e.pointerId) panFrom.current = null;
  };
  const onWheel = (e: ReactWheelEvent<SVGSVGElement>) => {
    if (!panZoom) return;
    const pinchDelta = -e.deltaY * (e.deltaMode === 1 ? 0.05 : e.deltaMode ? 1 : 0.002) * ZOOM_STEP;
    void panZoom.scaleTo(store.getState().transform[2] * Math.pow(2, pinchDelta));
  };

  const labelledBy = `react-flow__minimap-desc-${rfId}`;
  return (
    <Panel position="bottom-right" className="react-flow__minimap" data-testid="rf__minimap">
      <svg
        width={WIDTH}
        height={HEIGHT}
        viewBox={`${x} ${y} ${width} ${height}`}
        className="react-flow__minimap-svg"
        role="img"
        aria-labelledby={labelledBy}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={onPointerUp}
        onWheel={onWheel}
      >
        <title id={labelledBy}>{ariaLabel}</title>
        <MiniNodes nodes={nodes} nodeColor={nodeColor} register={register} />
        <path
          className="react-flow__minimap-mask"
          d={`M${x - offset},${y - offset}h${width + offset * 2}v${height + offset * 2}h${-width - offset * 2}z M${viewBB.x},${viewBB.y}h${viewBB.width}v${viewBB.height}h${-viewBB.width}z`}
          fillRule="evenodd"
          pointerEvents="none"
        />
      </svg>
    </Panel>
  );
}

/** Memoized on the graph: panning or zooming the canvas re-renders the frame, not 2,000 rects. */
const MiniNodes = memo(function MiniNodes({ nodes, nodeColor, register }: { nodes: EditorNode[]; nodeColor: (n: EditorNode) => string; register: MiniNodeProps["register"] }) {
  return (
    <>
      {nodes.map((n) =>
        n.hidden ? null : (
          <MiniNode
            key={n.id}
            id={n.id}
            x={n.position.x}
            y={n.position.y}
            width={n.measured?.width ?? n.width ?? 0}
            height={n.measured?.height ?? n.height ?? 0}
            color={nodeColor(n)}
            selected={!!n.selected}
            register={register}
          />
        ),
      )}
    </>
  );
});
