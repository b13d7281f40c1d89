"use client";

import { useCallback, useRef, useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { errorInfo, useTRPC, useTRPCClient } from "@/trpc/react";
import { mergedGraph, planAfterConflict, type ConflictPlan } from "@/features/live/save-conflict";
import type { FlowGraph } from "@/shared/flow-graph";
import type { Resolutions } from "@/shared/graph-merge";
import type { Catalog, EditorFlow } from "../model";
import { flowGraphOf, snapshotOf, toFlowGraph } from "../graph/graph-model";
import type { FlowGraphState } from "../graph/use-flow-graph";
import type { Notify } from "../canvas/editor-notice";

/**
 * Where the editor's graph is read and written: a flow (the default: `flows.get`, `flows.update`)
 * or a subflow definition (`subflows.get`, `subflows.update`, SPEC §16), as an EditorFlow.
 */
export interface GraphStore {
  get: (id: string) => Promise<{ flow: EditorFlow }>;
  update: (input: { id: string; revision: number } & FlowGraph) => Promise<{ flow: EditorFlow }>;
}

export interface FlowMeta {
  id: string;
  name: string;
  revision: number;
}

/**
 * Save, reload and the 409 path: the revision the canvas came from (`meta`), the graph as of that
 * revision (the base of a merge), and the conflict dialog's state. After a 409 the dialog offers
 * Reload, Overwrite and Merge: when their changes touch other nodes than mine, Merge keeps both in
 * one click; only nodes changed on both sides ask.
 */
export function useFlowSave({
  initialFlow,
  catalog,
  readOnly,
  graph,
  notify,
  highlight,
  store,
}: {
  store?: GraphStore;
  initialFlow: EditorFlow;
  catalog: Catalog;
  readOnly: boolean;
  graph: FlowGraphState;
  notify: Notify;
  /** Outline the node a refused save names. */
  highlight: (nodeId: string) => void;
}) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const { graphRef, reset, markSaved, version } = graph;
  const [meta, setMeta] = useState<FlowMeta>({ id: initialFlow.id, name: initialFlow.name, revision: initialFlow.revision });
  // The graph as of `meta.revision` (loaded or last saved): the base of a merge after a 409.
  const baseRef = useRef<FlowGraph>(flowGraphOf(initialFlow));
  const [conflict, setConflict] = useState(false);
  const [merging, setMerging] = useState<ConflictPlan | null>(null);
  const flowsUpdate = trpc.flows.update.mutationOptions();
  const queryClient = useQueryClient();
  // A saved graph changes which configuration nodes it uses: their lists (the Configuration tab's
  // "used by", cached while the toolbar's dashboard link reads them) are read again.
  const configNodesChanged = useCallback(() => queryClient.invalidateQueries({ queryKey: trpc.configNodes.pathKey() }), [queryClient, trpc]);
  const update = useMutation<{ flow: EditorFlow }, unknown, { id: string; revision: number } & FlowGraph>(
    store
      ? { mutationFn: store.update, onSuccess: configNodesChanged }
      : { mutationFn: (input) => client.flows.update.mutate(input), mutationKey: flowsUpdate.mutationKey, onSuccess: configNodesChanged },
  );
  const getGraph = useCallback((id: string) => (store ? store.get(id) : client.flows.get.query({ id })), [store, client]);

  const replaceGraph = useCallback(
    (flow: EditorFlow) => {
      reset(snapshotOf(flow, catalog));
      setMeta({ id: flow.id, name: flow.name, revision: flow.revision });
      baseRef.current = flowGraphOf(flow);
    },
    [catalog, reset],
  );

  const graphPayload = useCallback(() => toFlowGraph(graphRef.current), [graphRef]);

  const showSaveError = useCallback(
    (err: unknown) => {
      const info = errorInfo(err);
      const match = Object.keys(info.fields)[0]?.match(/^nodes\[(\d+)\]/);
      const node = match ? graphRef.current.nodes[Number(match[1])] : undefined;
      if (node) {
        highlight(node.id);
        notify({ kind: "error", text: `Not saved: node “${node.data.name || node.data.type}”: ${Object.values(info.fields)[0]}` });
      } else notify({ kind: "error", text: `Not saved: ${info.message}` });
    },
    [graphRef, highlight, notify],
  );

  const saveMerged = useCallback(
    async (merged: FlowGraph, revision: number, text: string): Promise<boolean> => {
      const { flow } = await update.mutateAsync({ id: meta.id, revision, ...merged });
      replaceGraph(flow);
      notify({ kind: "ok", text: `${text} (revision ${flow.revision}).` });
      return true;
    },
    [update, meta.id, replaceGraph, notify],
  );

  const mergeAfterConflict = useCallback(async (): Promise<boolean> => {
    const { flow: latest } = await getGraph(meta.id);
    setMerging(planAfterConflict(baseRef.current, graphPayload(), latest));
    setConflict(true);
    return false;
  }, [getGraph, meta.id, graphPayload]);

  const save = useCallback(async (): Promise<boolean> => {
    if (readOnly) return false;
    const savedVersion = version;
    const payload = graphPayload();
    try {
      const { flow } = await update.mutateAsync({ id: meta.id, revision: meta.revision, ...payload });
      setMeta((m) => ({ ...m, revision: flow.revision }));
      baseRef.current = payload;
      markSaved(savedVersion);
      notify({ kind: "ok", text: `Saved (revision ${flow.revision}).` });
      return true;
    } catch (err) {
      if (errorInfo(err).code !== "REVISION_CONFLICT") {
        showSaveError(err);
        return false;
      }
      try {
        return await mergeAfterConflict();
      } catch {
        // Their version could not be read: the dialog still offers Reload and Overwrite.
        setMerging(null);
        setConflict(true);
        return false;
      }
    }
  }, [readOnly, version, markSaved, update, meta, graphPayload, showSaveError, mergeAfterConflict, notify]);

  const resolveMerge = useCallback(
    async (choices: Resolutions) => {
      const plan = merging;
      if (!plan) return;
      // Never saves a conflict nobody chose for (the dialog's Merge is disabled then too).
      const merged = mergedGraph(plan, choices);
      if (!merged) return;
      try {
        await saveMerged(merged, plan.revision, "Merged and saved");
        setConflict(false);
        setMerging(null);
      } catch (err) {
        // Yet another save won meanwhile: Reload or Overwrite remain.
        setMerging(null);
        if (errorInfo(err).code !== "REVISION_CONFLICT") {
          setConflict(false);
          showSaveError(err);
        }
      }
    },
    [merging, saveMerged, showSaveError],
  );

  const reload = useCallback(async () => {
    const { flow } = await getGraph(meta.id);
    replaceGraph(flow);
    setConflict(false);
    notify({ kind: "info", text: `Reloaded revision ${flow.revision}; your unsaved changes were discarded.` });
  }, [getGraph, meta.id, replaceGraph, notify]);

  const overwrite = useCallback(async () => {
    const savedVersion = version;
    try {
      const { flow: latest } = await getGraph(meta.id);
      const { flow } = await update.mutateAsync({ id: meta.id, revision: latest.revision, ...graphPayload() });
      setMeta((m) => ({ ...m, revision: flow.revision }));
      markSaved(savedVersion);
      setConflict(false);
      notify({ kind: "ok", text: `Saved over the other change (revision ${flow.revision}).` });
    } catch (err) {
      setConflict(false);
      showSaveError(err);
    }
  }, [getGraph, meta.id, update, graphPayload, version, markSaved, showSaveError, notify]);

  /** The server moved to `revision` by a change that left the graph alone (enable/disable). */
  const adoptRevision = useCallback((revision: number) => setMeta((m) => (m.revision === revision - 1 ? { ...m, revision } : m)), []);

  return {
    meta,
    save,
    saving: update.isPending,
    replaceGraph,
    adoptRevision,
    /** The conflict dialog's state and answers (save/conflict-dialog.tsx draws them). */
    conflict: { open: conflict, plan: merging, close: () => setConflict(false), reload, overwrite, resolveMerge },
  };
}

export type FlowSave = ReturnType<typeof useFlowSave>;
