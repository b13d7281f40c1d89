"use client";

import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";

/**
 * Canvas decorations: how a part of the editor that is not the canvas (a sidebar tab, the toolbar)
 * marks nodes and wires on it, e.g. the path an execution took. A decoration is a class name (and,
 * for a node, a small badge with its text for screen readers); editor.css or the part's own CSS
 * styles it. Parts set decorations by layer (one per feature), so two features never overwrite
 * each other; the canvas draws the layers merged.
 *
 *   useCanvasDecorations("executions", { nodes: new Map([[id, { className: "on-path", badge: "1" }]]), edges: new Map([[edgeId, { className: "on-path" }]]) });
 *
 * Edge ids are model.ts's `edgeId({ source, source_port, target })`. A layer lives while the
 * component that set it is mounted (a tab's marks go when another tab is chosen); pass null to
 * clear it sooner. Keep the value stable (useMemo): every canvas node reads the merged result.
 */
export interface NodeDecoration {
  className?: string;
  /** A short text drawn at the node's top-right corner (a step number, a count). */
  badge?: string;
  /** What the badge means, for screen readers ("step 2 of the execution"). */
  badgeLabel?: string;
  /** A line of text drawn over the node, always visible (an execution's error on the node that failed). */
  note?: string;
  /**
   * A popover shown while the node is hovered or has keyboard focus (an execution step's input).
   * Rendered only for decorated nodes; keep it small (it is in the DOM, hidden, until shown).
   */
  detail?: ReactNode;
}
export interface EdgeDecoration {
  className?: string;
  animated?: boolean;
}
export interface CanvasDecorations {
  nodes?: ReadonlyMap<string, NodeDecoration>;
  edges?: ReadonlyMap<string, EdgeDecoration>;
}
export interface MergedDecorations {
  nodes: ReadonlyMap<string, NodeDecoration>;
  edges: ReadonlyMap<string, EdgeDecoration>;
}

const EMPTY: MergedDecorations = { nodes: new Map(), edges: new Map() };
type SetLayer = (layer: string, decorations: CanvasDecorations | null) => void;

export const DecorationsContext = createContext<MergedDecorations>(EMPTY);
const SetLayerContext = createContext<SetLayer | null>(null);

function mergeInto<T extends { className?: string }>(into: Map<string, T>, from: ReadonlyMap<string, T> | undefined) {
  for (const [id, d] of from ?? []) {
    const had = into.get(id);
    into.set(id, had ? { ...had, ...d, className: [had.className, d.className].filter(Boolean).join(" ") } : d);
  }
}

/** The layers as the canvas draws them: class names joined, the later layer's badge on top. */
export function mergeDecorationLayers(layers: Iterable<CanvasDecorations>): MergedDecorations {
  const nodes = new Map<string, NodeDecoration>();
  const edges = new Map<string, EdgeDecoration>();
  for (const d of layers) {
    mergeInto(nodes, d.nodes);
    mergeInto(edges, d.edges);
  }
  return nodes.size === 0 && edges.size === 0 ? EMPTY : { nodes, edges };
}

/** The editor's decoration state: the layers set so far, merged, and the provider that takes new ones. */
export function useDecorationLayers() {
  const [layers, setLayers] = useState<ReadonlyMap<string, CanvasDecorations>>(new Map());
  const setLayer = useCallback<SetLayer>((layer, decorations) => {
    setLayers((current) => {
      if (!decorations && !current.has(layer)) return current;
      const next = new Map(current);
      if (decorations) next.set(layer, decorations);
      else next.delete(layer);
      return next;
    });
  }, []);
  const merged = useMemo(() => mergeDecorationLayers(layers.values()), [layers]);
  return { merged, setLayer };
}

export const DecorationLayersProvider = SetLayerContext.Provider;

/** Decorate the canvas from a component under <FlowEditor>; null (or unmounting) clears the layer. */
export function useCanvasDecorations(layer: string, decorations: CanvasDecorations | null) {
  const setLayer = useContext(SetLayerContext);
  if (!setLayer) throw new Error("useCanvasDecorations() outside <FlowEditor>");
  useEffect(() => {
    setLayer(layer, decorations);
  }, [setLayer, layer, decorations]);
  useEffect(() => () => setLayer(layer, null), [setLayer, layer]);
}
