import type { AppServices } from "../../app-services";
import type { Principal } from "../../auth/principal";
import { configNodeView, requireConfigNode } from "./config-node-rows";
import { usageOfAll } from "./usage";

/** The organization's configuration nodes (of one type, with `type`), by type and name, each with who uses it. */
export async function listConfigNodes(app: AppServices, principal: Principal, input: { type?: string }) {
  const rows = await app.db.prisma.configNode.findMany({
    where: { organizationId: principal.organizationId, ...(input.type ? { type: input.type } : {}) },
    orderBy: [{ type: "asc" }, { name: "asc" }, { id: "asc" }],
  });
  const usage = rows.length === 0 ? new Map() : await usageOfAll(app, principal.organizationId);
  return { config_nodes: rows.map((row) => configNodeView(app.nodes, row, usage.get(row.id) ?? [])) };
}

export async function getConfigNode(app: AppServices, principal: Principal, id: string) {
  const row = await requireConfigNode(app, principal, id);
  const usage = await usageOfAll(app, principal.organizationId);
  return { config_node: configNodeView(app.nodes, row, usage.get(row.id) ?? []) };
}
