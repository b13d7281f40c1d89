import { z } from "zod";
import { authedProcedure, router, type Context, requestMeta } from "../trpc";
import * as s from "../../services/flows/flow.schemas";
import { createFlow, deleteFlow, getFlow, listFlows, updateFlow } from "../../services/flows/flows";
import { deployFlow, getDeployedGraph, listDeployments, listFlowNodes, rollbackFlow, setFlowDebugActive } from "../../services/flows/deployments";
import { exportFlow, importFlows, pasteSelection, replaceFlowFromNodeRed, selectionToNodeRed } from "../../services/flows/node-red";
import { bodyLimits } from "../../../shared/policy";
import { frozenOutput } from "../frozen-output";

const tags = ["flows"];
const etag = (ctx: Context, revision: number) => ctx.responseHeaders.set("ETag", `"${revision}"`);

export const flowsRouter = router({
  list: authedProcedure
    .meta({
      permission: "flows:read",
      rest: { method: "GET", path: "/flows" },
      summary: "Flows of the organization, newest first",
      description: "Without `limit`, every flow. With `limit` (1-200), a page and `next_cursor`. Filters: `name` (contains, any case), `enabled`.",
      tags,
    })
    .input(s.listFlowsInput)
    .output(frozenOutput(s.listFlowsOutput))
    .query(({ ctx, input }) => listFlows(ctx.services, ctx.principal, input ?? {})),

  create: authedProcedure
    .meta({ permission: "flows:write", rest: { method: "POST", path: "/flows", status: 201, bodyLimit: bodyLimits.flowBytes }, summary: "Create a flow (graph validated, config defaults filled)", tags })
    .input(s.createFlowInput)
    .output(s.flowOutput)
    .mutation(async ({ ctx, input }) => {
      const result = await createFlow(ctx.services, ctx.principal, input, requestMeta(ctx));
      etag(ctx, result.flow.revision);
      return result;
    }),

  import: authedProcedure
    .meta({
      permission: "flows:write",
      rest: { method: "POST", path: "/flows/import", status: 201, query: ["dry_run", "target_device"], statusOf: (output) => (output && typeof output === "object" && "report" in output ? 200 : 201), bodyLimit: bodyLimits.flowBytes },
      summary: "Import a Node-RED flows.json (one flow per tab)",
      description:
        "201 `{flows, warnings}`. With `?dry_run=true`: 200 `{report: [{node_id, type, support: supported|partial|unsupported, reason?}], warnings}`, checked exactly as an import and nothing written. With `?target_device=dev_…` (SPEC §22): the node types that device reported count as supported (they run there), and the imported flows target it.",
      tags,
    })
    .input(s.importFlowsInput)
    .output(s.importFlowsOutput)
    .mutation(({ ctx, input }) => importFlows(ctx.services, ctx.principal, input.flows, requestMeta(ctx), { dryRun: input.dry_run === true, targetDevice: input.target_device })),

  get: authedProcedure
    .meta({ permission: "flows:read", rest: { method: "GET", path: "/flows/{id}" }, summary: "A flow with its nodes and connections (ETag: its revision)", tags })
    .input(s.flowIdInput)
    .output(frozenOutput(s.flowOutput))
    .query(async ({ ctx, input }) => {
      const result = await getFlow(ctx.services, ctx.principal, input.id);
      etag(ctx, result.flow.revision);
      return result;
    }),

  update: authedProcedure
    .meta({
      permission: "flows:write",
      rest: { method: "PUT", path: "/flows/{id}", bodyLimit: bodyLimits.flowBytes },
      summary: "Update a flow (partial)",
      description: "Send the `revision` you edited (or `If-Match`); if the flow has moved on, 409 `REVISION_CONFLICT` and nothing is written. `enabled` starts or stops a deployed flow.",
      tags,
    })
    .input(s.updateFlowInput)
    .output(s.flowOutput)
    .mutation(async ({ ctx, input }) => {
      const result = await updateFlow(ctx.services, ctx.principal, input, requestMeta(ctx));
      etag(ctx, result.flow.revision);
      return result;
    }),

  delete: authedProcedure
    .meta({ permission: "flows:write", rest: { method: "DELETE", path: "/flows/{id}", status: 204 }, summary: "Delete a flow (it stops)", tags })
    .input(s.flowIdInput)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteFlow(ctx.services, ctx.principal, input.id, requestMeta(ctx))),

  deploy: authedProcedure
    .meta({
      permission: "flows:deploy",
      rest: { method: "POST", path: "/flows/{id}/deploy", statusOf: (output) => ((output as { pending?: string[] }).pending?.length ? 202 : 200) },
      summary: "Deploy the current revision",
      description:
        "Validates and snapshots the current revision and replaces the running version (the old one is stopped first). Answers once the deployment is in effect. A flow that targets devices (SPEC §22): 200 once every device applied it; 202 with `pending` (device ids) while any is offline or has not applied it within 10 s: it gets it when it connects.",
      tags,
    })
    .input(s.flowIdInput)
    .output(s.deploymentOutput)
    .mutation(({ ctx, input }) => deployFlow(ctx.services, ctx.principal, input.id, requestMeta(ctx))),

  setDebugActive: authedProcedure
    .meta({
      permission: "flows:deploy",
      rest: { method: "POST", path: "/flows/{id}/debug/active" },
      summary: "Switch every debug node of a running flow on or off",
      description:
        "At once and without a deploy, as Node-RED's \"activate / deactivate all debug nodes\": each debug node of the running version (or those in `node_ids`) stops or starts showing messages until it restarts; their saved Active settings are unchanged. " +
        "Answers with the nodes switched. A device flow's nodes are switched on each of its online devices. A `node_ids` entry that is not a debug node of the running version → 400 `NOT_SWITCHABLE`; flow not running (or none of its devices online) → 409 `FLOW_NOT_RUNNING`; another organization's flow → 404.",
      tags,
    })
    .input(s.setDebugActiveInput)
    .output(s.setDebugActiveOutput)
    .mutation(({ ctx, input }) => setFlowDebugActive(ctx.services, ctx.principal, input)),

  deployments: authedProcedure
    .meta({ permission: "flows:read", rest: { method: "GET", path: "/flows/{id}/deployments" }, summary: "Deployment history, newest first", tags })
    .input(s.listDeploymentsInput)
    .output(s.deploymentsOutput)
    .query(({ ctx, input }) => listDeployments(ctx.services, ctx.principal, input)),

  rollback: authedProcedure
    .meta({ permission: "flows:deploy", rest: { method: "POST", path: "/flows/{id}/rollback" }, summary: "Deploy an earlier deployment's snapshot again", tags })
    .input(s.rollbackInput)
    .output(s.deploymentOutput)
    .mutation(({ ctx, input }) => rollbackFlow(ctx.services, ctx.principal, input, requestMeta(ctx))),

  export: authedProcedure
    .meta({ permission: "flows:read", rest: { method: "GET", path: "/flows/{id}/export" }, summary: "The flow as a Node-RED flows.json array", tags })
    .input(s.flowIdInput)
    .output(s.exportFlowOutput)
    .query(({ ctx, input }) => exportFlow(ctx.services, ctx.principal, input.id)),

  replaceFromNodeRed: authedProcedure
    .meta({
      permission: "flows:write",
      rest: { method: "PUT", path: "/flows/{id}/export", bodyLimit: bodyLimits.flowBytes },
      summary: "Replace the flow with a Node-RED flows.json of one tab",
      description:
        "The inverse of GET `/flows/{id}/export` (what `flowplane flows push --id` sends): the tab's label and info and its nodes replace the flow's name, description and graph; the flow keeps its id and history. Node ids used by another flow get fresh ones (listed in `warnings`). Send `revision` to refuse a stale file (409 `REVISION_CONFLICT`). Not deployed.",
      tags,
    })
    .input(s.replaceFromNodeRedInput)
    .output(s.replaceFromNodeRedOutput)
    .mutation(async ({ ctx, input }) => {
      const result = await replaceFlowFromNodeRed(ctx.services, ctx.principal, input, requestMeta(ctx));
      etag(ctx, result.flow.revision);
      return result;
    }),

  deployed: authedProcedure
    .meta({
      permission: "flows:read",
      rest: { method: "GET", path: "/flows/{id}/deployed" },
      summary: "The graph of the flow's current deployment",
      description: "What runs (or ran, if the flow is disabled): the editor diffs it against the saved flow to mark what changed since the deploy. `deployed` is null when the flow was never deployed.",
      tags,
    })
    .input(s.flowIdInput)
    .output(s.deployedGraphOutput)
    .query(({ ctx, input }) => getDeployedGraph(ctx.services, ctx.principal, input.id)),

  // The editor's clipboard: conversions only, nothing is written (no REST route: the REST API has import/export).
  copySelection: authedProcedure
    .meta({ permission: "flows:read", summary: "A selection of a flow as Node-RED JSON", tags })
    .input(s.clipboardExportInput)
    .output(s.nodeRedFlowSchema)
    .mutation(({ ctx, input }) => selectionToNodeRed(ctx.services, ctx.principal, input)),

  parseSelection: authedProcedure
    .meta({ permission: "flows:write", summary: "Node-RED JSON as nodes and connections to paste into a flow", tags })
    .input(s.clipboardImportInput)
    .output(s.clipboardImportOutput)
    .mutation(({ ctx, input }) => pasteSelection(ctx.services, ctx.principal, input.flows)),

  nodes: authedProcedure
    .meta({ permission: "nodes:read", rest: { method: "GET", path: "/flows/{flowId}/nodes" }, summary: "The flow's node instances with their runtime status", tags: ["nodes"] })
    .input(s.flowNodesInput)
    .output(s.flowNodesOutput)
    .query(({ ctx, input }) => listFlowNodes(ctx.services, ctx.principal, input.flowId)),
});
