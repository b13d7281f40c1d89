import { annotateReport, translateDashboard1, uniquePagePaths } from "./dashboard1";
import type { AppServices } from "../../app-services";
import { AppError } from "../../errors";
import type { Principal } from "../../auth/principal";
import type { NodeRegistry } from "../../nodes/registry";
import type { Connection, FlowNode } from "../../../shared/flow-graph";
import { requireDevice } from "../devices/devices";
import type { RequestMeta } from "../request-meta";
import { flowView, graphContext, insertFlows, readFlow, updateFlow, validateGraphs } from "./flows";
import { clipboardSelection, createFlowInput, type CreateFlowInput } from "./flow.schemas";
import { subflowPortsOf, validateGraph } from "./validate-graph";
import { validationError } from "../../errors";
import { flowVariablesAsNodeRedEnv, importFlowVariables } from "../variables/variables";
import { groupsFromNodeRed } from "./node-red-groups";
import { importSubflows, mapSubflows, subflowIdsNamed, subflowToNodeRed, type OrganizationSubflows } from "./node-red-subflows";
import {
  canvasNodes,
  configIdsNamed,
  configNodeToNodeRed,
  convertNodeRedNodes,
  freshId,
  isConfigItem,
  mapConfigNodes,
  MAX_IMPORT_FLOWS,
  nodeRedSubflowOutputs,
  NO_CONFIG_NODES,
  portsLookup,
  toNodeRed,
  type ImportReportEntry,
  type NrNode,
  type OrganizationConfigNodes,
  expandGroupScopes,
} from "./node-red-mapping";
import { applyImportedConfigNodes, configNodesForExport, organizationConfigNodes, removeConfigNodes } from "../config-nodes/import-config-nodes";
import { definitionIndex, insertSubflows, removeSubflows, subflowsByIds } from "../subflows/subflows";
import { usedSubflowIds } from "../subflows/subflow-ports";
import { subflowIdOfType, type SubflowView } from "../../../shared/subflows";
import { NAME_MAX_CHARS } from "../../../shared/policy";
import { outboundAllowsPrivate } from "../../../env";
import { privateTargetWarnings } from "./private-targets";

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
  return [tab!, ...subflows, ...(await usedConfigNodes(app, principal.organizationId, [...flow.nodes, ...definitions.flatMap((d) => d.nodes)])), ...nodes];
}

/**
 * The configuration nodes the nodes name, and those they name in turn, as Node-RED writes them
 * (SPEC §19): without credentials, so the file imports into another Node-RED or organization.
 */
async function usedConfigNodes(app: AppServices, organizationId: string, nodes: FlowNode[]) {
  const all = await configNodesForExport(app, organizationId);
  if (all.length === 0) return [];
  const byId = new Map(all.map((c) => [c.id, c]));
  const known = new Set(byId.keys());
  const used = new Set<string>();
  for (let next = [...configIdsNamed(app.nodes, nodes, known)]; next.length > 0; ) {
    for (const id of next) used.add(id);
    next = [...configIdsNamed(app.nodes, next.map((id) => byId.get(id)!), known)].filter((id) => !used.has(id));
  }
  // In the organization's order of creation: a file imported and exported again keeps its order.
  return all.filter((c) => used.has(c.id)).map((c) => configNodeToNodeRed(app.nodes, c));
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
export function nodeRedToSelection(
  registry: NodeRegistry,
  items: NrNode[],
  /** The organization's definitions the items name, by id: their ports (an instance is as tall as its definition's outputs). */
  subflows: ReadonlyMap<string, { ports: { outputs: number } }> = new Map(),
) {
  const warnings: string[] = [];
  // Subflow definitions the organization has are the ones its instances paste as; one it lacks is said (importing the file creates it).
  const nodes = canvasNodes(items.filter((n) => !(n.type === "subflow" && subflows.has(String(n.id)))), warnings, { subflows: true })
    .filter((n) => !items.some((s) => s.type === "subflow" && s.id === n.z));
  for (const n of items) if (n.type === "subflow" && !subflows.has(String(n.id))) warnings.push(`subflow ${String(n.id)} is not in this organization; import the file to create it (its instances are pasted as unknown nodes)`);
  const rename = new Map<string, string>();
  for (const n of nodes) if (!VALID_NODE_ID.test(String(n.id))) rename.set(String(n.id), freshId());
  const ids = new Map([...subflows.keys()].map((id) => [id, id]));
  const graph = convertNodeRedNodes(registry, nodes, (id) => rename.get(id) ?? id, warnings, [], ids, { subflowOutputs: nodeRedSubflowOutputs(items, ids, subflows) });
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
  const known = new Map((await subflowsByIds(app, principal.organizationId, [...new Set(named)])).map((d) => [d.id, { ports: subflowPortsOf(d.nodes) }]));
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
export async function importFlows(app: AppServices, principal: Principal, items: NrNode[], meta: RequestMeta, options: { dryRun?: boolean; targetDevice?: string } = {}) {
  // For a device (SPEC §22): the types it reported run there, so they are supported and kept enabled.
  const device = options.targetDevice ? await requireDevice(app, principal.organizationId, options.targetDevice) : null;
  const deviceTypes = new Set(device?.nodeTypes ?? []);
  // What the mapping needs of the organization: the node ids it uses, and its subflow definitions.
  const candidates = items.flatMap((n) => (typeof n.id === "string" && VALID_NODE_ID.test(n.id) ? [n.id] : []));
  const takenNodeIds = new Set(
    (await app.db.prisma.flowNode.findMany({ where: { organizationId: principal.organizationId, nodeId: { in: candidates } }, select: { nodeId: true } })).map((t) => t.nodeId),
  );
  const canvas = canvasNodes(items, [], { groups: true, subflows: true });
  const existing = new Map((await subflowsByIds(app, principal.organizationId, subflowIdsNamed(items, canvas))).map((d) => [d.id, d]));
  const organization: OrganizationSubflows = { existing, index: await definitionIndex(app.db.prisma, principal.organizationId) };
  const configNodes = await organizationConfigNodes(app, principal);
  const mapped = mapNodeRedImport(app.nodes, items, { takenNodeIds, subflows: organization, configNodes });
  const { inputTabs, newSubflows, checkedSubflows, configPlan } = mapped;
  let { warnings, report, inputs, graphs } = mapped;
  if (device) {
    const onDevice = (type: string) => deviceTypes.has(type);
    const reason = `runs on the device ${device.name} (${device.id})`;
    report = report.map((r) => (r.support === "unsupported" && onDevice(r.type) ? { node_id: r.node_id, type: r.type, support: "supported" as const, reason } : r));
    warnings = warnings.filter((w) => ![...deviceTypes].some((t) => w.includes(`type ${t} is`)));
    const enable = (n: FlowNode): FlowNode => (n.type === "unknown" && onDevice((n.config as { original_type: string }).original_type) ? { ...n, disabled: false } : n);
    graphs = graphs.map((g) => ({ ...g, nodes: g.nodes.map(enable) }));
    inputs = inputs.map((input) => ({ ...input, target: { device_id: device.id } }));
  }
  // Addresses on a private network this server will not reach (a device's flow reaches its own network):
  // first, as what would not work after the import, before the notes on what was translated.
  if (!device && !outboundAllowsPrivate(app.config.env)) warnings = [...privateTargetWarnings(items), ...warnings];
  if (options.dryRun) return { report, warnings };
  // Configuration nodes first: the flows and definitions name them.
  const applied = await applyImportedConfigNodes(app, principal, configPlan, meta);
  let subflows: Awaited<ReturnType<typeof insertSubflows>> = [];
  let created: Awaited<ReturnType<typeof insertFlows>>;
  try {
    subflows = await insertSubflows(app, principal, newSubflows, checkedSubflows.graphs, meta);
    const target = device ? { targetDeviceId: device.id, targetDeviceTag: null } : undefined;
    created = await insertFlows(app, principal, inputs.map((input, i) => ({ input, graph: graphs[i]!, target })), meta);
  } catch (err) {
    // All or nothing: the definitions and configuration nodes imported with flows that could not be written go too.
    await removeSubflows(app, principal.organizationId, subflows.map((s) => s.id));
    await removeConfigNodes(app, principal.organizationId, applied.created);
    throw err;
  }
  // Each tab's env becomes its flow's variables (SPEC §14).
  for (const [i, flow] of created.entries()) {
    const tab = inputTabs[i];
    if (tab) await importFlowVariables(app, principal, flow.id, tab, meta, warnings);
  }
  return { flows: created, subflows: subflows.map((s) => ({ id: s.id, name: s.name, revision: s.revision })), config_nodes: applied.config_nodes, warnings };
}

/**
 * A websocket-listener whose path is a ws:// or wss:// URL is a client in Node-RED (its 0.x form:
 * 22-websocket.js runs one node type for both and asks `isServer` of the path): it comes in as the
 * websocket-client it is, and the websocket in/out nodes naming it as their `server` name it as
 * their `client`.
 */
function legacySocketClients(items: NrNode[], warnings: string[]): NrNode[] {
  const clients = new Set(items.filter((n) => n.type === "websocket-listener" && typeof n.path === "string" && /^wss?:\/\//i.test(n.path.trim())).map((n) => String(n.id)));
  if (clients.size === 0) return items;
  for (const id of clients) warnings.push(`configuration node ${id.slice(0, 80)}: a websocket-listener with a ws:// path is a client in Node-RED; imported as a websocket-client`);
  return items.map((n) => {
    if (clients.has(String(n.id)) && n.type === "websocket-listener") return { ...n, type: "websocket-client", path: String(n.path).trim() };
    if ((n.type === "websocket in" || n.type === "websocket out") && typeof n.server === "string" && clients.has(n.server) && !n.client) return { ...n, client: n.server, server: "" };
    return n;
  });
}

/**
 * The import's mapping of a Node-RED flows.json, without the database (importFlows reads what it
 * needs of the organization first): one flow per tab (nodes without a tab go to an "Imported"
 * flow) with its nodes, wires and groups, each checked exactly as create checks it, and the subflow
 * definitions to create, checked as POST /subflows checks them. Ids that are not valid here, used
 * by the organization (`takenNodeIds`) or repeated get fresh ones, and every reference follows.
 * The differential harness runs Node-RED's flows through this too.
 */
export function mapNodeRedImport(
  registry: NodeRegistry,
  given: NrNode[],
  organization: { takenNodeIds: ReadonlySet<string>; subflows: OrganizationSubflows; configNodes?: OrganizationConfigNodes },
) {
  const warnings: string[] = [];
  // Node-RED's import keeps the first of items that share an id and drops the others (its fix for
  // files that 0.20 saved twice over): so does ours, and says so.
  const seen = new Set<string>();
  const dropped = new Map<string, number>();
  const unique = given.filter((n) => {
    if (!n || typeof n !== "object" || n.id === undefined || n.id === null) return true;
    const id = String(n.id);
    if (!seen.has(id)) {
      seen.add(id);
      return true;
    }
    dropped.set(id, (dropped.get(id) ?? 0) + 1);
    return false;
  });
  for (const [id, count] of dropped) {
    warnings.push(`id ${id.slice(0, 80)} appears ${count + 1} times: the first is imported and the ${count === 1 ? "other is" : `other ${count} are`} left out, as Node-RED's import does`);
  }
  // Dashboard 1's ui_* nodes come in as Dashboard 2.0's (SPEC §21), said per node and per type.
  const dashboard1 = translateDashboard1(legacySocketClients(unique, warnings));
  warnings.push(...dashboard1.warnings);
  const items = expandGroupScopes(dashboard1.items, warnings);
  const report: ImportReportEntry[] = [];
  // Configuration nodes first (SPEC §19): the nodes of tabs and definitions name them by their new ids.
  const { planned: configPlan, mapping: configNodes } = mapConfigNodes(registry, items, organization.configNodes ?? NO_CONFIG_NODES, warnings, report);
  uniquePagePaths(configPlan, organization.configNodes, warnings);
  const tabs = items.filter((n) => n.type === "tab");
  // Subflow definitions (SPEC §16): their nodes and groups (z = the subflow's id) are theirs, not a flow's.
  const subflowItems = items.filter((n) => n.type === "subflow" && typeof n.id === "string");
  const subflowNrIds = new Set(subflowItems.map((n) => String(n.id)));
  const insideSubflow = (n: NrNode) => typeof n.z === "string" && subflowNrIds.has(n.z);
  const allCanvas = canvasNodes(items, warnings, { groups: true, subflows: true });
  const graphNodes = allCanvas.filter((n) => !insideSubflow(n));
  const groupItems = items.filter((n) => n.type === "group" && typeof n.id === "string" && !insideSubflow(n));
  if (tabs.length === 0 && graphNodes.length === 0 && subflowItems.length === 0 && !items.some(isConfigItem)) {
    throw new AppError("VALIDATION_FAILED", "flows: no tab and no nodes to import", { details: [{ path: "flows", message: "no tab and no nodes to import" }] });
  }

  const ids = graphNodes.map((n) => String(n.id));
  const taken = organization.takenNodeIds;
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

  const { subflowIds, newSubflows, checked: checkedSubflows, subflowOutputs } = mapSubflows(registry, { ...organization.subflows, configNodes }, items, allCanvas, newId, warnings, report, "copy");

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
    const { nodes: flowNodes, connections } = convertNodeRedNodes(registry, nodes, newId, warnings, report, subflowIds, { configNodes, subflowOutputs });
    const flowGroups = groupsFromNodeRed(tabGroups, newId, new Set(flowNodes.map((n) => n.id)), warnings);
    for (const g of tabGroups) report.push({ node_id: String(g.id), type: "group", support: "supported" });
    for (const n of nodes) if (typeof n.id === "string" && rename.has(n.id)) warnings.push(`node ${n.id} was renamed ${newId(n.id)}: ${renameReason.get(n.id)}`);
    const name = tab ? String(tab.label ?? "Imported flow") || "Imported flow" : "Imported flow";
    const parsed = createFlowInput.safeParse({ name: name.slice(0, NAME_MAX_CHARS), description: tab && typeof tab.info === "string" ? tab.info.slice(0, 10_000) : "", enabled: tab ? tab.disabled !== true : true, nodes: flowNodes, connections, groups: flowGroups });
    if (!parsed.success) throw validationError(parsed.error.issues.map((issue) => ({ ...issue, path: ["flows", inputs.length, ...issue.path] })));
    inputs.push(parsed.data);
  }
  const graphs = validateGraphs(registry, inputs, "flows", { kind: "flow", subflows: checkedSubflows.ports, configNodes: configNodes.types });
  annotateReport(report, dashboard1.notes);
  return { warnings, report, inputs, inputTabs, graphs, newSubflows, checkedSubflows, subflowIds, configPlan };
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
  rawInput: { id: string; flows: NrNode[]; revision?: number },
  meta: RequestMeta,
) {
  const dashboard1 = translateDashboard1(rawInput.flows);
  const input = { ...rawInput, flows: dashboard1.items };
  const warnings: string[] = [...dashboard1.warnings];
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
  const organizationConfig = await organizationConfigNodes(app, principal);
  const { planned: configPlan, mapping: configNodes } = mapConfigNodes(app.nodes, input.flows, organizationConfig, warnings, []);
  uniquePagePaths(configPlan, organizationConfig, warnings);
  const { subflowIds, newSubflows, checked, subflowOutputs } = await importSubflows(app, principal.organizationId, input.flows, allCanvas, newId, warnings, [], "use", configNodes);
  const graph = convertNodeRedNodes(app.nodes, nodes, newId, warnings, [], subflowIds, { configNodes, subflowOutputs });
  const groups = groupsFromNodeRed(groupItems, newId, new Set(graph.nodes.map((n) => n.id)), warnings);
  // Checked as the update will check it before the new definitions are written: a 4xx writes nothing.
  validateGraph(app.nodes, { nodes: graph.nodes, connections: graph.connections, groups }, { kind: "flow", subflows: checked.ports, configNodes: configNodes.types });
  const applied = await applyImportedConfigNodes(app, principal, configPlan, meta);
  let created: Awaited<ReturnType<typeof insertSubflows>> = [];
  try {
    created = await insertSubflows(app, principal, newSubflows, checked.graphs, meta);
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
    await removeConfigNodes(app, principal.organizationId, applied.created);
    throw err;
  }
}
