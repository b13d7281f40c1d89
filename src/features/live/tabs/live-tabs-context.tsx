"use client";

import { createContext, useContext } from "react";
import type { DebugFeed } from "../use-debug-feed";
import type { FlowLive } from "../use-flow-live";

/**
 * What the live editor's sidebar tabs share: the flow's WebSocket state, the debug feed, the
 * viewer's rights, and the execution chosen in the Executions tab (kept here, not in the tab, so a
 * Debug message can choose one and the choice survives switching tabs).
 */
export interface LiveTabs {
  live: FlowLive;
  feed: DebugFeed;
  canDeploy: boolean;
  canEditContext: boolean;
  /** Members and above send an execution's trigger message again (SPEC §15). */
  canReplay: boolean;
  selectedExecutionId: string | null;
  selectExecution: (executionId: string | null) => void;
}

export const LiveTabsContext = createContext<LiveTabs | null>(null);

export function useLiveTabs(): LiveTabs {
  const value = useContext(LiveTabsContext);
  if (!value) throw new Error("useLiveTabs() outside <LiveFlowEditor>");
  return value;
}
