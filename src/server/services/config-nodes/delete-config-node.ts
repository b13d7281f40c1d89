import type { AppServices } from "../../app-services";
import type { Principal } from "../../auth/principal";
import { AppError } from "../../errors";
import { recordAudit } from "../audit/record-audit";
import { publishOrgEvent } from "../flows/events";
import type { RequestMeta } from "../request-meta";
import { assertMayWrite, requireConfigNode } from "./config-node-rows";
import { savedUsers } from "./usage";

const describe = (u: { flow_id?: string; subflow_id?: string; config_node_id?: string; name: string }) =>
  u.flow_id !== undefined ? `flow "${u.name}" (${u.flow_id})` : u.subflow_id !== undefined ? `subflow "${u.name}" (${u.subflow_id})` : `configuration node "${u.name}" (${u.config_node_id})`;

/**
 * Deleted for good, unless a node names it (of a flow, of a subflow definition, or another
 * configuration node): 409 naming them. Deployments keep their own copy, so running flows go on.
 */
export async function deleteConfigNode(app: AppServices, principal: Principal, id: string, meta: RequestMeta) {
  const row = await app.db.prisma.$transaction(async (tx) => {
    const row = await requireConfigNode(app, principal, id, tx);
    assertMayWrite(principal, row.type);
    const users = (await savedUsers(app, tx, principal.organizationId)).get(row.id) ?? [];
    if (users.length > 0) {
      throw new AppError("CONFIG_NODE_IN_USE", `configuration node ${row.id} is used by ${users.map(describe).join(", ")}; point those nodes elsewhere first`, {
        details: users.map((u) => ({
          path: u.flow_id !== undefined ? `flows.${u.flow_id}` : u.subflow_id !== undefined ? `subflows.${u.subflow_id}` : `config_nodes.${u.config_node_id}`,
          message: `${u.name}: ${u.node_ids.join(", ")}`,
        })),
      });
    }
    await tx.configNode.delete({ where: { organizationId_id: { organizationId: principal.organizationId, id: row.id } } });
    return row;
  });
  await recordAudit(app, { action: "config_node.deleted", organizationId: principal.organizationId, actorId: principal.userId, targetType: "config_node", targetId: row.id, ipAddress: meta.ip, metadata: { type: row.type } });
  publishOrgEvent(app, principal.organizationId, "config_node.deleted", null, { config_node_id: row.id, type: row.type, name: row.name, by: principal.userId });
}
