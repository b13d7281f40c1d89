import { randomHex } from "../../ids";
import type { NodeRegistry } from "../../nodes/registry";
import { inputCount, outputCount, type NodeDefinition } from "../../nodes/types";
import { configRefProperties } from "../../nodes/config-refs";
import { liftUnknownNode } from "./node-red-mapping";
import { AppError, type ErrorDetail } from "../../errors";
import { normalizeAppearance, type Connection, type FlowGraph, type FlowNode, type NodeAppearance } from "../../../shared/flow-graph";
import {
  groupSchema,
  JUNCTION_TYPE,
  isSubflowInstanceType,
  subflowIdOfType,
  subflowInstanceConfigSchema,
  SUBFLOW_IN_TYPE,
  SUBFLOW_OUT_TYPE,
  SUBFLOW_PORT_TYPES,
  SUBFLOW_STATUS_TYPE,
  type FlowGroup,
} from "../../../shared/subflows";

interface GraphInput {
  nodes: Array<{ id?: string; type: string; name: string; position: { x: number; y: number }; config: Record<string, unknown>; disabled: boolean; description?: string; appearance?: NodeAppearance }>;
  connections: Array<{ source: string; source_port: number; target: string }>;
  groups?: unknown[];
}

/** The ports of a subflow definition, as an instance of it shows them. */
export interface SubflowPorts {
  name: string;
  inputs: number;
  outputs: number;
}

export interface GraphContext {
  /**
   * The organization's subflow definitions, by id: a `subflow:<id>` node is accepted when its
   * definition is here, and its ports are the definition's. Without it, no instance is accepted.
   */
  subflows?: ReadonlyMap<string, SubflowPorts>;
  /**
   * What the graph is: a flow (the subflow port types are refused) or a subflow definition (port
   * nodes allowed: at most one subflow-in, subflow-out ports 0..n-1 once each, at most one subflow-status).
   */
  kind?: "flow" | "subflow";
  /**
   * The organization's configuration nodes, id → type (SPEC §19): a property that names one must
   * name one of its type here, or be "". Absent: none exists, so only "" is accepted.
   */
  configNodes?: ReadonlyMap<string, string>;
  /**
   * A graph saved or deployed earlier, validated again to run it (deploy, redeploy, rollback): a
   * wire into a node whose configuration closes its input (an mqtt in without dynamic subscription,
   * which had its port always until 2026-12-06) is kept, as Node-RED's runtime delivers on such a
   * wire, instead of refusing a flow that ran. A save or an import refuses it.
   */
  stored?: boolean;
}

const PORT_TYPES = new Set<string>(SUBFLOW_PORT_TYPES);

/**
 * A node's description as stored: absent when there is none (blank is none), and for the types
 * that cannot show or export one: a comment (its text is its configuration), a junction, a
 * subflow's port nodes (Node-RED writes them as the definition's in/out/status, without info).
 */
const described = (type: string, description: string | undefined) => (description?.trim() && !UNDESCRIBED.has(type) ? { description } : {});
const UNDESCRIBED: ReadonlySet<string> = new Set(["comment", JUNCTION_TYPE, ...SUBFLOW_PORT_TYPES]);

/**
 * A node's appearance as stored: port labels for the ports it has (a function whose outputs went
 * from three to one keeps one label, as Node-RED's editor realigns them), a `show_label` that says
 * the type's default left out, absent when nothing is left.
 */
function appeared(type: string, appearance: NodeAppearance | undefined, ports: { inputs: number; outputs: number }, labelHidden: boolean): { appearance?: NodeAppearance } {
  // A junction and a subflow's port nodes have no label, icon or port labels to show.
  if (!appearance || type === JUNCTION_TYPE || (SUBFLOW_PORT_TYPES as readonly string[]).includes(type)) return {};
  const a = normalizeAppearance({
    ...appearance,
    // An unknown node's type default is not known here: its `l` is kept as it came.
    show_label: type !== "unknown" && appearance.show_label === !labelHidden ? undefined : appearance.show_label,
    input_labels: appearance.input_labels?.slice(0, ports.inputs),
    output_labels: appearance.output_labels?.slice(0, ports.outputs),
  });
  return a ? { appearance: a } : {};
}

/**
 * Validates a graph and fills it in: known types, each config parsed by its type's schema (defaults
 * filled), unique node ids (generated where missing), connections between nodes of this flow on
 * ports that exist, groups whose members are in the graph. Every problem is reported with a path
 * to the node and field.
 */
export function validateGraph(registry: NodeRegistry, input: GraphInput, context: GraphContext = {}): FlowGraph & { groups: FlowGroup[] } {
  const kind = context.kind ?? "flow";
  const details: ErrorDetail[] = [];
  const nodes: FlowNode[] = [];
  const ids = new Set<string>();
  /** Ports of each accepted node: its type's definition, or its subflow definition's. */
  const ports = new Map<string, { inputs: number; outputs: number; configuredInput?: boolean }>();
  input.nodes.forEach((given, i) => {
    // An unknown node saved before its description and appearance were its own: lifted out of its properties.
    const node = liftUnknownNode(registry, given);
    const id = node.id ?? randomHex(8);
    if (ids.has(id)) details.push({ path: `nodes[${i}].id`, message: `duplicates the id ${id} of another node in this flow` });
    ids.add(id);
    if (isSubflowInstanceType(node.type)) {
      const subflowId = subflowIdOfType(node.type)!;
      const definition = context.subflows?.get(subflowId);
      if (!definition) {
        details.push({ path: `nodes[${i}].type`, message: `no subflow ${subflowId} in this organization; see GET /api/v1/subflows` });
        return;
      }
      const parsed = subflowInstanceConfigSchema.safeParse(node.config);
      if (!parsed.success) {
        pushConfigIssues(details, i, id, node.type, parsed.error.issues);
        return;
      }
      const instancePorts = { inputs: definition.inputs, outputs: definition.outputs };
      ports.set(id, instancePorts);
      nodes.push({ id, type: node.type, name: node.name, position: node.position, config: parsed.data, disabled: node.disabled, ...described(node.type, node.description), ...appeared(node.type, node.appearance, instancePorts, false) });
      return;
    }
    const definition = registry.get(node.type);
    if (!definition || (kind === "flow" && PORT_TYPES.has(node.type))) {
      details.push({
        path: `nodes[${i}].type`,
        message: definition ? `${node.type} nodes belong in a subflow definition, not in a flow` : `unknown node type ${node.type}; see GET /api/v1/nodes`,
      });
      return;
    }
    if (definition.kind === "config") {
      details.push({ path: `nodes[${i}].type`, message: `${node.type} is a configuration node: create it under /api/v1/config-nodes and name it from a node's property` });
      return;
    }
    const parsed = definition.configSchema.safeParse(node.config);
    if (!parsed.success) {
      pushConfigIssues(details, i, id, node.type, parsed.error.issues);
      return;
    }
    checkConfigRefs(definition, parsed.data as Record<string, unknown>, context.configNodes, `nodes[${i}].config`, details);
    const nodePorts = portsOf(definition, parsed.data as Record<string, unknown>);
    ports.set(id, nodePorts);
    nodes.push({
      id,
      type: node.type,
      name: node.name,
      position: node.position,
      config: parsed.data,
      disabled: node.type === "unknown" ? true : node.disabled,
      ...described(node.type, node.description),
      ...appeared(node.type, node.appearance, nodePorts, definition.labelHidden === true),
    });
  });
  if (kind === "subflow") checkPortNodes(input.nodes, details);

  const byId = new Map(nodes.map((n) => [n.id, n]));
  const connections: Connection[] = [];
  const seen = new Set<string>();
  input.connections.forEach((c, i) => {
    const source = byId.get(c.source);
    const target = byId.get(c.target);
    if (!ids.has(c.source)) details.push({ path: `connections[${i}].source`, message: `no node ${c.source} in this flow` });
    if (!ids.has(c.target)) details.push({ path: `connections[${i}].target`, message: `no node ${c.target} in this flow` });
    if (!source || !target) return;
    const outputs = ports.get(source.id)!.outputs;
    if (c.source_port >= outputs) {
      details.push({ path: `connections[${i}].source_port`, message: `node ${source.id} (${source.type}) has ${outputs} output${outputs === 1 ? "" : "s"}; port ${c.source_port} does not exist` });
      return;
    }
    const targetPorts = ports.get(target.id)!;
    if (targetPorts.inputs === 0 && !(context.stored && targetPorts.configuredInput)) {
      details.push({ path: `connections[${i}].target`, message: `node ${target.id} (${target.type}) has no input` });
      return;
    }
    const key = `${c.source}:${c.source_port}:${c.target}`;
    if (seen.has(key)) return;
    seen.add(key);
    connections.push({ source: c.source, source_port: c.source_port, target: c.target });
  });

  const groups = validateGroups(input.groups ?? [], ids, details);

  if (details.length > 0) {
    throw new AppError("VALIDATION_FAILED", `${details[0]!.path}: ${details[0]!.message}`, { details: details.slice(0, 100) });
  }
  return { nodes, connections, groups };
}

/**
 * Every property of the type marked as a configuration node reference names one of that type in
 * the organization, or is "". Another organization's id reads exactly as a missing one.
 */
export function checkConfigRefs(definition: NodeDefinition, config: Record<string, unknown>, configNodes: ReadonlyMap<string, string> | undefined, path: string, details: ErrorDetail[]) {
  for (const ref of configRefProperties(definition)) {
    const id = config[ref.property];
    if (typeof id !== "string" || id === "") continue;
    const type = configNodes?.get(id);
    if (type === ref.type) continue;
    details.push({
      path: `${path}.${ref.property}`,
      message: type === undefined ? `no ${ref.type} configuration node ${id} in this organization; see GET /api/v1/config-nodes?type=${ref.type}` : `${id} is a ${type} configuration node, not a ${ref.type}`,
    });
  }
}

function portsOf(definition: NodeDefinition, config: Record<string, unknown>) {
  return { inputs: inputCount(definition, config), outputs: outputCount(definition, config), configuredInput: typeof definition.inputs === "object" };
}

function pushConfigIssues(details: ErrorDetail[], i: number, id: string, type: string, issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>) {
  for (const issue of issues) {
    const sub = issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("");
    details.push({ path: `nodes[${i}].config${sub}`, message: `${issue.message} (node ${id}, ${type})` });
  }
}

/** A subflow definition's port nodes: at most one input, output ports 0..n-1 once each, at most one status output. */
function checkPortNodes(nodes: GraphInput["nodes"], details: ErrorDetail[]) {
  const inputs = nodes.flatMap((n, i) => (n.type === SUBFLOW_IN_TYPE ? [i] : []));
  const statuses = nodes.flatMap((n, i) => (n.type === SUBFLOW_STATUS_TYPE ? [i] : []));
  for (const i of inputs.slice(1)) details.push({ path: `nodes[${i}].type`, message: "a subflow has at most one subflow-in node" });
  for (const i of statuses.slice(1)) details.push({ path: `nodes[${i}].type`, message: "a subflow has at most one subflow-status node" });
  const byPort = new Map<number, number>();
  nodes.forEach((n, i) => {
    if (n.type !== SUBFLOW_OUT_TYPE) return;
    const port = Number(n.config.port);
    if (!Number.isInteger(port)) return; // the config schema reports it
    if (byPort.has(port)) details.push({ path: `nodes[${i}].config.port`, message: `output port ${port} is already node ${nodes[byPort.get(port)!]!.id ?? byPort.get(port)}'s` });
    else byPort.set(port, i);
  });
  const count = byPort.size;
  for (const [port, i] of byPort) {
    if (port >= count) details.push({ path: `nodes[${i}].config.port`, message: `output ports are numbered 0 to ${count - 1} (one subflow-out node each); ${port} leaves a gap` });
  }
}

/** The port counts of a definition's graph: what its instances show. */
export function subflowPortsOf(nodes: Array<{ type: string }>): { inputs: number; outputs: number; status: boolean } {
  return {
    inputs: nodes.some((n) => n.type === SUBFLOW_IN_TYPE) ? 1 : 0,
    outputs: nodes.filter((n) => n.type === SUBFLOW_OUT_TYPE).length,
    status: nodes.some((n) => n.type === SUBFLOW_STATUS_TYPE),
  };
}

/**
 * Groups (Node-RED's): unique ids that are not node ids, members that are nodes or groups of this
 * graph, each node or group in at most one group, and no group inside itself (directly or not).
 */
export function validateGroups(input: unknown[], nodeIds: ReadonlySet<string>, details: ErrorDetail[]): FlowGroup[] {
  const groups: FlowGroup[] = [];
  const at: number[] = [];
  const groupIds = new Set<string>();
  input.forEach((raw, i) => {
    const parsed = groupSchema.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const sub = issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("");
        details.push({ path: `groups[${i}]${sub}`, message: issue.message });
      }
      return;
    }
    const g = parsed.data;
    if (groupIds.has(g.id)) details.push({ path: `groups[${i}].id`, message: `duplicates the id ${g.id} of another group` });
    else if (nodeIds.has(g.id)) details.push({ path: `groups[${i}].id`, message: `${g.id} is the id of a node of this flow` });
    groupIds.add(g.id);
    groups.push(g);
    at.push(i);
  });
  const parentOf = new Map<string, string>();
  groups.forEach((g, k) => {
    const path = `groups[${at[k]}]`;
    g.nodes.forEach((member, j) => {
      if (!nodeIds.has(member) && !groupIds.has(member)) {
        details.push({ path: `${path}.nodes[${j}]`, message: `no node or group ${member} in this flow` });
        return;
      }
      if (member === g.id) {
        details.push({ path: `${path}.nodes[${j}]`, message: `group ${g.id} cannot contain itself` });
        return;
      }
      const other = parentOf.get(member);
      if (other !== undefined) {
        details.push({ path: `${path}.nodes[${j}]`, message: `${member} is already in group ${other}; a node or group is in at most one group` });
        return;
      }
      parentOf.set(member, g.id);
    });
  });
  for (const g of groups) {
    const seen = new Set<string>([g.id]);
    for (let up = parentOf.get(g.id); up !== undefined; up = parentOf.get(up)) {
      if (seen.has(up)) {
        details.push({ path: `groups`, message: `groups ${[...seen].join(", ")} contain each other` });
        break;
      }
      seen.add(up);
    }
    if (details.some((d) => d.path === "groups")) break;
  }
  return groups;
}
