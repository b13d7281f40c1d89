import { configTab } from "./config-tab";
import { dashboardTab } from "./dashboard-tab";
import { findTab } from "./find-tab";
import { nodeTab } from "./node-tab";
import type { SidebarTab } from "./tab";

/**
 * The editor's own sidebar tabs, in order. The page adds its tabs after them through
 * `<FlowEditor sidebarTabs>` (the live editor: Debug, Deployments, Context, Variables; see
 * src/features/live/tabs/). A tab is one file exporting a SidebarTab and one line in a list.
 */
export const EDITOR_TABS: readonly SidebarTab[] = [nodeTab, findTab, configTab, dashboardTab];
