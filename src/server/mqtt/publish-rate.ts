/**
 * The per-organization publish rate of the built-in broker (MQTT_PUBLISH_RATE_PER_ORGANIZATION,
 * src/server/mqtt/README.md "Built-in MQTT broker"), for clients and flows alike.
 *
 * - In-process store (one instance): a token bucket of `perSecond`, as deep as one second.
 * - Redis (several instances): the store's rate limiter (store/rate-limit.ts, the HTTP limits'
 *   machinery: a fixed one-second window per organization in Redis) counts every instance's
 *   publishes together. Asking Redis for each message would put a round trip before every
 *   delivery, so an instance takes a small lease of the window at a time (`batch` publishes, a
 *   fiftieth of the rate) and spends it locally for at most LEASE_MS. A lease is counted when
 *   taken, spent or not, so the instances together never publish more than the limit in a window,
 *   except for leases taken at a window's end and spent in the next one: at most `batch` per
 *   instance (2 %). Leases not spent, and a lease refused because the window had fewer than
 *   `batch` left, are publishes the organization does not get in that second.
 * - Store unreachable: refused (as the HTTP limits fail closed), logged once in a while.
 */
import type { Logger } from "../logger";
import { createRateLimiter, type KeyValueStore, type RateLimiter } from "../store";

/** How long an instance may spend a lease it took. */
const LEASE_MS = 100;
/** After Redis said the window is spent, this instance refuses locally this long before asking again. */
const REFUSED_MS = 50;
const MAX_TRACKED = 10_000;

export interface PublishRate {
  /** Whether the organization may publish one more message now. */
  take(organizationId: string): Promise<boolean> | boolean;
}

export function createPublishRate(store: KeyValueStore, perSecond: number, logger: Logger): PublishRate {
  if (store.rateLimitBackend().kind !== "redis") return new LocalPublishRate(perSecond);
  return new ClusterPublishRate(createRateLimiter(store, { keyPrefix: "mqtt-publish", points: perSecond, durationSec: 1 }), perSecond, logger);
}

/** One instance: a token bucket per organization. */
export class LocalPublishRate implements PublishRate {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  constructor(private readonly perSecond: number) {}

  take(organizationId: string): boolean {
    const now = Date.now();
    let b = this.buckets.get(organizationId);
    if (!b) {
      if (this.buckets.size > MAX_TRACKED) this.buckets.clear();
      b = { tokens: this.perSecond, at: now };
      this.buckets.set(organizationId, b);
    }
    b.tokens = Math.min(this.perSecond, b.tokens + ((now - b.at) / 1000) * this.perSecond);
    b.at = now;
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }
}

interface Lease {
  /** Publishes left in the lease. */
  left: number;
  /** Until when they may be spent (or, refused: until when to refuse without asking). */
  until: number;
  /** A lease being asked for: callers queue behind it, in order. */
  asking: Promise<void> | null;
}

/** Several instances: leases of the organization's window in Redis. */
export class ClusterPublishRate implements PublishRate {
  private readonly leases = new Map<string, Lease>();
  private readonly batch: number;
  private warnedAt = 0;

  constructor(
    private readonly limiter: RateLimiter,
    perSecond: number,
    private readonly logger: Logger,
  ) {
    this.batch = Math.max(1, Math.floor(perSecond / 50));
  }

  take(organizationId: string): Promise<boolean> | boolean {
    let lease = this.leases.get(organizationId);
    if (!lease) {
      if (this.leases.size > MAX_TRACKED) this.leases.clear();
      lease = { left: 0, until: 0, asking: null };
      this.leases.set(organizationId, lease);
    }
    // Queued behind a lease being asked for: in order, so one client's messages keep theirs.
    if (lease.asking) return this.after(organizationId, lease);
    return this.spend(organizationId, lease);
  }

  private spend(organizationId: string, lease: Lease): Promise<boolean> | boolean {
    const now = Date.now();
    if (now < lease.until) {
      if (lease.left > 0) {
        lease.left--;
        return true;
      }
      // Refused by Redis a moment ago, or this lease is spent while its window may still be.
      if (lease.left < 0) return false;
    }
    lease.asking = this.ask(organizationId, lease).finally(() => {
      lease.asking = null;
    });
    return this.after(organizationId, lease);
  }

  private async after(organizationId: string, lease: Lease): Promise<boolean> {
    await lease.asking;
    // Another caller may have started the next lease meanwhile.
    if (lease.asking) return this.after(organizationId, lease);
    return this.spend(organizationId, lease);
  }

  private async ask(organizationId: string, lease: Lease): Promise<void> {
    try {
      const result = await this.limiter.consume(organizationId, this.batch);
      if (result.allowed) {
        lease.left = this.batch;
        lease.until = Date.now() + LEASE_MS;
        return;
      }
    } catch (err) {
      if (Date.now() - this.warnedAt > 10_000) {
        this.warnedAt = Date.now();
        this.logger.warn({ err }, "mqtt: the publish rate's store is unavailable; publishes are refused");
      }
    }
    lease.left = -1;
    lease.until = Date.now() + REFUSED_MS;
  }
}
