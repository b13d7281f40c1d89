/**
 * API keys as credentials: the secret's format (prefix, pattern, what lists show) and
 * authenticateApiKey, which turns a presented secret into a principal. Creating, listing and
 * revoking keys are use cases: src/server/services/api-keys/.
 */
import type { AuthDeps } from "./auth-deps";
import { AppError, rateLimited } from "../errors";
import { sha256, randomToken } from "../ids";
import { apiKeyScopes, scopesForRole, type ApiKeyScope } from "../permissions";
import type { RateLimiter, StoreRound } from "../store";
import type { KeyAccess } from "./access-cache";
import type { ApiKeyPrincipal } from "./principal";
import { credentialKeyOf, currentMembership } from "./membership";
import { credentialRound } from "./shared-rounds";

export const API_KEY_PREFIXES = { user: "service_", device: "device_" } as const;
export type ApiKeyKind = keyof typeof API_KEY_PREFIXES;

const SECRET_PATTERN = /^(service|device)_[A-Za-z0-9_-]{43}$/;

export function isApiKeySecret(value: string): boolean {
  return SECRET_PATTERN.test(value);
}

/** A new key secret: the kind's prefix + base64url of 32 random bytes. */
export function generateApiKeySecret(kind: ApiKeyKind): string {
  return `${API_KEY_PREFIXES[kind]}${randomToken(32)}`;
}

/** What lists show: the prefix and the first 4 characters of the random part. */
export function displayPrefix(secret: string): string {
  const i = secret.indexOf("_");
  return secret.slice(0, i + 5);
}

// last_used_at is written at most once a minute per key: a store flag, not a database write per request.
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/** The key's row and its creator's membership from the database; null when there is no such key. */
async function loadKeyAccess(app: Pick<AuthDeps, "db">, secretHash: string): Promise<KeyAccess | null> {
  const key = await app.db.prisma.apiKey.findUnique({ where: { secretHash } });
  if (!key || key.revokedAt) return null;
  return {
    id: key.id,
    organizationId: key.organizationId,
    createdById: key.createdById,
    kind: key.kind === "device" ? "device" : "user",
    scopes: key.scopes as ApiKeyScope[],
    allScopes: key.allScopes,
    expiresAt: key.expiresAt ? key.expiresAt.getTime() : null,
    creator: await currentMembership(app, key.createdById, key.organizationId),
  };
}

/**
 * The use of a key by `count` requests, in `round`: its last-used flag (set at most once a minute),
 * a point of its rate limit for each (answered in order) and its organization's flows generation.
 * Every operation is added before the first await.
 */
async function keyUse(app: Pick<AuthDeps, "flowReads">, round: StoreRound, keyId: string, organizationId: string, limit: RateLimiter | undefined, count = 1) {
  const [flag, limited, flowsGeneration] = await Promise.all([
    round.setIfAbsent(`api-key-used:${keyId}`, "1", { ttlMs: LAST_USED_WRITE_INTERVAL_MS }),
    limit?.consumeEach(credentialKeyOf(keyId), count, round),
    app.flowReads.current(organizationId, round),
  ]);
  return { flag, limited, flowsGeneration };
}

/**
 * Authenticates a key: known, not revoked, not expired, and its creator still a member. Its scopes
 * shrink with the creator's current role, so demoting or removing the creator shrinks or kills it.
 * The key and its creator's membership are read through the access cache (access-cache.ts), which
 * every revocation, removal and role change invalidates on every instance before it answers.
 */
export async function authenticateApiKey(app: AuthDeps, secret: string, limit?: RateLimiter): Promise<ApiKeyPrincipal> {
  const secretHash = sha256(secret);
  // A secret seen before names its key and organization for good, so the request's whole store
  // work (access generation, use flag, rate limit, flows generation) goes out in one round trip.
  const known = app.access.keyIdentity(secretHash);
  const keyRound = (count: number) => {
    const round = app.store.round();
    return Promise.all([app.access.current(round), known ? keyUse(app, round, known.keyId, known.organizationId, limit, count) : undefined]);
  };
  // On Redis, this key's requests in flight together share one round sent after each of them came
  // (shared-rounds.ts); a secret not seen before goes alone.
  const shared = await credentialRound(known ? app.access.rounds : null, `k\n${known?.keyId}\n${known?.organizationId}`, limit, keyRound);
  const [generation, used] = shared.value;
  // The last-used flag goes to one request of the round: the others would only write the same time again.
  const early = used && { flag: used.flag && shared.index === 0, limited: used.limited?.[shared.index], flowsGeneration: used.flowsGeneration };
  let key = app.access.key(generation, secretHash);
  if (!key) {
    const loaded = await loadKeyAccess(app, secretHash);
    if (!loaded) throw new AppError("TOKEN_INVALID", "API key is not valid");
    app.access.rememberKey(generation, secretHash, loaded);
    key = loaded;
  }
  if (key.expiresAt !== null && key.expiresAt <= Date.now()) throw new AppError("TOKEN_EXPIRED", "API key has expired");
  const membership = key.creator;
  if (!membership) throw new AppError("TOKEN_INVALID", "API key is not valid: its creator is no longer a member");
  const allowed = new Set(scopesForRole(membership.role, key.kind));
  const requested = key.allScopes ? apiKeyScopes : key.scopes;
  const scopes = requested.filter((s) => allowed.has(s));
  if (scopes.length === 0) throw new AppError("TOKEN_INVALID", "API key is not valid: its creator's role no longer allows any of its scopes");

  const keyId = key.id;
  app.access.rememberKeyIdentity(secretHash, { keyId, organizationId: key.organizationId });
  const { flag, limited, flowsGeneration } =
    early && known!.keyId === keyId && known!.organizationId === key.organizationId
      ? early
      : await keyUse(app, app.store.round(), keyId, key.organizationId, limit).then((alone) => ({ ...alone, limited: alone.limited?.[0] }));
  if (flag) {
    void app.db.prisma.apiKey.update({ where: { id: keyId }, data: { lastUsedAt: new Date() } }).catch((err: unknown) => {
      app.logger.warn({ err, keyId }, "could not record API key use");
    });
  }
  if (limited && !limited.allowed) throw rateLimited(limited.retryAfterSec);
  return {
    kind: "api_key",
    keyId,
    keyKind: key.kind,
    scopes,
    expiresAt: key.expiresAt,
    userId: key.createdById,
    email: membership.email,
    organizationId: key.organizationId,
    role: membership.role,
    flowsGeneration,
  };
}
