/**
 * The benchmark's page: the real dashboard client (DashboardApp, its store, socket and widgets,
 * ECharts lazy-loaded), bundled by bench/dashboard-ui.ts and fed by its WebSocket server with the
 * frames of src/shared/dashboard.ts.
 */
import { createRoot } from "react-dom/client";
import { DashboardApp } from "@/features/dashboard/dashboard-app";

// The same ECharts module the chart widget loads (one chunk), for the benchmark to wait on its "finished" event.
(window as unknown as { __echartsCore: () => Promise<unknown> }).__echartsCore = () => import("echarts/core");
const params = new URLSearchParams(window.location.search);
createRoot(document.getElementById("root")!).render(<DashboardApp org="bench" path={params.get("path") ?? "/live"} share={null} initialView={null} />);
