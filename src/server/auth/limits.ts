import type { Env } from "../../env";
import { consumeInOrder, createRateLimiter, type KeyValueStore, type RateLimiter, type RateLimitResult } from "../store";
import { WS_LIMITS } from "../../shared/realtime";
import { rateLimited } from "../errors";

const WINDOW_15_MIN = 15 * 60;

export interface AuthLimiters {
  /** Every login attempt, per client IP (offices share one, hence a generous default). */
  loginPerIp: RateLimiter;
  /** Failed logins per account: the 11th failure in 15 minutes is refused (default 10). */
  loginFailuresPerAccount: RateLimiter;
  registerPerIp: RateLimiter;
  /** Wrong MFA codes per account; a success resets it. */
  mfaFailuresPerAccount: RateLimiter;
  passwordResetPerIp: RateLimiter;
  passwordResetPerAccount: RateLimiter;
  verificationPerAccount: RateLimiter;
  /** Token refreshes per client IP (public endpoint: no credential to key on). */
  refreshPerIp: RateLimiter;
  /** Everything else, per credential (session or key). */
  apiPerCredential: RateLimiter;
  /** /hooks requests per organization and per client IP (unauthenticated entry points). */
  webhookPerOrganization: RateLimiter;
  webhookPerIp: RateLimiter;
  /** WebSocket upgrade attempts per client IP. */
  wsUpgradePerIp: RateLimiter;
}

/** Built once per app (compose.ts), so every bundle's copy of this code uses the same limiters. */
export function createAuthLimiters(store: KeyValueStore, env: Env): AuthLimiters {
  const make = (keyPrefix: string, points: number, durationSec: number) => createRateLimiter(store, { keyPrefix, points, durationSec });
  return {
    loginPerIp: make("login-ip", env.RATE_LIMIT_LOGIN_PER_IP, WINDOW_15_MIN),
    loginFailuresPerAccount: make("login-fail", env.RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT, WINDOW_15_MIN),
    registerPerIp: make("register-ip", env.RATE_LIMIT_REGISTER_PER_IP, WINDOW_15_MIN),
    mfaFailuresPerAccount: make("mfa-fail", env.RATE_LIMIT_MFA_FAILURES_PER_ACCOUNT, WINDOW_15_MIN),
    passwordResetPerIp: make("reset-ip", env.RATE_LIMIT_PASSWORD_RESET_PER_IP, WINDOW_15_MIN),
    passwordResetPerAccount: make("reset-account", 5, 3600),
    verificationPerAccount: make("verify-account", 5, 3600),
    refreshPerIp: make("refresh-ip", env.RATE_LIMIT_API_PER_CREDENTIAL, 60),
    apiPerCredential: make("api", env.RATE_LIMIT_API_PER_CREDENTIAL, 60),
    webhookPerOrganization: make("hook-org", env.RATE_LIMIT_WEBHOOK_PER_ORG, 60),
    webhookPerIp: make("hook-ip", env.RATE_LIMIT_WEBHOOK_PER_IP, 60),
    wsUpgradePerIp: make("ws-upgrade-ip", WS_LIMITS.upgradesPerIpPerMinute, 60),
  };
}

export function authLimiters(app: { limits: AuthLimiters }): AuthLimiters {
  return app.limits;
}

/**
 * A /hooks request (or a websocket listener's upgrade) against both of its limits, per client IP,
 * then per organization (its slug) only if the IP's allowed it, so one client over its own limit
 * cannot use up the organization's budget for everyone; on Redis in at most one store round trip,
 * and none while the instance holds points of both windows (consumeInOrder). The refusal, if any.
 */
export async function consumeWebhookLimits(app: { limits: AuthLimiters; store: KeyValueStore }, ip: string, slug: string): Promise<RateLimitResult | undefined> {
  const { webhookPerIp, webhookPerOrganization } = app.limits;
  const { first, then } = await consumeInOrder(app.store, [webhookPerIp, ip], [webhookPerOrganization, slug]);
  if (!first.allowed) return first;
  return then && !then.allowed ? then : undefined;
}

/** Consumes one point or throws 429 with Retry-After. */
export async function consumeOrThrow(limiter: RateLimiter, key: string): Promise<void> {
  const result = await limiter.consume(key);
  if (!result.allowed) throw rateLimited(result.retryAfterSec);
}

/** Throws 429 when the limiter is already exhausted, without consuming. */
export async function ensureNotExhausted(limiter: RateLimiter, key: string): Promise<void> {
  const result = await limiter.peek(key);
  if (!result.allowed) throw rateLimited(result.retryAfterSec);
}
