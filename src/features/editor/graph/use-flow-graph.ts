"use client";

import { createContext, useCallback, useContext, useRef, useState, type RefObject } from "react";
import { useHistory } from "./history";
import type { Snapshot } from "./graph-model";

/**
 * The graph's state and its undo stack, one owner for both. `graph` is React state (what the
 * canvas, sidebar and useEditor() readers render); `graphRef` holds the same graph for callbacks,
 * and is ahead of the state during a drag (see the canvas's `onNodesChange`). Every edit goes
 * through `commit` (one undo entry) or `setGraph` (selection, a drag's drop, a reload).
 */
export function useFlowGraph(initial: Snapshot) {
  const [graph, setGraphState] = useState<Snapshot>(initial);
  const graphRef = useRef<Snapshot>(initial);
  const history = useHistory();
  // The stack's functions are stable; callbacks depend on them, not on the (per-render) history object.
  const { push: pushHistory, amend: amendHistory, undo: undoHistory, redo: redoHistory, reset: resetHistory, markSaved } = history;

  const setGraph = useCallback((next: Snapshot) => {
    graphRef.current = next;
    setGraphState(next);
  }, []);

  /** One undoable edit. */
  const commit = useCallback(
    (label: string, next: Snapshot) => {
      const before = graphRef.current;
      setGraph(next);
      pushHistory(label, before, next);
    },
    [pushHistory, setGraph],
  );

  const undo = useCallback(() => {
    const s = undoHistory();
    if (s) setGraph(s);
  }, [undoHistory, setGraph]);
  const redo = useCallback(() => {
    const s = redoHistory();
    if (s) setGraph(s);
  }, [redoHistory, setGraph]);

  /** Replace the graph with one from the server: nothing to undo, and it is the saved state. */
  const reset = useCallback(
    (next: Snapshot) => {
      setGraph(next);
      resetHistory();
    },
    [resetHistory, setGraph],
  );

  return {
    graph,
    graphRef,
    setGraph,
    commit,
    /** Record an entry for a change already applied (a drag, recorded at the drop). */
    pushHistory,
    /** Extend the newest entry (by its id) to a later graph; null when it is no longer the newest. */
    amendHistory,
    undo,
    redo,
    reset,
    markSaved,
    version: history.version,
    dirty: history.dirty,
    canUndo: history.canUndo,
    canRedo: history.canRedo,
  };
}

export type FlowGraphState = ReturnType<typeof useFlowGraph>;

/** What the editor's parts (canvas elements, commands, tabs) use to read and edit the graph. */
export interface GraphAccess {
  graphRef: RefObject<Snapshot>;
  setGraph: (next: Snapshot) => void;
  /** One undoable edit, labelled for the history. */
  commit: (label: string, next: Snapshot) => void;
}

export const GraphAccessContext = createContext<GraphAccess | null>(null);

/** The graph's ref and its edit functions, for a part under <FlowEditor> (e.g. group boxes editing `groups`). */
export function useGraphAccess(): GraphAccess {
  const access = useContext(GraphAccessContext);
  if (!access) throw new Error("useGraphAccess() outside <FlowEditor>");
  return access;
}
