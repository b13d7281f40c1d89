import type { AppServices } from "../../app-services";
import { AppError, notFound } from "../../errors";
import { newId } from "../../ids";
import type { Principal } from "../../auth/principal";
import type { NodeRegistry } from "../../nodes/registry";
import { deleteFlowContextRows } from "../../persistence/context-store";
import type { Flow, Prisma } from "../../../generated/prisma/client";
import type { Connection, FlowGraph, FlowNode } from "../../../shared/flow-graph";
import { recordAudit } from "../audit/record-audit";
import type { RequestMeta } from "../request-meta";
import { validateGraph, type GraphContext } from "./validate-graph";
import { configNodeTypes, mayNameConfigNodes } from "../config-nodes/config-node-rows";
import type { FlowGroup } from "../../../shared/subflows";
import { subflowPortsFor } from "../subflows/subflow-ports";
import { actorName, publishOrgEvent } from "./events";
import { decodeKeysetCursor, encodeKeysetCursor } from "../cursor";
import { readThrough } from "./flow-reads";
import { deepFreeze, isDeepFrozen } from "../../../shared/deep-freeze";
import type { CreateFlowInput, UpdateFlowInput } from "./flow.schemas";
import { deviceStates, targetColumns, targetNodeTypes, targetOf } from "../devices/devices";
import { adaptDeviceNodes } from "../devices/device-nodes";
import { refreshDevicesOf } from "../devices/agents";

type Tx = Prisma.TransactionClient;

/** Where the flow runs, as the API shows it. */
export type RuntimeView = { instance_id: string; since: string } | null;

/** Which instance runs the flow, and since when; null when it runs nowhere (stopped, in error, or between instances). */
export async function runtimeOf(app: AppServices, flow: Flow): Promise<RuntimeView> {
  if (flow.state !== "running" || !flow.enabled || flow.deletedAt) return null;
  const placement = await app.flowRuntime.placement(flow.id);
  return placement ? { instance_id: placement.instanceId, since: placement.since.toISOString() } : null;
}

export function flowView(flow: Flow, runtime: RuntimeView = null) {
  return {
    id: flow.id,
    name: flow.name,
    description: flow.description,
    enabled: flow.enabled,
    revision: flow.revision,
    nodes: flow.nodes as unknown as FlowNode[],
    connections: flow.connections as unknown as Connection[],
    groups: flow.groups as unknown as FlowGroup[],
    state: flow.state as "not_deployed",
    state_error: flow.stateError,
    deployed_revision: flow.deployedRevision,
    deployed_at: flow.deployedAt?.toISOString() ?? null,
    created_at: flow.createdAt.toISOString(),
    updated_at: flow.updatedAt.toISOString(),
    runtime,
    target: targetOf(flow),
  };
}

/**
 * A flow of the caller's organization; any other id answers 404, as a missing one does. Read from
 * the database: what a write starts from.
 */
export async function requireFlow(app: AppServices, principal: Principal, id: string): Promise<Flow> {
  const flow = await app.db.prisma.flow.findFirst({ where: { id, organizationId: principal.organizationId, deletedAt: null } });
  if (!flow) throw notFound("flow");
  return flow;
}

/**
 * The same flow for a read (the editor's page, the nodes list, exports): through the organization's
 * flow reads (flow-reads.ts), so it is read from the database once per change, not per request. The
 * row is frozen; a write starts from requireFlow instead.
 */
export async function readFlow(app: AppServices, principal: Principal, id: string): Promise<Flow> {
  return (await readThrough(app.flowReads, principal, `flow\u0000${id}`, () => requireFlow(app, principal, id)))!;
}

/**
 * Every instance reads the organization's flows again on its next request. Awaited after a write
 * to its flows rows is committed, before the write is answered or announced.
 */
export function flowsChanged(app: AppServices, organizationId: string): Promise<void> {
  return app.flowReads.changed(organizationId);
}

/** Node ids are unique within the organization: refuse ids that another flow uses. */
async function assertNodeIdsFree(tx: Tx, organizationId: string, flowId: string, graph: FlowGraph) {
  if (graph.nodes.length === 0) return;
  const taken = await tx.flowNode.findMany({
    where: { organizationId, nodeId: { in: graph.nodes.map((n) => n.id) }, flowId: { not: flowId } },
    select: { nodeId: true },
  });
  if (taken.length > 0) {
    const takenIds = new Set(taken.map((t) => t.nodeId));
    const details = graph.nodes.flatMap((n, i) => (takenIds.has(n.id) ? [{ path: `nodes[${i}].id`, message: `node id ${n.id} is used by another flow of this organization` }] : []));
    throw new AppError("VALIDATION_FAILED", `${details[0]!.path}: ${details[0]!.message}`, { details });
  }
}

async function writeNodeIndex(tx: Tx, organizationId: string, flowId: string, graph: FlowGraph) {
  await tx.flowNode.deleteMany({ where: { flowId } });
  if (graph.nodes.length > 0) {
    await tx.flowNode.createMany({ data: graph.nodes.map((n) => ({ organizationId, nodeId: n.id, flowId, type: n.type })) });
  }
}

function uniqueNodeViolation(err: unknown): AppError | null {
  if ((err as { code?: string })?.code !== "P2002") return null;
  return new AppError("VALIDATION_FAILED", "nodes: a node id is used by another flow of this organization", {
    details: [{ path: "nodes", message: "a node id is used by another flow of this organization" }],
  });
}

/** What a flow of the organization is validated against besides the node catalog: its subflow definitions and configuration nodes. */
export async function graphContext(app: AppServices, organizationId: string, nodes: ReadonlyArray<{ type: string }>): Promise<GraphContext> {
  // Only a graph with a node that may name a configuration node reads them (saves and deploys of the rest cost nothing more).
  const [subflows, configNodes] = await Promise.all([subflowPortsFor(app, organizationId, nodes), mayNameConfigNodes(app.nodes, nodes) ? configNodeTypes(app.db.prisma, organizationId) : new Map<string, string>()]);
  return { kind: "flow", subflows, configNodes };
}

export async function createFlow(app: AppServices, principal: Principal, input: CreateFlowInput, meta: RequestMeta, options: { quiet?: boolean } = {}) {
  const target = await targetColumns(app, principal.organizationId, input.target ?? "hosted");
  // A device flow takes the node types its devices reported, kept as Node-RED nodes (SPEC §22).
  const nodes = target.targetDeviceId || target.targetDeviceTag ? adaptDeviceNodes(app.nodes, input.nodes, await targetNodeTypes(app, principal.organizationId, target)) : input.nodes;
  const adapted = { ...input, nodes };
  const [graph] = validateGraphs(app.nodes, [adapted], undefined, await graphContext(app, principal.organizationId, nodes));
  const [flow] = await insertFlows(app, principal, [{ input: adapted, graph: graph!, target }], meta, options);
  return { flow: flow! };
}

/**
 * Validates each flow's graph as create does, before anything is written; a failure names the flow
 * (`flows[i].…`) when there are several.
 */
export function validateGraphs(registry: NodeRegistry, inputs: CreateFlowInput[], prefix?: string, context: GraphContext = {}): FlowGraph[] {
  return inputs.map((input, i) => {
    try {
      return validateGraph(registry, input, context);
    } catch (err) {
      if (prefix === undefined || !AppError.is(err) || !err.details) throw err;
      const details = err.details.map((d) => ({ path: `${prefix}[${i}].${d.path}`, message: d.message }));
      throw new AppError(err.code, `${details[0]!.path}: ${details[0]!.message}`, { details });
    }
  });
}

/**
 * An import of up to 100 tabs writes up to ~400 statements in one interactive transaction: more
 * than Prisma's default 5 s may take on a loaded database, and an expired transaction would fail
 * the import after it was checked.
 */
const IMPORT_TRANSACTION_TIMEOUT_MS = 30_000;

/** Writes validated flows in one transaction (all or none), then announces each. */
export async function insertFlows(
  app: AppServices,
  principal: Principal,
  flows: Array<{ input: CreateFlowInput; graph: FlowGraph; target?: { targetDeviceId: string | null; targetDeviceTag: string | null } }>,
  meta: RequestMeta,
  options: { quiet?: boolean } = {},
) {
  const rows = await app.db.prisma
    .$transaction(async (tx) => {
      const created: Flow[] = [];
      for (const { input, graph, target } of flows) {
        const id = newId("flw");
        await assertNodeIdsFree(tx, principal.organizationId, id, graph);
        created.push(
          await tx.flow.create({
            data: {
              id,
              organizationId: principal.organizationId,
              name: input.name,
              description: input.description,
              enabled: input.enabled,
              nodes: graph.nodes as unknown as Prisma.InputJsonValue,
              connections: graph.connections as unknown as Prisma.InputJsonValue,
              groups: (graph.groups ?? []) as unknown as Prisma.InputJsonValue,
              nodeCount: graph.nodes.length,
              createdById: principal.userId,
              ...target,
            },
          }),
        );
        await writeNodeIndex(tx, principal.organizationId, id, graph);
      }
      return created;
    }, { timeout: IMPORT_TRANSACTION_TIMEOUT_MS })
    .catch((err: unknown) => {
      throw uniqueNodeViolation(err) ?? err;
    });
  await flowsChanged(app, principal.organizationId);
  for (const flow of rows) {
    if (!options.quiet) await recordAudit(app, { action: "flow.created", organizationId: principal.organizationId, actorId: principal.userId, targetType: "flow", targetId: flow.id, ipAddress: meta.ip, metadata: { name: flow.name } });
    publishOrgEvent(app, principal.organizationId, "flow.created", flow.id, { name: flow.name, revision: flow.revision, by: principal.userId });
  }
  return rows.map((flow) => flowView(flow));
}

/** Newest first. Without `limit`, every flow (SEED.md); with it, keyset pages on (created_at, id). */
interface FlowListRow {
  id: string;
  name: string;
  enabled: boolean;
  node_count: number;
  revision: number;
  state: string;
  updated_at: Date;
  created_at: Date;
}

/** `%`, `_` and `\` match themselves in a LIKE pattern built from a user's text. */
const likeEscape = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The flows list: every API client's and the flows page's first read, so one SQL statement to the
 * driver rather than through Prisma (whose work per query cost more than the query itself). The
 * (organization_id, created_at DESC, id DESC) index serves it; the cursor's outer bound lets it
 * seek to the page.
 */
export async function listFlows(app: AppServices, principal: Principal, input: { limit?: number; cursor?: string; name?: string; enabled?: boolean } = {}): Promise<FlowList> {
  const key = `list\u0000${input.limit ?? ""}\u0000${input.cursor ?? ""}\u0000${input.name ?? ""}\u0000${input.enabled ?? ""}`;
  return (await readThrough(app.flowReads, principal, key, () => queryFlows(app, principal, input)))!;
}

interface FlowList {
  flows: { id: string; name: string; enabled: boolean; nodes: number; revision: number; state: "running"; updated_at: string }[];
  next_cursor: string | null;
}

async function queryFlows(app: AppServices, principal: Principal, input: { limit?: number; cursor?: string; name?: string; enabled?: boolean }): Promise<FlowList> {
  const after = input.cursor ? decodeKeysetCursor(input.cursor) : null;
  const params: unknown[] = [principal.organizationId];
  const where = ["organization_id = $1", "deleted_at IS NULL"];
  if (input.name) {
    params.push(`%${likeEscape(input.name)}%`);
    where.push(`name ILIKE $${params.length}`);
  }
  if (input.enabled !== undefined) {
    params.push(input.enabled);
    where.push(`enabled = $${params.length}`);
  }
  if (after) {
    params.push(after.at, after.id);
    const [at, id] = [`$${params.length - 1}`, `$${params.length}`];
    where.push(`created_at <= ${at} AND (created_at < ${at} OR id < ${id})`);
  }
  let limit = "";
  if (input.limit) {
    params.push(input.limit + 1);
    limit = ` LIMIT $${params.length}`;
  }
  const rows = await app.db.sql<FlowListRow>(
    `SELECT id, name, enabled, node_count, revision, state, updated_at, created_at FROM flows WHERE ${where.join(" AND ")} ORDER BY created_at DESC, id DESC${limit}`,
    params,
  );
  const page = input.limit ? rows.slice(0, input.limit) : rows;
  const last = page[page.length - 1];
  return {
    flows: page.map((f) => ({ id: f.id, name: f.name, enabled: f.enabled, nodes: f.node_count, revision: f.revision, state: f.state as "running", updated_at: f.updated_at.toISOString() })),
    next_cursor: input.limit && rows.length > input.limit && last ? encodeKeysetCursor(last.created_at, last.id) : null,
  };
}

export async function getFlow(app: AppServices, principal: Principal, id: string) {
  const flow = await readFlow(app, principal, id);
  const runtime = await runtimeOf(app, flow);
  if (flow.targetDeviceId || flow.targetDeviceTag) return { flow: { ...flowView(flow, runtime), devices: await deviceStates(app, flow) } };
  if (!isDeepFrozen(flow)) return { flow: flowView(flow, runtime) };
  // A kept row (flow-reads.ts) and the same placement: the answer made for it before, which the
  // router's frozenOutput checks and writes as JSON once instead of on every read.
  const kept = flowAnswers.get(flow);
  if (kept && kept.runtime?.instance_id === runtime?.instance_id && kept.runtime?.since === runtime?.since) return kept.answer;
  const answer = deepFreeze({ flow: flowView(flow, runtime) });
  flowAnswers.set(flow, { runtime, answer });
  return answer;
}

/** getFlow's deep-frozen answers, beside the kept flow row they were made from (and live as long). */
const flowAnswers = new WeakMap<Flow, { runtime: RuntimeView; answer: { flow: ReturnType<typeof flowView> } }>();

/**
 * Partial update. With a revision (body or If-Match) the write happens only if the flow is still at
 * it: a conditional update, so of two concurrent writers exactly one wins and the other gets 409
 * with nothing written. `enabled` also starts or stops a deployed flow.
 */
export async function updateFlow(app: AppServices, principal: Principal, input: UpdateFlowInput, meta: RequestMeta) {
  const current = await requireFlow(app, principal, input.id);
  if (input.revision !== undefined && input.revision !== current.revision) {
    throw new AppError("REVISION_CONFLICT", `the flow is at revision ${current.revision}, not ${input.revision}; reload it and apply your change again`);
  }
  const target = input.target !== undefined ? await targetColumns(app, principal.organizationId, input.target) : { targetDeviceId: current.targetDeviceId, targetDeviceTag: current.targetDeviceTag };
  const givenNodes = input.nodes && (target.targetDeviceId || target.targetDeviceTag) ? adaptDeviceNodes(app.nodes, input.nodes, await targetNodeTypes(app, principal.organizationId, target)) : input.nodes;
  const graph =
    input.nodes !== undefined || input.connections !== undefined || input.groups !== undefined
      ? validateGraph(
          app.nodes,
          {
            nodes: givenNodes ?? (current.nodes as unknown as FlowNode[]),
            connections: input.connections ?? (current.connections as unknown as Connection[]),
            groups: input.groups ?? (current.groups as unknown as FlowGroup[]),
          },
          await graphContext(app, principal.organizationId, givenNodes ?? (current.nodes as unknown as FlowNode[])),
        )
      : null;
  const expected = input.revision ?? current.revision;
  const updated = await app.db.prisma
    .$transaction(async (tx) => {
      if (graph) await assertNodeIdsFree(tx, principal.organizationId, current.id, graph);
      const { count } = await tx.flow.updateMany({
        where: { id: current.id, organizationId: principal.organizationId, deletedAt: null, revision: expected },
        data: {
          name: input.name,
          description: input.description,
          enabled: input.enabled,
          ...(input.target !== undefined ? target : {}),
          ...(graph
            ? {
                nodes: graph.nodes as unknown as Prisma.InputJsonValue,
                connections: graph.connections as unknown as Prisma.InputJsonValue,
                groups: graph.groups as unknown as Prisma.InputJsonValue,
                nodeCount: graph.nodes.length,
              }
            : {}),
          revision: { increment: 1 },
        },
      });
      if (count !== 1) throw new AppError("REVISION_CONFLICT", "the flow was changed by someone else meanwhile; reload it and apply your change again");
      if (graph) await writeNodeIndex(tx, principal.organizationId, current.id, graph);
      return tx.flow.findUniqueOrThrow({ where: { id: current.id } });
    })
    .catch((err: unknown) => {
      throw uniqueNodeViolation(err) ?? err;
    });
  await flowsChanged(app, principal.organizationId);
  if (input.enabled !== undefined && input.enabled !== current.enabled && updated.currentDeploymentId) {
    await app.flowRuntime.setEnabled(updated, input.enabled);
    // A device flow starts or stops on its devices too.
    if (updated.targetDeviceId || updated.targetDeviceTag) await refreshDevicesOf(app, updated);
  }
  publishOrgEvent(app, principal.organizationId, "flow.updated", updated.id, {
    name: updated.name,
    revision: updated.revision,
    enabled: updated.enabled,
    by: principal.userId,
    by_name: await actorName(app, principal.userId),
  });
  void meta;
  const fresh = await app.db.prisma.flow.findUniqueOrThrow({ where: { id: updated.id } });
  return { flow: flowView(fresh, await runtimeOf(app, fresh)) };
}

export async function deleteFlow(app: AppServices, principal: Principal, id: string, meta: RequestMeta) {
  const flow = await requireFlow(app, principal, id);
  await app.db.prisma.$transaction([
    app.db.prisma.flow.update({ where: { id: flow.id }, data: { deletedAt: new Date(), enabled: false } }),
    app.db.prisma.flowNode.deleteMany({ where: { flowId: flow.id } }),
    deleteFlowContextRows(app.db.prisma, principal.organizationId, flow.id),
    // The flow's own variables go with it (the organization's stay).
    app.db.prisma.variable.deleteMany({ where: { organizationId: principal.organizationId, flowId: flow.id } }),
  ]);
  await flowsChanged(app, principal.organizationId);
  if (flow.currentDeploymentId) await app.flowRuntime.stop(flow.id);
  // Devices running it drop it.
  if (flow.currentDeploymentId) await refreshDevicesOf(app, flow);
  await recordAudit(app, { action: "flow.deleted", organizationId: principal.organizationId, actorId: principal.userId, targetType: "flow", targetId: flow.id, ipAddress: meta.ip, metadata: { name: flow.name } });
  publishOrgEvent(app, principal.organizationId, "flow.deleted", flow.id, { name: flow.name, by: principal.userId });
}
