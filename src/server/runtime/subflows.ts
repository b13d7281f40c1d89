import { inspect } from "node:util";
import {
  MAX_SUBFLOW_DEPTH,
  SUBFLOW_IN_TYPE,
  SUBFLOW_OUT_TYPE,
  SUBFLOW_STATUS_TYPE,
  subflowIdOfType,
  type SubflowEnvEntry,
  type SubflowSnapshot,
} from "../../shared/subflows";
import { ContextScope } from "./context/context-scope";
import { envValueCopy, evaluateEnvEntries, substituteLevels } from "./env-values";
import type { Message, NodeStatus, RuntimeNode, SharedContextStore, VariableResolver } from "./types";
import { groupSetting, type GroupScope } from "./group-env";

/**
 * Subflow instances as Node-RED 4.1 runs them (runtime/lib/flows/Subflow.js), on our engine: a
 * flow's instances are expanded, once per start, into one graph of plain nodes that the engine runs
 * as any other, each node knowing the instance it belongs to (its SubflowScope).
 *
 * - Every node of the definition becomes a node of its own per instance, id `<instanceId>-<innerId>`
 *   (Node-RED's createNodeInSubflow), `alias` = the definition's node id. Catch, status and complete
 *   scopes, and any config property naming a node of the definition, are mapped to the new ids.
 * - The instance node stays a node (Node-RED's: a message into it is sent on to what the
 *   definition's subflow-in is wired to, one hop). What reaches subflow-out port n leaves straight
 *   from the inner node wired to it to what the instance's port n is wired to (no extra hop), after
 *   that node's own wires, as Node-RED rewires them.
 * - subflow-status becomes the node `<instanceId>:status`: a message reaching it sets the instance's
 *   status (statusFromMessage).
 * - Nested instances expand the same way, to MAX_SUBFLOW_DEPTH; deeper, a cycle or a missing
 *   definition fail the flow's start with a clear error (SubflowError).
 */

export class SubflowError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SubflowError";
  }
}

/** One running instance of a definition, and where it sits. */
export interface SubflowScope {
  /** The instance node, with its expanded id (and, inside a definition, its id there: alias). */
  instance: RuntimeNode & { alias?: string };
  definition: SubflowSnapshot;
  /** The scope the instance node belongs to; null: the flow itself. */
  parent: SubflowScope | null;
  /** 1 for an instance on the flow, 2 for one inside it, … */
  depth: number;
  /** Node-RED's flow path of the instance: `<flowId>/<instance id or alias>/…`. */
  path: string;
  /** The instance ids from the flow's canvas down to this one (expanded ids). */
  instanceIds: string[];
  /** The env properties in force (the definition's, overridden by the instance's), in Node-RED's order. */
  env: SubflowEnvEntry[];
  /** Whether the definition has a status output (then inner statuses do not pass up). */
  hasStatusPort: boolean;
  /** Evaluated env values (evaluateSubflowEnv), by name. */
  values: Map<string, unknown>;
  /**
   * The group the instance node is in, in the graph around it (the flow's, or the parent
   * definition's): what a name reads past the instance's env, before the level above (Node-RED's
   * Subflow.getSetting asks `parent.getGroupNode(node.g)`). Set as the flow starts.
   */
  group: GroupScope | null;
  /** The definition's groups with their env evaluated for this instance, by member (a definition node id). Set as the flow starts. */
  groups: Map<string, GroupScope>;
}

export type SubflowRole = "instance" | "status";

export interface ExpandedNode extends RuntimeNode {
  disabled?: boolean;
  /** The instance this node belongs to; null: a node of the flow. */
  scope: SubflowScope | null;
  /** The definition's id of the node (Node-RED's _alias); absent for a node of the flow. */
  alias?: string;
  /** An instance node (a pass-through into its definition) or a subflow status node. */
  role?: SubflowRole;
  /** For an instance node: the scope of the nodes inside it. */
  inner?: SubflowScope;
}

interface Graph {
  nodes: Array<RuntimeNode & { disabled?: boolean; alias?: string; role?: SubflowRole }>;
  connections: Array<{ source: string; source_port: number; target: string }>;
}

export interface ExpandedGraph {
  nodes: ExpandedNode[];
  connections: Array<{ source: string; source_port: number; target: string }>;
  /** Every instance, parents before their children. */
  scopes: SubflowScope[];
}

/** The id of an instance's status node. */
export const statusNodeId = (instanceId: string) => `${instanceId}:status`;

/** Whether a type's roles give its nodes a scope (`config.scope`: the catch, status and complete roles). */
export function hasScope(roles: { catch?: unknown; status?: unknown; complete?: unknown } | undefined): boolean {
  return Boolean(roles && (roles.catch || roles.status || roles.complete));
}

export interface ExpandOptions {
  /**
   * Whether a node of this type has a scope (`config.scope`, a list of node ids: the catch, status
   * and complete roles): inside an instance its ids outside the definition name nothing. Absent: none has.
   */
  scoped?(type: string): boolean;
}

/**
 * A flow's graph with its subflow instances expanded (see above). Throws SubflowError for a missing
 * definition, a cycle (a definition that contains itself), or nesting deeper than MAX_SUBFLOW_DEPTH.
 */
export function expandSubflows(flow: Graph & { flowId: string; subflows?: Record<string, SubflowSnapshot> }, options: ExpandOptions = {}): ExpandedGraph {
  const scopes: SubflowScope[] = [];
  const hasInstances = flow.nodes.some((n) => !n.disabled && subflowIdOfType(n.type) !== null);
  if (!hasInstances) return { nodes: flow.nodes.map((n) => ({ ...n, scope: null })), connections: flow.connections, scopes };
  const out = expandGraph(flow, null, flow.flowId, [], flow.subflows ?? {}, scopes, options);
  return { ...out, scopes };
}

function expandGraph(
  graph: Graph,
  scope: SubflowScope | null,
  path: string,
  stack: string[],
  definitions: Record<string, SubflowSnapshot>,
  scopes: SubflowScope[],
  options: ExpandOptions,
): { nodes: ExpandedNode[]; connections: Graph["connections"] } {
  const instances = new Set(graph.nodes.filter((n) => !n.disabled && subflowIdOfType(n.type) !== null).map((n) => n.id));
  const nodes: ExpandedNode[] = [];
  // Wires out of an instance are carried by the nodes inside it: taken out here, given to them below.
  const connections = graph.connections.filter((c) => !instances.has(c.source));
  const added: Graph["connections"] = [];
  for (const node of graph.nodes) {
    const definitionId = node.disabled ? null : subflowIdOfType(node.type);
    if (definitionId === null) {
      nodes.push({ ...node, scope });
      continue;
    }
    const definition = definitions[definitionId];
    const where = scope ? ` (inside subflow "${scope.definition.name}")` : "";
    if (!definition) throw new SubflowError(`subflow instance ${node.id}${where} uses subflow ${definitionId}, which is not part of this deployment`);
    if (stack.includes(definitionId)) {
      const names = [...stack, definitionId].map((id) => `"${definitions[id]?.name ?? id}"`).join(" → ");
      throw new SubflowError(`subflow "${definition.name}" contains itself (${names}): a subflow cannot use itself`);
    }
    const depth = (scope?.depth ?? 0) + 1;
    if (depth > MAX_SUBFLOW_DEPTH) {
      throw new SubflowError(`subflows are nested deeper than ${MAX_SUBFLOW_DEPTH} levels (${[...stack, definitionId].map((id) => `"${definitions[id]?.name ?? id}"`).join(" → ")})`);
    }
    const alias = node.alias;
    const inner: SubflowScope = {
      instance: node,
      definition,
      parent: scope,
      depth,
      path: `${path}/${alias ?? node.id}`,
      instanceIds: [...(scope?.instanceIds ?? []), node.id],
      env: mergeEnv(definition.env, instanceEnv(node)),
      hasStatusPort: definition.nodes.some((n) => n.type === SUBFLOW_STATUS_TYPE),
      values: new Map(),
      group: null,
      groups: new Map(),
    };
    scopes.push(inner);
    nodes.push({ ...node, scope, role: "instance", inner });
    const outgoing = new Map<number, string[]>();
    for (const c of graph.connections) {
      if (c.source !== node.id) continue;
      const list = outgoing.get(c.source_port) ?? [];
      list.push(c.target);
      outgoing.set(c.source_port, list);
    }
    const instanceGraph = instantiate(node.id, definition, outgoing, options);
    const expanded = expandGraph(instanceGraph, inner, inner.path, [...stack, definitionId], definitions, scopes, options);
    nodes.push(...expanded.nodes);
    added.push(...expanded.connections);
  }
  return { nodes, connections: [...connections, ...added] };
}

function instanceEnv(node: RuntimeNode): SubflowEnvEntry[] {
  const env = (node.config as { env?: unknown }).env;
  if (!Array.isArray(env)) return [];
  return env.filter((e): e is SubflowEnvEntry => !!e && typeof e === "object" && typeof (e as SubflowEnvEntry).name === "string");
}

/** Node-RED's order: the definition's properties, each replaced in place by the instance's of the same name, then the instance's new ones. */
function mergeEnv(definition: SubflowEnvEntry[], instance: SubflowEnvEntry[]): SubflowEnvEntry[] {
  const byName = new Map<string, SubflowEnvEntry>();
  for (const e of definition) byName.set(e.name, e);
  for (const e of instance) byName.set(e.name, e);
  return [...byName.values()];
}

/**
 * One instance's copy of a definition's graph: new ids, remapped references, the subflow-in's wires
 * on the instance node, subflow-out's on the nodes that reach it, subflow-status's to the status node.
 */
function instantiate(instanceId: string, definition: SubflowSnapshot, outgoing: Map<number, string[]>, options: ExpandOptions): Graph {
  const newId = (id: string) => `${instanceId}-${id}`;
  const ports = new Map<string, { type: string; port: number }>();
  const ids = new Set<string>();
  for (const n of definition.nodes) {
    if (n.type === SUBFLOW_IN_TYPE || n.type === SUBFLOW_OUT_TYPE || n.type === SUBFLOW_STATUS_TYPE) {
      ports.set(n.id, { type: n.type, port: Number((n.config as { port?: unknown }).port ?? 0) || 0 });
    } else ids.add(n.id);
  }
  const nodes: Graph["nodes"] = definition.nodes
    .filter((n) => ids.has(n.id))
    .map((n) => ({ id: newId(n.id), alias: n.id, type: n.type, name: n.name, config: remapConfig(options.scoped?.(n.type) === true, n.config, ids, newId), disabled: n.disabled }));
  const statusId = statusNodeId(instanceId);
  const hasStatus = [...ports.values()].some((p) => p.type === SUBFLOW_STATUS_TYPE);
  if (hasStatus) nodes.push({ id: statusId, type: SUBFLOW_STATUS_TYPE, name: "", config: {}, role: "status" });
  // Node-RED's order of a node's wires: its own, then the subflow outputs' (by port), then the status output.
  const regular: Graph["connections"] = [];
  const toOutputs: Array<{ port: number; c: Graph["connections"][number] }> = [];
  const toStatus: Graph["connections"] = [];
  const from = (source: string) => (ports.get(source)?.type === SUBFLOW_IN_TYPE ? { id: instanceId, port: 0 } : ids.has(source) ? { id: newId(source), port: -1 } : null);
  for (const c of definition.connections) {
    const source = from(c.source);
    if (!source) continue;
    const source_port = source.port === 0 ? 0 : c.source_port;
    const target = ports.get(c.target);
    if (!target && ids.has(c.target)) regular.push({ source: source.id, source_port, target: newId(c.target) });
    else if (target?.type === SUBFLOW_OUT_TYPE) {
      for (const t of outgoing.get(target.port) ?? []) toOutputs.push({ port: target.port, c: { source: source.id, source_port, target: t } });
    } else if (target?.type === SUBFLOW_STATUS_TYPE) toStatus.push({ source: source.id, source_port, target: statusId });
  }
  toOutputs.sort((a, b) => a.port - b.port);
  return { nodes, connections: [...regular, ...toOutputs.map((o) => o.c), ...toStatus] };
}

/**
 * Node-RED's remapSubflowNodes: catch/status/complete scopes, and any property whose value is a node
 * id of the definition; also ids in a list (link nodes' `links`), which Node-RED leaves pointing at
 * the definition's nodes (so a link inside a subflow reaches this instance's link-in).
 */
export function remapConfig(scoped: boolean, config: Record<string, unknown>, ids: ReadonlySet<string>, newId: (id: string) => string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...config };
  if (scoped && Array.isArray(out.scope)) {
    out.scope = (out.scope as unknown[]).map((id) => (typeof id === "string" && ids.has(id) ? newId(id) : ""));
    return out;
  }
  for (const [key, value] of Object.entries(out)) {
    if (typeof value === "string" && ids.has(value)) out[key] = newId(value);
    // A list of node ids (link nodes' `links`): those inside the definition name this instance's copies.
    else if (Array.isArray(value) && value.some((v) => typeof v === "string" && ids.has(v))) out[key] = value.map((v) => (typeof v === "string" && ids.has(v) ? newId(v) : v));
  }
  return out;
}

// -------------------------------------------------------------------------------------------------
// Status output

/**
 * What a message reaching subflow-status makes the instance's status (Node-RED's Subflow.start):
 * a string payload is the text; an object payload with text, fill or shape (or empty) is the status;
 * another payload is shown inspected (cut to 32 characters and "..."); without a payload,
 * msg.status. undefined: nothing changes.
 */
export function statusFromMessage(msg: Message): NodeStatus | Record<string, unknown> | undefined {
  const payload = msg.payload;
  if (payload !== undefined) {
    if (typeof payload === "string") return { text: payload };
    if (Object.prototype.toString.call(payload) === "[object Object]") {
      const p = payload as Record<string, unknown>;
      if (Object.hasOwn(p, "text") || Object.hasOwn(p, "fill") || Object.hasOwn(p, "shape") || Object.keys(p).length === 0) return p;
    }
    let text = inspect(payload);
    if (text.length > 32) text = `${text.slice(0, 32)}...`;
    return { text };
  }
  if (msg.status !== undefined && msg.status !== null && typeof msg.status === "object") {
    const status = { ...(msg.status as Record<string, unknown>) };
    if (typeof status.text === "string" && status.text.startsWith("common.")) status.text = `node-red:${status.text}`;
    return status;
  }
  return undefined;
}

// -------------------------------------------------------------------------------------------------
// Env properties and variables

/**
 * Evaluates an instance's env properties as Node-RED's evaluateEnvProperties does when the subflow
 * starts (env-values.ts evaluateEnvEntries): str as is, num a number, bool, json, bin, jsonata, and
 * env entries last, against this level's values first, then above.
 */
export async function evaluateSubflowEnv(
  scope: SubflowScope,
  flow: (name: string) => unknown,
  context: { flow: SharedContextStore; global: SharedContextStore },
  onError: (message: string) => void,
): Promise<void> {
  // While its properties are evaluated, the instance's settings are those above it (Node-RED's _env is still empty).
  const above = (name: string) => settingAbove(scope, name.startsWith("$parent.") ? name.slice("$parent.".length) : name, flow);
  await evaluateEnvEntries(scope.values, scope.env, { above, own: (n) => subflowSetting(scope, n, flow) }, context, onError);
}

/** What a name reads above an instance's own env: the groups around the instance node, then the level above it. */
function settingAbove(scope: SubflowScope, name: string, flow: (name: string) => unknown): unknown {
  return groupSetting(scope.group, name, (key) => subflowSetting(scope.parent, key, flow));
}

/**
 * What a name reads from inside `scope` (Node-RED's Subflow.getSetting, walking up): the instance's
 * NR_SUBFLOW_NAME/ID/PATH, its env properties, the groups the instance node is in, then the level
 * above; `$parent.NAME` skips a level. `flow` answers once above every instance (the flow's
 * variables and built-ins).
 */
export function subflowSetting(scope: SubflowScope | null, name: string, flow: (name: string) => unknown): unknown {
  if (!scope) return flow(name.startsWith("$parent.") ? name.slice("$parent.".length) : name);
  if (name === "NR_SUBFLOW_NAME") return scope.instance.name;
  if (name === "NR_SUBFLOW_ID") return scope.instance.id;
  if (name === "NR_SUBFLOW_PATH") return scope.path;
  if (name.startsWith("$parent.")) return settingAbove(scope, name.slice("$parent.".length), flow);
  if (scope.values.has(name)) return envValueCopy(scope.values.get(name));
  return settingAbove(scope, name, flow);
}

/**
 * The variable resolver of a node inside an instance: its own built-ins (NR_NODE_ID, NR_NODE_NAME,
 * NR_NODE_PATH), then subflowSetting, then the flow's resolver (`base`, which keeps secrets and the
 * `${NAME}` rules of SPEC §14). Env properties keep their type for env.get (a num is a number).
 */
export function subflowVariables(scope: SubflowScope, node: RuntimeNode & { alias?: string }, base: VariableResolver): VariableResolver {
  const own: Record<string, unknown> = { NR_NODE_ID: node.id, NR_NODE_NAME: node.name, NR_NODE_PATH: `${scope.path}/${node.alias ?? node.id}` };
  const lookup = (name: string, flow: (n: string) => unknown) =>
    Object.hasOwn(own, name) ? own[name] : subflowSetting(scope, name, flow);
  // What function code's env.get may ask: every level's names (an instance's, a group's around
  // it), and `$parent.` ones reaching up (each level, instance or group, is one `$parent.`).
  const levels: SubflowScope[] = [];
  for (let s: SubflowScope | null = scope; s; s = s.parent) levels.push(s);
  const keys = new Set<string>();
  let depth = 0;
  for (const level of levels) {
    depth++;
    for (const key of level.values.keys()) keys.add(key);
    for (let g = level.group; g; g = g.parent, depth++) for (const key of ["NR_GROUP_ID", "NR_GROUP_NAME", ...g.values.keys()]) keys.add(key);
  }
  const names = new Set<string>();
  for (const key of keys) for (let up = 0; up <= depth; up++) names.add("$parent.".repeat(up) + key);
  let cached: { from: Readonly<Record<string, unknown>>; values: Readonly<Record<string, unknown>> } | undefined;
  return {
    get: (name) => lookup(String(name), (n) => base.get(n)),
    substitute: (text, options) => substituteLevels(text, lookup, base, options),
    values: () => {
      const from = base.values();
      if (cached?.from !== from) {
        const values: Record<string, unknown> = { ...from };
        for (const name of Object.keys(from)) for (let up = 1; up <= depth; up++) values["$parent.".repeat(up) + name] = from[name];
        for (const name of names) {
          const value = lookup(name, (n) => from[n]);
          if (value === undefined) delete values[name];
          else values[name] = value;
        }
        for (const name of ["NR_SUBFLOW_NAME", "NR_SUBFLOW_ID", "NR_SUBFLOW_PATH"]) values[name] = lookup(name, (n) => from[n]);
        Object.assign(values, own);
        cached = { from, values: Object.freeze(values) };
      }
      return cached.values;
    },
  };
}

// -------------------------------------------------------------------------------------------------
// Context

const PARENT = "$parent.";

/**
 * An instance's flow context (Node-RED's getFlowContext(instanceId, parentId)): its own keys, in
 * memory as Node-RED's default store, and `$parent.KEY` reaching the level above (the parent
 * instance's, or the flow's). A ContextScope, so function code inside the subflow shares it with
 * the other nodes as the flow's; its `$parent.` writes reach the level above, its `$parent.` reads
 * see nothing (the sandbox holds a copy of this level only).
 */
export class SubflowContextScope extends ContextScope {
  constructor(
    organizationId: string,
    scope: string,
    private readonly parent: SharedContextStore,
  ) {
    super(organizationId, scope, { bytes: 0, limit: Number.MAX_SAFE_INTEGER }, null);
  }

  override get(key: string): unknown {
    return key.startsWith(PARENT) ? this.parent.get(key.slice(PARENT.length)) : super.get(key);
  }

  override set(key: string, value: unknown): void {
    if (key.startsWith(PARENT)) this.parent.set(key.slice(PARENT.length), value);
    else super.set(key, value);
  }

  override increment(key: string, by = 1): number {
    return key.startsWith(PARENT) ? this.parent.increment(key.slice(PARENT.length), by) : super.increment(key, by);
  }

  override applySandboxWrites(writes: Array<[string, string | null]>): void {
    const own: Array<[string, string | null]> = [];
    for (const [key, json] of writes) {
      if (key.startsWith(PARENT)) this.parent.set(key.slice(PARENT.length), json === null ? undefined : JSON.parse(json));
      else own.push([key, json]);
    }
    super.applySandboxWrites(own);
  }
}
