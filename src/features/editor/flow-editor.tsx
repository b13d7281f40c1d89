"use client";

/**
 * The flow editor (/flows/{id}). Extension points, for features built on top of it:
 * - `toolbar` prop: more buttons after Save/Undo/Redo in the toolbar (e.g. Deploy, flow state).
 * - `sidebarTabs` prop: more tabs in the right sidebar beside "Node" and "Find" (e.g. Debug,
 *   Deployments); each renders its own panel.
 * - `runtime` prop (EditorRuntimeContext): `statusFor(nodeId)` draws a status line under each
 *   node, `renderNodeAction(node)` a per-node button (e.g. Inject). Keep the value stable.
 * - useEditor() (editor-api.tsx), inside any of those: revision, dirty flag, nodes and edges,
 *   selected nodes, selectNode, highlightNode, replaceGraph (reload/rollback), save,
 *   refreshDeployed (after a deploy, for the "changed since deploy" marks).
 * The canvas is React Flow (@xyflow/react 12); undo/redo, keyboard wiring, clipboard and
 * quick-add are ours (see docs/ARCHITECTURE.md, "The flow editor").
 */

import { useCallback, useDeferredValue, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import {
  Background,
  Controls,
  ReactFlow,
  ReactFlowProvider,
  applyEdgeChanges,
  applyNodeChanges,
  useReactFlow,
  useStoreApi,
  type Connection as RfConnection,
  type EdgeChange,
  type IsValidConnection,
  type NodeChange,
  type OnConnectEnd,
} from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { useMutation, useQuery } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { Dialog } from "@/components/dialog";
import { errorInfo, useTRPC, useTRPCClient } from "@/trpc/react";
import type { Connection } from "@/shared/flow-graph";
import { EditNodeDialog, type NodeEdit } from "./edit-dialog";
import { EditorApiContext, type EditorApi, type SidebarTab } from "./editor-api";
import { nodeTypes } from "./flow-node";
import { useHistory, type Snapshot } from "./history";
import {
  NODE_WIDTH,
  changedSinceDeploy,
  edgeId,
  handlesFor,
  nodeHeight,
  nodeMatches,
  newNodeId,
  portOf,
  toConnection,
  toEditorEdge,
  toEditorNode,
  toFlowNode,
  withData,
  type CatalogEntry,
  type EditorEdge,
  type EditorFlow,
  type EditorNode,
} from "./model";
import { EditorMiniMap, type MiniMapHandle } from "./mini-map";
import { Palette, QuickAdd } from "./palette";
import { EditorRuntimeContext, NodeMarksContext, type EditorRuntime, type NodeMarks } from "./runtime-context";
import "./editor.css";
import { MergeChoices } from "@/features/live/merge-dialog";
import { mergedGraph, planAfterConflict, type ConflictPlan } from "@/features/live/save-conflict";
import type { Resolutions } from "@/shared/graph-merge";
import type { FlowGraph } from "@/shared/flow-graph";
import { NodeHelp } from "./node-help";

export interface FlowEditorProps {
  flow: EditorFlow;
  catalog: CatalogEntry[];
  readOnly: boolean;
  toolbar?: ReactNode;
  sidebarTabs?: SidebarTab[];
  runtime?: EditorRuntime;
}

const isEditable = (el: Element | null) =>
  !!el && (el.closest("input, textarea, select, [contenteditable='true'], .cm-editor") !== null || el.closest("dialog[open]") !== null);

const mod = (e: KeyboardEvent) => e.ctrlKey || e.metaKey;

// React Flow's props at module scope: a new object or function on every render of the editor
// would re-render the node list (NodeRenderer is memoized on its props) and every minimap node.
const MULTI_SELECT_KEYS = ["Meta", "Control", "Shift"];
const EDGE_OPTIONS = { interactionWidth: 12 };
const PRO_OPTIONS = { hideAttribution: false };
const miniMapColor = (n: EditorNode) => (n.data.disabled ? "#ccc" : "#8f1d2c");

function graphOf(flow: EditorFlow, catalog: ReadonlyMap<string, CatalogEntry>): Snapshot {
  return { nodes: flow.nodes.map((n) => toEditorNode(catalog, n)), edges: flow.connections.map(toEditorEdge) };
}

function FindPanel({ nodes, q, setQ, onPick, inputRef }: { nodes: EditorNode[]; q: string; setQ: (q: string) => void; onPick: (id: string) => void; inputRef: React.RefObject<HTMLInputElement | null> }) {
  const found = useMemo(() => (q.trim() ? nodes.filter((n) => nodeMatches(n, q)) : []), [nodes, q]);
  return (
    <div className="find-panel">
      <div className="field">
        <label htmlFor="find-nodes">Find nodes</label>
        <input ref={inputRef} id="find-nodes" type="search" value={q} onChange={(e) => setQ(e.target.value)} aria-describedby="find-hint" />
        <p id="find-hint" className="hint">
          By name, type or any configured value (Ctrl/Cmd+F).
        </p>
      </div>
      {q.trim() ? (
        <p role="status" className="hint">
          {found.length} node{found.length === 1 ? "" : "s"} found
        </p>
      ) : null}
      <ul className="find-results">
        {found.slice(0, 200).map((n) => (
          <li key={n.id}>
            <button type="button" className="link" onClick={() => onPick(n.id)}>
              {n.data.name || n.data.type}
            </button>{" "}
            <span className="muted">{n.data.type}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

function NodeInfo({ node, catalog, onEdit }: { node: EditorNode | null; catalog: ReadonlyMap<string, CatalogEntry>; onEdit: () => void }) {
  if (!node) return <p className="hint">Select a node to see what it does. Double-click it, or press Enter, to edit it.</p>;
  const entry = catalog.get(node.data.type);
  return (
    <div className="node-info">
      <h3>{node.data.name || node.data.type}</h3>
      <dl className="details">
        <dt>Type</dt>
        <dd>{node.data.unknownType ? `unknown (${node.data.unknownType})` : node.data.type}</dd>
        <dt>Id</dt>
        <dd>
          <code>{node.id}</code>
        </dd>
        <dt>Outputs</dt>
        <dd>{node.data.outputs}</dd>
        {node.data.disabled ? (
          <>
            <dt>State</dt>
            <dd>Disabled</dd>
          </>
        ) : null}
      </dl>
      <button type="button" className="secondary small" onClick={onEdit}>
        Edit node
      </button>
      {entry?.help ? (
        <section aria-label={`Help: ${entry.name}`}>
          <NodeHelp help={entry.help} />
        </section>
      ) : entry ? (
        <p>{entry.description}</p>
      ) : node.data.unknownType ? (
        <p>This node&apos;s Node-RED type is not available here. It is kept, disabled, so an export gives it back unchanged.</p>
      ) : null}
    </div>
  );
}

function EditorInner({ flow: initialFlow, catalog: catalogList, readOnly, toolbar, sidebarTabs = [], runtime }: FlowEditorProps) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const rf = useReactFlow<EditorNode, EditorEdge>();
  const rfStore = useStoreApi<EditorNode, EditorEdge>();
  const catalog = useMemo(() => new Map(catalogList.map((c) => [c.type, c])), [catalogList]);
  const initial = useMemo(() => graphOf(initialFlow, catalog), [initialFlow, catalog]);
  const [nodes, setNodesState] = useState<EditorNode[]>(initial.nodes);
  const [edges, setEdgesState] = useState<EditorEdge[]>(initial.edges);
  const graphRef = useRef<Snapshot>(initial);
  const [meta, setMeta] = useState({ id: initialFlow.id, name: initialFlow.name, revision: initialFlow.revision });
  const history = useHistory();
  // The stack's functions are stable; callbacks depend on them, not on the (per-render) history object.
  const { push: pushHistory, undo: undoHistory, redo: redoHistory, reset: resetHistory, markSaved } = history;
  const [editing, setEditing] = useState<string | null>(null);
  const [preview, setPreview] = useState<{ id: string; outputs: number } | null>(null);
  const [highlighted, setHighlighted] = useState<string | null>(null);
  const [conflict, setConflict] = useState(false);
  // The graph as of `meta.revision` (loaded or last saved): the base of a merge after a 409.
  const baseRef = useRef<FlowGraph>({ nodes: initialFlow.nodes, connections: initialFlow.connections });
  const [merging, setMerging] = useState<ConflictPlan | null>(null);
  const [notice, setNotice] = useState<{ kind: "error" | "ok" | "info"; text: string } | null>(null);
  const [quickAdd, setQuickAdd] = useState<{ x: number; y: number; flowX: number; flowY: number; source: string; port: number } | null>(null);
  const [tab, setTab] = useState("node");
  const [findQuery, setFindQuery] = useState("");
  const findRef = useRef<HTMLInputElement>(null);
  const canvasRef = useRef<HTMLDivElement>(null);
  const dragStart = useRef<Snapshot | null>(null);
  const miniMap = useRef<MiniMapHandle>(null);
  const clipboardMemory = useRef<string | null>(null);

  const setGraph = useCallback((next: Snapshot) => {
    graphRef.current = next;
    setNodesState(next.nodes);
    setEdgesState(next.edges);
  }, []);

  /** One undoable edit. */
  const commit = useCallback(
    (label: string, next: Snapshot) => {
      const before = graphRef.current;
      setGraph(next);
      pushHistory(label, before, next);
    },
    [pushHistory, setGraph],
  );

  // "Changed since deploy": a diff against the deployed graph, computed off the drag's hot path.
  const deployedQuery = useQuery(trpc.flows.deployed.queryOptions({ id: initialFlow.id }));
  const deployed = deployedQuery.data?.deployed ?? null;
  const lazyNodes = useDeferredValue(nodes);
  const lazyEdges = useDeferredValue(edges);
  // Through a string key, so the marks (read by every node) keep their identity while nothing changes.
  const changedKey = useMemo(() => [...changedSinceDeploy(lazyNodes, lazyEdges, deployed)].map(([id, kind]) => `${id}=${kind}`).join("|"), [lazyNodes, lazyEdges, deployed]);
  const changed = useMemo(() => new Map(changedKey ? changedKey.split("|").map((p) => p.split("=") as [string, "added" | "changed"]) : []), [changedKey]);
  const differsFromDeployed = useMemo(() => {
    if (!deployed) return false;
    if (changed.size > 0) return true;
    const ids = new Set(lazyNodes.map((n) => n.id));
    return deployed.nodes.some((n) => !ids.has(n.id));
  }, [deployed, changed, lazyNodes]);
  const found = useMemo(() => new Set(findQuery ? lazyNodes.filter((n) => nodeMatches(n, findQuery)).map((n) => n.id) : []), [lazyNodes, findQuery]);
  const marks = useMemo<NodeMarks>(() => ({ changed, found, highlighted, readOnly }), [changed, found, highlighted, readOnly]);

  const displayNodes = useMemo(() => {
    if (!preview) return nodes;
    return nodes.map((n) => (n.id === preview.id ? { ...n, data: { ...n.data, outputs: preview.outputs }, height: nodeHeight(preview.outputs), measured: { width: NODE_WIDTH, height: nodeHeight(preview.outputs) }, handles: handlesFor(n.data.inputs, preview.outputs) } : n));
  }, [nodes, preview]);

  /**
   * A drag's moves skip React: React Flow's own store gets the moved nodes (its node components
   * subscribe to it one by one) and `graphRef` stays the truth for every reader, but the editor's
   * state, and with it this component, the sidebar, useEditor() readers and the "changed since
   * deploy" diff, changes once, on the drop, as one undo entry. Letting every pointer move re-render
   * the editor cost two vsyncs a frame (docs/BENCHMARKS.md, "Editor").
   */
  const onNodesChange = useCallback(
    (changes: NodeChange<EditorNode>[]) => {
      const current = graphRef.current;
      const relevant = readOnly ? changes.filter((c) => c.type === "select" || c.type === "dimensions") : changes.filter((c) => c.type !== "remove");
      if (relevant.length === 0) return;
      const nextNodes = applyNodeChanges(relevant, current.nodes);
      const dragging = relevant.some((c) => c.type === "position" && c.dragging);
      const dropped = relevant.some((c) => c.type === "position" && c.dragging === false);
      if (dragging && !dragStart.current) dragStart.current = current;
      const next = { nodes: nextNodes, edges: current.edges };
      if (dragging || dropped) miniMap.current?.moveNodes(relevant.flatMap((c) => (c.type === "position" && c.position ? [{ id: c.id, ...c.position }] : [])));
      if (dropped && dragStart.current) {
        const before = dragStart.current;
        dragStart.current = null;
        setGraph(next);
        const moved = before.nodes.some((n, i) => nextNodes[i] && (n.position.x !== nextNodes[i].position.x || n.position.y !== nextNodes[i].position.y));
        if (moved) pushHistory("move", before, next);
        return;
      }
      if (dragging && relevant.every((c) => c.type === "position")) {
        graphRef.current = next;
        rfStore.getState().setNodes(nextNodes);
        return;
      }
      setGraph(next);
    },
    [readOnly, setGraph, pushHistory, rfStore],
  );

  const onEdgesChange = useCallback(
    (changes: EdgeChange<EditorEdge>[]) => {
      const relevant = changes.filter((c) => c.type === "select");
      if (relevant.length === 0) return;
      const current = graphRef.current;
      setGraph({ nodes: current.nodes, edges: applyEdgeChanges(relevant, current.edges) });
    },
    [setGraph],
  );

  const isValidConnection: IsValidConnection<EditorEdge> = useCallback(
    (c) => {
      if (readOnly) return false;
      const target = graphRef.current.nodes.find((n) => n.id === c.target);
      const source = graphRef.current.nodes.find((n) => n.id === c.source);
      if (!target || !source || target.data.inputs === 0 || c.targetHandle !== "in") return false;
      if (portOf(c.sourceHandle) >= source.data.outputs) return false;
      const id = edgeId({ source: c.source, source_port: portOf(c.sourceHandle), target: c.target });
      return !graphRef.current.edges.some((e) => e.id === id);
    },
    [readOnly],
  );

  const onConnect = useCallback(
    (c: RfConnection) => {
      if (!isValidConnection(c)) return;
      const current = graphRef.current;
      const edge = toEditorEdge({ source: c.source, source_port: portOf(c.sourceHandle), target: c.target });
      commit("connect", { nodes: current.nodes, edges: [...current.edges, edge] });
    },
    [commit, isValidConnection],
  );

  const onConnectEnd: OnConnectEnd = useCallback(
    (event, state) => {
      if (readOnly || state.isValid || !state.fromNode || state.fromHandle?.type !== "source") return;
      const point = "changedTouches" in event ? event.changedTouches[0]! : event;
      const under = document.elementFromPoint(point.clientX, point.clientY);
      if (!under || !canvasRef.current?.contains(under) || under.closest(".react-flow__node, .react-flow__controls, .react-flow__minimap")) return;
      const bounds = canvasRef.current!.getBoundingClientRect();
      const pos = rf.screenToFlowPosition({ x: point.clientX, y: point.clientY });
      setQuickAdd({ x: point.clientX - bounds.left, y: point.clientY - bounds.top, flowX: pos.x, flowY: pos.y, source: state.fromNode.id, port: portOf(state.fromHandle.id) });
    },
    [readOnly, rf],
  );

  const closeQuickAdd = useCallback(() => setQuickAdd(null), []);
  const onNodeDoubleClick = useCallback((_: unknown, n: EditorNode) => setEditing(n.id), []);

  const newNode = useCallback(
    (type: string, x: number, y: number): EditorNode => {
      const entry = catalog.get(type)!;
      const node = toEditorNode(catalog, { id: newNodeId(), type, name: "", position: { x: Math.round(x), y: Math.round(y) }, config: structuredClone(entry.defaults), disabled: false });
      return { ...node, selected: true };
    },
    [catalog],
  );

  const focusNode = useCallback((id: string) => {
    requestAnimationFrame(() => requestAnimationFrame(() => document.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(id)}"]`)?.focus()));
  }, []);

  /** Adds a node with its top-left at a flow position, selected alone. */
  const addNodeAt = useCallback(
    (type: string, x: number, y: number, wireFrom?: { source: string; port: number }) => {
      const node = newNode(type, x, y);
      const current = graphRef.current;
      const nodesNext = [...current.nodes.map((n) => (n.selected ? { ...n, selected: false } : n)), node];
      const edgesNext = wireFrom ? [...current.edges, toEditorEdge({ source: wireFrom.source, source_port: wireFrom.port, target: node.id })] : current.edges;
      commit(wireFrom ? "add and wire" : "add", { nodes: nodesNext, edges: edgesNext });
      return node;
    },
    [commit, newNode],
  );

  const addNodeInView = useCallback(
    (type: string) => {
      const bounds = canvasRef.current!.getBoundingClientRect();
      const centre = rf.screenToFlowPosition({ x: bounds.left + bounds.width / 2, y: bounds.top + bounds.height / 2 });
      // Keep clear of a node already sitting at the centre (several Enter presses in a row).
      let x = centre.x - NODE_WIDTH / 2;
      let y = centre.y - 20;
      while (graphRef.current.nodes.some((n) => Math.abs(n.position.x - x) < 20 && Math.abs(n.position.y - y) < 20)) {
        x += 30;
        y += 30;
      }
      const node = addNodeAt(type, x, y);
      focusNode(node.id);
    },
    [addNodeAt, focusNode, rf],
  );

  const dropFromPalette = useCallback(
    (type: string, clientX: number, clientY: number) => {
      const bounds = canvasRef.current?.getBoundingClientRect();
      if (!bounds || clientX < bounds.left || clientX > bounds.right || clientY < bounds.top || clientY > bounds.bottom) return;
      const pos = rf.screenToFlowPosition({ x: clientX, y: clientY });
      addNodeAt(type, pos.x - NODE_WIDTH / 2, pos.y - 20);
    },
    [addNodeAt, rf],
  );

  const deleteSelection = useCallback(() => {
    const current = graphRef.current;
    const gone = new Set(current.nodes.filter((n) => n.selected).map((n) => n.id));
    const edgesNext = current.edges.filter((e) => !e.selected && !gone.has(e.source) && !gone.has(e.target));
    if (gone.size === 0 && edgesNext.length === current.edges.length) return;
    commit("delete", { nodes: current.nodes.filter((n) => !gone.has(n.id)), edges: edgesNext });
  }, [commit]);

  const undo = useCallback(() => {
    const s = undoHistory();
    if (s) setGraph(s);
  }, [undoHistory, setGraph]);
  const redo = useCallback(() => {
    const s = redoHistory();
    if (s) setGraph(s);
  }, [redoHistory, setGraph]);

  const applyEdit = useCallback(
    (nodeId: string, edit: NodeEdit) => {
      const current = graphRef.current;
      const nodesNext = current.nodes.map((n) => (n.id === nodeId ? withData(catalog, n, { name: edit.name, config: edit.config, disabled: edit.disabled }) : n));
      const edgesNext = [...current.edges.filter((e) => e.source !== nodeId), ...edit.wires.map(toEditorEdge)];
      commit("edit", { nodes: nodesNext, edges: edgesNext });
      setEditing(null);
      focusNode(nodeId);
    },
    [catalog, commit, focusNode],
  );

  // Save, conflicts, reload.
  const update = useMutation(trpc.flows.update.mutationOptions());
  const replaceGraph = useCallback(
    (flow: EditorFlow) => {
      setGraph(graphOf(flow, catalog));
      setMeta({ id: flow.id, name: flow.name, revision: flow.revision });
      baseRef.current = { nodes: flow.nodes, connections: flow.connections };
      resetHistory();
    },
    [catalog, resetHistory, setGraph],
  );

  const graphPayload = useCallback(() => {
    const g = graphRef.current;
    return { nodes: g.nodes.map(toFlowNode), connections: g.edges.map(toConnection) };
  }, []);

  const showSaveError = useCallback((err: unknown) => {
    const info = errorInfo(err);
    const match = Object.keys(info.fields)[0]?.match(/^nodes\[(\d+)\]/);
    const node = match ? graphRef.current.nodes[Number(match[1])] : undefined;
    if (node) {
      setHighlighted(node.id);
      setNotice({ kind: "error", text: `Not saved: node “${node.data.name || node.data.type}”: ${Object.values(info.fields)[0]}` });
    } else setNotice({ kind: "error", text: `Not saved: ${info.message}` });
  }, []);

  /**
   * After a 409 the conflict dialog offers Reload, Overwrite and Merge: when their changes touch
   * other nodes than mine, Merge keeps both in one click; only nodes changed on both sides ask.
   */
  const saveMerged = useCallback(
    async (graph: FlowGraph, revision: number, text: string): Promise<boolean> => {
      const { flow } = await update.mutateAsync({ id: meta.id, revision, ...graph });
      replaceGraph(flow);
      setNotice({ kind: "ok", text: `${text} (revision ${flow.revision}).` });
      return true;
    },
    [update, meta.id, replaceGraph],
  );

  const mergeAfterConflict = useCallback(async (): Promise<boolean> => {
    const { flow: latest } = await client.flows.get.query({ id: meta.id });
    setMerging(planAfterConflict(baseRef.current, graphPayload(), latest));
    setConflict(true);
    return false;
  }, [client, meta.id, graphPayload]);

  const save = useCallback(async (): Promise<boolean> => {
    if (readOnly) return false;
    const version = history.version;
    const payload = graphPayload();
    try {
      const { flow } = await update.mutateAsync({ id: meta.id, revision: meta.revision, ...payload });
      setMeta((m) => ({ ...m, revision: flow.revision }));
      baseRef.current = payload;
      markSaved(version);
      setNotice({ kind: "ok", text: `Saved (revision ${flow.revision}).` });
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
  }, [readOnly, history.version, markSaved, update, meta, graphPayload, showSaveError, mergeAfterConflict]);

  const resolveMerge = useCallback(
    async (choices: Resolutions) => {
      const plan = merging;
      if (!plan) return;
      // Never saves a conflict nobody chose for (the dialog's Merge is disabled then too).
      const graph = mergedGraph(plan, choices);
      if (!graph) return;
      try {
        await saveMerged(graph, plan.revision, "Merged and saved");
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
    const { flow } = await client.flows.get.query({ id: meta.id });
    replaceGraph(flow);
    setConflict(false);
    setNotice({ kind: "info", text: `Reloaded revision ${flow.revision}; your unsaved changes were discarded.` });
  }, [client, meta.id, replaceGraph]);

  const overwrite = useCallback(async () => {
    const version = history.version;
    try {
      const { flow: latest } = await client.flows.get.query({ id: meta.id });
      const { flow } = await update.mutateAsync({ id: meta.id, revision: latest.revision, ...graphPayload() });
      setMeta((m) => ({ ...m, revision: flow.revision }));
      markSaved(version);
      setConflict(false);
      setNotice({ kind: "ok", text: `Saved over the other change (revision ${flow.revision}).` });
    } catch (err) {
      setConflict(false);
      showSaveError(err);
    }
  }, [client, meta.id, update, graphPayload, history.version, markSaved, showSaveError]);

  // Clipboard as Node-RED JSON.
  const copySelection = useCallback(async () => {
    const current = graphRef.current;
    const picked = current.nodes.filter((n) => n.selected);
    if (picked.length === 0) return;
    const ids = new Set(picked.map((n) => n.id));
    try {
      const json = await client.flows.copySelection.mutate({
        id: meta.id,
        nodes: picked.map(toFlowNode),
        connections: current.edges.filter((e) => ids.has(e.source) && ids.has(e.target)).map(toConnection),
      });
      const text = JSON.stringify(json);
      clipboardMemory.current = text;
      await navigator.clipboard?.writeText(text).catch(() => undefined);
      setNotice({ kind: "info", text: `Copied ${picked.length} node${picked.length === 1 ? "" : "s"} as Node-RED JSON.` });
    } catch (err) {
      setNotice({ kind: "error", text: errorInfo(err).message });
    }
  }, [client, meta.id]);

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
      setNotice({ kind: "error", text: "The clipboard does not hold Node-RED JSON." });
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
      commit("paste", { nodes: [...current.nodes.map((n) => (n.selected ? { ...n, selected: false } : n)), ...added], edges: [...current.edges, ...wires] });
      setNotice(result.warnings.length ? { kind: "info", text: `Pasted ${added.length} nodes. ${result.warnings.join(" ")}` } : { kind: "ok", text: `Pasted ${added.length} node${added.length === 1 ? "" : "s"}.` });
    } catch (err) {
      setNotice({ kind: "error", text: errorInfo(err).message });
    }
  }, [catalog, client, commit, rf]);

  const selectNode = useCallback(
    (nodeId: string) => {
      const current = graphRef.current;
      const node = current.nodes.find((n) => n.id === nodeId);
      if (!node) return;
      setGraph({ nodes: current.nodes.map((n) => (n.id === nodeId ? (n.selected ? n : { ...n, selected: true }) : n.selected ? { ...n, selected: false } : n)), edges: current.edges });
      void rf.setCenter(node.position.x + NODE_WIDTH / 2, node.position.y + 20, { zoom: Math.max(rf.getZoom(), 1), duration: 200 });
      focusNode(nodeId);
    },
    [rf, setGraph, focusNode],
  );

  // Keyboard: our own wiring (React Flow's delete key is off so every delete goes through undo).
  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      const active = document.activeElement;
      if (mod(e) && e.key.toLowerCase() === "s") {
        e.preventDefault();
        if (!document.querySelector("dialog[open]")) void save();
        return;
      }
      if (mod(e) && e.key.toLowerCase() === "f") {
        e.preventDefault();
        setTab("find");
        requestAnimationFrame(() => findRef.current?.focus());
        return;
      }
      if (isEditable(active) || quickAdd) return;
      if (e.key === "Enter" && active instanceof HTMLElement && active.classList.contains("react-flow__node")) {
        const id = active.dataset.id;
        if (id) {
          e.preventDefault();
          setEditing(id);
        }
        return;
      }
      if (readOnly) {
        if (mod(e) && e.key.toLowerCase() === "c") void copySelection();
        return;
      }
      if (e.key === "Delete" || e.key === "Backspace") {
        e.preventDefault();
        deleteSelection();
      } else if (mod(e) && e.key.toLowerCase() === "z") {
        e.preventDefault();
        if (e.shiftKey) redo();
        else undo();
      } else if (mod(e) && e.key.toLowerCase() === "y") {
        e.preventDefault();
        redo();
      } else if (mod(e) && e.key.toLowerCase() === "c") {
        void copySelection();
      } else if (mod(e) && e.key.toLowerCase() === "v") {
        e.preventDefault();
        void paste();
      } else if (mod(e) && e.key.toLowerCase() === "a" && active?.closest(".react-flow")) {
        e.preventDefault();
        const current = graphRef.current;
        setGraph({ nodes: current.nodes.map((n) => (n.selected ? n : { ...n, selected: true })), edges: current.edges });
      }
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [save, readOnly, quickAdd, deleteSelection, undo, redo, copySelection, paste, setGraph]);

  // Leaving with unsaved changes asks first: closing the tab, and links inside the app.
  const dirty = history.dirty && !readOnly;
  useEffect(() => {
    if (!dirty) return;
    const beforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = "";
    };
    const onClick = (e: MouseEvent) => {
      const a = (e.target as Element | null)?.closest?.("a[href]");
      if (!a || a.getAttribute("target") === "_blank" || a.hasAttribute("download")) return;
      // Deliberately window.confirm: the answer must be known before this click handler returns
      // (docs/ARCHITECTURE.md, "The flow editor").
      if (!window.confirm("This flow has unsaved changes. Leave without saving?")) {
        e.preventDefault();
        e.stopPropagation();
      }
    };
    window.addEventListener("beforeunload", beforeUnload);
    document.addEventListener("click", onClick, true);
    return () => {
      window.removeEventListener("beforeunload", beforeUnload);
      document.removeEventListener("click", onClick, true);
    };
  }, [dirty]);

  const selected = useMemo(() => nodes.filter((n) => n.selected), [nodes]);
  // A big flow opens on its top-left corner at a readable zoom (only what is visible is drawn);
  // a small one fits the window.
  const [initialView] = useState(() => {
    const all = initial.nodes;
    if (all.length <= 150) return { maxZoom: 1, padding: 0.15 };
    const corner = [...all].sort((a, b) => a.position.y + a.position.x / 4 - (b.position.y + b.position.x / 4)).slice(0, 40);
    return { maxZoom: 1, minZoom: 0.5, padding: 0.1, nodes: corner.map((n) => ({ id: n.id })) };
  });
  const editingNode = editing ? nodes.find((n) => n.id === editing) ?? null : null;

  const api = useMemo<EditorApi>(
    () => ({
      flowId: meta.id,
      flowName: meta.name,
      revision: meta.revision,
      dirty,
      readOnly,
      nodes,
      edges,
      selectedNodeIds: selected.map((n) => n.id),
      selectNode,
      highlightNode: setHighlighted,
      replaceGraph,
      save,
      adoptRevision: (revision: number) => setMeta((m) => (m.revision === revision - 1 ? { ...m, revision } : m)),
      refreshDeployed: () => void deployedQuery.refetch(),
      changedSinceDeploy: differsFromDeployed,
    }),
    [meta, dirty, readOnly, nodes, edges, selected, selectNode, replaceGraph, save, deployedQuery, differsFromDeployed],
  );

  const tabs: SidebarTab[] = [
    { id: "node", label: "Node", render: () => <NodeInfo node={selected.length === 1 ? selected[0]! : null} catalog={catalog} onEdit={() => selected[0] && setEditing(selected[0].id)} /> },
    { id: "find", label: "Find", render: () => <FindPanel nodes={lazyNodes} q={findQuery} setQ={setFindQuery} onPick={selectNode} inputRef={findRef} /> },
    ...sidebarTabs,
  ];
  const activeTab = tabs.find((t) => t.id === tab) ?? tabs[0]!;

  return (
    <EditorApiContext.Provider value={api}>
      <EditorRuntimeContext.Provider value={runtime ?? {}}>
        <NodeMarksContext.Provider value={marks}>
          <div className="editor">
            <div className="editor-toolbar" role="toolbar" aria-label="Flow editor">
              <h1 className="editor-title">{meta.name}</h1>
              <span className="editor-revision">
                Revision {meta.revision}
                {readOnly ? " · read-only" : dirty ? " · unsaved changes" : " · saved"}
              </span>
              {!readOnly ? (
                <>
                  <button type="button" onClick={() => void save()} disabled={update.isPending} aria-keyshortcuts="Control+S">
                    Save
                  </button>
                  <button type="button" className="secondary" onClick={undo} disabled={!history.canUndo} aria-keyshortcuts="Control+Z">
                    Undo
                  </button>
                  <button type="button" className="secondary" onClick={redo} disabled={!history.canRedo} aria-keyshortcuts="Control+Shift+Z">
                    Redo
                  </button>
                </>
              ) : null}
              {toolbar}
            </div>
            <div className="editor-body">
              <Palette catalog={catalogList} readOnly={readOnly} onAdd={addNodeInView} onDrop={dropFromPalette} />
              <div className="editor-canvas" ref={canvasRef} aria-label="Canvas" role="region">
                <ReactFlow<EditorNode, EditorEdge>
                  nodes={displayNodes}
                  edges={edges}
                  nodeTypes={nodeTypes}
                  onNodesChange={onNodesChange}
                  onEdgesChange={onEdgesChange}
                  onConnect={onConnect}
                  onConnectEnd={onConnectEnd}
                  isValidConnection={isValidConnection}
                  onNodeDoubleClick={onNodeDoubleClick}
                  nodesDraggable={!readOnly}
                  nodesConnectable={!readOnly}
                  deleteKeyCode={null}
                  zoomOnDoubleClick={false}
                  selectionKeyCode="Shift"
                  multiSelectionKeyCode={MULTI_SELECT_KEYS}
                  onlyRenderVisibleElements={nodes.length > 150}
                  fitView
                  fitViewOptions={initialView}
                  minZoom={0.05}
                  defaultEdgeOptions={EDGE_OPTIONS}
                  proOptions={PRO_OPTIONS}
                >
                  <Background gap={20} />
                  <EditorMiniMap ref={miniMap} nodes={displayNodes} nodeColor={miniMapColor} ariaLabel="Mini map" />
                  <Controls showInteractive={false} />
                </ReactFlow>
                {notice ? (
                  <div className="editor-notice">
                    <Alert kind={notice.kind}>
                      {notice.text}{" "}
                      <button type="button" className="link" onClick={() => setNotice(null)}>
                        Dismiss
                      </button>
                    </Alert>
                  </div>
                ) : null}
                {quickAdd ? (
                  <QuickAdd
                    catalog={catalogList}
                    x={quickAdd.x}
                    y={quickAdd.y}
                    onClose={closeQuickAdd}
                    onChoose={(type) => {
                      const q = quickAdd;
                      setQuickAdd(null);
                      const node = addNodeAt(type, q.flowX, q.flowY - 20, { source: q.source, port: q.port });
                      focusNode(node.id);
                    }}
                  />
                ) : null}
              </div>
              <aside className="editor-sidebar" aria-label="Sidebar">
                <div role="tablist" aria-label="Sidebar panels" className="tabs">
                  {tabs.map((t) => (
                    <button key={t.id} type="button" role="tab" id={`tab-${t.id}`} aria-selected={t.id === activeTab.id} aria-controls={`panel-${t.id}`} className="tab" onClick={() => setTab(t.id)}>
                      {t.label}
                    </button>
                  ))}
                </div>
                <div role="tabpanel" id={`panel-${activeTab.id}`} aria-labelledby={`tab-${activeTab.id}`} className="tab-panel">
                  {activeTab.render()}
                </div>
              </aside>
            </div>
          </div>
          {editingNode ? (
            <EditNodeDialog
              key={editingNode.id}
              node={editingNode}
              nodes={nodes}
              edges={edges}
              catalog={catalog}
              readOnly={readOnly}
              onApply={(edit) => applyEdit(editingNode.id, edit)}
              onClose={() => {
                const id = editingNode.id;
                setEditing(null);
                focusNode(id);
              }}
              onPreview={(outputs) => setPreview(outputs === null ? null : { id: editingNode.id, outputs })}
            />
          ) : null}
          <Dialog title="This flow changed since you opened it" open={conflict} onClose={() => setConflict(false)}>
            <p>Someone saved a newer revision. Reload it (your unsaved changes are discarded), or overwrite it with what you see here.</p>
            {merging ? (
              <MergeChoices
                conflicts={merging.merge.conflicts}
                theirChanges={merging.theirChanges}
                onMerge={(choices) => void resolveMerge(choices)}
              />
            ) : null}
            <div className="actions">
              <button type="button" className="secondary" onClick={() => setConflict(false)}>
                Cancel
              </button>
              <button type="button" className="secondary" onClick={() => void reload()}>
                Reload
              </button>
              <button type="button" className="danger" onClick={() => void overwrite()}>
                Overwrite
              </button>
            </div>
          </Dialog>
        </NodeMarksContext.Provider>
      </EditorRuntimeContext.Provider>
    </EditorApiContext.Provider>
  );
}

/** The editor with its React Flow provider (useReactFlow works inside toolbar and sidebar extensions too). */
export function FlowEditor(props: FlowEditorProps) {
  return (
    <ReactFlowProvider>
      <EditorInner {...props} />
    </ReactFlowProvider>
  );
}
