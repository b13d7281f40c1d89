import { randomHex } from "../../ids";
import type { AppServices } from "../../app-services";
import { AppError } from "../../errors";
import type { Principal } from "../../auth/principal";
import type { NodeRegistry } from "../../nodes/registry";
import { outputCount, type NodeDefinition } from "../../nodes/types";
import type { Connection, FlowNode } from "../../../shared/flow-graph";
import type { RequestMeta } from "../request-meta";
import { flowView, graphContext, insertFlows, readFlow, updateFlow, validateGraphs } from "./flows";
import { clipboardSelection, createFlowInput, type CreateFlowInput } from "./flow.schemas";
import { validateGraph } from "./validate-graph";
import { validationError } from "../../errors";
import { flowVariablesAsNodeRedEnv, importFlowVariables } from "../variables/variables";
import { groupsFromNodeRed, groupsToNodeRed, membershipOf, nodeBox } from "./node-red-groups";
import { importSubflows, mapSubflows, subflowIdsNamed, subflowToNodeRed, type OrganizationSubflows } from "./node-red-subflows";
import { definitionIndex, insertSubflows, removeSubflows, subflowsByIds } from "../subflows/subflows";
import { usedSubflowIds } from "../subflows/subflow-ports";
import {
  isSubflowInstanceType,
  JUNCTION_TYPE,
  subflowIdOfType,
  subflowInstanceConfigSchema,
  subflowInstanceType,
  SUBFLOW_PORT_TYPES,
  type FlowGroup,
  type SubflowView,
} from "../../../shared/subflows";

/**
 * A Node-RED env property (a subflow's, or an instance's) as we keep it: values as text, as
 * Node-RED's editor stores them; anything else it carries (ui) kept for export.
 */
export function envEntryFromNodeRed(entry: unknown): unknown {
  if (!entry || typeof entry !== "object") return entry;
  const e = entry as Record<string, unknown>;
  const value = e.value === undefined || e.value === null ? "" : typeof e.value === "string" ? e.value : JSON.stringify(e.value);
  return { ...e, value };
}

/** Tabs (flows) one import may create. */
export const MAX_IMPORT_FLOWS = 100;

type NrNode = Record<string, unknown> & { id?: unknown; type?: unknown; z?: unknown };

const NR_RESERVED = new Set(["id", "type", "z", "name", "x", "y", "wires", "d", "g", "info"]);

/** Output ports of a node for export: its type's, or its subflow definition's (else as many as its wires use). */
type PortsLookup = (node: FlowNode) => number;

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
      const wires: string[][] = Array.from({ length: ports }, () => []);
      for (const c of graph.connections) if (c.source === n.id && wires[c.source_port] && !portNodes.has(c.target)) wires[c.source_port]!.push(c.target);
      const g = groupOf.get(n.id);
      const inGroup = g ? { g } : {};
      if (n.type === "unknown") {
        const c = n.config as { original_type: string; properties: Record<string, unknown> };
        return { ...c.properties, id: n.id, type: c.original_type, z, ...inGroup, name: n.name, x: n.position.x, y: n.position.y, wires };
      }
      if (n.type === JUNCTION_TYPE) return { id: n.id, type: JUNCTION_TYPE, z, ...inGroup, x: n.position.x, y: n.position.y, wires };
      if (isSubflowInstanceType(n.type)) {
        const env = (n.config as { env?: unknown[] }).env ?? [];
        return { id: n.id, type: n.type, z, ...inGroup, name: n.name, env, x: n.position.x, y: n.position.y, wires, ...(n.disabled ? { d: true } : {}) };
      }
      const props = definition?.nodeRed ? definition.nodeRed.toNodeRed(n.config) : { ...n.config };
      return {
        id: n.id,
        type: definition?.nodeRed?.type ?? n.type,
        z,
        ...inGroup,
        name: n.name,
        ...props,
        x: n.position.x,
        y: n.position.y,
        wires,
        ...(n.disabled ? { d: true } : {}),
      };
    });
  const boxes = groupsToNodeRed(groups, graph.nodes, z, (n) => nodeBox(n, labelOf(n), portsOf(n)));
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

export async function exportFlow(app: AppServices, principal: Principal, id: string) {
  const flow = flowView(await readFlow(app, principal, id));
  // The subflow definitions its instances use (nested ones too) are written before its nodes, as
  // Node-RED writes them: the file imports into another Node-RED or organization whole.
  const definitions: SubflowView[] = [];
  const seen = new Set<string>();
  for (let next = usedSubflowIds(flow.nodes); next.length > 0; ) {
    for (const id of next) seen.add(id);
    const found = await subflowsByIds(app, principal.organizationId, next);
    definitions.push(...found);
    next = [...new Set(found.flatMap((d) => usedSubflowIds(d.nodes)))].filter((id) => !seen.has(id));
  }
  const outputs = new Map(definitions.map((d) => [d.id, d.outputs]));
  // The flow's variables travel as the tab's env; a secret by its name only, never its value.
  const [tab, ...nodes] = toNodeRed(app.nodes, flow, await flowVariablesAsNodeRedEnv(app, principal, flow.id), portsLookup(app.nodes, outputs, flow.connections));
  const subflows = definitions.flatMap((d) => subflowToNodeRed(app.nodes, d, portsLookup(app.nodes, outputs, d.connections)));
  return [tab!, ...subflows, ...nodes];
}

export const freshId = () => randomHex(8);

/**
 * Node-RED types not offered, by design, in a shared runtime (SPEC §12): they would reach the
 * host's processes, files or listening ports. Imported, they are kept as disabled unknown nodes.
 */
export const NOT_OFFERED_BY_DESIGN: ReadonlyMap<string, string> = new Map([
  ["exec", "runs commands on the host"],
  ["file", "writes the host's files"],
  ["file in", "reads the host's files"],
  ["watch", "watches the host's files"],
  ["tcp in", "listens on the host's TCP ports"],
  ["udp in", "listens on the host's UDP ports"],
]);

/** Why a node type is kept as an unknown node: our own wording, used by warnings and the dry-run report. */
export function unsupportedReason(nrType: string, props: Record<string, unknown> = {}): string {
  // A "tcp in" that connects out (server: "client") listens on nothing: we merely lack it.
  const byDesign = nrType === "tcp in" && props.server === "client" ? undefined : NOT_OFFERED_BY_DESIGN.get(nrType);
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
}

/**
 * Node-RED properties our mapping does not carry: present in the import, absent from what an
 * export of the converted node would write. Such a node runs, but without them ("partial").
 */
function droppedProperties(definition: NodeDefinition, config: Record<string, unknown>, props: Record<string, unknown>): string[] {
  if (!definition.nodeRed) return [];
  const written = definition.nodeRed.toNodeRed(config);
  const emptied = (k: string) => Array.isArray(props[k]) && (props[k] as unknown[]).length > 0 && Array.isArray(written[k]) && (written[k] as unknown[]).length === 0;
  return Object.keys(props).filter((k) => k !== "l" && props[k] !== undefined && props[k] !== "" && (!(k in written) || emptied(k)));
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
) {
  const flowNodes: FlowNode[] = [];
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
      const parsed = subflowInstanceConfigSchema.safeParse({ env: Array.isArray(n.env) ? n.env.map(envEntryFromNodeRed) : [] });
      if (parsed.success) {
        flowNodes.push({
          id,
          type: subflowInstanceType(subflows.get(subflowId)!),
          name: typeof n.name === "string" ? n.name : "",
          position: { x: Number(n.x ?? 0) || 0, y: Number(n.y ?? 0) || 0 },
          config: parsed.data,
          disabled: n.d === true,
        });
        report.push({ node_id: String(n.id), type: nrType, support: "supported" });
        addWires(id, Array.isArray(n.wires) ? (n.wires as unknown[]) : []);
        continue;
      }
      const issue = parsed.error.issues[0]!;
      warnings.push(`node ${id} (${nrType}): env.${issue.path.join(".")}: ${issue.message}; kept as an unknown node`);
    }
    const definition = NOT_OFFERED_BY_DESIGN.has(nrType) ? undefined : registry.fromNodeRedType(nrType);
    const props = renameReferences(Object.fromEntries(Object.entries(n).filter(([k]) => !NR_RESERVED.has(k))), newId);
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
    if (definition && definition.type !== "unknown") {
      type = definition.type;
      let mapped: Record<string, unknown> | null;
      let mappingError: string | null = null;
      try {
        mapped = definition.nodeRed ? definition.nodeRed.fromNodeRed(props) : props;
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
        config = { original_type: nrType, properties: props, outputs: wires.length };
      } else {
        config = parsed.data as Record<string, unknown>;
        const dropped = droppedProperties(definition, config, props);
        report.push(
          dropped.length > 0
            ? { node_id: String(n.id), type: nrType, support: "partial", reason: `not carried over: ${dropped.join(", ")}` }
            : { node_id: String(n.id), type: nrType, support: "supported" },
        );
      }
    } else {
      type = "unknown";
      config = { original_type: nrType, properties: props, outputs: wires.length };
      const reason = unsupportedReason(nrType, props);
      warnings.push(`node ${id}: ${reason}; kept as a disabled unknown node`);
      report.push({ node_id: String(n.id), type: nrType, support: "unsupported", reason });
    }
    flowNodes.push({
      id,
      type,
      name: typeof n.name === "string" ? n.name : "",
      position: { x: Number(n.x ?? 0) || 0, y: Number(n.y ?? 0) || 0 },
      config,
      disabled: type === "unknown" || n.d === true,
    });
    addWires(id, wires);
  }
  return { nodes: flowNodes, connections };
}

/**
 * Node-RED wires a link-out to the link-in nodes it lists and to those that list it (its runtime
 * joins both lists); our link-out sends to its own list, so the link-in side is added to it here.
 */
function joinLinkLists(nodes: NrNode[]): NrNode[] {
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

/** Nodes of a flows.json that go on a canvas (not tabs, subflows, groups or config nodes); reports the rest. */
function canvasNodes(items: NrNode[], warnings: string[], options: { groups?: boolean; subflows?: boolean } = {}) {
  const isNode = (n: NrNode) => n.type !== "tab" && n.type !== "subflow" && n.type !== "group" && typeof n.id === "string";
  for (const n of items.filter((n) => isNode(n) && n.x === undefined && !Array.isArray(n.wires))) {
    warnings.push(`config node ${String(n.id)} (${String(n.type)}) was not imported: configuration nodes are not supported; set its values on the nodes that use it`);
  }
  for (const n of items.filter((n) => (n.type === "subflow" && !options.subflows) || (n.type === "group" && !options.groups))) warnings.push(`${String(n.type)} ${String(n.id)} was not imported`);
  return joinLinkLists(items.filter((n) => isNode(n) && (n.x !== undefined || Array.isArray(n.wires))));
}

/**
 * The editor's copy: a selection as Node-RED nodes (z = this flow's id, so Node-RED pastes it into
 * the open tab). The flow is read only to check it belongs to the caller's organization.
 */
export async function selectionToNodeRed(app: AppServices, principal: Principal, input: { id: string; nodes: FlowNode[]; connections: Connection[] }) {
  const flow = await readFlow(app, principal, input.id);
  const ids = new Set(input.nodes.map((n) => n.id));
  const connections = input.connections.filter((c) => ids.has(c.source) && ids.has(c.target));
  // Checked as a save checks them (config schemas, ports): a config the schema refuses is a 400,
  // never a mapping to Node-RED that fails halfway.
  const context = await graphContext(app, principal.organizationId, input.nodes);
  const graph = validateGraph(app.nodes, { nodes: input.nodes, connections }, context);
  const outputs = new Map([...(context.subflows ?? new Map())].map(([id, ports]) => [id, ports.outputs]));
  const [, ...nodes] = toNodeRed(app.nodes, { id: flow.id, name: flow.name, description: "", enabled: true, nodes: graph.nodes, connections: graph.connections }, [], portsLookup(app.nodes, outputs, graph.connections));
  return nodes;
}

/**
 * The editor's paste: Node-RED JSON → our nodes and connections, ids kept where valid (the editor
 * gives pasted nodes fresh ids anyway). Nothing is written.
 */
export function nodeRedToSelection(registry: NodeRegistry, items: NrNode[], subflows: ReadonlySet<string> = new Set()) {
  const warnings: string[] = [];
  // Subflow definitions the organization has are the ones its instances paste as; one it lacks is said (importing the file creates it).
  const nodes = canvasNodes(items.filter((n) => !(n.type === "subflow" && subflows.has(String(n.id)))), warnings, { subflows: true })
    .filter((n) => !items.some((s) => s.type === "subflow" && s.id === n.z));
  for (const n of items) if (n.type === "subflow" && !subflows.has(String(n.id))) warnings.push(`subflow ${String(n.id)} is not in this organization; import the file to create it (its instances are pasted as unknown nodes)`);
  const rename = new Map<string, string>();
  for (const n of nodes) if (!VALID_NODE_ID.test(String(n.id))) rename.set(String(n.id), freshId());
  const graph = convertNodeRedNodes(registry, nodes, (id) => rename.get(id) ?? id, warnings, [], new Map([...subflows].map((id) => [id, id])));
  // What the editor gets must be a graph it can save: names, positions and counts as create checks them.
  const checked = clipboardSelection.safeParse(graph);
  if (!checked.success) throw validationError(checked.error.issues.map((issue) => ({ ...issue, path: issue.path })));
  return { ...graph, warnings };
}

/** The editor's paste (tRPC flows.parseSelection): instances of the organization's definitions stay instances. */
export async function pasteSelection(app: AppServices, principal: Principal, items: NrNode[]) {
  const named = items.flatMap((n) => {
    const id = n.type === "subflow" ? String(n.id) : typeof n.type === "string" ? subflowIdOfType(n.type) : null;
    return id !== null && /^[A-Za-z0-9_-]{1,56}$/.test(id) ? [id] : [];
  });
  const known = new Set((await subflowsByIds(app, principal.organizationId, [...new Set(named)])).map((d) => d.id));
  return nodeRedToSelection(app.nodes, items, known);
}

const VALID_NODE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Imports a Node-RED flows.json: one flow per tab (nodes without a tab go to an "Imported" flow).
 * Ids that are not valid here, already used in the organization or repeated in the import get
 * fresh ones, and every reference follows (wires, catch/status/complete scopes, link targets);
 * types we lack are kept as disabled `unknown` nodes and reported; config nodes (no x/y/wires)
 * are reported and skipped. With `dryRun`, everything is checked exactly the same way and the
 * answer is a per-node support report instead: nothing is written.
 */
export async function importFlows(app: AppServices, principal: Principal, items: NrNode[], meta: RequestMeta, options: { dryRun?: boolean } = {}) {
  // What the mapping needs of the organization: the node ids it uses, and its subflow definitions.
  const candidates = items.flatMap((n) => (typeof n.id === "string" && VALID_NODE_ID.test(n.id) ? [n.id] : []));
  const takenNodeIds = new Set(
    (await app.db.prisma.flowNode.findMany({ where: { organizationId: principal.organizationId, nodeId: { in: candidates } }, select: { nodeId: true } })).map((t) => t.nodeId),
  );
  const canvas = canvasNodes(items, [], { groups: true, subflows: true });
  const existing = new Map((await subflowsByIds(app, principal.organizationId, subflowIdsNamed(items, canvas))).map((d) => [d.id, d]));
  const organization: OrganizationSubflows = { existing, index: await definitionIndex(app.db.prisma, principal.organizationId) };
  const { warnings, report, inputs, inputTabs, graphs, newSubflows, checkedSubflows } = mapNodeRedImport(app.nodes, items, { takenNodeIds, subflows: organization });
  if (options.dryRun) return { report, warnings };
  const subflows = await insertSubflows(app, principal, newSubflows, checkedSubflows.graphs, meta);
  let created: Awaited<ReturnType<typeof insertFlows>>;
  try {
    created = await insertFlows(app, principal, inputs.map((input, i) => ({ input, graph: graphs[i]! })), meta);
  } catch (err) {
    // All or nothing: the definitions imported with flows that could not be written go too.
    await removeSubflows(app, principal.organizationId, subflows.map((s) => s.id));
    throw err;
  }
  // Each tab's env becomes its flow's variables (SPEC §14).
  for (const [i, flow] of created.entries()) {
    const tab = inputTabs[i];
    if (tab) await importFlowVariables(app, principal, flow.id, tab, meta, warnings);
  }
  return { flows: created, subflows: subflows.map((s) => ({ id: s.id, name: s.name, revision: s.revision })), warnings };
}

/**
 * The import's mapping of a Node-RED flows.json, without the database (importFlows reads what it
 * needs of the organization first): one flow per tab (nodes without a tab go to an "Imported"
 * flow) with its nodes, wires and groups, each checked exactly as create checks it, and the subflow
 * definitions to create, checked as POST /subflows checks them. Ids that are not valid here, used
 * by the organization (`takenNodeIds`) or repeated get fresh ones, and every reference follows.
 * The differential harness runs Node-RED's flows through this too.
 */
export function mapNodeRedImport(registry: NodeRegistry, items: NrNode[], organization: { takenNodeIds: ReadonlySet<string>; subflows: OrganizationSubflows }) {
  const warnings: string[] = [];
  const report: ImportReportEntry[] = [];
  const tabs = items.filter((n) => n.type === "tab");
  // Subflow definitions (SPEC §16): their nodes and groups (z = the subflow's id) are theirs, not a flow's.
  const subflowItems = items.filter((n) => n.type === "subflow" && typeof n.id === "string");
  const subflowNrIds = new Set(subflowItems.map((n) => String(n.id)));
  const insideSubflow = (n: NrNode) => typeof n.z === "string" && subflowNrIds.has(n.z);
  const allCanvas = canvasNodes(items, warnings, { groups: true, subflows: true });
  const graphNodes = allCanvas.filter((n) => !insideSubflow(n));
  const groupItems = items.filter((n) => n.type === "group" && typeof n.id === "string" && !insideSubflow(n));
  if (tabs.length === 0 && graphNodes.length === 0 && subflowItems.length === 0) {
    throw new AppError("VALIDATION_FAILED", "flows: no tab and no nodes to import", { details: [{ path: "flows", message: "no tab and no nodes to import" }] });
  }

  const ids = graphNodes.map((n) => String(n.id));
  const taken = organization.takenNodeIds;
  // One id twice in a flows.json leaves its wires ambiguous: refused, not guessed at.
  const everyId = allCanvas.map((n) => String(n.id));
  const repeated = everyId.find((id, i) => everyId.indexOf(id) !== i);
  if (repeated !== undefined) {
    throw new AppError("VALIDATION_FAILED", `flows: node id ${repeated.slice(0, 80)} appears more than once`, { details: [{ path: "flows", message: `node id ${repeated.slice(0, 80)} appears more than once` }] });
  }
  const rename = new Map<string, string>();
  const renameReason = new Map<string, string>();
  for (const id of ids) {
    const reason = !VALID_NODE_ID.test(id) ? "ids here are 1-64 letters, digits, _ or -" : taken.has(id) ? "its id is already used in this organization" : null;
    if (reason) {
      rename.set(id, freshId());
      renameReason.set(id, reason);
    }
  }
  // Group ids, and the ids of nodes inside definitions, only need to be valid here (they are a
  // flow's or a definition's own, not the organization's).
  for (const n of [...items.filter((i) => i.type === "group" && typeof i.id === "string"), ...allCanvas.filter(insideSubflow)]) {
    if (!VALID_NODE_ID.test(String(n.id))) rename.set(String(n.id), freshId());
  }
  const newId = (id: string) => rename.get(id) ?? id;

  const { subflowIds, newSubflows, checked: checkedSubflows } = mapSubflows(registry, organization.subflows, items, allCanvas, newId, warnings, report, "copy");

  const groups = new Map<string, { tab: NrNode | null; nodes: NrNode[]; groups: NrNode[] }>();
  for (const tab of tabs) groups.set(String(tab.id), { tab, nodes: [], groups: [] });
  for (const n of [...graphNodes, ...groupItems]) {
    const z = typeof n.z === "string" && groups.has(n.z) ? n.z : "__untabbed";
    if (!groups.has(z)) groups.set(z, { tab: null, nodes: [], groups: [] });
    if (n.type === "group") groups.get(z)!.groups.push(n);
    else groups.get(z)!.nodes.push(n);
  }

  if (groups.size > MAX_IMPORT_FLOWS) {
    throw new AppError("VALIDATION_FAILED", `flows: one import creates at most ${MAX_IMPORT_FLOWS} flows (this one has ${groups.size} tabs)`, {
      details: [{ path: "flows", message: `one import creates at most ${MAX_IMPORT_FLOWS} flows` }],
    });
  }

  // Every flow is checked exactly as create checks it (its input schema: node count, names,
  // positions; then the graph: config schemas, wires) before anything is written, and all are
  // written in one transaction: a 4xx leaves nothing behind.
  const inputs: CreateFlowInput[] = [];
  const inputTabs: Array<NrNode | null> = [];
  for (const { tab, nodes, groups: tabGroups } of groups.values()) {
    inputTabs.push(tab);
    const { nodes: flowNodes, connections } = convertNodeRedNodes(registry, nodes, newId, warnings, report, subflowIds);
    const flowGroups = groupsFromNodeRed(tabGroups, newId, new Set(flowNodes.map((n) => n.id)), warnings);
    for (const g of tabGroups) report.push({ node_id: String(g.id), type: "group", support: "supported" });
    for (const n of nodes) if (typeof n.id === "string" && rename.has(n.id)) warnings.push(`node ${n.id} was renamed ${newId(n.id)}: ${renameReason.get(n.id)}`);
    const name = tab ? String(tab.label ?? "Imported flow") || "Imported flow" : "Imported flow";
    const parsed = createFlowInput.safeParse({ name: name.slice(0, 200), description: tab && typeof tab.info === "string" ? tab.info.slice(0, 10_000) : "", enabled: tab ? tab.disabled !== true : true, nodes: flowNodes, connections, groups: flowGroups });
    if (!parsed.success) throw validationError(parsed.error.issues.map((issue) => ({ ...issue, path: ["flows", inputs.length, ...issue.path] })));
    inputs.push(parsed.data);
  }
  const graphs = validateGraphs(registry, inputs, "flows", { kind: "flow", subflows: checkedSubflows.ports });
  // What never reaches a canvas is in the (dry run's) report too: config nodes.
  const reported = new Set(report.map((r) => r.node_id));
  for (const n of items) {
    if (n.type === "tab" || typeof n.id !== "string" || reported.has(n.id)) continue;
    report.push({ node_id: n.id, type: String(n.type), support: "unsupported", reason: "configuration nodes are not imported; set their values on the nodes that use them" });
  }
  return { warnings, report, inputs, inputTabs, graphs, newSubflows, checkedSubflows, subflowIds };
}

/**
 * Replaces one flow's graph (and its name and description) with a Node-RED flows.json of one tab:
 * what `flowplane flows push --id` sends, so a flow kept in git as Node-RED JSON updates in place
 * (same flow id, deployments and history kept). Node ids used by another flow of the organization
 * get fresh ones, as import does; the flow's own ids are kept. Checked exactly as an update is
 * (schema, graph, revision), so a 4xx writes nothing. Not deployed: `flows deploy` does that.
 */
export async function replaceFlowFromNodeRed(
  app: AppServices,
  principal: Principal,
  input: { id: string; flows: NrNode[]; revision?: number },
  meta: RequestMeta,
) {
  const warnings: string[] = [];
  const tabs = input.flows.filter((n) => n.type === "tab");
  if (tabs.length > 1) {
    throw new AppError("VALIDATION_FAILED", `flows: one flow is replaced by one tab (this file has ${tabs.length}); use import for several`, {
      details: [{ path: "flows", message: "holds more than one tab" }],
    });
  }
  const tab = tabs[0] ?? null;
  // The definitions its instances use (a pull writes them) are the organization's: those it has are
  // used as they are, those it lacks are created (SPEC §16).
  const subflowNrIds = new Set(input.flows.filter((n) => n.type === "subflow" && typeof n.id === "string").map((n) => String(n.id)));
  const insideSubflow = (n: NrNode) => typeof n.z === "string" && subflowNrIds.has(n.z);
  const inTab = (n: NrNode) => !insideSubflow(n) && (!tab || n.z === undefined || n.z === tab.id);
  const allCanvas = canvasNodes(input.flows, warnings, { groups: true, subflows: true });
  const nodes = allCanvas.filter(inTab);
  const groupItems = input.flows.filter((n) => n.type === "group" && typeof n.id === "string" && inTab(n));
  const ids = nodes.map((n) => String(n.id));
  const takenElsewhere = new Set(
    (
      await app.db.prisma.flowNode.findMany({
        where: { organizationId: principal.organizationId, nodeId: { in: ids }, NOT: { flowId: input.id } },
        select: { nodeId: true },
      })
    ).map((t) => t.nodeId),
  );
  const rename = new Map<string, string>();
  const seen = new Set<string>();
  for (const id of ids) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(id) || takenElsewhere.has(id) || seen.has(id)) rename.set(id, freshId());
    seen.add(rename.get(id) ?? id);
  }
  for (const [from, to] of rename) warnings.push(`node ${from} was renamed ${to}: ${takenElsewhere.has(from) ? "its id is used by another flow of this organization" : "its id is not allowed or repeated"}`);
  for (const g of input.flows.filter((n) => n.type === "group" && typeof n.id === "string")) if (!VALID_NODE_ID.test(String(g.id))) rename.set(String(g.id), freshId());
  for (const n of allCanvas.filter(insideSubflow)) if (!VALID_NODE_ID.test(String(n.id))) rename.set(String(n.id), freshId());
  const newId = (id: string) => rename.get(id) ?? id;
  const { subflowIds, newSubflows, checked } = await importSubflows(app, principal.organizationId, input.flows, allCanvas, newId, warnings, [], "use");
  const graph = convertNodeRedNodes(app.nodes, nodes, newId, warnings, [], subflowIds);
  const groups = groupsFromNodeRed(groupItems, newId, new Set(graph.nodes.map((n) => n.id)), warnings);
  // Checked as the update will check it before the new definitions are written: a 4xx writes nothing.
  validateGraph(app.nodes, { nodes: graph.nodes, connections: graph.connections, groups }, { kind: "flow", subflows: checked.ports });
  const created = await insertSubflows(app, principal, newSubflows, checked.graphs, meta);
  try {
    const result = await updateFlow(
      app,
      principal,
      {
        id: input.id,
        ...(tab ? { name: String(tab.label ?? "").trim() || undefined, description: typeof tab.info === "string" ? tab.info.slice(0, 10_000) : undefined } : {}),
        nodes: graph.nodes,
        connections: graph.connections,
        groups,
        revision: input.revision,
      },
      meta,
    );
    return { ...result, warnings };
  } catch (err) {
    await removeSubflows(app, principal.organizationId, created.map((d) => d.id));
    throw err;
  }
}
