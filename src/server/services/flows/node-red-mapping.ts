import { NAME_MAX_CHARS } from "../../../shared/policy";
import { nodeLabel } from "../../../shared/node-labels";
import { randomHex } from "../../ids";
import type { NodeRegistry } from "../../nodes/registry";
import { inputCount, outputCount, type NodeDefinition } from "../../nodes/types";
import { NODE_DESCRIPTION_MAX_CHARS, PORT_LABEL_MAX_CHARS, sliceCodePoints, MAX_OUTPUT_PORTS, nodeAppearanceSchema, normalizeAppearance, type Connection, type FlowNode, type NodeAppearance } from "../../../shared/flow-graph";
import { groupsToNodeRed, membershipOf, nodeBox } from "./node-red-groups";
import { canvasBox, fromNodeRedPosition, labelShownOf, toNodeRedPosition, type CanvasBox } from "../../../shared/node-red-canvas";
import { configRefProperties, configRefsOf } from "../../nodes/config-refs";
import { configNodeIdFromNodeRed } from "../../../shared/config-nodes";
import {
  isSubflowInstanceType,
  JUNCTION_TYPE,
  subflowIdOfType,
  subflowInstanceConfigSchema,
  subflowInstanceType,
  SUBFLOW_PORT_TYPES,
  type FlowGroup,
} from "../../../shared/subflows";

/**
 * The Node-RED mapping itself: our graphs ↔ Node-RED's flows.json nodes, without the database or
 * the services (importing, exporting and the subflow mapping build on it; it imports none of them,
 * so there is no cycle: eslint.layers.js keeps it so).
 */

/**
 * A Node-RED env property (a subflow's, or an instance's) as we keep it: values as text, as
 * Node-RED's editor stores them; anything else it carries (ui) kept for export.
 */
export function envEntryFromNodeRed(entry: unknown, configIds?: ReadonlyMap<string, string>): unknown {
  if (!entry || typeof entry !== "object") return entry;
  const e = entry as Record<string, unknown>;
  let value = e.value === undefined || e.value === null ? "" : typeof e.value === "string" ? e.value : JSON.stringify(e.value);
  // A configuration node property (a definition's `ui.type` conf-types, an instance's type conf-type) names one by its id: it follows the import's ids.
  const ui = e.ui as { type?: unknown } | undefined;
  if ((ui?.type === "conf-types" || e.type === "conf-type") && configIds?.has(value)) value = configIds.get(value)!;
  return { ...e, value };
}

/** Tabs (flows) one import may create. */
export const MAX_IMPORT_FLOWS = 100;

export type NrNode = Record<string, unknown> & { id?: unknown; type?: unknown; z?: unknown };

const NR_RESERVED = new Set(["id", "type", "z", "name", "x", "y", "wires", "d", "g"]);

/**
 * A Node-RED node's description (`info`, its Description tab) as ours holds it: a comment's `info`
 * is its text (its configuration); any other type's is the node's description.
 */
function descriptionOf(n: NrNode, warnings?: string[]): { description?: string } {
  if (typeof n.info !== "string" || !n.info.trim()) return {};
  if (n.info.length <= NODE_DESCRIPTION_MAX_CHARS) return { description: n.info };
  warnings?.push(`node ${String(n.id)}: its description (info) has ${n.info.length.toLocaleString("en")} characters; the first ${NODE_DESCRIPTION_MAX_CHARS.toLocaleString("en")} are kept`);
  return { description: sliceCodePoints(n.info, NODE_DESCRIPTION_MAX_CHARS) };
}


/**
 * A node kept as an unknown node: its Node-RED properties as they were, but for its description
 * (`info`) and appearance, which the node holds as any other does (the Node tab shows them, the
 * dialog edits them, the export writes them back). Only what is kept whole moves: a type of ours
 * whose mapping failed keeps what its own properties hold (a comment's info, a widget's icon), and
 * an info past the limit or an icon that is no reference stay among the properties.
 */
function unknownNode(n: NrNode, nrType: string, props: Record<string, unknown>, outputs: number, definition: NodeDefinition | undefined, warnings: string[]) {
  const owned = ownedKeys(definition);
  const description = !owned.has("info") && typeof n.info === "string" && n.info.length <= NODE_DESCRIPTION_MAX_CHARS ? descriptionOf(n, warnings) : {};
  // The type's default is not known for an unknown node: any `l` is kept.
  const wholeLabels = (v: unknown) => Array.isArray(v) && v.every((l) => typeof l === "string" && l.length <= PORT_LABEL_MAX_CHARS);
  const { appearance } = appearanceOf({ ...n, inputLabels: wholeLabels(n.inputLabels) ? n.inputLabels : undefined, outputLabels: wholeLabels(n.outputLabels) ? n.outputLabels : undefined }, (k) => owned.has(k), null);
  const taken = new Set<string>();
  if (description.description !== undefined) taken.add("info");
  if (appearance?.show_label !== undefined) taken.add("l");
  if (appearance?.icon) taken.add("icon");
  if (appearance?.input_labels) taken.add("inputLabels");
  if (appearance?.output_labels) taken.add("outputLabels");
  const properties = Object.fromEntries(Object.entries(props).filter(([k]) => !taken.has(k)));
  return { config: { original_type: nrType, properties, outputs }, ...description, ...(appearance ? { appearance } : {}) };
}

/**
 * An unknown node stored before descriptions and appearance were lifted out of its properties
 * (they were kept among them): lifted now, as an import does it, so the editor shows and edits
 * them and a re-import of the same file compares equal. Any other node as it is.
 */
export function liftUnknownNode<T extends { type: string; config: Record<string, unknown>; description?: string; appearance?: NodeAppearance }>(registry: NodeRegistry, node: T): T {
  if (node.type !== "unknown") return node;
  const c = node.config as { original_type?: unknown; properties?: unknown; outputs?: unknown };
  if (typeof c.original_type !== "string" || !c.properties || typeof c.properties !== "object") return node;
  const properties = c.properties as Record<string, unknown>;
  if (!Object.keys(properties).some((k) => k === "info" || APPEARANCE_KEYS.has(k))) return node;
  const lifted = unknownNode(properties as NrNode, c.original_type, properties, Number(c.outputs) || 0, registry.fromNodeRedType(c.original_type), []);
  // What the node holds already (set since) wins; what was lifted leaves the properties either way.
  return {
    ...node,
    config: { ...node.config, properties: lifted.config.properties },
    ...(node.description || !lifted.description ? {} : { description: lifted.description }),
    ...(node.appearance || !lifted.appearance ? {} : { appearance: lifted.appearance }),
  };
}

/** The Node-RED properties a type's mapping writes (those of its default configuration). */
function ownedKeys(definition: NodeDefinition | undefined): Set<string> {
  if (!definition?.nodeRed) return new Set();
  try {
    return new Set(Object.keys(definition.nodeRed.toNodeRed(definition.configSchema.parse({}) as Record<string, unknown>)));
  } catch {
    return new Set();
  }
}
/** The description written back as Node-RED's `info`, unless the type's own properties hold an `info` (a comment's text). */
const infoOf = (n: FlowNode, props: Record<string, unknown>) => (n.description && !("info" in props) ? { info: n.description } : {});

/** Node-RED's Appearance tab: show the label, the icon, the port labels. */
const APPEARANCE_KEYS: ReadonlySet<string> = new Set(["l", "icon", "inputLabels", "outputLabels"]);

/**
 * A Node-RED node's appearance as ours holds it (`l`, `icon`, `inputLabels`, `outputLabels`),
 * leaving out what the type's own properties hold (a dashboard widget's `icon` is its
 * configuration, as Node-RED's Appearance tab leaves a type's own `icon` to its form) and a `l`
 * that says the type's default. An icon that is no icon reference (markup, a path out) is not kept.
 */
function appearanceOf(n: NrNode, owned: (key: string) => boolean, labelHidden: boolean | null): { appearance?: NodeAppearance; rejected: string[] } {
  const a: NodeAppearance = {};
  const rejected: string[] = [];
  // labelHidden null: the type's default is not known (an unknown node), so any `l` is kept.
  if (typeof n.l === "boolean" && !owned("l") && (labelHidden === null || n.l === labelHidden)) a.show_label = n.l;
  if (n.icon !== undefined && n.icon !== "" && !owned("icon")) {
    if (typeof n.icon === "string" && nodeAppearanceSchema.shape.icon.safeParse(n.icon).success) a.icon = n.icon;
    else rejected.push("icon");
  }
  const labels = (v: unknown, max: number) => (Array.isArray(v) ? v.slice(0, max).map((l) => (typeof l === "string" ? sliceCodePoints(l, PORT_LABEL_MAX_CHARS) : "")) : undefined);
  if (!owned("inputLabels")) a.input_labels = labels(n.inputLabels, 1);
  if (!owned("outputLabels")) a.output_labels = labels(n.outputLabels, MAX_OUTPUT_PORTS);
  const appearance = normalizeAppearance(a);
  return appearance ? { appearance, rejected } : { rejected };
}

const appearanceOnly = ({ appearance }: { appearance?: NodeAppearance }) => (appearance ? { appearance } : {});

/** The appearance written back as Node-RED's `l`, `icon`, `inputLabels` and `outputLabels`, where the type's own properties hold none of them. */
function appearanceToNodeRed(n: FlowNode, props: Record<string, unknown>): Record<string, unknown> {
  const a = n.appearance;
  if (!a) return {};
  return {
    ...(a.show_label !== undefined && !("l" in props) ? { l: a.show_label } : {}),
    ...(a.icon && !("icon" in props) ? { icon: a.icon } : {}),
    ...(a.input_labels && !("inputLabels" in props) ? { inputLabels: a.input_labels } : {}),
    ...(a.output_labels && !("outputLabels" in props) ? { outputLabels: a.output_labels } : {}),
  };
}

/** Output ports of a node for export: its type's, or its subflow definition's (else as many as its wires use). */
export type PortsLookup = (node: FlowNode) => number;

export function portsLookup(registry: NodeRegistry, subflowOutputs: ReadonlyMap<string, number> = new Map(), connections: readonly Connection[] = []): PortsLookup {
  return (n) => {
    const subflowId = subflowIdOfType(n.type);
    if (subflowId !== null) {
      const known = subflowOutputs.get(subflowId);
      if (known !== undefined) return known;
      return connections.reduce((max, c) => (c.source === n.id ? Math.max(max, c.source_port + 1) : max), 0);
    }
    const definition = registry.get(n.type);
    return definition ? outputCount(definition, n.config) : 0;
  };
}

/**
 * The box the editor draws a node in (src/shared/node-red-canvas.ts): a junction's dot; its icon
 * alone when its label is hidden (its appearance, else its type: a link in or out); as tall as its
 * outputs. Positions cross to and from Node-RED's centres by it, both ways alike.
 */
export function boxOf(registry: NodeRegistry, n: Pick<FlowNode, "type" | "appearance">, ports: number): CanvasBox {
  return canvasBox({ junction: n.type === JUNCTION_TYPE, labelShown: labelShownOf(n.appearance?.show_label, registry.get(n.type)?.labelHidden), outputs: ports });
}

/**
 * The nodes of one canvas (a flow's, or a subflow definition's) as Node-RED writes them: z, x, y,
 * wires, `g` for a group's members; the groups before the nodes, boxed around their members.
 * Subflow port nodes are not nodes in Node-RED (the definition's in/out/status say them) and are
 * left to the caller.
 */
export function canvasToNodeRed(
  registry: NodeRegistry,
  z: string,
  graph: { nodes: FlowNode[]; connections: Connection[]; groups?: FlowGroup[] },
  portsOf: PortsLookup = portsLookup(registry, new Map(), graph.connections),
) {
  const groups = graph.groups ?? [];
  const groupOf = membershipOf(groups);
  const labelOf = (n: FlowNode) => n.name || (registry.get(n.type)?.nodeRed?.type ?? n.type);
  // Wires into a subflow's outputs and status are the definition's out/status lists in Node-RED, not the nodes' wires.
  const portNodes = new Set(graph.nodes.filter((n) => (SUBFLOW_PORT_TYPES as readonly string[]).includes(n.type)).map((n) => n.id));
  const nodes = graph.nodes
    .filter((n) => !(SUBFLOW_PORT_TYPES as readonly string[]).includes(n.type))
    .map((n) => {
      const definition = registry.get(n.type);
      const ports = portsOf(n);
      const at = toNodeRedPosition(n.position, boxOf(registry, n, ports));
      const wires: string[][] = Array.from({ length: ports }, () => []);
      for (const c of graph.connections) if (c.source === n.id && wires[c.source_port] && !portNodes.has(c.target)) wires[c.source_port]!.push(c.target);
      const g = groupOf.get(n.id);
      const inGroup = g ? { g } : {};
      if (n.type === "unknown") {
        const c = n.config as { original_type: string; properties: Record<string, unknown> };
        // A type of ours whose mapping failed keeps what its own properties hold (a comment's text): never overwritten.
        const owned = Object.fromEntries([...ownedKeys(registry.fromNodeRedType(c.original_type))].map((k) => [k, true]));
        return { ...c.properties, ...infoOf(n, owned), ...appearanceToNodeRed(n, owned), id: n.id, type: c.original_type, z, ...inGroup, name: n.name, ...at, wires };
      }
      if (n.type === JUNCTION_TYPE) return { id: n.id, type: JUNCTION_TYPE, z, ...inGroup, ...at, wires };
      if (isSubflowInstanceType(n.type)) {
        const env = (n.config as { env?: unknown[] }).env ?? [];
        return { id: n.id, type: n.type, z, ...inGroup, name: n.name, env, ...infoOf(n, {}), ...appearanceToNodeRed(n, {}), ...at, wires, ...(n.disabled ? { d: true } : {}) };
      }
      const props = definition?.nodeRed ? definition.nodeRed.toNodeRed(n.config) : { ...n.config };
      return {
        id: n.id,
        type: definition?.nodeRed?.type ?? n.type,
        z,
        ...inGroup,
        name: n.name,
        ...props,
        ...infoOf(n, props),
        ...appearanceToNodeRed(n, props),
        ...at,
        wires,
        ...(n.disabled ? { d: true } : {}),
      };
    });
  // Group boxes are measured around the members where Node-RED draws them (centres on its canvas).
  const boxes = groupsToNodeRed(groups, graph.nodes, z, (n) => nodeBox({ ...n, position: toNodeRedPosition(n.position, boxOf(registry, n, portsOf(n))) }, labelOf(n), portsOf(n)));
  return [...boxes, ...nodes];
}

/** A flow as Node-RED's flows.json: a tab, then its groups, then its nodes with z, x, y, wires and their properties. */
export function toNodeRed(
  registry: NodeRegistry,
  flow: { id: string; name: string; description: string; enabled: boolean; nodes: FlowNode[]; connections: Connection[]; groups?: FlowGroup[] },
  env: Array<{ name: string; value: string; type: string }> = [],
  portsOf?: PortsLookup,
) {
  const tab = { id: flow.id, type: "tab", label: flow.name, disabled: !flow.enabled, info: flow.description, env };
  return [tab, ...canvasToNodeRed(registry, flow.id, flow, portsOf)];
}

export const freshId = () => randomHex(8);

/**
 * Node-RED types not offered, by design, in a shared runtime (SPEC §12): they would reach the
 * host's processes, files or listening ports. Imported, they are kept as disabled unknown nodes.
 */
export const NOT_OFFERED_BY_DESIGN: ReadonlyMap<string, string> = new Map([
  ["exec", "runs commands on the host"],
  ["watch", "watches the host's files"],
  ["tcp in", "listens on the host's TCP ports"],
  ["udp in", "listens on the host's UDP ports"],
]);

/** Why a node is not offered by design (its type, or the mode its properties choose); undefined when it is not refused so. */
function notOfferedByDesign(nrType: string, props: Record<string, unknown>): string | undefined {
  // A "tcp in" that connects out listens on nothing (Node-RED listens for `server` "server" or true only).
  if (nrType === "tcp in" && props.server !== "server" && props.server !== true) return undefined;
  // "tcp out" is offered as a client only (SPEC §23): its server and reply modes need a listening port.
  if (nrType === "tcp out" && props.beserver === "server") return "listens on the host's TCP ports (tcp out as a server); only its client mode is offered";
  if (nrType === "tcp out" && props.beserver === "reply") return "replies to the connections of a listening tcp in; only its client mode is offered";
  return NOT_OFFERED_BY_DESIGN.get(nrType);
}

/** Why a node type is kept as an unknown node: our own wording, used by warnings and the dry-run report. */
export function unsupportedReason(nrType: string, props: Record<string, unknown> = {}): string {
  const byDesign = notOfferedByDesign(nrType, props);
  if (byDesign) return `type ${nrType} is not offered, by design, in a shared runtime (it ${byDesign})`;
  return `type ${nrType} is not available here`;
}

/**
 * Properties of Node-RED nodes that name other nodes by id (catch/status/complete `scope`, link
 * nodes' `links`): when an imported id is renamed, these follow, as wires do.
 */
const ID_LIST_PROPERTIES = ["scope", "links"] as const;
/** Node ids as the flow schema takes them (SPEC §5). */
const NODE_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

function renameReferences(props: Record<string, unknown>, newId: (id: string) => string): Record<string, unknown> {
  const out = { ...props };
  for (const key of ID_LIST_PROPERTIES) {
    const value = out[key];
    if (Array.isArray(value)) out[key] = value.map((v) => (typeof v === "string" ? newId(v) : v));
  }
  return out;
}

/** What the dry run says of one node (SPEC §12). */
export interface ImportReportEntry {
  node_id: string;
  type: string;
  support: "supported" | "partial" | "unsupported";
  reason?: string;
  label?: string;
}

/**
 * Node-RED properties our mapping does not carry: present in the import, absent from what an
 * export of the converted node would write. Such a node runs, but without them ("partial").
 */
function droppedProperties(definition: NodeDefinition, config: Record<string, unknown>, props: Record<string, unknown>): string[] {
  if (!definition.nodeRed) return [];
  const written = definition.nodeRed.toNodeRed(config);
  const emptied = (k: string) => Array.isArray(props[k]) && (props[k] as unknown[]).length > 0 && Array.isArray(written[k]) && (written[k] as unknown[]).length === 0;
  // A switch Node-RED has on and ours writes off (or the reverse) is not carried over either.
  const flipped = (k: string) => typeof props[k] === "boolean" && typeof written[k] === "boolean" && props[k] !== written[k];
  const absorbed = new Set(definition.nodeRed.absorbed ?? []);
  // `info`, when the type has no such property, is the node's description; `l`, `icon` and the port labels its appearance.
  const kept = (k: string) => (k === "info" || APPEARANCE_KEYS.has(k)) && !(k in written);
  const dropped = Object.keys(props).filter((k) => !kept(k) && !absorbed.has(k) && props[k] !== undefined && props[k] !== "" && (!(k in written) || emptied(k) || flipped(k)));
  // Lists the type's own mapping says it carried over only in part (a function's libs).
  for (const k of definition.nodeRed.partlyDropped?.(props) ?? []) if (!dropped.includes(k)) dropped.push(k);
  return dropped;
}

/**
 * Node-RED's catch and status scope "group" (the nodes of the node's own group and of the groups
 * inside it) as the explicit list of those nodes, which our scopes are: a node in no group with
 * that scope covers the whole tab, as in Node-RED. The list is the group's members at import; a
 * warning says so (nodes added to the group later are not in it).
 */
export function expandGroupScopes(items: NrNode[], warnings: string[]): NrNode[] {
  const parentOf = new Map<string, string | undefined>();
  for (const n of items) if (n.type === "group" && typeof n.id === "string") parentOf.set(n.id, typeof n.g === "string" ? n.g : undefined);
  const within = (groupId: string | undefined, ancestor: string) => {
    for (let g = groupId, hops = 0; g !== undefined && hops < 1000; g = parentOf.get(g), hops++) if (g === ancestor) return true;
    return false;
  };
  return items.map((n) => {
    if ((n.type !== "catch" && n.type !== "status") || n.scope !== "group") return n;
    if (typeof n.g !== "string") {
      warnings.push(`${n.type} node ${String(n.id)}: its scope "group" covers the whole flow, as in Node-RED, since it is in no group`);
      return { ...n, scope: null };
    }
    const own = n.g;
    const scope = items.filter((m) => m !== n && m.type !== "group" && m.z === n.z && typeof m.id === "string" && typeof m.g === "string" && within(m.g, own)).map((m) => String(m.id));
    warnings.push(`${n.type} node ${String(n.id)}: its scope "group" became the ${scope.length} nodes of its group ${own} (nodes added to the group later are not in it)`);
    return { ...n, scope };
  });
}

/**
 * The outputs of the subflow definitions an import's instances name, by the id ours have: a
 * definition the file holds by its `out` (Node-RED laid the file's instances out by it), else the
 * organization's definition's, when the file only names it.
 */
export function nodeRedSubflowOutputs(
  items: readonly NrNode[],
  ids: ReadonlyMap<string, string>,
  organization: ReadonlyMap<string, { ports: { outputs: number } }> = new Map(),
): Map<string, number> {
  const outputs = new Map<string, number>();
  for (const ourId of ids.values()) {
    const known = organization.get(ourId)?.ports.outputs;
    if (known !== undefined) outputs.set(ourId, known);
  }
  for (const n of items) if (n.type === "subflow" && Array.isArray(n.out) && ids.has(String(n.id))) outputs.set(ids.get(String(n.id))!, n.out.length);
  return outputs;
}

/** Node-RED nodes of one tab → our nodes and connections (wires to nodes outside the set are dropped and reported). */
export function convertNodeRedNodes(
  registry: NodeRegistry,
  nodes: NrNode[],
  newId: (id: string) => string,
  warnings: string[],
  report: ImportReportEntry[] = [],
  /** Subflow definitions an instance may name: Node-RED's subflow id → ours (in this import, or the organization's). */
  subflows: ReadonlyMap<string, string> = new Map(),
  /** Configuration nodes the nodes may name (SPEC §19): their ids follow the import's mapping; a reference to none of them is cleared. */
  options: {
    configNodes?: ConfigNodeMapping;
    /** Outputs of the subflow definitions instances may name (ours → count): an instance's box is as tall as they need (else as its wires use). */
    subflowOutputs?: ReadonlyMap<string, number>;
  } = {},
) {
  const flowNodes: FlowNode[] = [];
  // Node-RED's centres, placed once every node's box is known (its outputs may come from its wires).
  const centres = new Map<string, { x: unknown; y: unknown }>();
  const connections: Connection[] = [];
  const local = new Set(nodes.map((n) => newId(String(n.id))));
  const addWires = (id: string, wires: unknown[]) =>
    wires.forEach((port, portIndex) => {
      for (const target of Array.isArray(port) ? port : []) {
        const t = newId(String(target));
        if (local.has(t)) connections.push({ source: id, source_port: portIndex, target: t });
        else warnings.push(`wire from ${id} to ${String(target)} was dropped: the target is not in the same tab`);
      }
    });
  for (const n of nodes) {
    const id = newId(String(n.id));
    const nrType = String(n.type);
    const subflowId = subflowIdOfType(nrType);
    if (subflowId !== null && subflows.has(subflowId)) {
      // An instance: its env properties are its configuration; its ports are its definition's.
      const parsed = subflowInstanceConfigSchema.safeParse({ env: Array.isArray(n.env) ? n.env.map((e) => envEntryFromNodeRed(e, options.configNodes?.ids)) : [] });
      if (parsed.success) {
        flowNodes.push({
          id,
          type: subflowInstanceType(subflows.get(subflowId)!),
          name: typeof n.name === "string" ? n.name : "",
          position: { x: 0, y: 0 },
          config: parsed.data,
          disabled: n.d === true,
          ...descriptionOf(n, warnings),
          ...appearanceOnly(appearanceOf(n, () => false, false)),
        });
        centres.set(id, { x: n.x, y: n.y });
        report.push({ node_id: String(n.id), type: nrType, support: "supported" });
        addWires(id, Array.isArray(n.wires) ? (n.wires as unknown[]) : []);
        continue;
      }
      const issue = parsed.error.issues[0]!;
      warnings.push(`node ${id} (${nrType}): env.${issue.path.join(".")}: ${issue.message}; kept as an unknown node`);
    }
    const definition = notOfferedByDesign(nrType, n) ? undefined : registry.fromNodeRedType(nrType);
    const props = remapConfigIds(renameReferences(Object.fromEntries(Object.entries(n).filter(([k]) => !NR_RESERVED.has(k))), newId), options.configNodes?.ids);
    // Node ids in the type's other reference properties follow the renaming too (the id lists
    // renameReferences knows are renamed already: never twice).
    for (const key of definition?.nodeRed?.references ?? []) {
      const value = props[key];
      if (Array.isArray(value) && !(ID_LIST_PROPERTIES as readonly string[]).includes(key)) props[key] = value.map((ref) => (typeof ref === "string" ? newId(ref) : ref));
      else if (typeof value === "string") props[key] = newId(value);
    }
    // A reference to a node that is neither in this import nor a valid id here (Node-RED keeps
    // dangling ones, e.g. to a link in deleted since) cannot name anything: dropped, and said.
    for (const key of ID_LIST_PROPERTIES) {
      const refs = props[key];
      if (!Array.isArray(refs)) continue;
      const kept = refs.filter((ref) => typeof ref !== "string" || NODE_ID_PATTERN.test(ref));
      if (kept.length === refs.length) continue;
      warnings.push(`node ${id}: ${key} named ${refs.length - kept.length} node${refs.length - kept.length > 1 ? "s" : ""} that ${refs.length - kept.length > 1 ? "are" : "is"} not in this import (${refs.filter((r) => !kept.includes(r)).join(", ")}); dropped`);
      props[key] = kept;
    }
    const wires = Array.isArray(n.wires) ? (n.wires as unknown[]) : [];
    let config: Record<string, unknown>;
    let type: string;
    /** The node's description and appearance (Node-RED's info, l, icon and port labels). */
    let kept: { description?: string; appearance?: NodeAppearance } = {};
    if (definition && definition.type !== "unknown") {
      type = definition.type;
      let mapped: Record<string, unknown> | null;
      let mappingError: string | null = null;
      const refused: string[] = [];
      try {
        mapped = definition.nodeRed ? definition.nodeRed.fromNodeRed(props, refused) : props;
      } catch (err) {
        // A mapping that meets properties of unexpected shapes (or a feature we lack): the node is kept, never a 500.
        mapped = null;
        mappingError = err instanceof Error ? err.message : null;
      }
      const parsed = mapped === null ? null : definition.configSchema.safeParse(mapped);
      if (!parsed?.success) {
        const issue = parsed?.error.issues[0];
        const reason = issue ? `${issue.path.join(".")}: ${issue.message}` : (mappingError ?? "its properties could not be read");
        warnings.push(`node ${id} (${nrType}): ${reason}; kept as an unknown node`);
        report.push({ node_id: String(n.id), type: nrType, support: "unsupported", reason });
        type = "unknown";
        ({ config, ...kept } = unknownNode(n, nrType, props, wires.length, definition, warnings));
      } else {
        config = clearMissingRefs(definition, parsed.data as Record<string, unknown>, options.configNodes?.types, `node ${id}`, warnings);
        const written = definition.nodeRed ? definition.nodeRed.toNodeRed(config) : {};
        if (!("info" in written)) kept = descriptionOf(n, warnings);
        const looks = appearanceOf(n, (k) => k in written, definition.labelHidden === true);
        kept = { ...kept, ...appearanceOnly(looks) };
        // What the appearance could not keep (an icon that is no reference) makes the node partial.
        const dropped = [...new Set([...droppedProperties(definition, config, props), ...refused]), ...looks.rejected];
        const notes = definition.nodeRed?.importNotes?.(props) ?? [];
        for (const note of notes) warnings.push(`node ${id} (${nrType}): ${note}`);
        report.push(
          dropped.length > 0
            ? { node_id: String(n.id), type: nrType, support: "partial", reason: [`not carried over: ${dropped.join(", ")}`, ...notes].join("; ") }
            : { node_id: String(n.id), type: nrType, support: "supported", ...(notes.length > 0 ? { reason: notes.join("; ") } : {}) },
        );
      }
    } else {
      type = "unknown";
      ({ config, ...kept } = unknownNode(n, nrType, props, wires.length, undefined, warnings));
      const reason = unsupportedReason(nrType, props);
      warnings.push(`node ${id}: ${reason}; kept as a disabled unknown node`);
      report.push({ node_id: String(n.id), type: nrType, support: "unsupported", reason });
    }
    flowNodes.push({
      id,
      type,
      name: typeof n.name === "string" ? n.name : "",
      position: { x: 0, y: 0 },
      config,
      disabled: type === "unknown" || n.d === true,
      ...kept,
    });
    centres.set(id, { x: n.x, y: n.y });
    addWires(id, wires);
    // An unnamed node is reported as the canvas will write it, not by its id alone.
    const entry = report.at(-1);
    if (entry?.node_id === String(n.id) && type !== "unknown" && !(typeof n.name === "string" && n.name.trim())) {
      const label = nodeLabel({ type, config });
      if (label !== type) entry.label = label;
    }
  }
  const portsOf = portsLookup(registry, options.subflowOutputs, connections);
  // A wire from an output the node does not have (an http request's second port, left from an
  // edit in another tool): Node-RED keeps it and never sends on it. Refused, it took the whole
  // file's import with it: dropped, and said.
  const byId = new Map(flowNodes.map((node) => [node.id, node]));
  const wired = connections.filter((c) => {
    const source = byId.get(c.source);
    const outputs = source ? portsOf(source) : Number.POSITIVE_INFINITY;
    if (c.source_port >= outputs) {
      warnings.push(`wire from ${c.source} port ${c.source_port + 1} to ${c.target} was dropped: node ${c.source} (${source!.type}) has ${outputs} output${outputs === 1 ? "" : "s"}, and Node-RED never sends on that wire`);
      return false;
    }
    // A wire into a node without an input (Node-RED's import keeps it, its editor draws no port for
    // it; an inject fires on such a message, as its button does). Refused, it took the whole file
    // with it: dropped, and said.
    const target = byId.get(c.target);
    const definition = target ? registry.get(target.type) : undefined;
    if (target && definition && inputCount(definition, target.config) === 0) {
      const why = target.type === "inject" ? "; in Node-RED a message on it fires the inject as its button does: wire it into the nodes the inject feeds instead" : "";
      warnings.push(`wire from ${c.source} port ${c.source_port + 1} to ${c.target} was dropped: node ${c.target} (${target.type}) has no input${why}`);
      return false;
    }
    return true;
  });
  const placed = flowNodes.map((node) => {
    const c = centres.get(node.id);
    return c ? { ...node, position: fromNodeRedPosition(c.x, c.y, boxOf(registry, node, portsOf(node))) } : node;
  });
  return { nodes: placed, connections: wired };
}

/**
 * Node-RED wires a link-out to the link-in nodes it lists and to those that list it (its runtime
 * joins both lists); our link-out sends to its own list, so the link-in side is added to it here.
 */
export function joinLinkLists(nodes: NrNode[]): NrNode[] {
  const listedBy = new Map<string, string[]>();
  for (const n of nodes) {
    if (n.type !== "link in" || !Array.isArray(n.links)) continue;
    for (const out of n.links) if (typeof out === "string") listedBy.set(out, [...(listedBy.get(out) ?? []), String(n.id)]);
  }
  if (listedBy.size === 0) return nodes;
  return nodes.map((n) => {
    const extra = n.type === "link out" ? listedBy.get(String(n.id)) : undefined;
    if (!extra) return n;
    const own = Array.isArray(n.links) ? (n.links as unknown[]) : [];
    return { ...n, links: [...own, ...extra.filter((id) => !own.includes(id))] };
  });
}

/** Nodes of a flows.json that go on a canvas (not tabs, subflows, groups or configuration nodes: mapConfigNodes takes those); reports the rest. */
export function canvasNodes(items: NrNode[], warnings: string[], options: { groups?: boolean; subflows?: boolean } = {}) {
  const isNode = (n: NrNode) => n.type !== "tab" && n.type !== "subflow" && n.type !== "group" && typeof n.id === "string";
  for (const n of items.filter((n) => (n.type === "subflow" && !options.subflows) || (n.type === "group" && !options.groups))) warnings.push(`${String(n.type)} ${String(n.id)} was not imported`);
  return joinLinkLists(items.filter((n) => isNode(n) && (n.x !== undefined || Array.isArray(n.wires))));
}


/**
 * A flows.json item that is a configuration node (Node-RED's `category: 'config'`): not a tab, a
 * subflow or a group, with neither a position nor wires.
 */
export function isConfigItem(n: NrNode): boolean {
  return typeof n.id === "string" && n.type !== "tab" && n.type !== "subflow" && n.type !== "group" && n.x === undefined && !Array.isArray(n.wires);
}

/** The organization's configuration nodes as an import needs them (what importFlows reads first). */
export interface OrganizationConfigNodes {
  /** By id: what a re-import finds and updates (or, of another type, avoids). */
  existing: ReadonlyMap<string, { type: string; name: string; config: Record<string, unknown> }>;
  /** Whether the importer may write the global-config (admins and owners, as variables). */
  mayWriteGlobal: boolean;
}

export const NO_CONFIG_NODES: OrganizationConfigNodes = { existing: new Map(), mayWriteGlobal: false };

/** A configuration node an import writes: created, or the organization's of the same id and type updated. */
export interface PlannedConfigNode {
  id: string;
  nrId: string;
  type: string;
  name: string;
  config: Record<string, unknown>;
  /** Credentials the file carries (Node-RED's `credentials`, when exported with them); absent ones are kept. */
  credentials: Record<string, string>;
  exists: boolean;
}

/** How node references to configuration nodes are mapped while converting nodes: Node-RED id → ours, and ours → type. */
export interface ConfigNodeMapping {
  ids: ReadonlyMap<string, string>;
  types: ReadonlyMap<string, string>;
}

const GLOBAL_CONFIG = "global-config";
const FILE_PATHS = ["cert", "key", "ca"] as const;

/** Top-level string properties holding a configuration node's Node-RED id take our id for it. */
function remapConfigIds(props: Record<string, unknown>, ids: ReadonlyMap<string, string> | undefined): Record<string, unknown> {
  if (!ids || ids.size === 0) return props;
  const out = { ...props };
  for (const [k, v] of Object.entries(out)) if (typeof v === "string" && ids.has(v)) out[k] = ids.get(v);
  return out;
}

/**
 * A reference to a configuration node that is neither in the file nor the organization's (Node-RED
 * exports a selection without the configuration nodes it names) cannot be kept: it is cleared, and
 * said, rather than refusing the whole import.
 */
function clearMissingRefs(definition: NodeDefinition, config: Record<string, unknown>, types: ReadonlyMap<string, string> | undefined, what: string, warnings: string[]) {
  if (!types) return config;
  let out = config;
  for (const ref of configRefProperties(definition)) {
    const id = config[ref.property];
    if (typeof id !== "string" || id === "" || types.get(id) === ref.type) continue;
    warnings.push(`${what}: ${ref.property} named configuration node ${id}, which is not a ${ref.type} of this file or organization; cleared`);
    out = { ...out, [ref.property]: "" };
  }
  return out;
}

/**
 * The configuration nodes of a flows.json (SPEC §19) → the organization's: the same Node-RED id
 * always maps to the same id (configNodeIdFromNodeRed), so importing a file again finds and
 * updates what the first import created instead of duplicating it; an id the organization uses
 * for another type gets a fresh one. Types we lack are kept as `unknown` configuration nodes (their
 * properties kept for export, as unknown flow nodes are). The global-config is written only by an
 * admin or owner, and never replaces the organization's own of another id.
 */
export function mapConfigNodes(registry: NodeRegistry, items: NrNode[], organization: OrganizationConfigNodes, warnings: string[], report: ImportReportEntry[]) {
  const configItems = items.filter(isConfigItem);
  const ids = new Map<string, string>();
  const types = new Map<string, string>([...organization.existing].map(([id, c]) => [id, c.type]));
  const planned: PlannedConfigNode[] = [];
  const ourTypeOf = (n: NrNode) => {
    const definition = registry.fromNodeRedType(String(n.type));
    return definition?.kind === "config" ? definition : undefined;
  };
  const existingGlobal = [...organization.existing].find(([, c]) => c.type === GLOBAL_CONFIG)?.[0];
  const accepted: Array<{ n: NrNode; id: string; definition: NodeDefinition | undefined }> = [];
  for (const n of configItems) {
    const nrId = String(n.id);
    const definition = ourTypeOf(n);
    const type = definition?.type ?? "unknown";
    if (type === GLOBAL_CONFIG) {
      const reason = !organization.mayWriteGlobal
        ? "the global-config holds the organization's env: only admins and owners import it"
        : existingGlobal !== undefined && existingGlobal !== configNodeIdFromNodeRed(nrId)
          ? `the organization has its global-config already (${existingGlobal}); the file's was not applied (change it with PUT /config-nodes/${existingGlobal})`
          : null;
      if (reason) {
        warnings.push(`configuration node ${nrId} (global-config) was not imported: ${reason}`);
        report.push({ node_id: nrId, type: String(n.type), support: "unsupported", reason });
        continue;
      }
    }
    let id = configNodeIdFromNodeRed(nrId) ?? freshId();
    const mine = organization.existing.get(id);
    // A type that has landed since replaces the unknown node kept for it.
    if (mine && mine.type !== type && mine.type !== "unknown") {
      const fresh = freshId();
      warnings.push(`configuration node ${nrId} was imported as ${fresh}: the organization has a ${mine.type} configuration node by that id`);
      id = fresh;
    } else if (id !== nrId) {
      warnings.push(`configuration node ${nrId} was imported as ${id}: ids here are 1-64 letters, digits, _ or -`);
    }
    ids.set(nrId, id);
    types.set(id, type);
    accepted.push({ n, id, definition });
  }
  for (const { n, id, definition } of accepted) {
    const nrId = String(n.id);
    const nrType = String(n.type);
    // A configuration node's description (info) is not kept (configuration nodes are the organization's
    // resources, edited in their own form): said in the report; an unknown one keeps it for export.
    const all = remapConfigIds(Object.fromEntries(Object.entries(n).filter(([k]) => !NR_RESERVED.has(k) && k !== "credentials")), ids);
    const { info, ...props } = all;
    const infoDropped = typeof info === "string" && info.trim() !== "";
    const name = typeof n.name === "string" ? n.name.slice(0, NAME_MAX_CHARS) : "";
    const exists = organization.existing.has(id);
    let config: Record<string, unknown> | null = null;
    let reason: string | null = null;
    const refused: string[] = [];
    if (definition) {
      try {
        const parsed = definition.configSchema.safeParse(definition.nodeRed ? definition.nodeRed.fromNodeRed(props, refused) : props);
        if (parsed.success) config = clearMissingRefs(definition, parsed.data as Record<string, unknown>, types, `configuration node ${id}`, warnings);
        else reason = `${parsed.error.issues[0]!.path.join(".")}: ${parsed.error.issues[0]!.message}`;
      } catch (err) {
        reason = err instanceof Error ? err.message : "its properties could not be read";
      }
    }
    if (definition && config) {
      const declared = definition.credentials ?? {};
      const raw = n.credentials && typeof n.credentials === "object" ? (n.credentials as Record<string, unknown>) : {};
      const fileCredentials = Object.fromEntries(Object.entries(raw).filter((e): e is [string, string] => Object.hasOwn(declared, e[0]) && typeof e[1] === "string" && e[1] !== ""));
      // A user and password written in a property (a broker URL) become credentials; the file's own win.
      const lifted = definition.liftCredentials?.(config as never) as { config: Record<string, unknown>; credentials: Record<string, string> } | null | undefined;
      // Credentials the export wrote in plain properties (the type says which); the file's own win.
      const fromProps = definition.nodeRed?.credentialsFromNodeRed?.(props) ?? {};
      const credentials = { ...(lifted?.credentials ?? {}), ...fromProps, ...fileCredentials };
      const plainMoved = Object.keys(fromProps).filter((k) => !Object.hasOwn(fileCredentials, k));
      if (plainMoved.length > 0) warnings.push(`configuration node ${id} (${nrType}): the ${plainMoved.join(" and ")} written in plain properties became its credentials (stored encrypted, never shown)`);
      if (lifted) {
        // The lifted configuration replaces the parsed one: a property moved out (a plain password) is gone from it.
        for (const k of Object.keys(config)) if (!Object.hasOwn(lifted.config, k)) delete config[k];
        Object.assign(config, lifted.config);
        const moved = Object.keys(lifted.credentials);
        if (moved.length > 0) warnings.push(`configuration node ${id} (${nrType}): the ${moved.join(" and ")} written in its address became its credentials (stored encrypted, never shown)`);
      }
      const paths = FILE_PATHS.filter((k) => typeof config[k] === "string" && config[k] !== "");
      const dropped = [...new Set([...droppedProperties(definition, config, props), ...refused])];
      const notes = [
        ...(paths.length > 0 ? [`certificate files (${paths.join(", ")}) are not read in the shared runtime: paste the PEM into the node's credentials`] : []),
        ...(dropped.length > 0 || infoDropped ? [`not carried over: ${[...dropped, ...(infoDropped ? ["info (its description)"] : [])].join(", ")}`] : []),
      ];
      if (paths.length > 0) warnings.push(`configuration node ${id} (${nrType}): ${notes[0]}`);
      // What the type itself says of the import (a database path taken relative to the organization's files).
      const own = definition.nodeRed?.importNotes?.(props) ?? [];
      for (const note of own) warnings.push(`configuration node ${id} (${nrType}): ${note}`);
      report.push(
        notes.length > 0
          ? { node_id: nrId, type: nrType, support: "partial", reason: [...notes, ...own].join("; ") }
          : { node_id: nrId, type: nrType, support: "supported", ...(own.length > 0 ? { reason: own.join("; ") } : {}) },
      );
      planned.push({ id, nrId, type: definition.type, name, config, credentials, exists });
      continue;
    }
    const why = reason ?? `type ${nrType} is not available here`;
    warnings.push(`configuration node ${id}: ${why}; kept as an unknown configuration node for export`);
    report.push({ node_id: nrId, type: nrType, support: "unsupported", reason: `${why}; kept as an unknown configuration node for export` });
    types.set(id, "unknown");
    // Credentials a known type would have taken from plain properties are never kept in an unknown node's (shown, exported) properties.
    const secret = definition?.nodeRed?.credentialsFromNodeRed ? ["user", "password", ...Object.keys(definition.nodeRed.credentialsFromNodeRed(all))] : [];
    const kept = secret.length > 0 ? Object.fromEntries(Object.entries(all).filter(([k]) => !secret.includes(k))) : all;
    planned.push({ id, nrId, type: "unknown", name, config: { original_type: nrType.slice(0, 200), properties: kept, outputs: 0 }, credentials: {}, exists });
  }
  return { planned, mapping: { ids, types } satisfies ConfigNodeMapping };
}

/**
 * What an export writes of a configuration node: Node-RED's type and properties, no `z` (it is
 * global), and never its credentials (SPEC §19).
 */
export function configNodeToNodeRed(registry: NodeRegistry, c: { id: string; type: string; name: string; config: Record<string, unknown> }): NrNode {
  if (c.type === "unknown") {
    const u = c.config as { original_type: string; properties: Record<string, unknown> };
    return { ...u.properties, id: c.id, type: u.original_type, name: c.name };
  }
  const definition = registry.get(c.type);
  const props = definition?.nodeRed ? definition.nodeRed.toNodeRed(c.config) : { ...c.config };
  return { id: c.id, type: definition?.nodeRed?.type ?? c.type, name: c.name, ...props };
}

/**
 * The configuration node ids nodes name: typed references of known types, and for unknown nodes
 * (kept from an import) any top-level property holding the id of one of `known`.
 */
export function configIdsNamed(registry: NodeRegistry, nodes: ReadonlyArray<{ type: string; config: Record<string, unknown> }>, known: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  for (const n of nodes) {
    if (n.type === "unknown") {
      const props = ((n.config as { properties?: Record<string, unknown> }).properties ?? {}) as Record<string, unknown>;
      for (const v of Object.values(props)) if (typeof v === "string" && known.has(v)) out.add(v);
      continue;
    }
    const definition = registry.get(n.type);
    if (definition) for (const ref of configRefsOf(definition, n.config)) out.add(ref.id);
  }
  return out;
}
