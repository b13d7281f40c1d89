"use client";

import { createContext, useContext, type ReactNode } from "react";
import type { EditorNode } from "./model";

/** What a node's footer shows (a runtime status from the WebSocket, for example). */
export interface NodeStatusView {
  fill?: string;
  shape?: string;
  text: string;
}

/**
 * Runtime extension point for the node component (issue 12 fills it): an optional status line
 * under each node and an optional per-node action (the inject button). Provide a stable value
 * (useMemo) and change it only when statuses change: every canvas node reads it.
 */
export interface EditorRuntime {
  statusFor?: (nodeId: string) => NodeStatusView | null | undefined;
  renderNodeAction?: (node: EditorNode) => ReactNode;
}

export const EditorRuntimeContext = createContext<EditorRuntime>({});
export const useEditorRuntime = () => useContext(EditorRuntimeContext);

/** Per-node marks the editor computes: changed since deploy, found by Ctrl/Cmd+F, highlighted. */
export interface NodeMarks {
  changed: ReadonlyMap<string, "added" | "changed">;
  found: ReadonlySet<string>;
  highlighted: string | null;
  readOnly: boolean;
}
export const NodeMarksContext = createContext<NodeMarks>({ changed: new Map(), found: new Set(), highlighted: null, readOnly: true });
