import { Position, type Edge, type Node } from "@xyflow/react";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/trpc/types";
import type { Connection, FlowNode, NodeAppearance } from "@/shared/flow-graph";
import { inputsFor, outputsFor } from "@/shared/node-ports";
import { JUNCTION_TYPE, isSubflowInstanceType, subflowIdOfType } from "@/shared/subflows";
import { nodeLabel as canvasLabel } from "@/shared/node-labels";
import { JUNCTION_SIZE, NODE_WIDTH, PORT_GAP, canvasBox, labelShownOf, nodeHeight } from "@/shared/node-red-canvas";
import { nodeRedIconSvg } from "./node-red-icons";

type Outputs = inferRouterOutputs<AppRouter>;
export type CatalogEntry = Outputs["nodes"]["list"]["nodes"][number];
export type EditorFlow = Outputs["flows"]["get"]["flow"];
export type DeployedGraph = NonNullable<Outputs["flows"]["deployed"]["deployed"]>;

/** What a canvas node carries: the saved node's fields, and what the node component draws from them. */
export interface FlowNodeData extends Record<string, unknown> {
  type: string;
  name: string;
  config: Record<string, unknown>;
  disabled: boolean;
  /** What the flow's author wrote about the node (Markdown; Node-RED's `info`); absent when none. */
  description?: string;
  /** Its label shown or not, its icon, its port labels (Node-RED's Appearance tab); absent when none is set. */
  appearance?: NodeAppearance;
  /** The type draws its icon alone unless the appearance shows the label (link in, link out). */
  labelHidden?: boolean;
  inputs: number;
  outputs: number;
  category: string;
  /** The icon's SVG (the type's from the catalog, or the type's a Node-RED icon file of its appearance stands for); absent for unknown nodes and subflow instances. */
  icon?: string;
  /** Node-RED type of an unknown node, kept from an import. */
  unknownType?: string;
  /** A subflow instance's definition: its name (shown when the instance is unnamed) and colour. */
  subflowName?: string;
  color?: string;
}
export type EditorNode = Node<FlowNodeData, "flow" | "junction">;
export type EditorEdge = Edge;

/**
 * Fixed sizes, so React Flow knows every node's box without measuring (only visible nodes render);
 * shared with the Node-RED import, which places nodes for boxes of this size.
 */
export { ICON_NODE_WIDTH, NODE_WIDTH, PORT_GAP, nodeHeight } from "@/shared/node-red-canvas";
/** Whether the canvas writes the node's label: its appearance says, else its type (shown but for link in and out). */
export const labelShown = (d: Pick<FlowNodeData, "appearance" | "labelHidden">) => labelShownOf(d.appearance?.show_label, d.labelHidden);
export const nodeWidth = (d: Pick<FlowNodeData, "appearance" | "labelHidden">) => canvasBox({ labelShown: labelShown(d) }).width;
const HANDLE = 10;

/** Where output port `i` of `outputs` sits, from the node's top edge (the node component uses it too). */
export const portTop = (i: number, outputs: number) => (outputs === 1 ? nodeHeight(1) / 2 : 6 + PORT_GAP / 2 + i * PORT_GAP);

/**
 * The handles' boxes, known without measuring: React Flow then skips its one forced render of every
 * node (xyflow#3883), so a big flow draws only what is in view, and wires to off-screen nodes still
 * end at the right ports.
 */
export function handlesFor(inputs: number, outputs: number, width = NODE_WIDTH): NonNullable<EditorNode["handles"]> {
  const h = nodeHeight(outputs);
  const handles: NonNullable<EditorNode["handles"]> = [];
  if (inputs > 0) handles.push({ id: "in", type: "target", position: Position.Left, x: -HANDLE / 2, y: h / 2 - HANDLE / 2, width: HANDLE, height: HANDLE });
  for (let i = 0; i < outputs; i++) handles.push({ id: `o${i}`, type: "source", position: Position.Right, x: width - HANDLE / 2, y: portTop(i, outputs) - HANDLE / 2, width: HANDLE, height: HANDLE });
  return handles;
}

export const categoryColors: Record<string, string> = {
  input: "#a6bbcf",
  output: "#87a980",
  function: "#fdd0a2",
  network: "#c0deed",
  parser: "#e2d96e",
  sequence: "#c7b9e8",
  common: "#dddddd",
  dashboard: "#a6bbcf",
  device: "#d0e4c4",
};

export const categoryLabels: Record<string, string> = {
  input: "Input",
  output: "Output",
  function: "Function",
  network: "Network",
  parser: "Parser",
  sequence: "Sequence",
  common: "Common",
  dashboard: "Dashboard",
  device: "On the device",
};

/**
 * Palette entries for node types only the target device has (SPEC §22): added, each is a Node-RED
 * node of that type (our `unknown`, with `original_type`), its properties edited as JSON.
 */
export function deviceEntries(types: readonly string[], catalog: Catalog): CatalogEntry[] {
  return types
    .filter((t) => !catalog.has(t))
    .map((t) => ({
      type: t,
      category: "device",
      name: t,
      description: "A Node-RED node installed on the device; its properties are edited as JSON.",
      help: "A node type the target device reported. It runs in the device's Node-RED; here its properties are edited as JSON, as Node-RED writes them in flows.json.",
      inputs: 1,
      outputs: 1,
      inputs_rule: 1 as const,
      outputs_rule: 1,
      defaults: {},
      version: 1,
      subflow_only: false,
      kind: "node" as const,
      form: {},
    }));
}

/** What a node without an icon of its own shows: an unknown node's kept type. */
export const UNKNOWN_ICON = "?";

/** A subflow instance's icon (palette and canvas). */
export const SUBFLOW_ICON = "▣";

export type Catalog = ReadonlyMap<string, CatalogEntry>;

export function outputsOf(catalog: Catalog, type: string, config: Record<string, unknown>): number {
  const entry = catalog.get(type);
  if (entry) return outputsFor(entry.outputs_rule, config);
  if (type === "unknown") return outputsFor({ value_of: "outputs" }, config);
  return 0;
}

export function inputsOf(catalog: Catalog, type: string, config: Record<string, unknown>): number {
  const entry = catalog.get(type);
  if (entry) return inputsFor(entry.inputs_rule, config);
  return type === "unknown" ? 1 : 0;
}

/** A junction's dot (SPEC §16): small, one input on the left, one output on the right. */
export { JUNCTION_SIZE } from "@/shared/node-red-canvas";
const junctionHandles = (): NonNullable<EditorNode["handles"]> => [
  { id: "in", type: "target", position: Position.Left, x: -4, y: JUNCTION_SIZE / 2 - 4, width: 8, height: 8 },
  { id: "o0", type: "source", position: Position.Right, x: JUNCTION_SIZE - 4, y: JUNCTION_SIZE / 2 - 4, width: 8, height: 8 },
];

const nodeLabel = (catalog: Catalog, data: { type: string; name: string; config?: Record<string, unknown> | null }) => {
  if (data.type === JUNCTION_TYPE) return "junction";
  if (isSubflowInstanceType(data.type)) return `${data.name || catalog.get(data.type)?.name || data.type} (subflow ${catalog.get(data.type)?.name ?? subflowIdOfType(data.type)})`;
  // What the canvas shows (Node-RED's label), then the type, for assistive technology.
  return `${canvasLabel(data)} (${data.type} node)`;
};

export function toEditorNode(catalog: Catalog, n: FlowNode): EditorNode {
  const outputs = outputsOf(catalog, n.type, n.config);
  const inputs = inputsOf(catalog, n.type, n.config);
  if (n.type === JUNCTION_TYPE) {
    return {
      id: n.id,
      type: "junction",
      position: { x: n.position.x, y: n.position.y },
      width: JUNCTION_SIZE,
      height: JUNCTION_SIZE,
      measured: { width: JUNCTION_SIZE, height: JUNCTION_SIZE },
      handles: junctionHandles(),
      data: { type: n.type, name: n.name, config: n.config, disabled: n.disabled, inputs: 1, outputs: 1, category: "common" },
      domAttributes: { "data-node-type": n.type } as EditorNode["domAttributes"],
      ariaLabel: "junction",
    };
  }
  const labelHidden = catalog.get(n.type)?.label_hidden === true;
  const width = nodeWidth({ appearance: n.appearance, labelHidden });
  return {
    id: n.id,
    type: "flow",
    position: { x: n.position.x, y: n.position.y },
    width,
    height: nodeHeight(outputs),
    // Known, not measured: off-screen nodes count as initialized (React Flow never measures them).
    measured: { width, height: nodeHeight(outputs) },
    handles: handlesFor(inputs, outputs, width),
    data: {
      type: n.type,
      name: n.name,
      config: n.config,
      disabled: n.disabled,
      ...(n.description ? { description: n.description } : {}),
      ...(n.appearance ? { appearance: n.appearance } : {}),
      ...(labelHidden ? { labelHidden } : {}),
      inputs,
      outputs,
      category: catalog.get(n.type)?.category ?? "common",
      icon: nodeRedIconSvg(catalog, n.appearance?.icon) ?? catalog.get(n.type)?.icon,
      ...(n.type === "unknown" ? { unknownType: String((n.config as { original_type?: unknown }).original_type ?? "unknown") } : {}),
      ...(isSubflowInstanceType(n.type) ? { subflowName: catalog.get(n.type)?.name ?? subflowIdOfType(n.type)!, color: catalog.get(n.type)?.color } : {}),
    },
    domAttributes: { "data-node-type": n.type } as EditorNode["domAttributes"],
    ariaLabel: nodeLabel(catalog, n),
  };
}

/** A node whose data changed: sizes and port count follow its config. */
export function withData(catalog: Catalog, node: EditorNode, patch: Partial<FlowNodeData>): EditorNode {
  const data = { ...node.data, ...patch };
  if (data.type === JUNCTION_TYPE) return { ...node, data };
  if ("appearance" in patch) data.icon = nodeRedIconSvg(catalog, data.appearance?.icon) ?? catalog.get(data.type)?.icon;
  const outputs = outputsOf(catalog, data.type, data.config);
  const inputs = inputsOf(catalog, data.type, data.config);
  const width = nodeWidth(data);
  return { ...node, data: { ...data, inputs, outputs }, width, height: nodeHeight(outputs), measured: { width, height: nodeHeight(outputs) }, handles: handlesFor(inputs, outputs, width), ariaLabel: nodeLabel(catalog, data) };
}

export const edgeId = (c: Connection) => `${c.source}:${c.source_port}:${c.target}`;

export function toEditorEdge(c: Connection): EditorEdge {
  return { id: edgeId(c), source: c.source, target: c.target, sourceHandle: `o${c.source_port}`, targetHandle: "in" };
}

export const portOf = (handle: string | null | undefined) => Number((handle ?? "o0").slice(1)) || 0;

export function toFlowNode(n: EditorNode): FlowNode {
  return {
    id: n.id,
    type: n.data.type,
    name: n.data.name,
    position: { x: Math.round(n.position.x), y: Math.round(n.position.y) },
    config: n.data.config,
    disabled: n.data.disabled,
    ...(n.data.description ? { description: n.data.description } : {}),
    ...(n.data.appearance ? { appearance: n.data.appearance } : {}),
  };
}

export function toConnection(e: EditorEdge): Connection {
  return { source: e.source, source_port: portOf(e.sourceHandle), target: e.target };
}

/** A node id like the server's: 16 hex digits. */
export function newNodeId(): string {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Whether any value of the node (name, type, config at any depth) contains the text. */
export function nodeMatches(n: EditorNode, text: string): boolean {
  const needle = text.trim().toLowerCase();
  if (!needle) return false;
  const seen = (v: unknown): boolean => {
    if (v === null || v === undefined) return false;
    if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") return String(v).toLowerCase().includes(needle);
    if (Array.isArray(v)) return v.some(seen);
    if (typeof v === "object") return Object.values(v as Record<string, unknown>).some(seen);
    return false;
  };
  return n.data.name.toLowerCase().includes(needle) || n.data.type.toLowerCase().includes(needle) || n.id === text.trim() || seen(n.data.config);
}

const stable = (v: unknown): string => JSON.stringify(v, (_k, value: unknown) => (value && typeof value === "object" && !Array.isArray(value) ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b))) : value));

const dataKeys = new WeakMap<FlowNodeData, string>();
function dataKey(d: FlowNodeData): string {
  let key = dataKeys.get(d);
  if (key === undefined) {
    key = stable([d.type, d.name, d.disabled, d.config, d.description || "", d.appearance ?? null]);
    dataKeys.set(d, key);
  }
  return key;
}

/** The deployed nodes' keys, once per deployed graph (not again on every edit of a 2,000-node flow). */
const deployedKeys = new WeakMap<DeployedGraph, Map<string, string>>();

/**
 * Nodes that differ from the deployed version: added, or with another name, config, disabled flag
 * or outgoing wires (moving a node changes nothing that runs). A diff, not a flag, so undo and a
 * deploy always leave it right.
 */
export function changedSinceDeploy(nodes: EditorNode[], edges: EditorEdge[], deployed: DeployedGraph | null): Map<string, "added" | "changed"> {
  const result = new Map<string, "added" | "changed">();
  if (!deployed) return result;
  let before = deployedKeys.get(deployed);
  if (!before) {
    before = new Map(deployed.nodes.map((n) => [n.id, stable([n.type, n.name, n.disabled, n.config, n.description || "", n.appearance ?? null])]));
    deployedKeys.set(deployed, before);
  }
  const wiresOf = (list: { source: string; key: string }[]) => {
    const m = new Map<string, string[]>();
    for (const w of list) m.set(w.source, [...(m.get(w.source) ?? []), w.key]);
    for (const v of m.values()) v.sort();
    return m;
  };
  const oldWires = wiresOf(deployed.connections.map((c) => ({ source: c.source, key: edgeId(c) })));
  const newWires = wiresOf(edges.map((e) => ({ source: e.source, key: e.id })));
  for (const n of nodes) {
    const old = before.get(n.id);
    if (old === undefined) result.set(n.id, "added");
    else if (old !== dataKey(n.data) || (oldWires.get(n.id) ?? []).join() !== (newWires.get(n.id) ?? []).join()) result.set(n.id, "changed");
  }
  return result;
}
