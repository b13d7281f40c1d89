"use client";

import { useEffect, useMemo, useState } from "react";
import { useLiveFrames, useLiveSocket } from "./live-context";
import { DebugStore } from "./debug-store";
import type { OrgEvent } from "@/shared/realtime";

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

/** Whose debug messages a page shows: a flow's (its editor), or a subflow definition's (its editor, SPEC §16). */
export type DebugTarget = { kind: "flow"; flowId: string } | { kind: "subflow"; subflowId: string };

/**
 * Which node of the page's canvas a message belongs to (null: none, another flow's). A flow's page
 * points at the debug node, or at the subflow instance on its canvas that holds it; a subflow's page
 * at the definition's own debug node, whichever flow and instance ran it.
 */
export function debugOwner(target: DebugTarget): (event: OrgEvent<"debug">) => string | null {
  if (target.kind === "subflow") return (event) => (event.data.subflow?.subflow_id === target.subflowId ? event.data.subflow.node_id : null);
  return (event) => (event.flow_id === target.flowId ? (event.data.subflow?.instance_id ?? event.data.node_id) : null);
}

/**
 * The page's debug stream: lives as long as the page (not the Debug tab), so switching sidebar
 * tabs loses nothing. On a flow's page the scope narrows the connection's subscription on the hub,
 * so another flow's traffic never reaches a page that asked for one flow. A subflow's messages come
 * from every flow that uses it: its page takes the organization's debug events and keeps its own.
 */
export function useDebugFeed(target: DebugTarget) {
  const socket = useLiveSocket();
  const flowId = target.kind === "flow" ? target.flowId : null;
  const subflowId = target.kind === "subflow" ? target.subflowId : null;
  const owner = useMemo(() => debugOwner(flowId !== null ? { kind: "flow", flowId } : { kind: "subflow", subflowId: subflowId! }), [flowId, subflowId]);
  const [store] = useState(() => new DebugStore({ schedule: throttledFrames(UPDATE_EVERY_MS), owner }));
  const [scope, setScope] = useState<DebugScope>("flow");
  useEffect(() => store.setOwner(owner), [store, owner]);

  useEffect(() => {
    if (flowId === null) socket?.subscribe({ topics: ["debug"], flowId: null });
    else socket?.subscribe({ flowId: scope === "flow" ? flowId : null });
  }, [socket, scope, flowId]);

  useLiveFrames((frame) => {
    if (frame.type === "debug.batch") {
      // The hub already narrowed a flow page's batch to its subscription; a scope change may be in flight.
      store.addMany(scope === "flow" ? frame.events.filter((e) => owner(e) !== null) : frame.events);
    } else if (frame.type === "event" && frame.topic === "debug") {
      if (scope === "flow" && owner(frame) === null) return;
      store.add(frame);
    } else if (frame.type === "event" && frame.topic === "node.status") {
      // A node's error (node.error in Node-RED): this page's flow's, or every flow's with scope "all".
      if (frame.data.error === undefined || frame.data.caught || (scope === "flow" && (flowId === null || frame.flow_id !== flowId))) return;
      store.addError(frame);
    } else if (frame.type === "dropped") {
      store.addDropped(frame.count);
    }
  });

  return { store, scope, setScope, target };
}

export type DebugFeed = ReturnType<typeof useDebugFeed>;
