import { z } from "zod";
import { authedProcedure, router, type Context, requestMeta } from "../trpc";
import * as s from "../../services/subflows/subflow.schemas";
import { createSubflow, deleteSubflow, getSubflow, listSubflows, requireSubflow, updateSubflow } from "../../services/subflows/subflows";
import { redeployUsersOf } from "../../services/flows/deployments";
import { bodyLimits } from "../../../shared/policy";

const tags = ["subflows"];
const etag = (ctx: Context, revision: number) => ctx.responseHeaders.set("ETag", `"${revision}"`);

/** SPEC §16: subflow definitions, the organization's reusable pieces of flow. */
export const subflowsRouter = router({
  list: authedProcedure
    .meta({ permission: "subflows:read", rest: { method: "GET", path: "/subflows" }, summary: "Subflow definitions of the organization, by name (without their graphs)", tags })
    .output(s.listSubflowsOutput)
    .query(({ ctx }) => listSubflows(ctx.services, ctx.principal)),

  create: authedProcedure
    .meta({
      permission: "subflows:write",
      rest: { method: "POST", path: "/subflows", status: 201, bodyLimit: bodyLimits.flowBytes },
      summary: "Create a subflow definition",
      description:
        "Its graph holds its port nodes: at most one `subflow-in`, `subflow-out` nodes with ports 0..n-1 (one each), at most one `subflow-status`. Inner configs are checked against their types; instances of other definitions must exist in the organization, never contain this one, and nest at most 8 deep. An `id` the organization has already: 409 `SUBFLOW_EXISTS`. Instances use it as type `subflow:<id>`.",
      tags,
    })
    .input(s.createSubflowInput)
    .output(s.subflowOutput)
    .mutation(async ({ ctx, input }) => {
      const result = await createSubflow(ctx.services, ctx.principal, input, requestMeta(ctx));
      etag(ctx, result.subflow.revision);
      return result;
    }),

  get: authedProcedure
    .meta({
      permission: "subflows:read",
      rest: { method: "GET", path: "/subflows/{id}" },
      summary: "A subflow definition, with the flows using it and whether they run its current revision (ETag: its revision)",
      tags,
    })
    .input(s.subflowIdInput)
    .output(s.subflowOutput)
    .query(async ({ ctx, input }) => {
      const result = await getSubflow(ctx.services, ctx.principal, input.id);
      etag(ctx, result.subflow.revision);
      return result;
    }),

  update: authedProcedure
    .meta({
      permission: "subflows:write",
      rest: { method: "PUT", path: "/subflows/{id}", bodyLimit: bodyLimits.flowBytes },
      summary: "Update a subflow definition (partial)",
      description:
        "Send the `revision` you edited; if the definition has moved on, 409 `REVISION_CONFLICT` and nothing is written. Running flows keep the revision they were deployed with: POST `/subflows/{id}/deploy` (or deploying each flow) puts the new one in effect.",
      tags,
    })
    .input(s.updateSubflowInput)
    .output(s.subflowOutput)
    .mutation(async ({ ctx, input }) => {
      const result = await updateSubflow(ctx.services, ctx.principal, input, requestMeta(ctx));
      etag(ctx, result.subflow.revision);
      return result;
    }),

  delete: authedProcedure
    .meta({
      permission: "subflows:write",
      rest: { method: "DELETE", path: "/subflows/{id}", status: 204 },
      summary: "Delete a subflow definition",
      description: "Refused with 409 `SUBFLOW_IN_USE` (naming them) while a flow or another definition holds an instance of it. Deployments keep their own copy.",
      tags,
    })
    .input(s.subflowIdInput)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteSubflow(ctx.services, ctx.principal, input.id, requestMeta(ctx))),

  deploy: authedProcedure
    .meta({
      permission: "flows:deploy",
      rest: { method: "POST", path: "/subflows/{id}/deploy" },
      summary: "Redeploy every deployed flow that uses the definition (directly or nested) with its current revision",
      description:
        "Each such flow gets a new deployment of the graph it runs, with the organization's definitions as they are now; its changes list the instances whose definition changed. A flow whose wires no longer fit the definition's ports: 400 naming it, and nothing is deployed.",
      tags,
    })
    .input(s.subflowIdInput)
    .output(s.deploySubflowOutput)
    .mutation(async ({ ctx, input }) => {
      await requireSubflow(ctx.services, ctx.principal, input.id);
      return redeployUsersOf(ctx.services, ctx.principal, input.id, requestMeta(ctx));
    }),
});
