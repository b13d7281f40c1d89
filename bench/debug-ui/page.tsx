/**
 * The benchmark's page: the real Debug region (DebugPanel, its store and the live socket) alone,
 * bundled by bench/debug-ui.ts and fed by the real hub.
 */
import { createRoot } from "react-dom/client";
import { useEffect } from "react";
import { LiveProvider, useLiveFrames } from "@/features/live/live-context";
import { DebugPanel } from "@/features/live/debug-panel";
import { useDebugFeed } from "@/features/live/use-debug-feed";

declare global {
  interface Window {
    /** `frames`: debug events received (batched or not); `wsFrames`: WebSocket frames that carried them. */
    __bench: { frames: number; wsFrames: number; ready: boolean; store?: unknown };
  }
}

const params = new URLSearchParams(window.location.search);
const wsUrl = params.get("ws")!;
const token = params.get("token")!;
const flowId = params.get("flow")!;
window.__bench = { frames: 0, wsFrames: 0, ready: false };
// ?batch=0 (BENCH_DEBUG_BATCH=0): the page without debug batches, one WebSocket frame per event.
const batchDebug = params.get("batch") !== "0";

function Panel() {
  const feed = useDebugFeed({ kind: "flow", flowId });
  useLiveFrames((f) => {
    if (f.type === "event") {
      window.__bench.frames++;
      window.__bench.wsFrames++;
    } else if (f.type === "debug.batch") {
      window.__bench.frames += f.events.length;
      window.__bench.wsFrames++;
    }
    if (f.type === "subscribed") window.__bench.ready = true;
  });
  useEffect(() => {
    window.__bench.store = feed.store;
  }, [feed.store]);
  return <DebugPanel feed={feed} nodes={[{ id: "bench-debug", type: "debug", name: "bench debug" }]} onSelectNode={() => undefined} />;
}

createRoot(document.getElementById("root")!).render(
  <LiveProvider options={{ url: wsUrl, batchDebug, getToken: async () => ({ token, expiresAt: Date.now() + 600_000 }) }}>
    <div style={{ width: 440, height: 640, padding: 8 }}>
      <Panel />
    </div>
  </LiveProvider>,
);
