import { ensureDevice } from "../devices/devices";
import type { AppServices } from "../../app-services";
import { AppError, notFound } from "../../errors";
import { newId, sha256 } from "../../ids";
import type { Principal } from "../../auth/principal";
import { displayPrefix, generateApiKeySecret, type ApiKeyKind } from "../../auth/api-key-auth";
import { apiKeyScopes, atLeast, deviceKeyScopes, permissions, scopesForRole, type ApiKeyScope } from "../../permissions";
import { recordAudit } from "../audit/record-audit";
import type { RequestMeta } from "../request-meta";
import { API_KEY_REVOKED_CHANNEL } from "../../auth/revocation-channels";
import type { ApiKey } from "../../../generated/prisma/client";

function view(key: ApiKey) {
  return {
    id: key.id,
    name: key.name,
    kind: key.kind as ApiKeyKind,
    prefix: key.prefix,
    scopes: (key.allScopes ? apiKeyScopes.filter((s) => (key.kind === "device" ? (deviceKeyScopes as readonly string[]).includes(s) : s !== "device:connect")) : key.scopes) as ApiKeyScope[],
    expires_at: key.expiresAt?.toISOString() ?? null,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    created_by: key.createdById,
  };
}

/**
 * Creates a key; the secret is in this response only. A user key needs member+, a device key
 * admin+, and no key may carry a scope its creator's role lacks.
 */
export async function createApiKey(
  app: AppServices,
  principal: Principal,
  input: { name: string; kind: ApiKeyKind; scopes?: ApiKeyScope[]; expires_at?: string },
  meta: RequestMeta,
) {
  if (input.kind === "device" && !atLeast(principal.role, permissions["api_keys:manage_all"].minRole)) {
    throw new AppError("FORBIDDEN", "device keys need the admin role or above");
  }
  const allowed = scopesForRole(principal.role, input.kind);
  const denied = (input.scopes ?? []).filter((s) => !allowed.includes(s));
  if (denied.length > 0) {
    throw new AppError("FORBIDDEN", `your role (${principal.role}) cannot grant ${denied.join(", ")}`, {
      details: denied.map((s) => ({ path: "scopes", message: `${s} is beyond your role` })),
    });
  }
  const secret = generateApiKeySecret(input.kind);
  const key = await app.db.prisma.apiKey.create({
    data: {
      id: newId("key"),
      organizationId: principal.organizationId,
      createdById: principal.userId,
      name: input.name,
      kind: input.kind,
      prefix: displayPrefix(secret),
      secretHash: sha256(secret),
      scopes: input.scopes ?? [],
      allScopes: input.scopes === undefined,
      expiresAt: input.expires_at ? new Date(input.expires_at) : null,
    },
  });
  // A device key is a device (SPEC §22): listed before it first connects, and a flow may target it.
  if (key.kind === "device") await ensureDevice(app, key.organizationId, key.id, key.name);
  await recordAudit(app, { action: "api_key.created", organizationId: principal.organizationId, actorId: principal.userId, targetType: "api_key", targetId: key.id, ipAddress: meta.ip, metadata: { name: key.name, kind: input.kind } });
  return { api_key: view(key), secret };
}

/** Admins see every key of the organization; others see their own. Never a secret. */
export async function listApiKeys(app: AppServices, principal: Principal) {
  const keys = await app.db.prisma.apiKey.findMany({
    where: {
      organizationId: principal.organizationId,
      revokedAt: null,
      ...(atLeast(principal.role, permissions["api_keys:manage_all"].minRole) ? {} : { createdById: principal.userId }),
    },
    orderBy: { createdAt: "desc" },
  });
  return { api_keys: keys.map(view) };
}

export async function revokeApiKey(app: AppServices, principal: Principal, id: string, meta: RequestMeta) {
  const key = await app.db.prisma.apiKey.findFirst({ where: { id, organizationId: principal.organizationId, revokedAt: null } });
  // Someone else's key is invisible to non-admins: it answers like a missing one.
  if (!key || (key.createdById !== principal.userId && !atLeast(principal.role, permissions["api_keys:manage_all"].minRole))) throw notFound("API key");
  await app.db.prisma.apiKey.update({ where: { id }, data: { revokedAt: new Date() } });
  try {
    await recordAudit(app, { action: "api_key.revoked", organizationId: principal.organizationId, actorId: principal.userId, targetType: "api_key", targetId: id, ipAddress: meta.ip, metadata: { name: key.name } });
    // Open WebSockets of the key close on every instance.
    await app.store.publish(API_KEY_REVOKED_CHANNEL, JSON.stringify({ key_id: id, organization_id: principal.organizationId }));
  } finally {
    // The key stops working on every instance's next request, whatever happened above.
    await app.access.changed({ organizationId: principal.organizationId });
  }
}
