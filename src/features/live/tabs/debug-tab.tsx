"use client";

import { useMemo } from "react";
import { useEditor } from "@/features/editor/editor-api";
import type { SidebarTab } from "@/features/editor/sidebar/tab";
import { DebugPanel } from "../debug-panel";
import { useLiveTabs } from "./live-tabs-context";

/** Debug messages of this flow, live; a message's node is selected and outlined on the canvas. */
function DebugTab() {
  const api = useEditor();
  const { feed } = useLiveTabs();
  const nodes = useMemo(() => api.nodes.map((n) => ({ id: n.id, type: n.data.type, name: n.data.name })), [api.nodes]);
  return (
    <DebugPanel
      feed={feed}
      nodes={nodes}
      onSelectNode={(id) => {
        if (!api.nodes.some((n) => n.id === id)) return;
        api.selectNode(id);
        api.highlightNode(id);
      }}
    />
  );
}

export const debugTab: SidebarTab = { id: "debug", label: "Debug", component: DebugTab };
