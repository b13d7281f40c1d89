import type { AppServices } from "../../app-services";
import { AppError, notFound, type ErrorDetail } from "../../errors";
import { randomHex } from "../../ids";
import type { Principal } from "../../auth/principal";
import type { NodeRegistry } from "../../nodes/registry";
import type { Prisma, Subflow } from "../../../generated/prisma/client";
import type { Connection, FlowNode } from "../../../shared/flow-graph";
import { MAX_SUBFLOW_DEPTH, subflowInstanceType, type FlowGroup, type SubflowEnvEntry, type SubflowView } from "../../../shared/subflows";
import { recordAudit } from "../audit/record-audit";
import type { RequestMeta } from "../request-meta";
import { subflowPortsOf, validateGraph, type SubflowPorts } from "../flows/validate-graph";
import { usedSubflowIds } from "./subflow-ports";
import { configNodeTypes } from "../config-nodes/config-node-rows";
import { readThrough } from "../flows/flow-reads";
import type { CreateSubflowInput, UpdateSubflowInput } from "./subflow.schemas";

type Tx = Prisma.TransactionClient;

export function subflowView(row: Subflow): SubflowView {
  const nodes = row.nodes as unknown as FlowNode[];
  const ports = subflowPortsOf(nodes);
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    category: row.category,
    color: row.color,
    icon: row.icon,
    env: row.env as unknown as SubflowEnvEntry[],
    nodes,
    connections: row.connections as unknown as Connection[],
    groups: row.groups as unknown as FlowGroup[],
    inputs: ports.inputs,
    outputs: ports.outputs,
    status: ports.status,
    revision: row.revision,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** A definition of the caller's organization; another organization's (or none) answers 404. */
export async function requireSubflow(app: AppServices, principal: Principal, id: string, tx: Tx = app.db.prisma): Promise<Subflow> {
  const row = await tx.subflow.findUnique({ where: { organizationId_id: { organizationId: principal.organizationId, id } } });
  if (!row) throw notFound("subflow");
  return row;
}

/** The organization's definitions as the nesting checks see them: name, what each uses, its ports. */
export interface DefinitionIndex {
  name: string;
  uses: string[];
  ports: SubflowPorts;
}

export async function definitionIndex(tx: Tx, organizationId: string): Promise<Map<string, DefinitionIndex>> {
  const rows = await tx.subflow.findMany({ where: { organizationId }, select: { id: true, name: true, nodes: true } });
  return new Map(
    rows.map((r) => {
      const nodes = r.nodes as unknown as Array<{ type: string }>;
      return [r.id, { name: r.name, uses: usedSubflowIds(nodes), ports: { name: r.name, ...subflowPortsOf(nodes) } }];
    }),
  );
}

/**
 * With `id`'s graph using `uses`: no definition may contain itself (directly or through others),
 * and no chain of definitions may be deeper than MAX_SUBFLOW_DEPTH (a flow's instance is depth 1).
 */
function checkNesting(index: ReadonlyMap<string, DefinitionIndex>, id: string, uses: string[]): ErrorDetail[] {
  const usesOf = (d: string) => (d === id ? uses : (index.get(d)?.uses ?? []));
  const depth = new Map<string, number>();
  const details: ErrorDetail[] = [];
  const visit = (d: string, path: string[]): number => {
    if (path.includes(d)) {
      if (details.length === 0) details.push({ path: "nodes", message: `subflows would contain themselves: ${[...path.slice(path.indexOf(d)), d].join(" → ")}` });
      return Infinity;
    }
    const known = depth.get(d);
    if (known !== undefined) return known;
    let deepest = 0;
    for (const child of usesOf(d)) deepest = Math.max(deepest, visit(child, [...path, d]));
    depth.set(d, deepest + 1);
    return deepest + 1;
  };
  for (const d of new Set([id, ...index.keys()])) {
    const levels = visit(d, []);
    if (details.length > 0) return details;
    if (levels > MAX_SUBFLOW_DEPTH) {
      return [{ path: "nodes", message: `subflows may nest ${MAX_SUBFLOW_DEPTH} deep at most; ${d === id ? "this one" : `subflow ${d}`} would hold ${levels} levels` }];
    }
  }
  return details;
}

function validateDefinition(
  registry: NodeRegistry,
  index: ReadonlyMap<string, DefinitionIndex>,
  id: string,
  graph: { nodes: CreateSubflowInput["nodes"]; connections: Connection[]; groups: FlowGroup[] },
  configNodes: ReadonlyMap<string, string>,
) {
  const subflows = new Map([...index].map(([k, v]) => [k, v.ports]));
  const validated = validateGraph(registry, graph, { kind: "subflow", subflows, configNodes });
  const nesting = checkNesting(index, id, usedSubflowIds(validated.nodes));
  if (nesting.length > 0) throw new AppError("VALIDATION_FAILED", `${nesting[0]!.path}: ${nesting[0]!.message}`, { details: nesting });
  return validated;
}

export async function listSubflows(app: AppServices, principal: Principal) {
  const rows = await app.db.prisma.subflow.findMany({ where: { organizationId: principal.organizationId }, orderBy: [{ name: "asc" }, { id: "asc" }] });
  return {
    subflows: rows.map((r) => {
      // The list leaves the graphs out (GET /subflows/{id} has them).
      const view: Partial<SubflowView> = subflowView(r);
      delete view.nodes;
      delete view.connections;
      delete view.groups;
      return view as Omit<SubflowView, "nodes" | "connections" | "groups">;
    }),
  };
}

export async function getSubflow(app: AppServices, principal: Principal, id: string) {
  const row = await requireSubflow(app, principal, id);
  return { subflow: { ...subflowView(row), ...(await usageOf(app, principal.organizationId, row)) } };
}

export async function createSubflow(app: AppServices, principal: Principal, input: CreateSubflowInput, meta: RequestMeta) {
  const id = input.id ?? randomHex(8);
  const row = await app.db.prisma.$transaction(async (tx) => {
    const index = await definitionIndex(tx, principal.organizationId);
    if (index.has(id)) throw new AppError("SUBFLOW_EXISTS", `the organization has a subflow ${id} already; update it with PUT /subflows/${id}`);
    const graph = validateDefinition(app.nodes, index, id, input, await configNodeTypes(tx, principal.organizationId));
    return tx.subflow.create({
      data: {
        id,
        organizationId: principal.organizationId,
        name: input.name,
        description: input.description,
        category: input.category,
        color: input.color,
        icon: input.icon ?? null,
        env: input.env as unknown as Prisma.InputJsonValue,
        nodes: graph.nodes as unknown as Prisma.InputJsonValue,
        connections: graph.connections as unknown as Prisma.InputJsonValue,
        groups: graph.groups as unknown as Prisma.InputJsonValue,
        createdById: principal.userId,
      },
    });
  });
  await app.flowReads.changed(principal.organizationId);
  await recordAudit(app, { action: "subflow.created", organizationId: principal.organizationId, actorId: principal.userId, targetType: "subflow", targetId: id, ipAddress: meta.ip });
  return { subflow: { ...subflowView(row), used_by: [], used_by_subflows: [] } };
}

/**
 * Partial update; with a revision, only if the definition is still at it (409 otherwise, nothing
 * written). Flows running it keep the revision they were deployed with until they are deployed
 * again (POST /subflows/{id}/deploy redeploys them all).
 */
export async function updateSubflow(app: AppServices, principal: Principal, input: UpdateSubflowInput, meta: RequestMeta) {
  const row = await app.db.prisma.$transaction(async (tx) => {
    const current = await requireSubflow(app, principal, input.id, tx);
    if (input.revision !== undefined && input.revision !== current.revision) {
      throw new AppError("REVISION_CONFLICT", `the subflow is at revision ${current.revision}, not ${input.revision}; reload it and apply your change again`);
    }
    const graphChanged = input.nodes !== undefined || input.connections !== undefined || input.groups !== undefined;
    const graph = graphChanged
      ? validateDefinition(app.nodes, await definitionIndex(tx, principal.organizationId), current.id, {
          nodes: input.nodes ?? (current.nodes as unknown as FlowNode[]),
          connections: input.connections ?? (current.connections as unknown as Connection[]),
          groups: input.groups ?? (current.groups as unknown as FlowGroup[]),
        }, await configNodeTypes(tx, principal.organizationId))
      : null;
    if (graph) await assertPortsStillWired(tx, principal.organizationId, current, subflowPortsOf(graph.nodes));
    const { count } = await tx.subflow.updateMany({
      where: { organizationId: principal.organizationId, id: current.id, revision: input.revision ?? current.revision },
      data: {
        name: input.name,
        description: input.description,
        category: input.category,
        color: input.color,
        icon: input.icon,
        env: input.env as unknown as Prisma.InputJsonValue | undefined,
        ...(graph
          ? {
              nodes: graph.nodes as unknown as Prisma.InputJsonValue,
              connections: graph.connections as unknown as Prisma.InputJsonValue,
              groups: graph.groups as unknown as Prisma.InputJsonValue,
            }
          : {}),
        revision: { increment: 1 },
      },
    });
    if (count !== 1) throw new AppError("REVISION_CONFLICT", "the subflow was changed by someone else meanwhile; reload it and apply your change again");
    return requireSubflow(app, principal, current.id, tx);
  });
  await app.flowReads.changed(principal.organizationId);
  await recordAudit(app, {
    action: "subflow.updated",
    organizationId: principal.organizationId,
    actorId: principal.userId,
    targetType: "subflow",
    targetId: row.id,
    ipAddress: meta.ip,
    metadata: { revision: row.revision },
  });
  return { subflow: { ...subflowView(row), ...(await usageOf(app, principal.organizationId, row)) } };
}

/**
 * A definition may lose an output (or its input) only where no saved graph wires it: a flow or a
 * definition with a wire from an instance's port that would be gone (or into an instance that would
 * have no input) could not be saved or deployed again, so the change is refused naming them
 * (Node-RED drops such wires silently; here the user removes them, seeing where).
 */
async function assertPortsStillWired(tx: Tx, organizationId: string, current: Subflow, next: { inputs: number; outputs: number }) {
  const before = subflowPortsOf(current.nodes as unknown as Array<{ type: string }>);
  if (next.outputs >= before.outputs && next.inputs >= before.inputs) return;
  const type = subflowInstanceType(current.id);
  const broken = (nodes: FlowNode[], connections: Connection[]) => {
    const instances = new Set(nodes.filter((n) => n.type === type).map((n) => n.id));
    return connections.some((c) => (instances.has(c.source) && c.source_port >= next.outputs) || (instances.has(c.target) && next.inputs === 0));
  };
  const flows = await tx.flow.findMany({
    where: { organizationId, deletedAt: null, nodeIndex: { some: { type } } },
    select: { id: true, name: true, nodes: true, connections: true },
    orderBy: [{ name: "asc" }, { id: "asc" }],
  });
  const definitions = await tx.subflow.findMany({ where: { organizationId, NOT: { id: current.id } }, select: { id: true, name: true, nodes: true, connections: true } });
  const users = [
    ...flows.filter((f) => broken(f.nodes as unknown as FlowNode[], f.connections as unknown as Connection[])).map((f) => ({ path: `flows.${f.id}`, message: `flow "${f.name}" wires a port this change removes` })),
    ...definitions.filter((d) => broken(d.nodes as unknown as FlowNode[], d.connections as unknown as Connection[])).map((d) => ({ path: `subflows.${d.id}`, message: `subflow "${d.name}" wires a port this change removes` })),
  ];
  if (users.length > 0) {
    const what = next.inputs < before.inputs ? "its input" : `output${before.outputs - next.outputs > 1 ? "s" : ""} ${Array.from({ length: before.outputs - next.outputs }, (_, i) => next.outputs + i).join(", ")}`;
    throw new AppError("VALIDATION_FAILED", `nodes: removing ${what} would leave wires to nowhere in ${users.map((u) => u.message.split(" wires")[0]).join(", ")}; remove those wires first`, { details: users });
  }
}

/** Deleted for good, unless a flow's graph or another definition uses it: 409 naming them. Deployments keep their own copy. */
export async function deleteSubflow(app: AppServices, principal: Principal, id: string, meta: RequestMeta) {
  await app.db.prisma.$transaction(async (tx) => {
    const row = await requireSubflow(app, principal, id, tx);
    const index = await definitionIndex(tx, principal.organizationId);
    const parents = [...index].filter(([other, d]) => other !== id && d.uses.includes(id)).map(([other, d]) => ({ id: other, name: d.name }));
    const flows = await tx.flow.findMany({
      where: { organizationId: principal.organizationId, deletedAt: null, nodeIndex: { some: { type: subflowInstanceType(id) } } },
      select: { id: true, name: true },
      orderBy: { name: "asc" },
    });
    if (flows.length > 0 || parents.length > 0) {
      const names = [...flows.map((f) => `flow "${f.name}" (${f.id})`), ...parents.map((p) => `subflow "${p.name}" (${p.id})`)];
      throw new AppError("SUBFLOW_IN_USE", `subflow ${row.id} is used by ${names.join(", ")}; remove its instances first`, {
        details: [...flows.map((f) => ({ path: `flows.${f.id}`, message: f.name })), ...parents.map((p) => ({ path: `subflows.${p.id}`, message: p.name }))],
      });
    }
    await tx.subflow.delete({ where: { organizationId_id: { organizationId: principal.organizationId, id } } });
  });
  await app.flowReads.changed(principal.organizationId);
  await recordAudit(app, { action: "subflow.deleted", organizationId: principal.organizationId, actorId: principal.userId, targetType: "subflow", targetId: id, ipAddress: meta.ip });
}

/** The definitions that hold `id`, directly or through others, `id` included. */
function containersOf(index: Map<string, DefinitionIndex>, id: string): Set<string> {
  const found = new Set([id]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [other, d] of index) {
      if (!found.has(other) && d.uses.some((u) => found.has(u))) {
        found.add(other);
        grew = true;
      }
    }
  }
  return found;
}

interface DeployedUse {
  id: string;
  name: string;
  revision: number | null;
}

/** Flows whose running deployment carries definition `id` (directly or nested), with the revision it carries. */
export async function deployedUsersOf(app: AppServices, organizationId: string, id: string): Promise<DeployedUse[]> {
  return app.db.sql<DeployedUse>(
    `SELECT f.id, f.name, (d.snapshot->'subflows'->($2::text)->>'revision')::int AS revision
       FROM flows f JOIN deployments d ON d.id = f.current_deployment_id
      WHERE f.organization_id = $1 AND f.deleted_at IS NULL AND d.snapshot->'subflows'->($2::text) IS NOT NULL
      ORDER BY f.name, f.id`,
    [organizationId, id],
  );
}

/** Who uses the definition: flows (saved graph or running deployment) and other definitions. */
async function usageOf(app: AppServices, organizationId: string, row: Subflow) {
  const index = await definitionIndex(app.db.prisma, organizationId);
  const containers = containersOf(index, row.id);
  const used_by_subflows = [...index].filter(([other, d]) => other !== row.id && d.uses.includes(row.id)).map(([other, d]) => ({ id: other, name: d.name }));
  const saved = await app.db.prisma.flowNode.findMany({
    where: { organizationId, type: { in: [...containers].map(subflowInstanceType) } },
    select: { flowId: true, type: true },
  });
  const direct = new Set(saved.filter((s) => s.type === subflowInstanceType(row.id)).map((s) => s.flowId));
  const deployed = new Map((await deployedUsersOf(app, organizationId, row.id)).map((d) => [d.id, d]));
  const flowIds = [...new Set([...saved.map((s) => s.flowId), ...deployed.keys()])];
  const flows = await app.db.prisma.flow.findMany({ where: { organizationId, id: { in: flowIds }, deletedAt: null }, select: { id: true, name: true }, orderBy: [{ name: "asc" }, { id: "asc" }] });
  return {
    used_by: flows.map((f) => {
      const revision = deployed.get(f.id)?.revision ?? null;
      return { flow_id: f.id, name: f.name, direct: direct.has(f.id), deployed_revision: revision, current: revision === row.revision };
    }),
    used_by_subflows,
  };
}

/** The organization's definitions as node catalog entries (GET /nodes): type `subflow:<id>`, its ports, colour and category; its description is the help. */
export async function subflowCatalogEntries(app: AppServices, principal: Principal) {
  // Kept with the organization's flow reads: every write to its subflows moves their generation.
  return (await readThrough(app.flowReads, principal, "subflows\u0000catalog", () => loadSubflowCatalogEntries(app, principal)))!;
}

async function loadSubflowCatalogEntries(app: AppServices, principal: Principal) {
  const rows = await app.db.prisma.subflow.findMany({ where: { organizationId: principal.organizationId }, orderBy: [{ name: "asc" }, { id: "asc" }] });
  return rows.map((row) => {
    const ports = subflowPortsOf(row.nodes as unknown as Array<{ type: string }>);
    return {
      type: subflowInstanceType(row.id),
      category: row.category,
      name: row.name,
      description: row.description.split("\n")[0] ?? "",
      help: row.description,
      inputs: ports.inputs,
      outputs: ports.outputs,
      inputs_rule: ports.inputs > 0 ? (1 as const) : (0 as const),
      outputs_rule: ports.outputs,
      defaults: { env: [] },
      version: row.revision,
      subflow_only: false,
      kind: "node" as const,
      color: row.color,
      form: {},
    };
  });
}

/** A definition to create, its id chosen already (an import's). */
export type NewSubflow = CreateSubflowInput & { id: string };

/**
 * Checks definitions to be created together (an import's) as create checks one, each against the
 * organization's and the others (nested instances, cycles, depth), before anything is written.
 * Errors name the definition (`subflows[i].…`). Answers the validated graphs and the ports of every
 * definition the import's flows may use (the organization's and these).
 */
export async function checkNewSubflows(app: AppServices, organizationId: string, defs: NewSubflow[]) {
  return checkDefinitions(app.nodes, await definitionIndex(app.db.prisma, organizationId), defs, await configNodeTypes(app.db.prisma, organizationId));
}

/**
 * checkNewSubflows without the database: `organization` is the organization's definitions as
 * definitionIndex reads them (an empty map for an organization that has none); `configNodes` the
 * configuration nodes their nodes may name (id → type: the organization's and the import's).
 */
export function checkDefinitions(registry: NodeRegistry, organization: ReadonlyMap<string, DefinitionIndex>, defs: NewSubflow[], configNodes: ReadonlyMap<string, string> = new Map()) {
  const index = new Map(organization);
  for (const def of defs) {
    index.set(def.id, { name: def.name, uses: usedSubflowIds(def.nodes), ports: { name: def.name, ...subflowPortsOf(def.nodes) } });
  }
  const graphs = defs.map((def, i) => {
    try {
      return validateDefinition(registry, index, def.id, def, configNodes);
    } catch (err) {
      if (!AppError.is(err) || !err.details) throw err;
      const details = err.details.map((d) => ({ path: `subflows[${i}].${d.path}`, message: `${d.message} (subflow ${def.id})` }));
      throw new AppError(err.code, `${details[0]!.path}: ${details[0]!.message}`, { details });
    }
  });
  return { graphs, ports: new Map([...index].map(([id, d]) => [id, d.ports])) };
}

/** Writes checked definitions in one transaction (all or none); audited as created. */
export async function insertSubflows(app: AppServices, principal: Principal, defs: NewSubflow[], graphs: ReturnType<typeof validateGraph>[], meta: RequestMeta) {
  if (defs.length === 0) return [];
  const rows = await app.db.prisma.$transaction(
    defs.map((def, i) =>
      app.db.prisma.subflow.create({
        data: {
          id: def.id,
          organizationId: principal.organizationId,
          name: def.name,
          description: def.description,
          category: def.category,
          color: def.color,
          icon: def.icon ?? null,
          env: def.env as unknown as Prisma.InputJsonValue,
          nodes: graphs[i]!.nodes as unknown as Prisma.InputJsonValue,
          connections: graphs[i]!.connections as unknown as Prisma.InputJsonValue,
          groups: graphs[i]!.groups as unknown as Prisma.InputJsonValue,
          createdById: principal.userId,
        },
      }),
    ),
  );
  await app.flowReads.changed(principal.organizationId);
  for (const row of rows) {
    await recordAudit(app, { action: "subflow.created", organizationId: principal.organizationId, actorId: principal.userId, targetType: "subflow", targetId: row.id, ipAddress: meta.ip });
  }
  return rows.map(subflowView);
}

/** Undoes insertSubflows when what was imported with them could not be written. */
export async function removeSubflows(app: AppServices, organizationId: string, ids: string[]) {
  if (ids.length === 0) return;
  await app.db.prisma.subflow.deleteMany({ where: { organizationId, id: { in: ids } } });
  await app.flowReads.changed(organizationId);
}

/** The organization's definitions among `ids`, whole: what an export writes or an import finds taken. */
export async function subflowsByIds(app: AppServices, organizationId: string, ids: string[]) {
  if (ids.length === 0) return [];
  return (await app.db.prisma.subflow.findMany({ where: { organizationId, id: { in: ids } } })).map(subflowView);
}
