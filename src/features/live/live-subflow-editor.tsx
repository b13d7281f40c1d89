"use client";

import { createContext, useContext, useMemo, type ComponentProps } from "react";
import { useEditor } from "@/features/editor/editor-api";
import type { SidebarTab } from "@/features/editor/sidebar/tab";
import { SubflowEditor } from "@/features/editor/subflow-editor";
import { DebugPanel } from "./debug-panel";
import { LiveProvider } from "./live-context";
import { OfflineBanner } from "./offline-banner";
import { useDebugFeed, type DebugFeed } from "./use-debug-feed";

const SubflowFeedContext = createContext<{ feed: DebugFeed; flowNames: ReadonlyMap<string, string> } | null>(null);

/**
 * The definition's debug nodes, live, from every instance in every flow that uses it (Node-RED's
 * Debug sidebar shows them while a subflow is open too); a message selects and outlines its node
 * in the definition. "All flows" adds the organization's other debug messages.
 */
function SubflowDebugTab() {
  const api = useEditor();
  const live = useContext(SubflowFeedContext);
  const nodes = useMemo(() => api.nodes.map((n) => ({ id: n.id, type: n.data.type, name: n.data.name })), [api.nodes]);
  if (!live) return null;
  return (
    <DebugPanel
      feed={live.feed}
      flowNames={live.flowNames}
      nodes={nodes}
      onSelectNode={(id) => {
        if (!api.nodes.some((n) => n.id === id)) return;
        api.selectNode(id);
        api.highlightNode(id);
      }}
    />
  );
}

const SUBFLOW_LIVE_TABS: SidebarTab[] = [{ id: "debug", label: "Debug", component: SubflowDebugTab }];

function LiveSubflow(props: ComponentProps<typeof SubflowEditor>) {
  const subflowId = props.subflow.id;
  const feed = useDebugFeed(useMemo(() => ({ kind: "subflow" as const, subflowId }), [subflowId]));
  const usedBy = props.subflow.used_by;
  const value = useMemo(() => ({ feed, flowNames: new Map(usedBy.map((u) => [u.flow_id, u.name])) }), [feed, usedBy]);
  return (
    <SubflowFeedContext.Provider value={value}>
      <SubflowEditor {...props} sidebarTabs={SUBFLOW_LIVE_TABS} notice={<OfflineBanner />} />
    </SubflowFeedContext.Provider>
  );
}

/** A subflow definition's editor (SPEC §16) with one WebSocket: its Debug tab, and a banner while it is offline. */
export function LiveSubflowEditor(props: ComponentProps<typeof SubflowEditor>) {
  return (
    <LiveProvider>
      <LiveSubflow {...props} />
    </LiveProvider>
  );
}
