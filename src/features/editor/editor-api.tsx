"use client";

import { createContext, useContext } from "react";
import type { FlowGroup } from "@/shared/subflows";
import type { EditorEdge, EditorFlow, EditorNode } from "./model";

export type { SidebarTab } from "./sidebar/tab";

/**
 * What the rest of the page (and later features: deploy, debug, deployments, presence) can read
 * and do with the open editor. Read it with useEditor() anywhere under <FlowEditor>. To edit the
 * graph as one undo entry, parts of the editor use useGraphAccess() (graph/use-flow-graph.ts); to
 * mark nodes or wires on the canvas, useCanvasDecorations() (canvas/decorations.tsx).
 */
export interface EditorApi {
  flowId: string;
  flowName: string;
  /** The revision the canvas was loaded from or last saved as. */
  revision: number;
  /** Unsaved edits on the canvas. */
  dirty: boolean;
  readOnly: boolean;
  /** The graph as of the last edit: a node being dragged shows its new position from the drop on. */
  nodes: EditorNode[];
  edges: EditorEdge[];
  /** The flow's groups (SPEC §16), carried with the graph through undo, reload and save. */
  groups: FlowGroup[];
  selectedNodeIds: string[];
  /** Select one node (deselecting the rest) and bring it into view. */
  selectNode: (nodeId: string) => void;
  /** Outline a node (e.g. the source of a debug message) without selecting it; null clears. */
  highlightNode: (nodeId: string | null) => void;
  /** Replace the canvas with a flow from the server (after a reload or a rollback); clears undo. */
  replaceGraph: (flow: EditorFlow) => void;
  /** Save with the current revision; resolves true once saved (false: refused, conflict dialog shown). */
  save: () => Promise<boolean>;
  /** The server moved to `revision` by a change that left the graph alone (enable/disable): keep editing on top of it. */
  adoptRevision: (revision: number) => void;
  /** Fetch the deployed graph again (after a deploy) so "changed since deploy" marks are right. */
  refreshDeployed: () => void;
  /**
   * The graph differs from the deployed one in what runs (a node added, removed, renamed,
   * reconfigured, disabled or rewired; not a move): a diff, so enabling, disabling or renaming the
   * flow, undo and a deploy never leave it wrong. False while there is no deployed graph.
   */
  changedSinceDeploy: boolean;
  /** Set some of a node's configuration (a debug node's button: `{active}`), or of several nodes', as one undoable edit. */
  setNodeConfig: (nodeId: string | readonly string[], patch: Record<string, unknown>) => void;
  /** Choose a sidebar tab by its id (a Debug message opening its execution in the Executions tab). */
  showSidebarTab: (tabId: string) => void;
}

export const EditorApiContext = createContext<EditorApi | null>(null);

export function useEditor(): EditorApi {
  const api = useContext(EditorApiContext);
  if (!api) throw new Error("useEditor() outside <FlowEditor>");
  return api;
}
