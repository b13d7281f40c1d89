"use client";

import { useCallback, useMemo } from "react";
import { useEditor } from "@/features/editor/editor-api";
import type { SidebarTab } from "@/features/editor/sidebar/tab";
import { DebugPanel } from "../debug-panel";
import { DebugNodesSwitch } from "../node-live";
import { useLiveTabs } from "./live-tabs-context";

/**
 * Debug messages of this flow, live; a message's node is selected and outlined on the canvas, and
 * "Show execution" opens the Executions tab with the message's execution chosen.
 */
function DebugTab() {
  const api = useEditor();
  const { feed, selectExecution, live, canDeploy } = useLiveTabs();
  const { showSidebarTab } = api;
  const showExecution = useCallback(
    (executionId: string) => {
      selectExecution(executionId);
      showSidebarTab("executions");
    },
    [selectExecution, showSidebarTab],
  );
  // An unnamed subflow instance goes by its definition's name (the messages of its debug nodes belong to it).
  const nodes = useMemo(() => api.nodes.map((n) => ({ id: n.id, type: n.data.type, name: n.data.name || n.data.subflowName || "" })), [api.nodes]);
  return (
    <DebugPanel
      feed={feed}
      nodes={nodes}
      onShowExecution={showExecution}
      actions={<DebugNodesSwitch runtime={live.runtime} canSwitch={canDeploy} />}
      onSelectNode={(id) => {
        if (!api.nodes.some((n) => n.id === id)) return;
        api.selectNode(id);
        api.highlightNode(id);
      }}
    />
  );
}

export const debugTab: SidebarTab = { id: "debug", label: "Debug", component: DebugTab };
