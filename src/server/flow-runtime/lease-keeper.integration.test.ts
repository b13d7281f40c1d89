/**
 * The lease keeper (issue 39: failover under 3 s without two copies): a worker thread renews the
 * leases on its own Redis connection, so a main thread busy for longer than the lease's TTL keeps
 * its flows; a lease found to be someone else's is reported; a main thread that stopped turning
 * gets no renewals, so its flows go to another instance. Needs Redis (REDIS_URL): with the
 * in-process store there is one instance and nothing to renew against.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { RedisStore } from "@/server/store/redis";
import { createLogger } from "@/server/logger";
import { LeaseKeeper } from "./lease-keeper";

const REDIS_URL = process.env.REDIS_URL;
/** The production lease (DEFAULT_CLUSTER_TIMINGS). */
const TTL = 2_000;

/** Keeps the main thread from turning, as a flooded flow's deliveries or a long synchronous parse do. */
function block(ms: number) {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

/** Waits until the worker (booting from TypeScript in tests) has renewed the lease once. */
async function renewedOnce(k: LeaseKeeper, slot: number) {
  const first = k.validUntil(slot);
  await expect.poll(() => k.validUntil(slot), { timeout: 10_000, interval: 20 }).toBeGreaterThan(first);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(REDIS_URL)("lease keeper (Redis)", () => {
  const keyPrefix = `lk-${randomBytes(4).toString("hex")}:`;
  let store: RedisStore;
  let other: Redis;
  const keepers: LeaseKeeper[] = [];

  beforeAll(() => {
    store = new RedisStore({ url: REDIS_URL!, keyPrefix });
    other = new Redis(REDIS_URL!);
  });
  afterAll(async () => {
    await Promise.all(keepers.map((k) => k.close()));
    const keys = await other.keys(`${keyPrefix}*`);
    if (keys.length > 0) await other.del(...keys);
    other.disconnect();
    await store.close();
  });

  /**
   * A keeper whose worker is up. Its boot (tsx, ioredis) can take longer than the 2 s lease on a
   * loaded machine, and a lease acquired before would lapse before its first renewal.
   */
  async function keeper(options: { stallMs?: number; onLost?: (slot: number, token: number) => void } = {}) {
    const k = new LeaseKeeper({
      connection: store.connectionInfo(),
      ttlMs: TTL,
      renewMs: 200,
      stallMs: options.stallMs ?? 10_000,
      logger: createLogger({ level: "silent" }),
      onLost: options.onLost ?? (() => undefined),
    });
    keepers.push(k);
    expect(await k.ready).toBe(true);
    return k;
  }

  it("keeps a lease while the main thread is busy for twice its TTL", async () => {
    const k = await keeper();
    const sentAt = performance.now();
    const lease = await store.leaseAcquire("busy", "me", TTL);
    expect(lease).not.toBeNull();
    const slot = k.hold("busy", lease!.token, sentAt + TTL)!;
    await renewedOnce(k, slot);
    block(2 * TTL);
    expect(k.validUntil(slot)).toBeGreaterThan(performance.now());
    expect((await store.leaseGet("busy"))?.token).toBe(lease!.token);
    k.drop(slot);
  });

  it("refreshes the instance's membership while the main thread is busy, and stops when it is closed", async () => {
    const k = await keeper();
    const lease = await store.leaseAcquire("member-lease", "me", TTL);
    const slot = k.hold("member-lease", lease!.token, performance.now() + TTL)!;
    await renewedOnce(k, slot);
    k.member("member:me", "1");
    await expect.poll(() => store.get("member:me"), { timeout: 5_000 }).toBe("1");
    block(2 * TTL);
    expect(await store.get("member:me")).toBe("1");
    await k.close();
    await sleep(TTL + 300);
    expect(await store.get("member:me")).toBeNull();
  });

  it("reports a lease that another holder took", async () => {
    const lost: Array<[number, number]> = [];
    const k = await keeper({ onLost: (slot, token) => lost.push([slot, token]) });
    const lease = await store.leaseAcquire("taken", "me", TTL);
    const slot = k.hold("taken", lease!.token, performance.now() + TTL)!;
    await other.del(`${keyPrefix}taken`);
    const theirs = await store.leaseAcquire("taken", "them", 10_000);
    expect(theirs!.token).toBeGreaterThan(lease!.token);
    await expect.poll(() => lost, { timeout: 3_000 }).toEqual([[slot, lease!.token]]);
    expect(k.validUntil(slot)).toBeLessThan(performance.now());
    expect((await store.leaseGet("taken"))?.holder).toBe("them");
  });

  it("stops renewing for a main thread that has not turned for stallMs: the lease expires", async () => {
    const k = await keeper({ stallMs: 200 });
    const lease = await store.leaseAcquire("stalled", "me", TTL);
    const slot = k.hold("stalled", lease!.token, performance.now() + TTL)!;
    await renewedOnce(k, slot);
    block(TTL + 1_000);
    expect(await store.leaseGet("stalled")).toBeNull();
    expect(k.validUntil(slot)).toBeLessThan(performance.now());
  });

  it("frees a dropped slot: the worker no longer renews it", async () => {
    const k = await keeper();
    const lease = await store.leaseAcquire("dropped", "me", TTL);
    const slot = k.hold("dropped", lease!.token, performance.now() + TTL)!;
    await renewedOnce(k, slot);
    k.drop(slot);
    await sleep(TTL + 300);
    expect(await store.leaseGet("dropped")).toBeNull();
  });
});
