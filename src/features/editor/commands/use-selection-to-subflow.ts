"use client";

import { useCallback, type Dispatch, type SetStateAction } from "react";
import { errorInfo, type useTRPCClient } from "@/trpc/react";
import { pruneGroups } from "@/shared/group-tree";
import { subflowInstanceType } from "@/shared/subflows";
import { newNodeId, toEditorEdge, toEditorNode, toFlowNode, toConnection, type CatalogEntry } from "../model";
import type { GraphAccess } from "../graph/use-flow-graph";
import { convertToSubflow } from "../graph/to-subflow";
import type { Notify } from "../canvas/editor-notice";

/**
 * "Selection to subflow" (SPEC §16): creates a definition from the selected nodes (POST
 * /subflows), then, as one undo entry, puts one instance where they were, wired as they were. Undo
 * puts the nodes back; the definition stays in the organization (Delete it from its editor).
 */
export function useSelectionToSubflow({
  graph,
  client,
  notify,
  setCatalogList,
}: {
  graph: GraphAccess;
  client: ReturnType<typeof useTRPCClient>;
  notify: Notify;
  setCatalogList: Dispatch<SetStateAction<CatalogEntry[]>>;
}) {
  const { graphRef, commit } = graph;
  return useCallback(async () => {
    const start = graphRef.current;
    const selected = new Set(start.nodes.filter((n) => n.selected).map((n) => n.id));
    const plan = convertToSubflow(start.nodes.map(toFlowNode), start.edges.map(toConnection), selected, newNodeId);
    if ("error" in plan) return notify({ kind: "error", text: plan.error });
    const existing = await client.subflows.list.query().catch(() => ({ subflows: [] as Array<{ name: string }> }));
    const taken = new Set(existing.subflows.map((s) => s.name));
    let n = 1;
    while (taken.has(`Subflow ${n}`)) n++;
    let created;
    try {
      created = (await client.subflows.create.mutate({ name: `Subflow ${n}`, nodes: plan.definition.nodes, connections: plan.definition.connections })).subflow;
    } catch (err) {
      return notify({ kind: "error", text: `Subflow not created: ${errorInfo(err).message}` });
    }
    const { nodes: list } = await client.nodes.list.query();
    setCatalogList(list);
    const catalog = new Map(list.map((c) => [c.type, c]));
    const instance = { ...toEditorNode(catalog, { id: newNodeId(), type: subflowInstanceType(created.id), name: "", position: plan.position, config: { env: [] }, disabled: false }), selected: true };
    const current = graphRef.current;
    const nodes = [...current.nodes.filter((x) => !selected.has(x.id)).map((x) => (x.selected ? { ...x, selected: false } : x)), instance];
    const edges = [
      ...current.edges.filter((e) => !selected.has(e.source) && !selected.has(e.target)),
      ...(plan.inputs.length > 0 ? [...new Map(plan.inputs.map((i) => [`${i.source}:${i.source_port}`, i])).values()].map((i) => toEditorEdge({ source: i.source, source_port: i.source_port, target: instance.id })) : []),
      ...plan.outputs.flatMap((targets, port) => targets.map((t) => toEditorEdge({ source: instance.id, source_port: port, target: t.target }))),
    ];
    // The instance takes the selection's place in a group they all shared.
    const groups = current.groups.map((g) => (g.nodes.some((m) => selected.has(m)) && !g.nodes.includes(instance.id) ? { ...g, nodes: [...g.nodes.filter((m) => !selected.has(m)), instance.id] } : g));
    commit("selection to subflow", { ...current, nodes, edges, groups: pruneGroups(groups, new Set(nodes.map((x) => x.id))) });
    notify({ kind: "ok", text: `Created subflow “${created.name}”; double-click the instance to edit it.` });
  }, [graphRef, commit, client, notify, setCatalogList]);
}
