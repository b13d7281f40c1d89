"use client";

import { useEditor } from "@/features/editor/editor-api";
import type { SidebarTab } from "@/features/editor/sidebar/tab";
import { ContextPanel } from "../context-panel";
import { useLiveTabs } from "./live-tabs-context";

/** The flow's and the global context values (SPEC §13). */
function ContextTab() {
  const { flowId } = useEditor();
  const { canEditContext } = useLiveTabs();
  return <ContextPanel flowId={flowId} canEdit={canEditContext} />;
}

export const contextTab: SidebarTab = { id: "context", label: "Context", component: ContextTab };
