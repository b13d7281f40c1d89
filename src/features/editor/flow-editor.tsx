"use client";

/**
 * The flow editor (/flows/{id}): this file puts the parts together; each part owns one concern
 * (src/features/editor/README.md, "The flow editor's parts"):
 * - graph/: the graph (nodes, edges, groups) and its undo stack (`useFlowGraph`), conversions.
 * - save/: save, reload, the 409 conflict dialog and merge, the revision (`useFlowSave`).
 * - commands/: graph edits (`useGraphCommands`), the clipboard (`useClipboard`), the shortcut
 *   table (`key-bindings.ts`, `useEditorKeyboard`), the unsaved-changes guard.
 * - canvas/: React Flow and its handlers, node components (`node-types.ts`), canvas layers
 *   (`layers.ts`), decorations other parts put on nodes and wires (`useCanvasDecorations`), the
 *   minimap, the notice.
 * - sidebar/: the tab strip and the editor's own tabs (`registry.ts`), one file per tab.
 * Extension points for the page: `toolbar` (buttons after Save/Undo/Redo), `sidebarTabs` (after
 * Node and Find), `runtime` (EditorRuntimeContext: `statusFor(nodeId)`, `renderNodeAction(node)`;
 * keep it stable), and useEditor() (editor-api.tsx) inside any of them.
 */

import { useCallback, useDeferredValue, useMemo, useRef, useState, useSyncExternalStore, type ReactNode } from "react";
import { ReactFlowProvider } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useTRPC, useTRPCClient } from "@/trpc/react";
import { useDisclosure } from "@/components/use-disclosure";
import { useHydrated } from "@/components/use-hydrated";
import { subflowIdOfType, subflowInstanceType } from "@/shared/subflows";
import { useGroupCommands } from "./commands/use-group-commands";
import { useSelectionToSubflow } from "./commands/use-selection-to-subflow";
import { GroupUiContext } from "./groups/group-context";
import { GroupDialog } from "./groups/group-dialog";
import { EditNodeDialog } from "./edit-dialog";
import { ConfigNodesProvider } from "./config-nodes/config-nodes-provider";
import { EditorApiContext, type EditorApi } from "./editor-api";
import { nodeWidth, changedSinceDeploy, handlesFor, nodeHeight, nodeMatches, type CatalogEntry, type EditorFlow, type EditorNode } from "./model";
import { Palette, QuickAdd } from "./palette";
import { EditorRuntimeContext, NodeMarksContext, type EditorRuntime, type NodeMarks } from "./runtime-context";
import "./editor.css";
import { snapshotOf } from "./graph/graph-model";
import { GraphAccessContext, useFlowGraph, type GraphAccess } from "./graph/use-flow-graph";
import { useFlowSave, type GraphStore } from "./save/use-flow-save";
import { ConflictDialog } from "./save/conflict-dialog";
import { focusNode, useGraphCommands } from "./commands/use-graph-commands";
import { useClipboard } from "./commands/use-clipboard";
import { useEditorKeyboard } from "./commands/use-editor-keyboard";
import { CommandButton } from "./commands/command-button";
import { focusedNodeId, type EditorCommands } from "./commands/key-bindings";
import { useLeaveGuard } from "./commands/use-leave-guard";
import { FlowCanvas } from "./canvas/flow-canvas";
import { useCanvasHandlers } from "./canvas/use-canvas-handlers";
import { EditorNotice, useNotice } from "./canvas/editor-notice";
import { DecorationLayersProvider, DecorationsContext, useDecorationLayers } from "./canvas/decorations";
import type { MiniMapHandle } from "./canvas/mini-map";
import { SIDEBAR_DEFAULT_WIDTH, Sidebar, clampSidebarWidth } from "./sidebar/sidebar";
import { EDITOR_TABS } from "./sidebar/registry";
import { deviceEntries } from "./model";
import { SidebarShellContext, type SidebarShell } from "./sidebar/sidebar-context";
import type { SidebarTab } from "./sidebar/tab";

/** Where editor.css turns the palette and the sidebar into drawers, and folds the edit commands. */
const DRAWERS_MEDIA = "(max-width: 900px)";
const EDIT_MENU_MEDIA = "(max-width: 600px)";
const matches = (media: string) => typeof window !== "undefined" && window.matchMedia(media).matches;

export interface FlowEditorProps {
  flow: EditorFlow;
  catalog: CatalogEntry[];
  readOnly: boolean;
  /** Editing a subflow definition (SPEC §16) instead of a flow: where its graph is read and saved. */
  subflow?: { id: string; store: GraphStore };
  toolbar?: ReactNode;
  sidebarTabs?: SidebarTab[];
  runtime?: EditorRuntime;
  /**
   * A device flow (SPEC §22): the node types its devices reported. Those we have no form for are
   * listed in the palette (category "device") and added as Node-RED nodes edited as JSON properties.
   */
  deviceTypes?: string[];
}

function EditorInner({ flow: initialFlow, catalog: initialCatalog, readOnly, toolbar, sidebarTabs = [], runtime, subflow, deviceTypes }: FlowEditorProps) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const router = useRouter();
  // The catalog grows when "Selection to subflow" creates a definition.
  const [catalogList, setCatalogList] = useState(initialCatalog);
  const catalog = useMemo(() => new Map(catalogList.map((c) => [c.type, c])), [catalogList]);
  const initial = useMemo(() => snapshotOf(initialFlow, catalog), [initialFlow, catalog]);
  const paletteList = useMemo(() => (deviceTypes?.length ? [...catalogList, ...deviceEntries(deviceTypes, catalog)] : catalogList), [catalogList, catalog, deviceTypes]);
  const graph = useFlowGraph(initial);
  const { nodes, edges, groups } = graph.graph;
  const access = useMemo<GraphAccess>(() => ({ graphRef: graph.graphRef, setGraph: graph.setGraph, commit: graph.commit }), [graph.graphRef, graph.setGraph, graph.commit]);
  const { notice, notify } = useNotice();
  const [highlighted, setHighlighted] = useState<string | null>(null);
  const flowSave = useFlowSave({ initialFlow, catalog, readOnly, graph, notify, highlight: setHighlighted, store: subflow?.store });
  const { meta, save, replaceGraph } = flowSave;
  const [editing, setEditing] = useState<string | null>(null);
  const [preview, setPreview] = useState<{ id: string; outputs: number } | null>(null);
  const [tab, setTab] = useState("node");
  // Under 900 px the palette and the sidebar are drawers over the canvas, one open at a time
  // (editor.css); on a wider screen this state shows nothing.
  const [drawer, setDrawer] = useState<"palette" | "sidebar" | null>(null);
  const paletteDrawer = useDisclosure(drawer === "palette", (open) => setDrawer(open ? "palette" : null));
  const sidebarDrawer = useDisclosure(drawer === "sidebar", (open) => setDrawer(open ? "sidebar" : null));
  // The drawers' buttons work once React listens: a tap on the server's HTML would be lost (a CI run's tablet test).
  const hydrated = useHydrated();
  const [sidebarWidth, resizeSidebar] = useSidebarWidth();
  // Under 600 px the edit commands (Undo … Selection to subflow) fold behind an Edit button.
  const [editOpen, setEditOpen] = useState(false);
  const editMenu = useDisclosure(editOpen, setEditOpen);
  /** Shows a sidebar tab, opening the drawer on a narrow screen. */
  const showTab = useCallback((id: string) => {
    setTab(id);
    if (matches(DRAWERS_MEDIA)) setDrawer("sidebar");
  }, []);
  const [findQuery, setFindQuery] = useState("");
  const findRef = useRef<HTMLInputElement>(null);
  const canvasRef = useRef<HTMLDivElement>(null);
  const miniMap = useRef<MiniMapHandle>(null);
  const decorations = useDecorationLayers();

  const commands = useGraphCommands({ graph: access, catalog, canvasRef });
  const groupCommands = useGroupCommands({ graph: access, nodes, groups, notify });
  const { selectNode } = commands;
  const clipboard = useClipboard({ flowId: meta.id, graph: access, catalog, canvasRef, notify });
  const canvas = useCanvasHandlers({ graph: access, pushHistory: graph.pushHistory, amendHistory: graph.amendHistory, readOnly, canvasRef, miniMap });

  // "Changed since deploy": a diff against the deployed graph, computed off the drag's hot path.
  const deployedQuery = useQuery({ ...trpc.flows.deployed.queryOptions({ id: initialFlow.id }), enabled: !subflow });
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

  // While the dialog is open, the node shows the port count its draft has.
  const displayNodes = useMemo(() => {
    if (!preview) return nodes;
    return nodes.map((n) => (n.id === preview.id ? { ...n, data: { ...n.data, outputs: preview.outputs }, height: nodeHeight(preview.outputs), measured: { width: nodeWidth(n.data), height: nodeHeight(preview.outputs) }, handles: handlesFor(n.data.inputs, preview.outputs, nodeWidth(n.data)) } : n));
  }, [nodes, preview]);

  const keyCommands: EditorCommands = {
    save: () => {
      if (!document.querySelector("dialog[open]")) void save();
    },
    find: () => {
      showTab("find");
      requestAnimationFrame(() => findRef.current?.focus());
    },
    // Enter opens the node's dialog (SPEC §10), a subflow instance's too: its env properties, and
    // its "Edit subflow" button opens the definition (what a double-click does).
    editFocused: (active) => setEditing(focusedNodeId(active)),
    copy: () => void clipboard.copySelection(),
    delete: commands.deleteSelection,
    undo: graph.undo,
    redo: graph.redo,
    paste: () => void clipboard.paste(),
    selectAll: commands.selectAll,
    group: groupCommands.group,
    ungroup: groupCommands.ungroup,
  };
  useEditorKeyboard({ commands: keyCommands, readOnly, paused: canvas.quickAdd !== null });

  const dirty = graph.dirty && !readOnly;
  useLeaveGuard(dirty);

  const selected = useMemo(() => nodes.filter((n) => n.selected), [nodes]);
  const editingNode = editing ? (nodes.find((n) => n.id === editing) ?? null) : null;
  /** A subflow instance opens its definition in this editor (the flow is saved first). */
  const openSubflow = useCallback(
    async (subflowId: string) => {
      if (graph.dirty && !readOnly && !(await save())) return;
      const from = subflow ? (new URLSearchParams(window.location.search).get("from") ?? "") : meta.id;
      router.push(`/subflows/${encodeURIComponent(subflowId)}${from ? `?from=${encodeURIComponent(from)}` : ""}`);
    },
    [graph.dirty, readOnly, save, subflow, meta.id, router],
  );
  const onNodeDoubleClick = useCallback(
    (_: unknown, n: EditorNode) => {
      const sf = subflowIdOfType(n.data.type);
      if (sf) void openSubflow(sf);
      else setEditing(n.id);
    },
    [openSubflow],
  );
  const toSubflow = useSelectionToSubflow({ graph: access, client, notify, setCatalogList });

  const api = useMemo<EditorApi>(
    () => ({
      flowId: meta.id,
      flowName: meta.name,
      revision: meta.revision,
      dirty,
      readOnly,
      nodes,
      edges,
      groups,
      selectedNodeIds: selected.map((n) => n.id),
      selectNode,
      highlightNode: setHighlighted,
      replaceGraph,
      save,
      adoptRevision: flowSave.adoptRevision,
      refreshDeployed: () => void deployedQuery.refetch(),
      changedSinceDeploy: differsFromDeployed,
      showSidebarTab: showTab,
      setNodeConfig: commands.setNodeConfig,
    }),
    [meta, dirty, readOnly, nodes, edges, groups, selected, selectNode, replaceGraph, save, flowSave.adoptRevision, deployedQuery, differsFromDeployed, showTab, commands.setNodeConfig],
  );
  // "Edit node" in the sidebar's drawer folds it: the dialog closes onto the canvas.
  const editFromSidebar = useCallback((id: string) => {
    setEditing(id);
    setDrawer(null);
  }, []);
  const shell = useMemo<SidebarShell>(() => ({ catalog, editNode: editFromSidebar, openSubflow: (id) => void openSubflow(id), findQuery, setFindQuery, findInputRef: findRef }), [catalog, findQuery, openSubflow, editFromSidebar]);
  const tabs = useMemo(() => [...EDITOR_TABS, ...sidebarTabs], [sidebarTabs]);
  const inSubflow = useMemo(() => (subflow ? { type: subflowInstanceType(subflow.id) } : undefined), [subflow]);
  // A node added from the palette's drawer is shown: the drawer folds.
  const { addNodeInView, dropFromPalette } = commands;
  const addFromPalette = useCallback((type: string) => {
    addNodeInView(type);
    setDrawer(null);
  }, [addNodeInView]);
  const dropFromDrawer = useCallback((type: string, x: number, y: number) => {
    dropFromPalette(type, x, y);
    setDrawer(null);
  }, [dropFromPalette]);

  return (
    <EditorApiContext.Provider value={api}>
      <GraphAccessContext.Provider value={access}>
        <EditorRuntimeContext.Provider value={runtime ?? {}}>
          <NodeMarksContext.Provider value={marks}>
            <GroupUiContext.Provider value={groupCommands.ui}>
            <DecorationLayersProvider value={decorations.setLayer}>
              <DecorationsContext.Provider value={decorations.merged}>
                <ConfigNodesProvider catalog={catalog}>
                <div
                  className="editor"
                  onKeyDown={(e) => {
                    // Only where they are shown: a wider window leaves Escape to the rest of the editor.
                    if (e.key !== "Escape") return;
                    if (matches(EDIT_MENU_MEDIA)) editMenu.onKeyDown(e);
                    if (matches(DRAWERS_MEDIA)) {
                      paletteDrawer.onKeyDown(e);
                      sidebarDrawer.onKeyDown(e);
                    }
                  }}
                >
                  <div className="editor-toolbar" role="toolbar" aria-label="Flow editor">
                    <h1 className="editor-title">{meta.name}</h1>
                    <span className="editor-revision">
                      Revision {meta.revision}
                      {readOnly ? " · read-only" : dirty ? " · unsaved changes" : " · saved"}
                    </span>
                    {!readOnly ? (
                      <>
                        {/* The primary button while there is something to save; quiet (still there, Ctrl+S too) once saved. */}
                        <button type="button" className={dirty ? undefined : "secondary"} onClick={() => void save()} disabled={flowSave.saving} aria-keyshortcuts="Control+S">
                          Save
                        </button>
                        <span className="editor-edit">
                          <button {...editMenu.toggleProps} className="secondary editor-edit-toggle">
                            Edit
                          </button>
                          <span className="editor-edit-commands" id={editMenu.panelId} data-open={editOpen || undefined}>
                            <CommandButton onRun={graph.undo} unavailable={!graph.canUndo} shortcut="Control+Z">
                              Undo
                            </CommandButton>
                            <CommandButton onRun={graph.redo} unavailable={!graph.canRedo} shortcut="Control+Shift+Z">
                              Redo
                            </CommandButton>
                            <CommandButton onRun={groupCommands.group} unavailable={selected.length === 0} shortcut="Control+Shift+G">
                              Group selection
                            </CommandButton>
                            <CommandButton onRun={groupCommands.ungroup} unavailable={groupCommands.selected.size === 0} shortcut="Control+Shift+U">
                              Ungroup
                            </CommandButton>
                            <CommandButton onRun={() => groupCommands.editGroup([...groupCommands.selected][0] ?? null)} unavailable={groupCommands.selected.size !== 1}>
                              Edit group
                            </CommandButton>
                            <CommandButton onRun={() => void toSubflow()} unavailable={selected.length === 0}>
                              Selection to subflow
                            </CommandButton>
                          </span>
                        </span>
                      </>
                    ) : null}
                    {toolbar}
                    <span className="editor-drawer-toggles">
                      <button {...paletteDrawer.toggleProps} className="secondary" disabled={!hydrated}>
                        Palette
                      </button>
                      <button {...sidebarDrawer.toggleProps} className="secondary" disabled={!hydrated}>
                        Sidebar
                      </button>
                    </span>
                  </div>
                  <div
                    className="editor-body"
                    style={{ ["--sidebar-width" as string]: `${sidebarWidth}px` }}
                    onPointerDown={(e) => {
                      // A press on the canvas folds an open drawer or menu, as a tap outside one does on a phone.
                      if (drawer && !(e.target as Element).closest(".palette, .editor-sidebar")) setDrawer(null);
                      setEditOpen(false);
                    }}
                  >
                    <Palette catalog={paletteList} readOnly={readOnly} onAdd={addFromPalette} onDrop={dropFromDrawer} inSubflow={inSubflow} id={paletteDrawer.panelId} open={drawer === "palette"} />
                    <FlowCanvas
                      nodes={displayNodes}
                      edges={edges}
                      initialNodes={initial.nodes}
                      handlers={canvas}
                      onNodeDoubleClick={onNodeDoubleClick}
                      readOnly={readOnly}
                      canvasRef={canvasRef}
                      miniMap={miniMap}
                      overlay={
                        <>
                          <EditorNotice notice={notice} onDismiss={() => notify(null)} />
                          {canvas.quickAdd ? (
                            <QuickAdd
                              catalog={catalogList}
                              x={canvas.quickAdd.x}
                              y={canvas.quickAdd.y}
                              onClose={canvas.closeQuickAdd}
                              onChoose={(type) => {
                                const q = canvas.quickAdd!;
                                canvas.closeQuickAdd();
                                const node = commands.addNodeAt(type, q.flowX, q.flowY - 20, { source: q.source, port: q.port });
                                focusNode(node.id);
                              }}
                            />
                          ) : null}
                        </>
                      }
                    />
                    <SidebarShellContext.Provider value={shell}>
                      <Sidebar tabs={tabs} active={tab} onChoose={setTab} id={sidebarDrawer.panelId} open={drawer === "sidebar"} width={sidebarWidth} onResize={resizeSidebar} />
                    </SidebarShellContext.Provider>
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
                    onApply={(edit) => {
                      commands.applyEdit(editingNode.id, edit);
                      setEditing(null);
                      focusNode(editingNode.id);
                    }}
                    onClose={() => {
                      const id = editingNode.id;
                      setEditing(null);
                      focusNode(id);
                    }}
                    onPreview={(outputs) => setPreview(outputs === null ? null : { id: editingNode.id, outputs })}
                    onOpenSubflow={(id) => {
                      setEditing(null);
                      void openSubflow(id);
                    }}
                  />
                ) : null}
                {groupCommands.editingGroup ? (
                  <GroupDialog
                    key={groupCommands.editingGroup.id}
                    group={groupCommands.editingGroup}
                    readOnly={readOnly}
                    withEnv={!subflow}
                    onApply={(edit) => {
                      groupCommands.applyGroupEdit(groupCommands.editingGroup!.id, edit);
                      groupCommands.editGroup(null);
                    }}
                    onClose={() => groupCommands.editGroup(null)}
                  />
                ) : null}
                <ConflictDialog conflict={flowSave.conflict} />
                </ConfigNodesProvider>
              </DecorationsContext.Provider>
            </DecorationLayersProvider>
            </GroupUiContext.Provider>
          </NodeMarksContext.Provider>
        </EditorRuntimeContext.Provider>
      </GraphAccessContext.Provider>
    </EditorApiContext.Provider>
  );
}

/** The editor with its React Flow provider (useReactFlow works inside toolbar and sidebar extensions too). */
/**
 * The sidebar's width on a wide screen, kept in this browser (localStorage) from one editor to the
 * next; the server's HTML has the default, and the saved width comes with hydration.
 */
const SIDEBAR_WIDTH_KEY = "flowplane.editor.sidebarWidth";
const widthListeners = new Set<() => void>();
/** The width set in this page when storage refused it (a private window's quota). */
let unsavedWidth: number | null = null;
function readSidebarWidth(): number {
  if (unsavedWidth !== null) return unsavedWidth;
  const saved = Number(window.localStorage.getItem(SIDEBAR_WIDTH_KEY));
  return saved > 0 ? clampSidebarWidth(saved) : SIDEBAR_DEFAULT_WIDTH;
}
function subscribeSidebarWidth(listener: () => void) {
  widthListeners.add(listener);
  return () => void widthListeners.delete(listener);
}
function setSidebarWidth(width: number) {
  try {
    window.localStorage.setItem(SIDEBAR_WIDTH_KEY, String(width));
    unsavedWidth = null;
  } catch {
    unsavedWidth = width;
  }
  for (const listener of widthListeners) listener();
}
function useSidebarWidth(): [number, (width: number) => void] {
  return [useSyncExternalStore(subscribeSidebarWidth, readSidebarWidth, () => SIDEBAR_DEFAULT_WIDTH), setSidebarWidth];
}

export function FlowEditor(props: FlowEditorProps) {
  return (
    <ReactFlowProvider>
      <EditorInner {...props} />
    </ReactFlowProvider>
  );
}
