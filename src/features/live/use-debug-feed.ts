"use client";

import { useEffect, useState } from "react";
import { useLiveFrames, useLiveSocket } from "./live-context";
import { DebugStore } from "./debug-store";

export type DebugScope = "flow" | "all";

/** The list updates at most this often: readable, and a small fraction of a frame budget at 5,000 messages/s. */
const UPDATE_EVERY_MS = 100;

/** Runs the flush in an animation frame, at most once per `ms`. */
function throttledFrames(ms: number) {
  let last = 0;
  return (flush: () => void) => {
    const wait = Math.max(0, last + ms - Date.now());
    setTimeout(() => {
      const run = () => {
        last = Date.now();
        flush();
      };
      if (typeof requestAnimationFrame === "function") requestAnimationFrame(run);
      else run();
    }, wait);
  };
}

/**
 * The page's debug stream: lives as long as the page (not the Debug tab), so switching sidebar
 * tabs loses nothing. The scope narrows the connection's subscription on the hub, so another
 * flow's traffic never reaches a page that asked for one flow.
 */
export function useDebugFeed(flowId: string) {
  const socket = useLiveSocket();
  const [store] = useState(() => new DebugStore({ schedule: throttledFrames(UPDATE_EVERY_MS) }));
  const [scope, setScope] = useState<DebugScope>("flow");

  useEffect(() => {
    socket?.subscribe({ flowId: scope === "flow" ? flowId : null });
  }, [socket, scope, flowId]);

  useLiveFrames((frame) => {
    if (frame.type === "debug.batch") {
      // The hub already narrowed the batch to this page's subscription; a scope change may be in flight.
      store.addMany(scope === "flow" ? frame.events.filter((e) => e.flow_id === flowId) : frame.events);
    } else if (frame.type === "event" && frame.topic === "debug") {
      if (scope === "flow" && frame.flow_id !== flowId) return;
      store.add(frame);
    } else if (frame.type === "dropped") {
      store.addDropped(frame.count);
    }
  });

  return { store, scope, setScope, flowId };
}

export type DebugFeed = ReturnType<typeof useDebugFeed>;
