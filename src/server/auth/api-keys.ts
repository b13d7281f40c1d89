import { randomBytes } from "node:crypto";
import type { AppServices } from "../app";
import { AppError } from "../errors";
import { sha256 } from "../ids";
import { apiKeyScopes, isRole, scopesForRole, type ApiKeyScope } from "../permissions";
import type { ApiKeyPrincipal } from "./principal";

export const API_KEY_PREFIXES = { user: "service_", device: "device_" } as const;
export type ApiKeyKind = keyof typeof API_KEY_PREFIXES;

const SECRET_PATTERN = /^(service|device)_[A-Za-z0-9_-]{43}$/;

export function isApiKeySecret(value: string): boolean {
  return SECRET_PATTERN.test(value);
}

/** A new key secret: the kind's prefix + base64url of 32 random bytes. */
export function generateApiKeySecret(kind: ApiKeyKind): string {
  return `${API_KEY_PREFIXES[kind]}${randomBytes(32).toString("base64url")}`;
}

/** What lists show: the prefix and the first 4 characters of the random part. */
export function displayPrefix(secret: string): string {
  const i = secret.indexOf("_");
  return secret.slice(0, i + 5);
}

// last_used_at is written at most once a minute per key: a store flag, not a database write per request.
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/**
 * Authenticates a key: known, not revoked, not expired, and its creator still a member. Its scopes
 * shrink with the creator's current role, so demoting or removing the creator shrinks or kills it.
 */
export async function authenticateApiKey(app: AppServices, secret: string): Promise<ApiKeyPrincipal> {
  const key = await app.db.prisma.apiKey.findUnique({ where: { secretHash: sha256(secret) } });
  if (!key || key.revokedAt) throw new AppError("TOKEN_INVALID", "API key is not valid");
  if (key.expiresAt && key.expiresAt <= new Date()) throw new AppError("TOKEN_EXPIRED", "API key has expired");
  const membership = await app.db.prisma.membership.findFirst({
    where: { userId: key.createdById, organizationId: key.organizationId, user: { deletedAt: null }, organization: { deletedAt: null } },
    select: { role: true, user: { select: { email: true } } },
  });
  if (!membership || !isRole(membership.role)) throw new AppError("TOKEN_INVALID", "API key is not valid: its creator is no longer a member");
  const kind = key.kind === "device" ? "device" : "user";
  const allowed = new Set(scopesForRole(membership.role, kind));
  const requested = key.allScopes ? apiKeyScopes : (key.scopes as ApiKeyScope[]);
  const scopes = requested.filter((s) => allowed.has(s));
  if (scopes.length === 0) throw new AppError("TOKEN_INVALID", "API key is not valid: its creator's role no longer allows any of its scopes");

  const flag = await app.store.setIfAbsent(`api-key-used:${key.id}`, "1", { ttlMs: LAST_USED_WRITE_INTERVAL_MS });
  if (flag) {
    void app.db.prisma.apiKey.update({ where: { id: key.id }, data: { lastUsedAt: new Date() } }).catch((err: unknown) => {
      app.logger.warn({ err, keyId: key.id }, "could not record API key use");
    });
  }
  return {
    kind: "api_key",
    keyId: key.id,
    keyKind: kind,
    scopes,
    userId: key.createdById,
    email: membership.user.email,
    organizationId: key.organizationId,
    role: membership.role,
  };
}
