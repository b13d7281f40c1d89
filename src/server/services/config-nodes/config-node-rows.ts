import type { AppServices } from "../../app-services";
import type { Principal } from "../../auth/principal";
import { AppError, notFound, type ErrorDetail } from "../../errors";
import { assertPermission } from "../../permissions";
import type { NodeRegistry } from "../../nodes/registry";
import type { NodeDefinition } from "../../nodes/types";
import type { ConfigNode, Prisma } from "../../../generated/prisma/client";
import type { ConfigNodeUsage, ConfigNodeView } from "../../../shared/config-nodes";
import { checkConfigRefs } from "../flows/validate-graph";
import { configRefProperties } from "../../nodes/config-refs";
import { credentialStates, type SealedCredentials } from "./credentials";

export type Tx = Prisma.TransactionClient;

/** The one type whose nodes hold the organization's env: written by admins and owners only, as variables (SPEC §14, §19). */
export const GLOBAL_CONFIG_TYPE = "global-config";

export function configNodeView(registry: NodeRegistry, row: ConfigNode, usedBy: ConfigNodeUsage[]): ConfigNodeView {
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    config: row.config as Record<string, unknown>,
    credentials: credentialStates(registry.get(row.type), row.credentialsSealed as SealedCredentials),
    revision: row.revision,
    used_by: usedBy,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** A configuration node of the caller's organization; another organization's (or none) answers 404. */
export async function requireConfigNode(app: AppServices, principal: Principal, id: string, tx: Tx = app.db.prisma): Promise<ConfigNode> {
  const row = await tx.configNode.findUnique({ where: { organizationId_id: { organizationId: principal.organizationId, id } } });
  if (!row) throw notFound("configuration node");
  return row;
}

/** The organization's configuration nodes, id → type: what a saved node's references are checked against. */
export async function configNodeTypes(db: Tx, organizationId: string): Promise<Map<string, string>> {
  const rows = await db.configNode.findMany({ where: { organizationId }, select: { id: true, type: true } });
  return new Map(rows.map((r) => [r.id, r.type]));
}

/** Whether any of the nodes is of a type with a configuration node reference (else nothing needs reading to check them). */
export function mayNameConfigNodes(registry: NodeRegistry, nodes: ReadonlyArray<{ type: string }>): boolean {
  return nodes.some((n) => {
    const definition = registry.get(n.type);
    return !!definition && configRefProperties(definition).length > 0;
  });
}

/** A configuration node type of the catalog, else 400. */
export function configNodeDefinition(registry: NodeRegistry, type: string): NodeDefinition {
  const definition = registry.get(type);
  if (!definition || definition.kind !== "config") {
    const known = registry.list().filter((d) => d.kind === "config").map((d) => d.type);
    throw new AppError("VALIDATION_FAILED", `type: ${type} is not a configuration node type; the types: ${known.join(", ")}`, {
      details: [{ path: "type", message: `${type} is not a configuration node type` }],
    });
  }
  return definition;
}

/** Writing a global-config takes what writing variables takes (admins and owners); other types, members. */
export function assertMayWrite(principal: Principal, type: string) {
  if (type !== GLOBAL_CONFIG_TYPE) return;
  assertPermission({ role: principal.role, kind: principal.kind, scopes: principal.kind === "api_key" ? principal.scopes : undefined }, "config_nodes:write_global");
}

/**
 * The config parsed by the type's schema (defaults filled), its references checked against the
 * organization's configuration nodes (`types`); problems named under `path` (`config.url`).
 */
export function parseConfigNodeConfig(definition: NodeDefinition, config: Record<string, unknown>, types: ReadonlyMap<string, string>, path = "config"): Record<string, unknown> {
  const details: ErrorDetail[] = [];
  const parsed = definition.configSchema.safeParse(config);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const sub = issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("");
      details.push({ path: `${path}${sub}`, message: issue.message });
    }
  } else {
    checkConfigRefs(definition, parsed.data as Record<string, unknown>, types, path, details);
  }
  if (details.length > 0) throw new AppError("VALIDATION_FAILED", `${details[0]!.path}: ${details[0]!.message}`, { details: details.slice(0, 100) });
  return parsed.data as Record<string, unknown>;
}
