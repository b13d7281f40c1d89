import type { AppServices } from "../../app-services";
import { AppError, notFound } from "../../errors";
import { newId } from "../../ids";
import type { Principal } from "../../auth/principal";
import type { Logger } from "../../logger";
import type { Prisma, PrismaClient, Variable } from "../../../generated/prisma/client";
import { recordAudit } from "../audit/record-audit";
import type { RequestMeta } from "../request-meta";
import { VariableSet, type VariableValue } from "../../runtime/variables";
import type { VariableKeyring } from "./variable-keys";
import { MAX_VARIABLE_BYTES, NOT_A_SECRET, VARIABLE_NAME, type CreateVariableInput, type UpdateVariableInput, type VariableView } from "./variable.schemas";
import { atLeast, permissions } from "../../permissions";
import { refreshDevicesNaming } from "../devices/agents";

/** The organization's variables are scope ""; a flow's, the flow's id. */
const scopeOf = (flowId: string | null | undefined) => flowId ?? "";

function view(row: Variable): VariableView {
  return {
    name: row.name,
    // A secret has no value field: not null, not "***", absent.
    ...(row.secret ? {} : { value: row.value ?? "" }),
    secret: row.secret,
    flow_id: row.flowId,
    allowed_hosts: row.secret && row.allowedHosts.length > 0 ? row.allowedHosts : null,
    updated_at: row.updatedAt.toISOString(),
    updated_by: row.updatedById,
  };
}

/** The columns holding a value: a secret only sealed, a plain value only in clear. */
function valueColumns(app: AppServices, value: string, secret: boolean) {
  if (!secret) return { value, valueEncrypted: null, keyId: null };
  const sealed = app.config.keys.variables.seal(value);
  return { value: null, valueEncrypted: sealed.valueEncrypted, keyId: sealed.keyId };
}

async function assertFlow(app: AppServices, principal: Principal, flowId: string | null | undefined) {
  if (!flowId) return;
  const flow = await app.db.prisma.flow.findFirst({ where: { id: flowId, organizationId: principal.organizationId, deletedAt: null }, select: { id: true } });
  if (!flow) throw notFound("flow");
}

async function findVariable(app: AppServices, principal: Principal, name: string, flowId: string | null | undefined) {
  const row = await app.db.prisma.variable.findUnique({
    where: { organizationId_scope_name: { organizationId: principal.organizationId, scope: scopeOf(flowId), name } },
  });
  if (!row) throw notFound("variable");
  return row;
}

/** Deleted by a concurrent request between the read and the write: answered like a missing one. */
function goneAsNotFound(err: unknown): never {
  if ((err as { code?: string })?.code === "P2025") throw notFound("variable");
  throw err;
}

/** Written, then every instance's running flows are told (within 2 s) and the change is audited, by name only. */
async function afterChange(
  app: AppServices,
  principal: Principal,
  action: "variable.created" | "variable.updated" | "variable.deleted",
  row: Variable,
  meta: RequestMeta,
  extra: Record<string, string | boolean | null> = {},
) {
  await app.variables.changed(principal.organizationId);
  try {
    await recordAudit(app, {
    action,
    organizationId: principal.organizationId,
    actorId: principal.userId,
    targetType: "variable",
    targetId: row.id,
    ipAddress: meta.ip,
      metadata: { name: row.name, flow_id: row.flowId, secret: row.secret, ...extra },
    });
  } finally {
    // A device's Node-RED holds the values it was sent: those whose flows name it are sent them
    // again. The change is made: a failure here is logged, and the device catches up at its next
    // hello (its frame's revision differs).
    await refreshDevicesNaming(app, principal.organizationId, row.name, row.flowId).catch((err: unknown) =>
      app.logger.warn({ err: (err as Error).message, organizationId: principal.organizationId }, "devices could not be told of a variable change"),
    );
  }
}

function invalidCursor() {
  return new AppError("VALIDATION_FAILED", "cursor: is not a cursor from a previous page", { details: [{ path: "cursor", message: "is not a cursor from a previous page" }] });
}

/** A page's end: base64url of `[name, scope]` (the list's order). */
function encodeCursor(row: Variable): string {
  return Buffer.from(JSON.stringify([row.name, row.scope])).toString("base64url");
}

function decodeCursor(cursor: string): { name: string; scope: string } {
  let parsed: unknown;
  try {
    parsed = /^[A-Za-z0-9_-]{1,400}$/.test(cursor) ? JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) : null;
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) throw invalidCursor();
  const [name, scope] = parsed as [unknown, unknown];
  if (typeof name !== "string" || !VARIABLE_NAME.test(name) || typeof scope !== "string" || !/^(|flw_[\w-]{10,64})$/.test(scope)) throw invalidCursor();
  return { name, scope };
}

/**
 * The organization's variables and its flows' (or one flow's), by name, secrets without their
 * values. Without `limit`, all of them; with it, a page and `next_cursor`.
 */
export async function listVariables(app: AppServices, principal: Principal, input: { flow_id?: string; limit?: number; cursor?: string } = {}) {
  const after = input.cursor ? decodeCursor(input.cursor) : null;
  const rows = await app.db.prisma.variable.findMany({
    where: {
      organizationId: principal.organizationId,
      ...(input.flow_id ? { flowId: input.flow_id } : {}),
      ...(after ? { OR: [{ name: { gt: after.name } }, { name: after.name, scope: { gt: after.scope } }] } : {}),
    },
    orderBy: [{ name: "asc" }, { scope: "asc" }],
    ...(input.limit ? { take: input.limit + 1 } : {}),
  });
  const page = input.limit ? rows.slice(0, input.limit) : rows;
  const last = page[page.length - 1];
  return { variables: page.map(view), next_cursor: input.limit && rows.length > input.limit && last ? encodeCursor(last) : null };
}

export async function createVariable(app: AppServices, principal: Principal, input: CreateVariableInput, meta: RequestMeta) {
  await assertFlow(app, principal, input.flow_id);
  let row: Variable;
  try {
    row = await app.db.prisma.variable.create({
      data: {
        id: newId("var"),
        organizationId: principal.organizationId,
        flowId: input.flow_id ?? null,
        scope: scopeOf(input.flow_id),
        name: input.name,
        secret: input.secret,
        ...valueColumns(app, input.value, input.secret),
        allowedHosts: input.secret ? (input.allowed_hosts ?? []) : [],
        updatedById: principal.userId,
      },
    });
  } catch (err) {
    if ((err as { code?: string })?.code === "P2002") {
      throw new AppError("VARIABLE_EXISTS", `${input.name} is defined already${input.flow_id ? " for this flow" : ""}; change it with PUT /variables/${input.name}`, {
        details: [{ path: "name", message: "is defined already" }],
      });
    }
    throw err;
  }
  await afterChange(app, principal, "variable.created", row, meta, row.allowedHosts.length > 0 ? { hosts_restricted: true } : {});
  return { variable: view(row) };
}

export async function updateVariable(app: AppServices, principal: Principal, input: UpdateVariableInput, meta: RequestMeta) {
  const current = await findVariable(app, principal, input.name, input.flow_id);
  const secret = input.secret ?? current.secret;
  if (!secret && input.allowed_hosts) {
    throw new AppError("VALIDATION_FAILED", `allowed_hosts: ${NOT_A_SECRET}`, { details: [{ path: "allowed_hosts", message: NOT_A_SECRET }] });
  }
  // Absent: the secret keeps its hosts; null: no restriction; a plain variable has none.
  const allowedHosts = !secret ? [] : input.allowed_hosts === undefined ? current.allowedHosts : (input.allowed_hosts ?? []);
  const row = await app.db.prisma.variable
    .update({ where: { id: current.id }, data: { secret, ...valueColumns(app, input.value, secret), allowedHosts, updatedById: principal.userId } })
    .catch(goneAsNotFound);
  const hostsChanged = [...current.allowedHosts].sort().join(" ") !== [...row.allowedHosts].sort().join(" ");
  await afterChange(app, principal, "variable.updated", row, meta, {
    ...(current.secret !== secret ? { secret_changed: true } : {}),
    ...(hostsChanged ? { hosts_changed: true } : {}),
  });
  return { variable: view(row) };
}

export async function deleteVariable(app: AppServices, principal: Principal, input: { name: string; flow_id?: string | null }, meta: RequestMeta) {
  const current = await findVariable(app, principal, input.name, input.flow_id);
  await app.db.prisma.variable.delete({ where: { id: current.id } }).catch(goneAsNotFound);
  await afterChange(app, principal, "variable.deleted", current, meta);
}

/**
 * The organization's variables as running flows see them (variable-cache.ts loads it): secrets
 * decrypted in memory only. A secret that cannot be opened (its key is gone) reads as "" and is logged.
 */
export async function loadVariableSet(deps: { prisma: PrismaClient; keyring: VariableKeyring; logger: Logger }, organizationId: string): Promise<VariableSet> {
  const rows = await deps.prisma.variable.findMany({ where: { organizationId } });
  const organization = new Map<string, VariableValue>();
  const flows = new Map<string, Map<string, VariableValue>>();
  for (const row of rows) {
    let value = row.value ?? "";
    if (row.secret) {
      try {
        value = row.valueEncrypted && row.keyId ? deps.keyring.open(row.valueEncrypted, row.keyId) : "";
        if (row.keyId && row.keyId !== deps.keyring.currentId) {
          // Sealed under a previous ENCRYPTION_KEY: sealed again under the current one, once (the
          // condition on the old key id makes a second instance doing the same a no-op).
          await deps.prisma.variable.updateMany({ where: { id: row.id, keyId: row.keyId }, data: deps.keyring.seal(value) });
        }
      } catch (err) {
        deps.logger.error({ err: (err as Error).message, organizationId, variable: row.name }, "a secret could not be decrypted; it reads as empty");
        value = "";
      }
    }
    const entry: VariableValue = { value, secret: row.secret, ...(row.secret && row.allowedHosts.length > 0 ? { allowedHosts: Object.freeze([...row.allowedHosts]) } : {}) };
    if (row.flowId) {
      let vars = flows.get(row.flowId);
      if (!vars) flows.set(row.flowId, (vars = new Map()));
      vars.set(row.name, entry);
    } else organization.set(row.name, entry);
  }
  return new VariableSet(organization, flows);
}

/** A Node-RED tab's `env` entry: `{name, value, type}` (type "cred" for a credential, whose value lives in the tab's `credentials`). */
export interface NodeRedEnvEntry {
  name?: unknown;
  value?: unknown;
  type?: unknown;
}

const IMPORTED_TYPES = new Set(["str", "num", "bool", "json", "cred"]);

/**
 * Import (SPEC §14): a tab's `env` becomes the new flow's variables, a "cred" entry a secret (its
 * value from the tab's `credentials` when the file carries one). Entries that cannot be variables
 * here are skipped and reported, never a failed import. Needs the right to write variables; without
 * it, nothing of `env` is written and the import says so.
 */
export async function importFlowVariables(
  app: AppServices,
  principal: Principal,
  flowId: string,
  tab: Record<string, unknown>,
  meta: RequestMeta,
  warnings: string[],
) {
  const entries = Array.isArray(tab.env) ? (tab.env as NodeRedEnvEntry[]) : [];
  if (entries.length === 0) return;
  if (!atLeast(principal.role, permissions["variables:write"].minRole)) {
    warnings.push(`flow ${flowId}: its ${entries.length} environment variable(s) were not imported: defining variables needs the ${permissions["variables:write"].minRole} role`);
    return;
  }
  const credentials = (tab.credentials && typeof tab.credentials === "object" ? tab.credentials : {}) as Record<string, unknown>;
  const seen = new Set<string>();
  const rows: Prisma.VariableCreateManyInput[] = [];
  for (const entry of entries) {
    const name = typeof entry.name === "string" ? entry.name : "";
    const type = typeof entry.type === "string" ? entry.type : "str";
    if (!VARIABLE_NAME.test(name) || seen.has(name)) {
      warnings.push(`flow ${flowId}: environment variable ${JSON.stringify(name).slice(0, 80)} was not imported: names are 1-64 upper-case letters, digits or _, once per flow`);
      continue;
    }
    const secret = type === "cred";
    let value: string;
    if (secret) {
      const stored = credentials[name] ?? entry.value;
      value = typeof stored === "string" && stored !== "__PWRD__" ? stored : "";
      if (value === "") warnings.push(`flow ${flowId}: secret ${name} was imported without a value (Node-RED exports leave credentials out); set it under Settings → Variables`);
    } else {
      value = typeof entry.value === "string" ? entry.value : entry.value === undefined || entry.value === null ? "" : JSON.stringify(entry.value);
      if (!IMPORTED_TYPES.has(type)) warnings.push(`flow ${flowId}: environment variable ${name} of type ${type} was imported as the text ${JSON.stringify(value).slice(0, 80)} (it is not evaluated)`);
    }
    if (Buffer.byteLength(value, "utf8") > MAX_VARIABLE_BYTES) {
      warnings.push(`flow ${flowId}: environment variable ${name} was not imported: its value is over ${MAX_VARIABLE_BYTES} bytes`);
      continue;
    }
    seen.add(name);
    rows.push({
      id: newId("var"),
      organizationId: principal.organizationId,
      flowId,
      scope: flowId,
      name,
      secret,
      ...valueColumns(app, value, secret),
      updatedById: principal.userId,
    });
  }
  if (rows.length === 0) return;
  await app.db.prisma.variable.createMany({ data: rows });
  await app.variables.changed(principal.organizationId);
  for (const row of rows) {
    await recordAudit(app, {
      action: "variable.created",
      organizationId: principal.organizationId,
      actorId: principal.userId,
      targetType: "variable",
      targetId: row.id,
      ipAddress: meta.ip,
      metadata: { name: row.name, flow_id: flowId, secret: row.secret ?? false, via: "import" },
    });
  }
}

/** Export (SPEC §14): a flow's variables as a Node-RED tab's `env`; a secret by name only ("cred", no value). */
export async function flowVariablesAsNodeRedEnv(app: AppServices, principal: Principal, flowId: string) {
  const rows = await app.db.prisma.variable.findMany({ where: { organizationId: principal.organizationId, flowId }, orderBy: { name: "asc" } });
  return rows.map((row) => (row.secret ? { name: row.name, value: "", type: "cred" } : { name: row.name, value: row.value ?? "", type: "str" }));
}
