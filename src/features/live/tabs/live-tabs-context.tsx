"use client";

import { createContext, useContext } from "react";
import type { DebugFeed } from "../use-debug-feed";
import type { FlowLive } from "../use-flow-live";

/** What the live editor's sidebar tabs share: the flow's WebSocket state, the debug feed, the viewer's rights. */
export interface LiveTabs {
  live: FlowLive;
  feed: DebugFeed;
  canDeploy: boolean;
  canEditContext: boolean;
}

export const LiveTabsContext = createContext<LiveTabs | null>(null);

export function useLiveTabs(): LiveTabs {
  const value = useContext(LiveTabsContext);
  if (!value) throw new Error("useLiveTabs() outside <LiveFlowEditor>");
  return value;
}
