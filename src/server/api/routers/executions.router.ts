import { authedProcedure, router } from "../trpc";
import {
  executionIdInputSchema,
  getExecutionOutputSchema,
  listExecutionsInputSchema,
  listExecutionsOutputSchema,
  replayExecutionOutputSchema,
} from "../../../shared/executions";
import { getExecution, listExecutions, replayExecution } from "../../services/executions/executions";

const tags = ["executions"];

export const executionsRouter = router({
  list: authedProcedure
    .meta({
      permission: "executions:read",
      rest: { method: "GET", path: "/flows/{id}/executions" },
      summary: "A flow's executions, newest first",
      description:
        "Filter with `status`; page with `cursor` (`next_cursor` of the previous page). `unrecorded`: successful executions sampling left out. Another organization's flow → 404.",
      tags,
    })
    .input(listExecutionsInputSchema)
    .output(listExecutionsOutputSchema)
    .query(({ ctx, input }) => listExecutions(ctx.services, ctx.principal, input)),

  get: authedProcedure
    .meta({
      permission: "executions:read",
      rest: { method: "GET", path: "/executions/{id}" },
      summary: "One execution with its steps (the path of its message through the flow)",
      description: "Another organization's execution, or one sampling did not keep → 404.",
      tags,
    })
    .input(executionIdInputSchema)
    .output(getExecutionOutputSchema)
    .query(({ ctx, input }) => getExecution(ctx.services, ctx.principal, input)),

  replay: authedProcedure
    .meta({
      permission: "executions:replay",
      rest: { method: "POST", path: "/executions/{id}/replay", status: 202 },
      summary: "Send an execution's trigger message again into the flow's current deployment",
      description:
        "202 with the new execution's id (its `replay_of` names this one). Flow not running → 409 `FLOW_NOT_RUNNING`; trigger node not in the current deployment, or trigger message not kept → 409 `EXECUTION_NOT_REPLAYABLE`; viewers → 403; another organization's → 404.",
      tags,
    })
    .input(executionIdInputSchema)
    .output(replayExecutionOutputSchema)
    .mutation(({ ctx, input }) => replayExecution(ctx.services, ctx.principal, input)),
});
