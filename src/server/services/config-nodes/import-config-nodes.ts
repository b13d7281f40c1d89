import type { AppServices } from "../../app-services";
import type { Principal } from "../../auth/principal";
import { AppError } from "../../errors";
import { assertPermission } from "../../permissions";
import type { Prisma } from "../../../generated/prisma/client";
import { recordAudit } from "../audit/record-audit";
import { publishOrgEvent } from "../flows/events";
import type { RequestMeta } from "../request-meta";
import type { OrganizationConfigNodes, PlannedConfigNode } from "../flows/node-red-mapping";
import { applyCredentials, type SealedCredentials } from "./credentials";

/** What an import needs of the organization's configuration nodes: all of them (id, type, name, config), and whether the importer may write the global-config. */
export async function organizationConfigNodes(app: AppServices, principal: Principal): Promise<OrganizationConfigNodes> {
  const rows = await app.db.prisma.configNode.findMany({ where: { organizationId: principal.organizationId }, select: { id: true, type: true, name: true, config: true } });
  let mayWriteGlobal = true;
  try {
    assertPermission({ role: principal.role, kind: principal.kind, scopes: principal.kind === "api_key" ? principal.scopes : undefined }, "config_nodes:write_global");
  } catch (err) {
    if (!AppError.is(err)) throw err;
    mayWriteGlobal = false;
  }
  return { existing: new Map(rows.map((r) => [r.id, { type: r.type, name: r.name, config: r.config as Record<string, unknown> }])), mayWriteGlobal };
}

/** JSON with keys sorted: stored configs come back from JSONB with their keys reordered. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o).filter((k) => o[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * Writes an import's configuration nodes in one transaction: new ones created, the organization's
 * of the same id updated (credentials the file carries set, the others kept: an export leaves them
 * out). One that is the same already keeps its revision, so re-importing a file changes nothing
 * that runs. Answers what was written, and the ids it created (to undo them if the rest fails).
 */
export async function applyImportedConfigNodes(app: AppServices, principal: Principal, planned: PlannedConfigNode[], meta: RequestMeta) {
  if (planned.length === 0) return { config_nodes: [], created: [] as string[] };
  const keyring = app.config.keys.variables;
  const written = await app.db.prisma.$transaction(async (tx) => {
    const out: Array<{ id: string; type: string; name: string; revision: number; action: "created" | "updated" | "unchanged" }> = [];
    for (const p of planned) {
      const definition = app.nodes.get(p.type);
      const current = await tx.configNode.findUnique({ where: { organizationId_id: { organizationId: principal.organizationId, id: p.id } } });
      const stored = (current?.credentialsSealed ?? {}) as SealedCredentials;
      const credentials = definition && Object.keys(p.credentials).length > 0 ? applyCredentials(keyring, definition, stored, p.credentials) : stored;
      if (!current) {
        const row = await tx.configNode.create({
          data: { id: p.id, organizationId: principal.organizationId, type: p.type, name: p.name, config: p.config as Prisma.InputJsonValue, credentialsSealed: credentials, createdById: principal.userId },
        });
        out.push({ id: row.id, type: row.type, name: row.name, revision: row.revision, action: "created" });
        continue;
      }
      const same = current.type === p.type && current.name === p.name && canonical(current.config) === canonical(p.config) && Object.keys(p.credentials).length === 0;
      if (same) {
        out.push({ id: current.id, type: current.type, name: current.name, revision: current.revision, action: "unchanged" });
        continue;
      }
      const row = await tx.configNode.update({
        where: { organizationId_id: { organizationId: principal.organizationId, id: p.id } },
        data: { type: p.type, name: p.name, config: p.config as Prisma.InputJsonValue, credentialsSealed: credentials, revision: { increment: 1 } },
      });
      out.push({ id: row.id, type: row.type, name: row.name, revision: row.revision, action: "updated" });
    }
    return out;
  });
  for (const w of written) {
    if (w.action === "unchanged") continue;
    await recordAudit(app, {
      action: `config_node.${w.action}`,
      organizationId: principal.organizationId,
      actorId: principal.userId,
      targetType: "config_node",
      targetId: w.id,
      ipAddress: meta.ip,
      metadata: { type: w.type, revision: w.revision, via: "import" },
    });
    const topic = w.action === "created" ? "config_node.created" : "config_node.updated";
    publishOrgEvent(app, principal.organizationId, topic, null, { config_node_id: w.id, type: w.type, name: w.name, revision: w.revision, by: principal.userId });
  }
  return {
    config_nodes: written.map(({ id, type, name, revision }) => ({ id, type, name, revision })),
    created: written.filter((w) => w.action === "created").map((w) => w.id),
  };
}

/** Undoes the configuration nodes an import created when what was imported with them could not be written. */
export async function removeConfigNodes(app: AppServices, organizationId: string, ids: string[]) {
  if (ids.length === 0) return;
  const rows = await app.db.prisma.configNode.findMany({ where: { organizationId, id: { in: ids } }, select: { id: true, type: true, name: true } });
  await app.db.prisma.configNode.deleteMany({ where: { organizationId, id: { in: ids } } });
  for (const row of rows) publishOrgEvent(app, organizationId, "config_node.deleted", null, { config_node_id: row.id, type: row.type, name: row.name });
}

/**
 * The organization's configuration nodes (id, type, name, config) in their order of creation (an
 * import's in its file's order), for an export to write the ones its nodes name in that order.
 */
export async function configNodesForExport(app: AppServices, organizationId: string) {
  const rows = await app.db.prisma.configNode.findMany({ where: { organizationId }, select: { id: true, type: true, name: true, config: true }, orderBy: [{ seq: "asc" }, { id: "asc" }] });
  return rows.map((r) => ({ ...r, config: r.config as Record<string, unknown> }));
}
