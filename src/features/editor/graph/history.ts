"use client";

import { useCallback, useRef, useState } from "react";
import type { Snapshot } from "./graph-model";

interface Entry {
  id: number;
  label: string;
  before: Snapshot;
  after: Snapshot;
}

const LIMIT = 200;

/**
 * The editor's command stack: one entry per user edit (a drag, a connection, a delete, a config
 * change, a paste), holding the graph (nodes, edges and the graph-level collections such as groups)
 * before and after. Node objects are immutable and shared between snapshots, so an entry costs two arrays of references even on a 2,000-node flow.
 * `version` names the state the canvas shows: the flow is dirty when it is not the saved one.
 */
export function useHistory() {
  const undoStack = useRef<Entry[]>([]);
  const redoStack = useRef<Entry[]>([]);
  const nextId = useRef(1);
  const [version, setVersion] = useState(0);
  const [savedVersion, setSavedVersion] = useState(0);
  const [counts, setCounts] = useState({ undo: 0, redo: 0 });

  const sync = () => setCounts({ undo: undoStack.current.length, redo: redoStack.current.length });

  /** Records an edit; returns its entry's id (for `amend`). */
  const push = useCallback((label: string, before: Snapshot, after: Snapshot): number => {
    const id = nextId.current++;
    undoStack.current.push({ id, label, before, after });
    if (undoStack.current.length > LIMIT) undoStack.current.shift();
    redoStack.current = [];
    setVersion(id);
    sync();
    return id;
  }, []);

  /**
   * Extends the newest entry `id` to end at `after` (a burst of arrow-key moves is one entry). The
   * entry gets a new id, so a save in between still leaves the canvas unsaved. Returns that id, or
   * null when `id` is no longer the newest entry (something was done or undone since).
   */
  const amend = useCallback((id: number, after: Snapshot): number | null => {
    const top = undoStack.current[undoStack.current.length - 1];
    if (!top || top.id !== id || redoStack.current.length > 0) return null;
    const next = nextId.current++;
    undoStack.current[undoStack.current.length - 1] = { ...top, id: next, after };
    setVersion(next);
    return next;
  }, []);

  const undo = useCallback((): Snapshot | null => {
    const entry = undoStack.current.pop();
    if (!entry) return null;
    redoStack.current.push(entry);
    setVersion(undoStack.current[undoStack.current.length - 1]?.id ?? 0);
    sync();
    return entry.before;
  }, []);

  const redo = useCallback((): Snapshot | null => {
    const entry = redoStack.current.pop();
    if (!entry) return null;
    undoStack.current.push(entry);
    setVersion(entry.id);
    sync();
    return entry.after;
  }, []);

  /** After a reload: nothing to undo, and the canvas is the saved state. */
  const reset = useCallback(() => {
    undoStack.current = [];
    redoStack.current = [];
    setVersion(0);
    setSavedVersion(0);
    sync();
  }, []);

  const markSaved = useCallback((v: number) => setSavedVersion(v), []);

  return {
    push,
    amend,
    undo,
    redo,
    reset,
    markSaved,
    version,
    dirty: version !== savedVersion,
    canUndo: counts.undo > 0,
    canRedo: counts.redo > 0,
    undoLabel: () => undoStack.current[undoStack.current.length - 1]?.label ?? null,
  };
}
