import type { z } from "zod";
import type { AppServices } from "../../app-services";
import type { Principal } from "../../auth/principal";
import { AppError, notFound } from "../../errors";
import { decodeKeysetCursor, encodeKeysetCursor } from "../cursor";
import type { Execution as ExecutionRow } from "../../../generated/prisma/client";
import type { Message } from "../../runtime/types";
import type { DeploymentSnapshot } from "../../flow-runtime/types";
import type { ExecutionListItem, ExecutionStep, ListExecutionsOutput, listExecutionsInputSchema } from "../../../shared/executions";

/** Executions (SPEC §15): the list and detail doors read them wherever they were recorded; replay goes where the flow runs. */

function listItem(row: ExecutionRow): ExecutionListItem {
  return {
    id: row.id,
    flow_id: row.flowId,
    deployment_id: row.deploymentId,
    trigger_node_id: row.triggerNodeId,
    status: row.status as ExecutionListItem["status"],
    started_at: row.startedAt.toISOString(),
    duration_ms: row.durationMs,
    replay_of: row.replayOf,
    error: row.error,
  };
}

/** The flow, if it is the caller's organization's and not deleted; else 404. */
async function flowOf(app: AppServices, principal: Principal, flowId: string) {
  const flow = await app.db.prisma.flow.findFirst({ where: { id: flowId, organizationId: principal.organizationId, deletedAt: null }, select: { id: true } });
  if (!flow) throw notFound("flow");
  return flow;
}

/** Newest first, keyset-paginated on (started_at, id) as the other lists. */
export async function listExecutions(app: AppServices, principal: Principal, input: z.infer<typeof listExecutionsInputSchema>): Promise<ListExecutionsOutput> {
  await flowOf(app, principal, input.id);
  const after = input.cursor ? decodeKeysetCursor(input.cursor) : null;
  const [rows, counter] = await Promise.all([
    app.db.prisma.execution.findMany({
      where: {
        flowId: input.id,
        organizationId: principal.organizationId,
        ...(input.status ? { status: input.status } : {}),
        ...(after ? { OR: [{ startedAt: { lt: after.at } }, { startedAt: after.at, id: { lt: after.id } }] } : {}),
      },
      orderBy: [{ startedAt: "desc" }, { id: "desc" }],
      take: input.limit + 1,
      omit: { steps: true, triggerMessage: true },
    }),
    app.db.prisma.executionCounter.findUnique({ where: { flowId: input.id }, select: { unrecorded: true, organizationId: true } }),
  ]);
  const page = rows.slice(0, input.limit);
  const last = page[page.length - 1];
  return {
    executions: page.map((row) => listItem(row as ExecutionRow)),
    next_cursor: rows.length > input.limit && last ? encodeKeysetCursor(last.startedAt, last.id) : null,
    unrecorded: counter && counter.organizationId === principal.organizationId ? Number(counter.unrecorded) : 0,
  };
}

async function executionOf(app: AppServices, principal: Principal, id: string): Promise<ExecutionRow> {
  const row = await app.db.prisma.execution.findFirst({ where: { id, organizationId: principal.organizationId } });
  if (!row) throw notFound("execution");
  return row;
}

export async function getExecution(app: AppServices, principal: Principal, input: { id: string }) {
  const row = await executionOf(app, principal, input.id);
  return {
    execution: {
      ...listItem(row),
      instance_id: row.instanceId,
      sampled: row.sampled,
      replayable: row.triggerMessage !== null,
      steps: row.steps as unknown as ExecutionStep[],
      steps_omitted: row.stepsOmitted,
    },
  };
}

/**
 * Sends the execution's trigger message (as recorded: secrets in it read "***") again out of its
 * trigger node in the flow's current deployment, wherever the flow runs; the new execution names
 * this one in `replay_of`.
 */
export async function replayExecution(app: AppServices, principal: Principal, input: { id: string }) {
  const row = await executionOf(app, principal, input.id);
  const flow = await app.db.prisma.flow.findFirst({
    where: { id: row.flowId, organizationId: principal.organizationId, deletedAt: null },
    select: { id: true, enabled: true, currentDeploymentId: true },
  });
  if (!flow) throw notFound("execution");
  if (!flow.currentDeploymentId || !flow.enabled) throw new AppError("FLOW_NOT_RUNNING", "the flow is not running: deploy it (and enable it) first");
  if (row.triggerMessage === null || typeof row.triggerMessage !== "object" || Array.isArray(row.triggerMessage)) {
    throw new AppError("EXECUTION_NOT_REPLAYABLE", "this execution's trigger message was not kept (it was over 1 MiB): it cannot be replayed");
  }
  const deployment = await app.db.prisma.deployment.findUnique({ where: { id: flow.currentDeploymentId }, select: { snapshot: true } });
  const snapshot = deployment?.snapshot as unknown as DeploymentSnapshot | undefined;
  const trigger = snapshot?.nodes.find((n) => n.id === row.triggerNodeId);
  if (!trigger || (trigger as { disabled?: boolean }).disabled) {
    throw new AppError("EXECUTION_NOT_REPLAYABLE", `the trigger node ${row.triggerNodeId} is not part of the flow's current deployment: it cannot be replayed`);
  }
  const result = await app.flowRuntime.replay(flow.id, row.triggerNodeId, row.triggerMessage as unknown as Message, row.id);
  if (!result.ok) {
    if (result.reason === "not_deployed") throw new AppError("EXECUTION_NOT_REPLAYABLE", `the trigger node ${row.triggerNodeId} is not part of the flow's running version: it cannot be replayed`);
    if (result.reason === "not_recorded") throw new AppError("EXECUTION_NOT_REPLAYABLE", "executions are not recorded on this server (EXECUTIONS_ENABLED=false)");
    if (result.reason === "unavailable") throw new AppError("UNAVAILABLE", "the instance running this flow did not answer; the message may not have been sent");
    throw new AppError("FLOW_NOT_RUNNING", "the flow is not running: deploy it (and enable it) first");
  }
  return { execution_id: result.executionId };
}
