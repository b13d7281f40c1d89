/**
 * Two limits in order on Redis (consumeInOrder, the webhook limits) with the points an instance
 * holds (WindowHoldings): requests within held points count nothing in Redis and share one PING a
 * round trip, the instances together never admit more than a limit, one instance alone admits
 * exactly the limit, a refused first limit never spends the second, held points die with their
 * window, and nothing held is used while Redis is gone or does not answer. Each "instance" is a limiter
 * pair of its own on one Redis, as each process builds its own.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisStore } from "./redis";
import { consumeInOrder, createRateLimiter } from "./rate-limit";
import { StoreUnavailableError } from "./types";
import { isListening, proxiedUrl } from "@/test/tcp-proxy";

const explicitUrl = process.env.REDIS_URL;
const redisUrl = explicitUrl ?? "redis://127.0.0.1:6379";
const redisAvailable = explicitUrl !== undefined || (await isListening(6379));

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe.skipIf(!redisAvailable)("two limits in order on Redis, with held points", () => {
  let store: RedisStore;
  let prefix: string;

  beforeAll(() => {
    prefix = `fptest:${randomUUID()}:`;
    store = new RedisStore({ url: redisUrl, keyPrefix: prefix });
  });
  afterAll(async () => {
    await store.close();
  });

  /** An instance's pair of limiters (per client, then per organization), as createAuthLimiters makes them. */
  const instance = (name: string, perClient: number, perOrganization: number, durationSec = 60) => ({
    client: createRateLimiter(store, { keyPrefix: `${name}-client`, points: perClient, durationSec }),
    organization: createRateLimiter(store, { keyPrefix: `${name}-org`, points: perOrganization, durationSec }),
  });
  type Instance = ReturnType<typeof instance>;
  const admit = async (at: Instance, client: string, organization = "org") => {
    const { first, then } = await consumeInOrder(store, [at.client, client], [at.organization, organization]);
    return first.allowed && then?.allowed === true;
  };
  const counter = async (name: string, key: string) => Number((await store.get(`rl:${name}:${key}`)) ?? 0);

  it("admits requests within held points without a round trip, and exactly the limit on one instance", async () => {
    const one = instance("solo", 1_000, 500);
    const before = store.roundTrips;
    let admitted = 0;
    for (let i = 0; i < 520; i++) if (await admit(one, "203.0.113.9")) admitted++;
    // The organization's 500 and not one more, though the client's limit is higher.
    expect(admitted).toBe(500);
    // Blocks of up to 64 points, a sixteenth of what is left, down to 1 near the limit.
    expect(store.roundTrips - before).toBeLessThan(130);
    expect(await counter("solo-org", "org")).toBeGreaterThanOrEqual(500);
  });

  it("never admits more than a limit across instances, sequential or concurrent", async () => {
    const a = instance("shared", 10_000, 200);
    const b = instance("shared", 10_000, 200);
    let admitted = 0;
    // In turn: each instance uses what it holds; what one holds when the other is refused is used
    // on its own next turns, so together they admit the whole limit.
    for (let i = 0; i < 150; i++) {
      if (await admit(a, "198.51.100.1")) admitted++;
      if (await admit(b, "198.51.100.2")) admitted++;
    }
    expect(admitted).toBe(200);

    const c = instance("burst", 10_000, 120);
    const d = instance("burst", 10_000, 120);
    const outcomes = await Promise.all(Array.from({ length: 400 }, (_, i) => admit(i % 2 ? c : d, `192.0.2.${i % 7}`)));
    const burst = outcomes.filter(Boolean).length;
    expect(burst).toBeLessThanOrEqual(120);
    // Each instance's requests wait for its block in flight rather than each counting its own, so
    // little of the limit stays held unused (without the wait: 31 of 120 in this burst).
    expect(burst).toBeGreaterThanOrEqual(110);
  });

  it("a client refused by its own limit never counts against the organization's", async () => {
    const one = instance("order", 2, 1_000);
    expect([await admit(one, "203.0.113.20"), await admit(one, "203.0.113.20")]).toEqual([true, true]);
    const organizationBefore = await counter("order-org", "org");
    for (let i = 0; i < 10; i++) expect(await admit(one, "203.0.113.20")).toBe(false);
    expect(await counter("order-org", "org")).toBe(organizationBefore);
    // Another client still reaches the organization's budget, from the points the instance holds.
    expect(await admit(one, "203.0.113.21")).toBe(true);
    expect(await counter("order-org", "org")).toBe(organizationBefore);
  });

  it("under 32 points a request counts its own point and never queues behind another's", async () => {
    const one = instance("small", 4, 1_000);
    const before = store.roundTrips;
    const outcomes = Promise.all(Array.from({ length: 5 }, () => admit(one, "203.0.113.40")));
    // All five rounds left in the same turn: none waited for another's reply.
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(store.roundTrips - before).toBe(5);
    expect((await outcomes).filter(Boolean)).toHaveLength(4);
  });

  it("with the store gone, points held are not used: the limits fail closed", async () => {
    const own = new RedisStore({ url: redisUrl, keyPrefix: prefix });
    const client = createRateLimiter(own, { keyPrefix: "gone-client", points: 1_000, durationSec: 60 });
    const organization = createRateLimiter(own, { keyPrefix: "gone-org", points: 1_000, durationSec: 60 });
    const consume = () => consumeInOrder(own, [client, "203.0.113.50"], [organization, "org"]);
    expect((await consume()).then?.allowed).toBe(true);
    await own.close();
    await expect(consume()).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it("requests within held points count nothing in Redis and share the PING that shows it answers", async () => {
    const one = instance("shared-ping", 10_000, 10_000);
    expect(await admit(one, "203.0.113.60")).toBe(true);
    const [counting, pings] = [store.roundTrips, store.livenessPings];
    const outcomes = await Promise.all(Array.from({ length: 60 }, () => admit(one, "203.0.113.60")));
    expect(outcomes.every(Boolean)).toBe(true);
    // Held points: nothing counted in Redis, and the sixty waited for one or two PINGs, not sixty.
    expect(store.roundTrips - counting).toBe(0);
    expect(store.livenessPings - pings).toBeGreaterThanOrEqual(1);
    expect(store.livenessPings - pings).toBeLessThanOrEqual(2);
  });

  it("with Redis not answering (its connection open), points held are not used: the limits fail closed", async () => {
    const { proxy, url: proxied } = await proxiedUrl(redisUrl, 6379);
    const own = new RedisStore({ url: proxied, keyPrefix: prefix });
    try {
      const client = createRateLimiter(own, { keyPrefix: "frozen-client", points: 1_000, durationSec: 60 });
      const organization = createRateLimiter(own, { keyPrefix: "frozen-org", points: 1_000, durationSec: 60 });
      const consume = () => consumeInOrder(own, [client, "203.0.113.70"], [organization, "org"]);
      expect((await consume()).then?.allowed).toBe(true);
      const counting = own.roundTrips;
      proxy.freeze();
      const started = Date.now();
      // Points are held for both keys, but Redis does not answer: refused as unavailable once
      // the PING times out (the command timeout, 2 s), never admitted from memory.
      await expect(consume()).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(own.roundTrips).toBe(counting);
      proxy.thaw();
    } finally {
      await own.close();
      await proxy.stop();
    }
  });

  it("held points are never used past the window they were counted in", async () => {
    const one = instance("window", 1_000, 1_000, 1);
    expect(await admit(one, "203.0.113.30")).toBe(true);
    const held = store.roundTrips;
    expect(await admit(one, "203.0.113.30")).toBe(true);
    expect(store.roundTrips).toBe(held);
    await sleep(1_100);
    // A new window: counted in Redis again, as a block of its own.
    expect(await admit(one, "203.0.113.30")).toBe(true);
    expect(store.roundTrips).toBe(held + 1);
    expect(await counter("window-client", "203.0.113.30")).toBe(62);
  });
});
