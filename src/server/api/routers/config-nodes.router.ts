import { z } from "zod";
import { authedProcedure, router, type Context, requestMeta } from "../trpc";
import * as s from "../../../shared/config-nodes";
import { getConfigNode, listConfigNodes } from "../../services/config-nodes/list-config-nodes";
import { createConfigNode } from "../../services/config-nodes/create-config-node";
import { updateConfigNode } from "../../services/config-nodes/update-config-node";
import { deleteConfigNode } from "../../services/config-nodes/delete-config-node";
import { requireConfigNode } from "../../services/config-nodes/config-node-rows";
import { redeployConfigNodeUsers } from "../../services/flows/deployments";

const tags = ["config-nodes"];
const etag = (ctx: Context, revision: number) => ctx.responseHeaders.set("ETag", `"${revision}"`);

/** SPEC §19: configuration nodes, resources of the organization that nodes name by id. */
export const configNodesRouter = router({
  list: authedProcedure
    .meta({
      permission: "config_nodes:read",
      rest: { method: "GET", path: "/config-nodes" },
      summary: "Configuration nodes of the organization (of one type with `type`), with who uses each",
      description: "Credentials are never returned: `credentials` says of each declared one whether it is set.",
      tags,
    })
    .input(s.listConfigNodesInput)
    .output(s.listConfigNodesOutput)
    .query(({ ctx, input }) => listConfigNodes(ctx.services, ctx.principal, input)),

  create: authedProcedure
    .meta({
      permission: "config_nodes:write",
      rest: { method: "POST", path: "/config-nodes", status: 201 },
      summary: "Create a configuration node",
      description:
        "`type` is a configuration node type of GET `/nodes` (kind `config`); `config` is checked against its schema, and a property naming another configuration node must name one of that type in the organization. `credentials` are the type's declared ones (written only; may hold `${NAME}`). An `id` the organization has already, or a second `global-config`: 409 `CONFIG_NODE_EXISTS`; a `ui-page` whose `path` another page of the organization has: 409 `DASHBOARD_PATH_TAKEN`. `global-config` needs an admin or owner.",
      tags,
    })
    .input(s.createConfigNodeInput)
    .output(s.configNodeOutput)
    .mutation(async ({ ctx, input }) => {
      const result = await createConfigNode(ctx.services, ctx.principal, input, requestMeta(ctx));
      etag(ctx, result.config_node.revision);
      return result;
    }),

  get: authedProcedure
    .meta({ permission: "config_nodes:read", rest: { method: "GET", path: "/config-nodes/{id}" }, summary: "A configuration node, with who uses it (ETag: its revision)", tags })
    .input(s.configNodeIdInput)
    .output(s.configNodeOutput)
    .query(async ({ ctx, input }) => {
      const result = await getConfigNode(ctx.services, ctx.principal, input.id);
      etag(ctx, result.config_node.revision);
      return result;
    }),

  update: authedProcedure
    .meta({
      permission: "config_nodes:write",
      rest: { method: "PUT", path: "/config-nodes/{id}" },
      summary: "Update a configuration node (partial)",
      description:
        "`config` replaces the configuration; in `credentials` a string sets one, `null` clears it, and one left out is kept. Send the `revision` you edited: if it has moved on, 409 `REVISION_CONFLICT` and nothing is written. Running flows keep the revision they were deployed with: POST `/config-nodes/{id}/deploy` puts the new one in effect.",
      tags,
    })
    .input(s.updateConfigNodeInput)
    .output(s.configNodeOutput)
    .mutation(async ({ ctx, input }) => {
      const result = await updateConfigNode(ctx.services, ctx.principal, input, requestMeta(ctx));
      etag(ctx, result.config_node.revision);
      return result;
    }),

  delete: authedProcedure
    .meta({
      permission: "config_nodes:write",
      rest: { method: "DELETE", path: "/config-nodes/{id}", status: 204 },
      summary: "Delete a configuration node",
      description: "Refused with 409 `CONFIG_NODE_IN_USE` (naming them) while nodes of flows, of subflow definitions or other configuration nodes name it. Deployments keep their own copy.",
      tags,
    })
    .input(s.configNodeIdInput)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteConfigNode(ctx.services, ctx.principal, input.id, requestMeta(ctx))),

  deploy: authedProcedure
    .meta({
      permission: "flows:deploy",
      rest: { method: "POST", path: "/config-nodes/{id}/deploy" },
      summary: "Redeploy every deployed flow that uses the configuration node with its current revision",
      description:
        "Each flow whose running deployment carries it (named by its nodes, by a subflow definition's, or by another configuration node) gets a new deployment of the graph it runs, with the configuration nodes as they are now; its changes list the nodes using it. A flow that no longer validates: 400 naming it, and nothing is deployed.",
      tags,
    })
    .input(s.configNodeIdInput)
    .output(s.deployConfigNodeOutput)
    .mutation(async ({ ctx, input }) => {
      await requireConfigNode(ctx.services, ctx.principal, input.id);
      return redeployConfigNodeUsers(ctx.services, ctx.principal, input.id, requestMeta(ctx));
    }),
});
