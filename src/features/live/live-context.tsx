"use client";

import { createContext, useContext, useEffect, useRef, useState, useSyncExternalStore, type ReactNode } from "react";
import type { ServerFrame } from "@/shared/realtime";
import { LiveSocket, liveSocketUrl, type ConnectionState, type LiveSocketOptions } from "./live-socket";
import "./live.css";

const LiveContext = createContext<LiveSocket | null>(null);

/**
 * One WebSocket for the page and everything on it; it closes when the page goes. By default it is
 * the page's own /ws with the session cookie; `options` can point it elsewhere (with a token).
 */
export function LiveProvider({ children, options }: { children: ReactNode; options?: Partial<LiveSocketOptions> }) {
  const [socket] = useState(() => (typeof window === "undefined" ? null : new LiveSocket({ url: liveSocketUrl(window.location), ...options })));
  useEffect(() => {
    socket?.start();
    return () => socket?.stop();
  }, [socket]);
  return <LiveContext.Provider value={socket}>{children}</LiveContext.Provider>;
}

export function useLiveSocket(): LiveSocket | null {
  return useContext(LiveContext);
}

const connecting: ConnectionState = { status: "connecting", attempt: 1 };

export function useConnectionState(): ConnectionState {
  const socket = useLiveSocket();
  return useSyncExternalStore(
    (onChange) => socket?.onState(onChange) ?? (() => undefined),
    () => socket?.getState() ?? connecting,
    () => connecting,
  );
}

/** Calls `handler` with every frame; the latest handler is used without resubscribing. */
export function useLiveFrames(handler: (frame: ServerFrame) => void) {
  const socket = useLiveSocket();
  const ref = useRef(handler);
  useEffect(() => {
    ref.current = handler;
  });
  useEffect(() => socket?.onFrame((f) => ref.current(f)), [socket]);
}

/** The signed-in user as the hub knows them (from `ready`), to tell one's own actions apart. */
export function useLiveUserId(): string | null {
  const [userId, setUserId] = useState<string | null>(null);
  useLiveFrames((f) => {
    if (f.type === "ready") setUserId(f.user_id);
  });
  return userId;
}
