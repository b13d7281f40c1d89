"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/trpc/react";
import { configNodeTopics, type FlowStateName, type NodeStatusValue, type PresenceUser } from "@/shared/realtime";
import { useLiveFrames, useLiveSocket } from "./live-context";

export interface FlowRuntimeView {
  state: FlowStateName;
  error: string | null;
  enabled: boolean;
  /** The revision that runs (null: never deployed). */
  deployedRevision: number | null;
}

/** A save or deploy of this flow that this page did not make. */
export interface RemoteChange {
  kind: "saved" | "deployed";
  revision: number;
  by: string | null;
  byName: string | null;
  at: string;
}

/**
 * Everything live about one open flow: its runtime state, node statuses, who else has it open and
 * changes made elsewhere. The page tells it which of its own actions are in flight
 * (`markOwnAction`), so its own saves and deploys are not reported back as someone else's.
 */
export function useFlowLive(flowId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const socket = useLiveSocket();
  const flowQuery = useQuery(trpc.flows.get.queryOptions({ id: flowId }));
  const nodesQuery = useQuery(trpc.flows.nodes.queryOptions({ flowId }));
  const [runtimeOverride, setRuntimeOverride] = useState<FlowRuntimeView | null>(null);
  const [statusOverrides, setStatusOverrides] = useState<{ since: number; map: Map<string, NodeStatusValue | null> }>({ since: 0, map: new Map() });
  const [presence, setPresence] = useState<PresenceUser[]>([]);
  const [remote, setRemote] = useState<RemoteChange | null>(null);
  const own = useRef(0);

  const flow = flowQuery.data?.flow;
  const loaded: FlowRuntimeView | null = flow ? { state: flow.state, error: flow.state_error, enabled: flow.enabled, deployedRevision: flow.deployed_revision } : null;
  const runtime = runtimeOverride ?? loaded;
  const loadedRef = useRef(loaded);
  const runtimeRef = useRef(runtime);
  useEffect(() => {
    loadedRef.current = loaded;
    runtimeRef.current = runtime;
  });
  /** Runtime changes learnt of (events, this page's actions) while the state is read after a `ready`. */
  const patchesDuringRead = useRef<Array<Partial<FlowRuntimeView>> | null>(null);
  const patchRuntime = (patch: Partial<FlowRuntimeView>) => {
    patchesDuringRead.current?.push(patch);
    setRuntimeOverride((prev) => {
      const base = prev ?? loadedRef.current;
      return base ? { ...base, ...patch } : prev;
    });
  };

  // Statuses as the server had them when last read (not older than the last deploy), with the
  // events since on top.
  const statuses = useMemo(() => {
    const map = new Map<string, NodeStatusValue | null>();
    if (nodesQuery.data && nodesQuery.dataUpdatedAt >= statusOverrides.since) for (const n of nodesQuery.data.nodes) map.set(n.id, n.status);
    for (const [id, status] of statusOverrides.map) map.set(id, status);
    return map;
  }, [nodesQuery.data, nodesQuery.dataUpdatedAt, statusOverrides]);

  useEffect(() => {
    socket?.setPresence(flowId);
    return () => socket?.setPresence(null);
  }, [socket, flowId]);

  useLiveFrames((frame) => {
    if (frame.type === "presence" && frame.flow_id === flowId) {
      setPresence(frame.users);
      return;
    }
    if (frame.type === "dropped" && frame.statuses) {
      // The hub dropped status changes while this connection was behind: read them all again.
      setStatusOverrides({ since: Date.now(), map: new Map() });
      void nodesQuery.refetch();
      return;
    }
    if (frame.type === "ready") {
      // Reconnected (or connected for the first time): what happened while offline is read again,
      // by requests sent now. A read already in flight is cancelled first, data or not (TanStack
      // reuses a first read still loading): it may predate the subscription. Events that come while
      // the read is out may be newer than it: they are applied again on top of it.
      const readAgain = async (queryKey: readonly unknown[]) => {
        await queryClient.cancelQueries({ queryKey });
        await queryClient.invalidateQueries({ queryKey });
      };
      void readAgain(trpc.flows.nodes.queryKey({ flowId }));
      // So are the lists that follow events: the organization's configuration nodes (the pickers,
      // the Configuration tab), this flow's deployments and its deployed graph ("changed since
      // deploy"). A change made between their first read and this socket's subscription would
      // otherwise never show.
      void readAgain(trpc.configNodes.pathKey());
      void readAgain(trpc.flows.deployments.queryKey());
      void readAgain(trpc.flows.deployed.queryKey());
      const patches: Array<Partial<FlowRuntimeView>> = [];
      patchesDuringRead.current = patches;
      const done = () => {
        const latest = patchesDuringRead.current === patches;
        if (latest) patchesDuringRead.current = null;
        return latest;
      };
      const before = runtimeRef.current;
      const revisionBefore = flowQuery.data?.flow.revision;
      void queryClient
        .cancelQueries({ queryKey: trpc.flows.get.queryKey({ id: flowId }) })
        .then(() => flowQuery.refetch())
        .then((r) => {
          const read = r.data?.flow;
          if (!done() || r.isError || !read) return;
          setRuntimeOverride(Object.assign({ state: read.state, error: read.state_error, enabled: read.enabled, deployedRevision: read.deployed_revision }, ...patches));
          // A save or deploy made elsewhere while no events came is told as an event would have told it
          // (who made it is unknown here; a save the editor already has is not shown).
          if (revisionBefore !== undefined && read.revision > revisionBefore) setRemote({ kind: "saved", revision: read.revision, by: null, byName: null, at: read.updated_at });
          else if (own.current === 0 && before && read.deployed_revision !== null && read.deployed_revision !== before.deployedRevision)
            setRemote({ kind: "deployed", revision: read.deployed_revision, by: null, byName: null, at: read.deployed_at ?? read.updated_at });
        }, done);
      return;
    }
    if (frame.type === "event" && configNodeTopics.has(frame.topic)) {
      // The organization's configuration nodes changed (here or elsewhere): the pickers and the
      // Configuration tab read them again.
      void queryClient.invalidateQueries({ queryKey: trpc.configNodes.pathKey() });
      return;
    }
    if (frame.type !== "event" || frame.flow_id !== flowId) return;
    switch (frame.topic) {
      case "node.status":
        setStatusOverrides((prev) => ({ since: prev.since, map: new Map(prev.map).set(frame.data.node_id, frame.data.status) }));
        return;
      case "flow.state":
        patchRuntime({ state: frame.data.state, error: frame.data.error });
        return;
      case "flow.deployed":
        patchRuntime({ state: frame.data.state, error: frame.data.error ?? null, deployedRevision: frame.data.revision });
        // A deploy restarts the nodes: earlier statuses are gone.
        setStatusOverrides({ since: Date.now(), map: new Map() });
        void nodesQuery.refetch();
        void queryClient.invalidateQueries({ queryKey: trpc.flows.deployments.queryKey() });
        if (own.current === 0) setRemote({ kind: "deployed", revision: frame.data.revision, by: frame.data.by ?? null, byName: frame.data.by_name ?? null, at: frame.ts });
        return;
      case "flow.updated":
        patchRuntime({ enabled: frame.data.enabled });
        // Whether it is news depends on the editor's revision when shown (its own save lands there too).
        setRemote({ kind: "saved", revision: frame.data.revision, by: frame.data.by ?? null, byName: frame.data.by_name ?? null, at: frame.ts });
        return;
      default:
        return;
    }
  });

  return {
    flow,
    runtime,
    statuses,
    presence,
    remote,
    dismissRemote: () => setRemote(null),
    patchRuntime,
    /** Wraps an action of this page so the events it causes are not reported as remote changes. */
    async markOwnAction<T>(action: () => Promise<T>): Promise<T> {
      own.current++;
      try {
        return await action();
      } finally {
        // Events of the action may arrive just after its answer.
        setTimeout(() => {
          own.current--;
        }, 1500);
      }
    },
  };
}

export type FlowLive = ReturnType<typeof useFlowLive>;
