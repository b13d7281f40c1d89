import type { AppServices } from "../../app-services";
import { subflowIdOfType, type SubflowSnapshot } from "../../../shared/subflows";
import type { Connection, FlowNode } from "../../../shared/flow-graph";
import type { FlowGroup, SubflowEnvEntry } from "../../../shared/subflows";
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

/** The ports of the definitions a deployment carries: what its instances are checked against on rollback. */
export function portsOfSnapshots(subflows: Readonly<Record<string, SubflowSnapshot>> = {}): Map<string, SubflowPorts> {
  return new Map(Object.values(subflows).map((s) => [s.id, { name: s.name, ...subflowPortsOf(s.nodes) }]));
}

/**
 * Every definition the nodes use, transitively (instances inside definitions), as a deployment
 * carries them: read from the organization's definitions now. A definition that is gone is taken
 * from `fallback` (the deployment being redeployed carries its own copy), else left out (the
 * graph's validation has refused such an instance already).
 */
export async function snapshotSubflows(
  app: AppServices,
  organizationId: string,
  nodes: ReadonlyArray<{ type: string }>,
  fallback: Readonly<Record<string, SubflowSnapshot>> = {},
): Promise<Record<string, SubflowSnapshot>> {
  const out: Record<string, SubflowSnapshot> = {};
  let frontier = usedSubflowIds(nodes);
  while (frontier.length > 0) {
    const rows = await app.db.prisma.subflow.findMany({
      where: { organizationId, id: { in: frontier } },
      select: { id: true, name: true, revision: true, env: true, nodes: true, connections: true, groups: true },
    });
    const found = new Set(rows.map((r) => r.id));
    const next = new Set<string>();
    const add = (s: SubflowSnapshot) => {
      out[s.id] = s;
      for (const id of usedSubflowIds(s.nodes)) if (!(id in out)) next.add(id);
    };
    for (const r of rows) {
      add({
        id: r.id,
        name: r.name,
        revision: r.revision,
        env: r.env as unknown as SubflowEnvEntry[],
        nodes: r.nodes as unknown as FlowNode[],
        connections: r.connections as unknown as Connection[],
        groups: r.groups as unknown as FlowGroup[],
      });
    }
    for (const id of frontier) if (!found.has(id) && fallback[id]) add(fallback[id]);
    frontier = [...next].filter((id) => !(id in out));
  }
  return out;
}
