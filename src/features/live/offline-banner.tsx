"use client";

import { useEffect, useState } from "react";
import { useConnectionState, useLiveSocket } from "./live-context";

function useNow(active: boolean) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [active]);
  return now;
}

/** Says so while live updates are not arriving, and why. */
export function OfflineBanner() {
  const state = useConnectionState();
  const socket = useLiveSocket();
  const now = useNow(state.status === "offline");
  if (state.status === "online" || (state.status === "connecting" && state.attempt <= 1)) return null;
  if (state.status === "signed_out") {
    const back = typeof window === "undefined" ? "/" : window.location.pathname;
    return (
      <div className="live-banner error" role="alert">
        Live updates stopped: your session has ended. <a href={`/login?callbackUrl=${encodeURIComponent(back)}`}>Log in again</a>
      </div>
    );
  }
  const seconds = state.status === "offline" ? Math.max(0, Math.ceil((state.retryAt - now) / 1000)) : 0;
  return (
    <div className="live-banner" role="status">
      <span>
        Offline: live updates paused.{" "}
        {state.status === "offline" && seconds > 0 ? `Reconnecting in ${seconds} s…` : "Reconnecting…"}
      </span>
      {state.status === "offline" && (
        <button type="button" className="small secondary" onClick={() => socket?.retryNow()}>
          Retry now
        </button>
      )}
    </div>
  );
}
