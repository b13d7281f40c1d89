/**
 * Flow and global context over REST and tRPC (SPEC §13): reads from the database (every write a
 * delivered message could depend on is there: the runtime's durability rule), writes with the
 * organization's size limit (413 PAYLOAD_TOO_LARGE past CONTEXT_MAX_BYTES), and the instance that
 * runs the flow (or every instance, for global context) told at once.
 */
import type { AppServices } from "../../app-services";
import type { Principal } from "../../auth/principal";
import { AppError } from "../../errors";
import { contextJson, entryBytes } from "../../runtime/context/context-scope";
import { requireFlow } from "../flows/flows";
import { contextRowCount, contextUsage, GLOBAL_SCOPE, loadContextScope, writeContextEntry } from "../../persistence/context-store";

type Scope = { kind: "flow"; flowId: string } | { kind: "global" };

async function scopeId(app: AppServices, principal: Principal, scope: Scope): Promise<string> {
  if (scope.kind === "global") return GLOBAL_SCOPE;
  // Another organization's flow, or a deleted one: 404, whatever its context holds.
  return (await requireFlow(app, principal, scope.flowId)).id;
}

export async function getContext(app: AppServices, principal: Principal, scope: Scope): Promise<{ context: Record<string, unknown> }> {
  const id = await scopeId(app, principal, scope);
  const entries = await loadContextScope(app.db.prisma, principal.organizationId, id);
  const context: Record<string, unknown> = {};
  for (const { key, json } of entries) Object.defineProperty(context, key, { value: JSON.parse(json), enumerable: true, configurable: true, writable: true });
  return { context };
}

export async function putContext(
  app: AppServices,
  principal: Principal,
  scope: Scope,
  input: { key: string; value: unknown },
): Promise<{ context: Record<string, unknown> }> {
  const id = await scopeId(app, principal, scope);
  const json = contextJson(input.value)!;
  const bytes = entryBytes(input.key, json);
  const limit = app.config.env.CONTEXT_MAX_BYTES;
  const except = { scope: id, key: input.key };
  const [others, otherKeys] = await Promise.all([contextUsage(app.db.prisma, principal.organizationId, except), contextRowCount(app.db.prisma, principal.organizationId, except)]);
  if (others + bytes > limit) {
    throw new AppError("PAYLOAD_TOO_LARGE", `context is full: the organization's context may hold ${limit} bytes (${others} used by other keys, this one needs ${bytes})`);
  }
  const maxKeys = app.config.env.CONTEXT_MAX_KEYS;
  if (otherKeys + 1 > maxKeys) {
    throw new AppError("PAYLOAD_TOO_LARGE", `context is full: the organization's context may hold ${maxKeys} keys (deleted ones count until they are swept, within minutes)`);
  }
  const stored = await writeContextEntry(app.db.prisma, { organizationId: principal.organizationId, scope: id, key: input.key, json });
  if (!stored) throw new AppError("NOT_FOUND", scope.kind === "flow" ? "flow not found" : "organization not found");
  await app.context.stored(stored);
  const context: Record<string, unknown> = {};
  Object.defineProperty(context, input.key, { value: JSON.parse(json), enumerable: true, configurable: true, writable: true });
  return { context };
}

export async function deleteContext(app: AppServices, principal: Principal, scope: Scope, key: string): Promise<void> {
  const id = await scopeId(app, principal, scope);
  const stored = await writeContextEntry(app.db.prisma, { organizationId: principal.organizationId, scope: id, key, json: null });
  if (stored) await app.context.stored(stored);
}

/** A deleted flow's context goes with it (called in the deletion's transaction). */
export function deleteFlowContextRows(app: AppServices, organizationId: string, flowId: string) {
  return app.db.prisma.contextEntry.deleteMany({ where: { organizationId, scope: flowId } });
}

/** A deleted organization's context, flows' and global. */
export function deleteOrganizationContextRows(app: AppServices, organizationId: string) {
  return app.db.prisma.contextEntry.deleteMany({ where: { organizationId } });
}
