import type { AppServices } from "../../app-services";
import type { NodeRegistry } from "../../nodes/registry";
import { configRefProperties, configRefsOf } from "../../nodes/config-refs";
import type { ConfigNodeUsage } from "../../../shared/config-nodes";
import type { Tx } from "./config-node-rows";

/** Node types whose configs may name a configuration node (configuration types included). */
export function referencingTypes(registry: NodeRegistry): string[] {
  return registry.list().filter((d) => configRefProperties(d).length > 0).map((d) => d.type);
}

/** The configuration node ids a list of nodes names, each with the nodes naming it. */
export function refsOfNodes(registry: NodeRegistry, nodes: ReadonlyArray<{ id: string; type: string; config: Record<string, unknown> }>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const n of nodes) {
    const definition = registry.get(n.type);
    if (!definition) continue;
    for (const ref of configRefsOf(definition, n.config)) {
      const list = out.get(ref.id) ?? [];
      if (!list.includes(n.id)) list.push(n.id);
      out.set(ref.id, list);
    }
  }
  return out;
}

type Node = { id: string; type: string; config: Record<string, unknown> };

/**
 * Who names each configuration node of the organization in what is saved (SPEC §19): nodes of
 * flows, nodes inside subflow definitions, and other configuration nodes. Only flows holding a node
 * of a referencing type are read (the flow_nodes index says which).
 */
export async function savedUsers(app: AppServices, db: Tx, organizationId: string) {
  const types = referencingTypes(app.nodes);
  const indexed = types.length === 0 ? [] : await db.flowNode.findMany({ where: { organizationId, type: { in: types } }, select: { flowId: true }, distinct: ["flowId"] });
  const flows = indexed.length === 0
    ? []
    : await db.flow.findMany({ where: { organizationId, deletedAt: null, id: { in: indexed.map((f) => f.flowId) } }, select: { id: true, name: true, nodes: true }, orderBy: [{ name: "asc" }, { id: "asc" }] });
  const subflows = await db.subflow.findMany({ where: { organizationId }, select: { id: true, name: true, nodes: true }, orderBy: [{ name: "asc" }, { id: "asc" }] });
  const configNodes = await db.configNode.findMany({ where: { organizationId }, select: { id: true, name: true, type: true, config: true }, orderBy: [{ name: "asc" }, { id: "asc" }] });
  const users = new Map<string, ConfigNodeUsage[]>();
  const add = (id: string, usage: ConfigNodeUsage) => users.set(id, [...(users.get(id) ?? []), usage]);
  for (const f of flows) for (const [id, nodeIds] of refsOfNodes(app.nodes, f.nodes as unknown as Node[])) add(id, { flow_id: f.id, name: f.name, node_ids: nodeIds });
  for (const s of subflows) for (const [id, nodeIds] of refsOfNodes(app.nodes, s.nodes as unknown as Node[])) add(id, { subflow_id: s.id, name: s.name, node_ids: nodeIds });
  for (const c of configNodes) {
    for (const [id] of refsOfNodes(app.nodes, [{ id: c.id, type: c.type, config: c.config as Record<string, unknown> }])) add(id, { config_node_id: c.id, name: c.name || c.id, node_ids: [c.id] });
  }
  return users;
}

interface DeployedRow {
  flow_id: string;
  name: string;
  config_node_id: string;
  revision: number | null;
}

/** Per configuration node: the flows whose running deployment carries it, and the revision carried. */
export async function deployedUsers(app: AppServices, organizationId: string, id?: string): Promise<Map<string, DeployedRow[]>> {
  const rows = await app.db.sql<DeployedRow>(
    `SELECT f.id AS flow_id, f.name, c.key AS config_node_id, (c.value->>'revision')::int AS revision
       FROM flows f
       JOIN deployments d ON d.id = f.current_deployment_id
       CROSS JOIN LATERAL jsonb_each(COALESCE(d.snapshot->'config_nodes', '{}'::jsonb)) c
      WHERE f.organization_id = $1 AND f.deleted_at IS NULL AND ($2::text IS NULL OR c.key = $2::text)
      ORDER BY f.name, f.id`,
    [organizationId, id ?? null],
  );
  const out = new Map<string, DeployedRow[]>();
  for (const r of rows) out.set(r.config_node_id, [...(out.get(r.config_node_id) ?? []), r]);
  return out;
}

/**
 * `used_by` of every configuration node: what is saved, and for flows the revision their running
 * deployment carries (a flow that runs it without naming it any more, or only through a subflow
 * or another configuration node, is listed with no node ids).
 */
export async function usageOfAll(app: AppServices, organizationId: string): Promise<Map<string, ConfigNodeUsage[]>> {
  const [saved, deployed] = await Promise.all([savedUsers(app, app.db.prisma, organizationId), deployedUsers(app, organizationId)]);
  const out = new Map<string, ConfigNodeUsage[]>();
  for (const id of new Set([...saved.keys(), ...deployed.keys()])) {
    const running = new Map((deployed.get(id) ?? []).map((d) => [d.flow_id, d]));
    const list = (saved.get(id) ?? []).map((u) => (u.flow_id !== undefined ? { ...u, deployed_revision: running.get(u.flow_id)?.revision ?? null } : u));
    const listed = new Set(list.flatMap((u) => (u.flow_id !== undefined ? [u.flow_id] : [])));
    const onlyRunning = [...running.values()].filter((d) => !listed.has(d.flow_id)).map((d) => ({ flow_id: d.flow_id, name: d.name, node_ids: [], deployed_revision: d.revision }));
    const flows = [...list.filter((u) => u.flow_id !== undefined), ...onlyRunning].sort((a, b) => a.name.localeCompare(b.name) || a.flow_id!.localeCompare(b.flow_id!));
    out.set(id, [...flows, ...list.filter((u) => u.flow_id === undefined)]);
  }
  return out;
}
