import type { SidebarTab } from "@/features/editor/sidebar/tab";
import { contextTab } from "./context-tab";
import { debugTab } from "./debug-tab";
import { deploymentsTab } from "./deployments-tab";
import { executionsTab } from "./executions-tab";
import { variablesTab } from "./variables-tab";

/**
 * The live editor's sidebar tabs, after the editor's own Node and Find. A tab is one file here
 * exporting a SidebarTab (`{ id, label, component }`) and one line in this list; its component
 * reads the editor with useEditor() and the live state with useLiveTabs().
 */
export const LIVE_TABS: SidebarTab[] = [debugTab, executionsTab, deploymentsTab, contextTab, variablesTab];
