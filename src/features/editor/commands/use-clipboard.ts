"use client";

import { useCallback, useRef, type RefObject } from "react";
import { useReactFlow } from "@xyflow/react";
import { errorInfo, useTRPCClient } from "@/trpc/react";
import type { Connection } from "@/shared/flow-graph";
import { newNodeId, toConnection, toEditorEdge, toEditorNode, toFlowNode, type Catalog, type EditorEdge, type EditorNode } from "../model";
import type { GraphAccess } from "../graph/use-flow-graph";
import type { Notify } from "../canvas/editor-notice";

/**
 * The clipboard as Node-RED JSON: copy converts the selection on the server (`flows.copySelection`,
 * the export's mapping), paste parses it there (`flows.parseSelection`, the importer's mapping)
 * and adds the nodes with fresh ids near the top-left third of the view, selected, as one undo
 * entry. When the browser refuses the system clipboard, the last copy in this tab is used.
 */
export function useClipboard({ flowId, graph, catalog, canvasRef, notify }: { flowId: string; graph: GraphAccess; catalog: Catalog; canvasRef: RefObject<HTMLDivElement | null>; notify: Notify }) {
  const client = useTRPCClient();
  const rf = useReactFlow<EditorNode, EditorEdge>();
  const { graphRef, commit } = graph;
  const clipboardMemory = useRef<string | null>(null);

  const copySelection = useCallback(async () => {
    const current = graphRef.current;
    const picked = current.nodes.filter((n) => n.selected);
    if (picked.length === 0) return;
    const ids = new Set(picked.map((n) => n.id));
    try {
      const json = await client.flows.copySelection.mutate({
        id: flowId,
        nodes: picked.map(toFlowNode),
        connections: current.edges.filter((e) => ids.has(e.source) && ids.has(e.target)).map(toConnection),
      });
      const text = JSON.stringify(json);
      clipboardMemory.current = text;
      await navigator.clipboard?.writeText(text).catch(() => undefined);
      notify({ kind: "info", text: `Copied ${picked.length} node${picked.length === 1 ? "" : "s"} as Node-RED JSON.` });
    } catch (err) {
      notify({ kind: "error", text: errorInfo(err).message });
    }
  }, [client, flowId, graphRef, notify]);

  const paste = useCallback(async () => {
    let text: string | null = null;
    try {
      text = (await navigator.clipboard?.readText()) ?? null;
    } catch {
      text = null;
    }
    text ||= clipboardMemory.current;
    if (!text) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      notify({ kind: "error", text: "The clipboard does not hold Node-RED JSON." });
      return;
    }
    try {
      const result = await client.flows.parseSelection.mutate({ flows: (Array.isArray(parsed) ? parsed : [parsed]) as Record<string, unknown>[] });
      if (result.nodes.length === 0) return;
      const rename = new Map(result.nodes.map((n) => [n.id, newNodeId()]));
      const minX = Math.min(...result.nodes.map((n) => n.position.x));
      const minY = Math.min(...result.nodes.map((n) => n.position.y));
      const bounds = canvasRef.current!.getBoundingClientRect();
      const at = rf.screenToFlowPosition({ x: bounds.left + bounds.width / 3, y: bounds.top + bounds.height / 3 });
      const added = result.nodes.map((n) => ({
        ...toEditorNode(catalog, { ...n, id: rename.get(n.id)!, position: { x: Math.round(at.x + n.position.x - minX), y: Math.round(at.y + n.position.y - minY) } }),
        selected: true,
      }));
      const wires = result.connections.map((c: Connection) => toEditorEdge({ source: rename.get(c.source)!, source_port: c.source_port, target: rename.get(c.target)! }));
      const current = graphRef.current;
      commit("paste", { ...current, nodes: [...current.nodes.map((n) => (n.selected ? { ...n, selected: false } : n)), ...added], edges: [...current.edges, ...wires] });
      notify(result.warnings.length ? { kind: "info", text: `Pasted ${added.length} nodes. ${result.warnings.join(" ")}` } : { kind: "ok", text: `Pasted ${added.length} node${added.length === 1 ? "" : "s"}.` });
    } catch (err) {
      notify({ kind: "error", text: errorInfo(err).message });
    }
  }, [catalog, client, commit, rf, canvasRef, graphRef, notify]);

  return { copySelection, paste };
}
