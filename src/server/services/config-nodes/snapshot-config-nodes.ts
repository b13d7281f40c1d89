import type { AppServices } from "../../app-services";
import type { ConfigNode } from "../../../generated/prisma/client";
import type { ConfigNodeSnapshot } from "../../../shared/config-nodes";
import type { SubflowSnapshot } from "../../../shared/subflows";
import type { FlowNode } from "../../../shared/flow-graph";
import { refsOfNodes } from "./usage";
import type { SealedCredentials } from "./credentials";
import { GLOBAL_CONFIG_TYPE } from "./config-node-rows";

/**
 * Every configuration node a deployment's graph uses (SPEC §19), as it is now: named by its nodes,
 * by the nodes of the subflow definitions it carries, and by those configuration nodes in turn;
 * and the organization's global-config, whose env every flow reads.
 * Credentials stay sealed. One that is gone is taken from `fallback` (the deployment being
 * redeployed carries its own copy), else left out (saving the graph refused such a reference).
 */
export async function snapshotConfigNodes(
  app: AppServices,
  organizationId: string,
  graph: { nodes: ReadonlyArray<FlowNode>; subflows?: Readonly<Record<string, SubflowSnapshot>> },
  fallback: Readonly<Record<string, ConfigNodeSnapshot>> = {},
): Promise<Record<string, ConfigNodeSnapshot>> {
  const nodes = [...graph.nodes, ...Object.values(graph.subflows ?? {}).flatMap((s) => s.nodes)];
  const out: Record<string, ConfigNodeSnapshot> = {};
  const snapshotOf = (r: ConfigNode): ConfigNodeSnapshot => ({
    id: r.id,
    type: r.type,
    name: r.name,
    config: r.config as Record<string, unknown>,
    revision: r.revision,
    seq: Number(r.seq),
    sealed_credentials: r.credentialsSealed as SealedCredentials,
  });
  // The organization's global-config: its env is every flow's (Node-RED's global flow, SPEC §19),
  // so every deployment carries it, named or not (one query; it names no other node).
  for (const r of await app.db.prisma.configNode.findMany({ where: { organizationId, type: GLOBAL_CONFIG_TYPE } })) out[r.id] = snapshotOf(r);
  // What `from` names, and what that names in turn.
  const closeOver = async (from: ReadonlyArray<{ id: string; type: string; config: Record<string, unknown> }>) => {
    let frontier = [...refsOfNodes(app.nodes, from).keys()].filter((id) => !(id in out));
    while (frontier.length > 0) {
      const rows = await app.db.prisma.configNode.findMany({ where: { organizationId, id: { in: frontier } } });
      const found = new Set(rows.map((r) => r.id));
      const added: ConfigNodeSnapshot[] = [];
      for (const r of rows) added.push(snapshotOf(r));
      for (const id of frontier) if (!found.has(id) && fallback[id]) added.push(fallback[id]);
      for (const s of added) out[s.id] = s;
      frontier = [...refsOfNodes(app.nodes, added).keys()].filter((id) => !(id in out));
    }
  };
  await closeOver(nodes);
  // Dashboard 2.0's spacers name their group and nothing names them: they go with the deployments
  // that carry their group (one query, only for a deployment with a dashboard).
  // Its links (ui-link) and pages (ui-page) name their dashboard likewise: they go with the
  // deployments that carry it, so a page without widgets is still shown, as Node-RED deploys every
  // configuration node of the dashboard (and the theme such a page names goes with it).
  const groups = new Set(Object.values(out).filter((c) => c.type === "ui-group").map((c) => c.id));
  const bases = new Set(Object.values(out).filter((c) => c.type === "ui-base").map((c) => c.id));
  if (groups.size > 0 || bases.size > 0) {
    const pages: ConfigNodeSnapshot[] = [];
    for (const r of await app.db.prisma.configNode.findMany({ where: { organizationId, type: { in: ["ui-spacer", "ui-link", "ui-page"] } } })) {
      const { group, ui } = r.config as { group?: unknown; ui?: unknown };
      if (r.id in out) continue;
      if (r.type === "ui-spacer" ? typeof group === "string" && groups.has(group) : typeof ui === "string" && bases.has(ui)) {
        out[r.id] = snapshotOf(r);
        if (r.type === "ui-page") pages.push(out[r.id]!);
      }
    }
    if (pages.length > 0) await closeOver(pages);
  }
  return out;
}
