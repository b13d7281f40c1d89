"use client";

import { createContext, useContext } from "react";
import type { DashboardStore } from "./dashboard-store";

export interface DashboardContextValue {
  store: DashboardStore;
  interactive: boolean;
  /** Sends an input widget's message; false when the page is not connected. */
  sendInput: (widgetId: string, event: string, msg: Record<string, unknown>) => boolean;
}

export const DashboardContext = createContext<DashboardContextValue | null>(null);

export function useDashboard(): DashboardContextValue {
  const v = useContext(DashboardContext);
  if (!v) throw new Error("useDashboard outside <DashboardContext>");
  return v;
}
