import type { AppServices } from "../../app-services";
import type { Principal } from "../../auth/principal";
import { AppError } from "../../errors";
import { randomHex } from "../../ids";
import type { Prisma } from "../../../generated/prisma/client";
import type { CreateConfigNodeInput } from "../../../shared/config-nodes";
import { recordAudit } from "../audit/record-audit";
import { publishOrgEvent } from "../flows/events";
import type { RequestMeta } from "../request-meta";
import { applyCredentials, liftCredentials } from "./credentials";
import { assertPagePathFree } from "../dashboards/page-paths";
import { assertMayWrite, configNodeDefinition, configNodeTypes, configNodeView, GLOBAL_CONFIG_TYPE, parseConfigNodeConfig } from "./config-node-rows";

export async function createConfigNode(app: AppServices, principal: Principal, input: CreateConfigNodeInput, meta: RequestMeta) {
  const definition = configNodeDefinition(app.nodes, input.type);
  assertMayWrite(principal, input.type);
  const id = input.id ?? randomHex(8);
  const row = await app.db.prisma.$transaction(async (tx) => {
    const types = await configNodeTypes(tx, principal.organizationId);
    if (types.has(id)) throw new AppError("CONFIG_NODE_EXISTS", `the organization has a configuration node ${id} already; update it with PUT /config-nodes/${id}`);
    if (input.type === GLOBAL_CONFIG_TYPE) {
      // Node-RED has one global-config: the organization's env lives in one place.
      const existing = [...types].find(([, type]) => type === GLOBAL_CONFIG_TYPE);
      if (existing) throw new AppError("CONFIG_NODE_EXISTS", `the organization has its global-config already (${existing[0]}); update it with PUT /config-nodes/${existing[0]}`);
    }
    const { config, credentials: written } = liftCredentials(definition, parseConfigNodeConfig(definition, input.config, types), input.credentials);
    if (input.type === "ui-page") await assertPagePathFree(tx, principal.organizationId, id, config);
    const credentials = applyCredentials(app.config.keys.variables, definition, {}, written);
    return tx.configNode.create({
      data: {
        id,
        organizationId: principal.organizationId,
        type: input.type,
        name: input.name,
        config: config as Prisma.InputJsonValue,
        credentialsSealed: credentials,
        createdById: principal.userId,
      },
    });
  });
  await recordAudit(app, {
    action: "config_node.created",
    organizationId: principal.organizationId,
    actorId: principal.userId,
    targetType: "config_node",
    targetId: row.id,
    ipAddress: meta.ip,
    metadata: { type: row.type },
  });
  publishOrgEvent(app, principal.organizationId, "config_node.created", null, { config_node_id: row.id, type: row.type, name: row.name, revision: row.revision, by: principal.userId });
  return { config_node: configNodeView(app.nodes, row, []) };
}
