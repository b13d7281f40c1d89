"use client";

import { createContext, useContext } from "react";
import type { DashboardSendResult } from "./dashboard-socket";
import type { DashboardStore } from "./dashboard-store";

export interface DashboardContextValue {
  store: DashboardStore;
  interactive: boolean;
  /** Sends an input widget's message; before the page is connected it waits in the socket's queue. */
  sendInput: (widgetId: string, event: string, msg: Record<string, unknown>) => DashboardSendResult;
  /** Sends a file to a ui-file-input; `onProgress` gets the part the server holds (0–1). */
  upload: (widgetId: string, file: File, onProgress?: (fraction: number) => void) => Promise<void>;
  /** A link as Dashboard 2.0's flows write it that opens one of this dashboard's pages: its URL here and the page's path. */
  pageLink?: (href: string) => { href: string; path: string } | null;
  /** Opens one of this dashboard's pages (by path) without reloading. */
  openPage?: (path: string) => void;
}

export const DashboardContext = createContext<DashboardContextValue | null>(null);

export function useDashboard(): DashboardContextValue {
  const v = useContext(DashboardContext);
  if (!v) throw new Error("useDashboard outside <DashboardContext>");
  return v;
}
