import { z } from "zod";
import { authedProcedure, router } from "../trpc";
import * as s from "../../services/context/context.schemas";
import { deleteContext, getContext, putContext } from "../../services/context/context";

const tags = ["context"];
const valueLimit = "An organization's context (flows' and global, keys and JSON values in UTF-8) holds at most CONTEXT_MAX_BYTES (10 MiB by default): a write past it is refused with 413 `PAYLOAD_TOO_LARGE` and nothing changes.";

export const contextRouter = router({
  flow: authedProcedure
    .meta({ permission: "context:read", rest: { method: "GET", path: "/flows/{id}/context" }, summary: "A flow's context: every key and its value", tags })
    .input(s.flowContextInput)
    .output(s.contextOutput)
    .query(({ ctx, input }) => getContext(ctx.services, ctx.principal, { kind: "flow", flowId: input.id })),

  setFlow: authedProcedure
    .meta({ permission: "context:write", rest: { method: "PUT", path: "/flows/{id}/context/{key}" }, summary: "Set a key of a flow's context (the running flow sees it at once)", description: valueLimit, tags })
    .input(s.putFlowContextInput)
    .output(s.contextOutput)
    .mutation(({ ctx, input }) => putContext(ctx.services, ctx.principal, { kind: "flow", flowId: input.id }, input)),

  deleteFlow: authedProcedure
    .meta({ permission: "context:write", rest: { method: "DELETE", path: "/flows/{id}/context/{key}", status: 204 }, summary: "Delete a key of a flow's context", tags })
    .input(s.flowContextKeyInput)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteContext(ctx.services, ctx.principal, { kind: "flow", flowId: input.id }, input.key)),

  global: authedProcedure
    .meta({ permission: "context:read", rest: { method: "GET", path: "/context/global" }, summary: "The organization's global context: every key and its value", tags })
    .output(s.contextOutput)
    .query(({ ctx }) => getContext(ctx.services, ctx.principal, { kind: "global" })),

  setGlobal: authedProcedure
    .meta({ permission: "context:write", rest: { method: "PUT", path: "/context/global/{key}" }, summary: "Set a key of the global context (every flow sees it)", description: valueLimit, tags })
    .input(s.putGlobalContextInput)
    .output(s.contextOutput)
    .mutation(({ ctx, input }) => putContext(ctx.services, ctx.principal, { kind: "global" }, input)),

  deleteGlobal: authedProcedure
    .meta({ permission: "context:write", rest: { method: "DELETE", path: "/context/global/{key}", status: 204 }, summary: "Delete a key of the global context", tags })
    .input(s.globalContextKeyInput)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteContext(ctx.services, ctx.principal, { kind: "global" }, input.key)),
});
