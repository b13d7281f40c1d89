import { z } from "zod";
import { authedProcedure, router } from "../trpc";
import { notFound } from "../../errors";
import { outputCount } from "../../nodes/types";
import { injectNode } from "../../services/flows/deployments";
import { nodeIdSchema } from "../../../shared/flow-graph";

const tags = ["nodes"];
const categories = z.enum(["input", "output", "function", "network", "parser", "sequence", "common"]);
const nodeTypeView = z.object({
  type: z.string(),
  category: categories,
  name: z.string(),
  description: z.string(),
  inputs: z.number().int(),
  outputs: z.number().int(),
  version: z.number().int(),
});

export const nodesRouter = router({
  list: authedProcedure
    .meta({ permission: "nodes:read", rest: { method: "GET", path: "/nodes" }, summary: "The node catalog", tags })
    .output(z.object({ nodes: z.array(nodeTypeView) }))
    .query(({ ctx }) => ({
      nodes: ctx.app.nodes.list().map((d) => ({
        type: d.type,
        category: d.category,
        name: d.name,
        description: d.description,
        inputs: d.inputs,
        outputs: outputCount(d, d.configSchema.parse({}) as Record<string, unknown>),
        version: d.version,
      })),
    })),

  schema: authedProcedure
    .meta({ permission: "nodes:read", rest: { method: "GET", path: "/nodes/{type}/schema" }, summary: "JSON Schema of a node type's configuration, with defaults and ports", tags })
    .input(z.object({ type: z.string().min(1).max(64) }))
    .output(
      z.object({
        type: z.string(),
        schema: z.record(z.string(), z.unknown()),
        defaults: z.record(z.string(), z.unknown()),
        inputs: z.number().int(),
        outputs: z.number().int(),
      }),
    )
    .query(({ ctx, input }) => {
      const d = ctx.app.nodes.get(input.type);
      if (!d || d.type === "unknown") throw notFound("node type");
      const defaults = d.configSchema.parse({}) as Record<string, unknown>;
      return {
        type: d.type,
        schema: z.toJSONSchema(d.configSchema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>,
        defaults,
        inputs: d.inputs,
        outputs: outputCount(d, defaults),
      };
    }),

  inject: authedProcedure
    .meta({
      permission: "nodes:inject",
      rest: { method: "POST", path: "/nodes/{nodeId}/inject" },
      summary: "Trigger an inject node of a running flow",
      description: "Not an inject node → 400 `NOT_AN_INJECT_NODE`; flow not running → 409 `FLOW_NOT_RUNNING`; another organization's node → 404.",
      tags,
    })
    .input(z.object({ nodeId: nodeIdSchema, payload: z.unknown().optional(), topic: z.string().max(1024).optional() }))
    .output(z.object({ message_id: z.string(), node_id: z.string(), flow_id: z.string() }))
    .mutation(({ ctx, input }) => injectNode(ctx.app, ctx.principal, input, { ip: ctx.ip, userAgent: ctx.userAgent })),
});
