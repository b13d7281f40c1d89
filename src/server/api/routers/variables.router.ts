import { z } from "zod";
import { authedProcedure, router, requestMeta } from "../trpc";
import * as s from "../../services/variables/variable.schemas";
import { createVariable, deleteVariable, listVariables, updateVariable } from "../../services/variables/variables";

const tags = ["variables"];
const scopeNote = "`flow_id` null or absent: the organization's variable; a flow's id: that flow's, which overrides the organization's of the same name.";

export const variablesRouter = router({
  list: authedProcedure
    .meta({
      permission: "variables:read",
      rest: { method: "GET", path: "/variables" },
      summary: "Variables of the organization and its flows; a secret is listed without its value",
      description: "Optional `flow_id`: only that flow's variables.",
      tags,
    })
    .input(s.listVariablesInput)
    .output(s.listVariablesOutput)
    .query(({ ctx, input }) => listVariables(ctx.services, ctx.principal, input ?? {})),

  create: authedProcedure
    .meta({
      permission: "variables:write",
      rest: { method: "POST", path: "/variables", status: 201 },
      summary: "Define a variable or a secret (admin+)",
      description: `${scopeNote} A secret is stored encrypted and never returned; it is handed only to credential properties (http-request URL, headers, authentication). \`allowed_hosts\` (a secret's only; up to 20 host names, \`*.example.com\` or IPv4 addresses): the secret is handed only to requests whose host, and every redirect's, matches one; any other use is the node's error. A name defined already in that scope: 409 \`VARIABLE_EXISTS\`.`,
      tags,
    })
    .input(s.createVariableInput)
    .output(s.variableOutput)
    .mutation(({ ctx, input }) => createVariable(ctx.services, ctx.principal, input, requestMeta(ctx))),

  update: authedProcedure
    .meta({
      permission: "variables:write",
      rest: { method: "PUT", path: "/variables/{name}" },
      summary: "Change a variable's value (admin+); running flows use it within 2 s, without a redeploy",
      description: `${scopeNote} \`allowed_hosts\` (a secret's only): a list replaces the secret's allowed hosts, null removes the restriction, absent keeps them.`,
      tags,
    })
    .input(s.updateVariableInput)
    .output(s.variableOutput)
    .mutation(({ ctx, input }) => updateVariable(ctx.services, ctx.principal, input, requestMeta(ctx))),

  delete: authedProcedure
    .meta({ permission: "variables:write", rest: { method: "DELETE", path: "/variables/{name}", status: 204 }, summary: "Delete a variable (admin+)", description: scopeNote, tags })
    .input(s.deleteVariableInput)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteVariable(ctx.services, ctx.principal, input, requestMeta(ctx))),
});
