import type { AppServices } from "../../app-services";
import type { Principal } from "../../auth/principal";
import { AppError } from "../../errors";
import type { Prisma } from "../../../generated/prisma/client";
import type { UpdateConfigNodeInput } from "../../../shared/config-nodes";
import { recordAudit } from "../audit/record-audit";
import { publishOrgEvent } from "../flows/events";
import type { RequestMeta } from "../request-meta";
import { applyCredentials, liftCredentials, type SealedCredentials } from "./credentials";
import { assertPagePathFree } from "../dashboards/page-paths";
import { assertMayWrite, configNodeDefinition, configNodeTypes, configNodeView, parseConfigNodeConfig, requireConfigNode } from "./config-node-rows";
import { usageOfAll } from "./usage";

/**
 * Partial update: `config` replaces the config (defaults filled), an omitted credential is kept,
 * null (or "") clears one. With a revision, only if the node is still at it (409, nothing written).
 * Running flows keep the revision they were deployed with until POST /config-nodes/{id}/deploy.
 */
export async function updateConfigNode(app: AppServices, principal: Principal, input: UpdateConfigNodeInput, meta: RequestMeta) {
  let writtenNames: string[] = [];
  const row = await app.db.prisma.$transaction(async (tx) => {
    const current = await requireConfigNode(app, principal, input.id, tx);
    assertMayWrite(principal, current.type);
    if (input.revision !== undefined && input.revision !== current.revision) {
      throw new AppError("REVISION_CONFLICT", `the configuration node is at revision ${current.revision}, not ${input.revision}; reload it and apply your change again`);
    }
    if (current.type === "unknown") {
      const original = (current.config as { original_type?: string }).original_type ?? "unknown";
      throw new AppError("VALIDATION_FAILED", `configuration node ${current.id} is a ${original}, a type not available here: it is kept from an import for export and cannot be edited`, {
        details: [{ path: "type", message: `${original} is not available here` }],
      });
    }
    const definition = configNodeDefinition(app.nodes, current.type);
    const lifted = input.config !== undefined ? liftCredentials(definition, parseConfigNodeConfig(definition, input.config, await configNodeTypes(tx, principal.organizationId)), input.credentials) : undefined;
    const config = lifted?.config;
    if (config && current.type === "ui-page") await assertPagePathFree(tx, principal.organizationId, current.id, config);
    const written = lifted ? lifted.credentials : input.credentials;
    writtenNames = Object.keys(written ?? {});
    const credentials = written !== undefined ? applyCredentials(app.config.keys.variables, definition, current.credentialsSealed as SealedCredentials, written) : undefined;
    const { count } = await tx.configNode.updateMany({
      where: { organizationId: principal.organizationId, id: current.id, revision: input.revision ?? current.revision },
      data: {
        name: input.name,
        config: config as Prisma.InputJsonValue | undefined,
        credentialsSealed: credentials,
        revision: { increment: 1 },
      },
    });
    if (count !== 1) throw new AppError("REVISION_CONFLICT", "the configuration node was changed by someone else meanwhile; reload it and apply your change again");
    return requireConfigNode(app, principal, current.id, tx);
  });
  await recordAudit(app, {
    action: "config_node.updated",
    organizationId: principal.organizationId,
    actorId: principal.userId,
    targetType: "config_node",
    targetId: row.id,
    ipAddress: meta.ip,
    // Which credentials were written, never their values.
    metadata: { type: row.type, revision: row.revision, credentials_written: writtenNames.sort().join(",") || null },
  });
  publishOrgEvent(app, principal.organizationId, "config_node.updated", null, { config_node_id: row.id, type: row.type, name: row.name, revision: row.revision, by: principal.userId });
  const usage = await usageOfAll(app, principal.organizationId);
  return { config_node: configNodeView(app.nodes, row, usage.get(row.id) ?? []) };
}
