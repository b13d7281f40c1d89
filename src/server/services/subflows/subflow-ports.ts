import type { AppServices } from "../../app-services";
import { subflowIdOfType } from "../../../shared/subflows";
import { subflowPortsOf, type SubflowPorts } from "../flows/validate-graph";

/** The subflow ids a graph's instance nodes name. */
export function usedSubflowIds(nodes: ReadonlyArray<{ type: string }>): string[] {
  const ids = new Set<string>();
  for (const n of nodes) {
    const id = subflowIdOfType(n.type);
    if (id) ids.add(id);
  }
  return [...ids];
}

/**
 * The ports of the organization's definitions that the nodes name (only those are read): what
 * validateGraph checks instances against. A definition of another organization is never found.
 */
export async function subflowPortsFor(app: AppServices, organizationId: string, nodes: ReadonlyArray<{ type: string }>): Promise<Map<string, SubflowPorts>> {
  const ids = usedSubflowIds(nodes);
  if (ids.length === 0) return new Map();
  const rows = await app.db.prisma.subflow.findMany({ where: { organizationId, id: { in: ids } }, select: { id: true, name: true, nodes: true } });
  return new Map(rows.map((r) => [r.id, { name: r.name, ...subflowPortsOf(r.nodes as unknown as Array<{ type: string }>) }]));
}
