import type { ComponentType, ReactNode } from "react";

/**
 * A tab of the editor's right sidebar: one file exporting `{ id, label, component }`. The
 * component renders the panel while the tab is chosen and reads the editor with useEditor()
 * (nodes, selection, selectNode, highlightNode, save…) and, to mark nodes or wires on the canvas,
 * useCanvasDecorations() (canvas/decorations.tsx). Give `component` at module scope: a new one on
 * every render would remount the panel. `render` is the older form (a closure over the caller's
 * state), kept for tabs that need one.
 */
export interface SidebarTab {
  id: string;
  label: string;
  component?: ComponentType;
  render?: () => ReactNode;
}
