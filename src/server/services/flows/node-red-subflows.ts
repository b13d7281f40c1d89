import type { NodeRegistry } from "../../nodes/registry";
import type { AppServices } from "../../app-services";
import { validationError } from "../../errors";
import { subflowIdOfType } from "../../../shared/subflows";
import { checkDefinitions, definitionIndex, subflowsByIds, type DefinitionIndex, type NewSubflow } from "../subflows/subflows";
import { createSubflowInput } from "../subflows/subflow.schemas";
import type { Connection, FlowNode } from "../../../shared/flow-graph";
import { SUBFLOW_IN_TYPE, SUBFLOW_OUT_TYPE, SUBFLOW_STATUS_TYPE, type FlowGroup, type SubflowEnvEntry } from "../../../shared/subflows";
import { canvasToNodeRed, convertNodeRedNodes, envEntryFromNodeRed, freshId, liftUnknownNode, nodeRedSubflowOutputs, type ConfigNodeMapping, type ImportReportEntry } from "./node-red-mapping";
import { fromNodeRedPosition, toNodeRedPosition } from "../../../shared/node-red-canvas";
import { groupsFromNodeRed } from "./node-red-groups";

type NrNode = Record<string, unknown>;

/** A definition as the mapping sees it (the row's fields, or SubflowView's). */
export interface DefinitionGraph {
  id: string;
  name: string;
  description: string;
  category: string;
  color: string;
  icon: string | null;
  env: SubflowEnvEntry[];
  nodes: FlowNode[];
  connections: Connection[];
  groups: FlowGroup[];
}

/** The ids our port nodes get in a definition imported from Node-RED (whose ports have none). */
export const portNodeIds = (subflowId: string) => ({
  in: `${subflowId}-in`,
  out: (port: number) => `${subflowId}-out${port}`,
  status: `${subflowId}-status`,
});

/**
 * A definition as Node-RED writes it: the `subflow` node (its in, out and status ports with their
 * positions and wires, env, category, color, info, icon), then its groups and nodes (z = its id).
 * A wire from the input straight to an output is Node-RED's `{id: <subflow id>, port: 0}`.
 */
export function subflowToNodeRed(registry: NodeRegistry, def: DefinitionGraph, portsOf: (node: FlowNode) => number): NrNode[] {
  const byId = new Map(def.nodes.map((n) => [n.id, n]));
  const input = def.nodes.find((n) => n.type === SUBFLOW_IN_TYPE);
  const outputs = def.nodes.filter((n) => n.type === SUBFLOW_OUT_TYPE).sort((a, b) => Number(a.config.port) - Number(b.config.port));
  const status = def.nodes.find((n) => n.type === SUBFLOW_STATUS_TYPE);
  const source = (c: Connection) => (byId.get(c.source)?.type === SUBFLOW_IN_TYPE ? { id: def.id, port: 0 } : { id: c.source, port: c.source_port });
  const into = (port: FlowNode) => def.connections.filter((c) => c.target === port.id).map(source);
  const definition: NrNode = {
    id: def.id,
    type: "subflow",
    name: def.name,
    info: def.description,
    category: def.category,
    in: input ? [{ ...toNodeRedPosition(input.position), wires: def.connections.filter((c) => c.source === input.id && byId.get(c.target)?.type !== SUBFLOW_OUT_TYPE && byId.get(c.target)?.type !== SUBFLOW_STATUS_TYPE).map((c) => ({ id: c.target })) }] : [],
    out: outputs.map((o) => ({ ...toNodeRedPosition(o.position), wires: into(o) })),
    env: def.env,
    meta: {},
    color: def.color,
    ...(def.icon ? { icon: def.icon } : {}),
    ...(status ? { status: { ...toNodeRedPosition(status.position), wires: into(status) } } : {}),
  };
  return [definition, ...canvasToNodeRed(registry, def.id, def, portsOf)];
}

/**
 * A Node-RED `subflow` and the nodes and groups inside it (z = its id) → a definition's fields:
 * its ports become subflow-in / subflow-out / subflow-status nodes at the ports' positions, wired
 * as the ports were. `newId` renames inner ids that are not valid here; `subflows` maps the
 * instances inside it to definitions (nested subflows).
 */
export function subflowFromNodeRed(
  registry: NodeRegistry,
  item: NrNode,
  ourId: string,
  inner: NrNode[],
  innerGroups: NrNode[],
  newId: (id: string) => string,
  subflows: ReadonlyMap<string, string>,
  warnings: string[],
  report: ImportReportEntry[],
  configNodes?: ConfigNodeMapping,
  /** Outputs of the definitions its instances may name (ours → count), for their boxes' height. */
  subflowOutputs?: ReadonlyMap<string, number>,
) {
  const nrId = String(item.id);
  const graph = convertNodeRedNodes(registry, inner, newId, warnings, report, subflows, { configNodes, subflowOutputs });
  const ports = portNodeIds(ourId);
  const local = new Set(graph.nodes.map((n) => n.id));
  const at = (p: unknown) => {
    const o = (p ?? {}) as { x?: unknown; y?: unknown };
    return fromNodeRedPosition(o.x, o.y);
  };
  const nodes: FlowNode[] = [];
  const connections: Connection[] = [...graph.connections];
  // A wire named by the ports: `{id}` (into a node) or `{id, port}` (out of a node, or of the input when id is the subflow's).
  const sourceOf = (w: { id?: unknown; port?: unknown }) => {
    const id = String(w.id);
    if (id === nrId) return { source: ports.in, source_port: 0 };
    const source = newId(id);
    return local.has(source) ? { source, source_port: Number(w.port ?? 0) || 0 } : null;
  };
  const wiresOf = (p: unknown) => (Array.isArray((p as { wires?: unknown })?.wires) ? ((p as { wires: unknown[] }).wires as Array<{ id?: unknown; port?: unknown }>) : []);
  const inputs = Array.isArray(item.in) ? item.in : [];
  if (inputs.length > 0) {
    nodes.push({ id: ports.in, type: SUBFLOW_IN_TYPE, name: "", position: at(inputs[0]), config: {}, disabled: false });
    for (const w of wiresOf(inputs[0])) {
      const target = newId(String(w.id));
      if (local.has(target)) connections.push({ source: ports.in, source_port: 0, target });
    }
  }
  (Array.isArray(item.out) ? item.out : []).forEach((out, port) => {
    nodes.push({ id: ports.out(port), type: SUBFLOW_OUT_TYPE, name: "", position: at(out), config: { port }, disabled: false });
    for (const w of wiresOf(out)) {
      const from = sourceOf(w);
      if (from) connections.push({ ...from, target: ports.out(port) });
    }
  });
  if (item.status && typeof item.status === "object") {
    nodes.push({ id: ports.status, type: SUBFLOW_STATUS_TYPE, name: "", position: at(item.status), config: {}, disabled: false });
    for (const w of wiresOf(item.status)) {
      const from = sourceOf(w);
      if (from) connections.push({ ...from, target: ports.status });
    }
  }
  const allNodes = [...nodes, ...graph.nodes];
  const groups = groupsFromNodeRed(innerGroups, newId, new Set(allNodes.map((n) => n.id)), warnings);
  for (const g of innerGroups) report.push({ node_id: String(g.id), type: "group", support: "supported" });
  report.push({ node_id: nrId, type: "subflow", support: "supported" });
  return {
    id: ourId,
    name: (typeof item.name === "string" && item.name.trim()) || "Subflow",
    description: typeof item.info === "string" ? item.info.slice(0, 10_000) : "",
    ...(typeof item.category === "string" && item.category.trim() ? { category: item.category } : {}),
    ...(typeof item.color === "string" && /^#[0-9A-Fa-f]{6}$/.test(item.color) ? { color: item.color } : {}),
    ...(typeof item.icon === "string" && item.icon ? { icon: item.icon } : {}),
    env: Array.isArray(item.env) ? item.env.map((e) => envEntryFromNodeRed(e, configNodes?.ids)) : [],
    nodes: allNodes,
    connections,
    groups,
  };
}

/** A definition id an instance type can carry (`subflow:<id>` is at most 64 characters). */
const SUBFLOW_ID = /^[A-Za-z0-9_-]{1,56}$/;

/** JSON with keys sorted: stored definitions come back from JSONB with their keys reordered. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o).filter((k) => o[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/** Whether a definition from the file is the organization's as it is (an export of it, imported again). */
function sameDefinition(registry: NodeRegistry, existing: DefinitionGraph, candidate: NewSubflow): boolean {
  const pick = (d: DefinitionGraph | NewSubflow) => ({
    name: d.name,
    description: d.description,
    category: d.category,
    color: d.color,
    icon: d.icon ?? null,
    env: d.env,
    // A stored unknown node from before descriptions and appearance were lifted out of its properties compares as an import makes it now.
    nodes: d.nodes.map((given) => liftUnknownNode(registry, { ...given, config: given.config ?? {} })).map((n) => ({ id: n.id, type: n.type, name: n.name ?? "", position: n.position, config: n.config ?? {}, disabled: n.disabled ?? false, description: n.description || undefined, appearance: n.appearance })),
    connections: d.connections.map((c) => ({ source: c.source, source_port: c.source_port ?? 0, target: c.target })),
    groups: d.groups,
  });
  return canonical(pick(existing)) === canonical(pick(candidate));
}

/**
 * The subflow definitions of a Node-RED file (SPEC §16), children before the definitions that
 * nest them, each decided in turn:
 * - the organization has none by its id: it becomes one, keeping the id (a fresh one when the id
 *   cannot be ours);
 * - the organization has the same definition (an export of it, imported again): that one is used;
 * - the organization has a different one by that id: `copy` (import) makes a new definition with a
 *   fresh id and says so; `use` (a flow pushed back from a pull) uses the organization's and says
 *   the file's was not applied.
 * Instances anywhere in the file follow (`subflowIds`: Node-RED id → ours, the organization's
 * definitions that instances name included). Every new definition is checked (ports, configs,
 * nesting, depth) before anything is written; `checked.ports` are what the file's flows are
 * validated against.
 */
export async function importSubflows(
  app: AppServices,
  organizationId: string,
  items: NrNode[],
  canvas: NrNode[],
  newId: (id: string) => string,
  warnings: string[],
  report: ImportReportEntry[],
  mode: "copy" | "use",
  configNodes?: ConfigNodeMapping,
) {
  const existing = new Map((await subflowsByIds(app, organizationId, subflowIdsNamed(items, canvas))).map((d) => [d.id, d]));
  const organization: OrganizationSubflows = { existing, index: await definitionIndex(app.db.prisma, organizationId), configNodes };
  return mapSubflows(app.nodes, organization, items, canvas, newId, warnings, report, mode);
}

/** The organization's definitions as the import's mapping needs them (what importSubflows reads from the database). */
export interface OrganizationSubflows {
  /** Those the file names (its definitions' ids and its instances' types), whole. */
  existing: ReadonlyMap<string, DefinitionGraph>;
  /** All of them, as the nesting and port checks see them. */
  index: ReadonlyMap<string, DefinitionIndex>;
  /** The configuration nodes the definitions' nodes may name (the organization's and the file's, SPEC §19). */
  configNodes?: ConfigNodeMapping;
}

/** An organization without subflow definitions. */
export const NO_SUBFLOWS: OrganizationSubflows = { existing: new Map(), index: new Map() };

/** The definition ids a file names (its definitions and its instances' types) that can be ours. */
export function subflowIdsNamed(items: NrNode[], canvas: NrNode[]): string[] {
  const nrIds = items.filter((n) => n.type === "subflow" && typeof n.id === "string").map((n) => String(n.id));
  const instanceRefs = canvas.flatMap((n) => (typeof n.type === "string" && subflowIdOfType(n.type) !== null ? [subflowIdOfType(n.type)!] : []));
  return [...new Set([...nrIds, ...instanceRefs])].filter((id) => SUBFLOW_ID.test(id));
}

/**
 * importSubflows without the database (the organization's definitions given): the import's own
 * mapping of a file's subflows, which the differential harness runs too.
 */
export function mapSubflows(
  registry: NodeRegistry,
  organization: OrganizationSubflows,
  items: NrNode[],
  canvas: NrNode[],
  newId: (id: string) => string,
  warnings: string[],
  report: ImportReportEntry[],
  mode: "copy" | "use",
) {
  const subflowItems = items.filter((n) => n.type === "subflow" && typeof n.id === "string");
  const nrIds = new Set(subflowItems.map((n) => String(n.id)));
  const existing = organization.existing;
  const subflowIds = new Map<string, string>();
  for (const id of existing.keys()) subflowIds.set(id, id);

  // Children first: a definition is the same as the organization's only if what it nests is.
  const usesOf = (nrId: string) => canvas.filter((n) => n.z === nrId).flatMap((n) => (typeof n.type === "string" && nrIds.has(subflowIdOfType(n.type) ?? "") ? [subflowIdOfType(n.type)!] : []));
  const ordered: NrNode[] = [];
  const placed = new Set<string>();
  const place = (item: NrNode, path: Set<string>) => {
    const id = String(item.id);
    if (placed.has(id) || path.has(id)) return;
    path.add(id);
    for (const child of usesOf(id)) place(subflowItems.find((s) => String(s.id) === child)!, path);
    placed.add(id);
    ordered.push(item);
  };
  for (const item of subflowItems) place(item, new Set());

  // Until decided, a definition the organization lacks goes by its own id (a fresh one when it cannot be ours).
  for (const nrId of nrIds) if (!existing.has(nrId)) subflowIds.set(nrId, SUBFLOW_ID.test(nrId) ? nrId : freshId());

  const convert = (item: NrNode, ourId: string) => {
    const nrId = String(item.id);
    const said = { warnings: [] as string[], report: [] as ImportReportEntry[] };
    const fields = subflowFromNodeRed(
      registry,
      item,
      ourId,
      canvas.filter((n) => n.z === nrId),
      items.filter((n) => n.type === "group" && n.z === nrId),
      newId,
      subflowIds,
      said.warnings,
      said.report,
      organization.configNodes,
      nodeRedSubflowOutputs(items, subflowIds, organization.index),
    );
    const parsed = createSubflowInput.safeParse(fields);
    if (!parsed.success) throw validationError(parsed.error.issues.map((issue) => ({ ...issue, path: ["subflows", subflowItems.indexOf(item), ...issue.path] })));
    return { def: { ...parsed.data, id: ourId }, ...said };
  };

  const newSubflows: NewSubflow[] = [];
  for (const item of ordered) {
    const nrId = String(item.id);
    const mine = existing.get(nrId);
    let converted = convert(item, mine ? nrId : subflowIds.get(nrId)!);
    if (mine) {
      let probe: NewSubflow | null;
      try {
        probe = { ...converted.def, ...checkDefinitions(registry, organization.index, [converted.def], organization.configNodes?.types).graphs[0]! };
      } catch {
        probe = null;
      }
      const same = probe !== null && sameDefinition(registry, mine, probe);
      if (same || mode === "use") {
        subflowIds.set(nrId, nrId);
        report.push(...converted.report);
        if (!same) warnings.push(`subflow ${nrId} is the organization's already; the file's definition of it was not applied (change it with PUT /subflows/${nrId})`);
        continue;
      }
      subflowIds.set(nrId, freshId());
      warnings.push(`subflow ${nrId} was imported as ${subflowIds.get(nrId)}: the organization has a different subflow by that id`);
      converted = convert(item, subflowIds.get(nrId)!);
    } else if (subflowIds.get(nrId) !== nrId) {
      warnings.push(`subflow ${nrId} was imported as ${subflowIds.get(nrId)}: subflow ids here are 1-56 letters, digits, _ or -`);
    }
    warnings.push(...converted.warnings);
    report.push(...converted.report);
    newSubflows.push(converted.def);
  }
  const checked = checkDefinitions(registry, organization.index, newSubflows, organization.configNodes?.types);
  return { subflowIds, newSubflows, checked, subflowOutputs: nodeRedSubflowOutputs(items, subflowIds, organization.index) };
}
