import type { ComponentType } from "react";
import { GroupBoxes } from "./group-boxes";

/**
 * Canvas layers: components drawn inside React Flow (after the background, before the minimap and
 * controls), for canvas elements that are not nodes, e.g. group boxes behind their members through
 * React Flow's `<ViewportPortal>`. Each reads the graph with useEditor() (or useGraphAccess() to
 * edit it as one undo entry) and the viewport with React Flow's hooks. A new layer is one file in
 * canvas/ and one line here. Keep them cheap: they render with the editor (not on a drag's moves).
 */
export const CANVAS_LAYERS: ReadonlyArray<{ id: string; component: ComponentType }> = [{ id: "groups", component: GroupBoxes }];
