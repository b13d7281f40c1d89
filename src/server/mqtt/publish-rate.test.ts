import { describe, expect, it } from "vitest";
import { createLogger } from "../logger";
import { MemoryStore, createRateLimiter, type RateLimiter } from "../store";
import { ClusterPublishRate, LocalPublishRate } from "./publish-rate";

const logger = createLogger({ level: "silent" });

/** Takes `n` at once; resolves with each answer and the order the answers came in. */
async function takeMany(rate: { take(org: string): Promise<boolean> | boolean }, org: string, n: number) {
  const order: number[] = [];
  const answers = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      Promise.resolve(rate.take(org)).then((ok) => {
        order.push(i);
        return ok;
      }),
    ),
  );
  return { answers, order };
}

describe("ClusterPublishRate (the rate shared through the store's window)", () => {
  it("takes exactly the rate in a window, in leases of a fiftieth; callers are answered in order; organizations apart", async () => {
    const store = new MemoryStore();
    const limiter = createRateLimiter(store, { keyPrefix: "mqtt-publish-test", points: 100, durationSec: 1 });
    let asked = 0;
    const counting: RateLimiter = { ...limiter, consume: (key, points, via) => (asked++, limiter.consume(key, points, via)) };
    const rate = new ClusterPublishRate(counting, 100, logger);
    const { answers, order } = await takeMany(rate, "org-a", 130);
    expect(answers.filter(Boolean).length).toBe(100);
    // The first 100 callers got the 100: nobody overtook anybody.
    expect(answers.slice(0, 100).every(Boolean)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // 50 leases of 2 taken, then the window said no once; the other refusals were answered locally.
    expect(asked).toBe(51);
    expect((await takeMany(rate, "org-b", 5)).answers).toEqual([true, true, true, true, true]);
    await store.close();
  });

  it("a store that does not answer refuses (fails closed), and is asked again shortly after", async () => {
    let fail = true;
    const limiter: RateLimiter = {
      consume: async (_key, points = 1) => {
        if (fail) throw new Error("store down");
        return { allowed: true, remaining: 100 - points, retryAfterSec: 0 };
      },
      consumeEach: async () => {
        throw new Error("not used");
      },
      peek: async () => ({ allowed: true, remaining: 0, retryAfterSec: 0 }),
      reset: async () => undefined,
    };
    const rate = new ClusterPublishRate(limiter, 100, logger);
    expect(await rate.take("org")).toBe(false);
    fail = false;
    expect(await rate.take("org")).toBe(false);
    await new Promise((r) => setTimeout(r, 60));
    expect(await rate.take("org")).toBe(true);
  });
});

describe("LocalPublishRate (one instance)", () => {
  it("is a bucket one second deep per organization", () => {
    const rate = new LocalPublishRate(3);
    expect([rate.take("a"), rate.take("a"), rate.take("a"), rate.take("a"), rate.take("b")]).toEqual([true, true, true, false, true]);
  });
});
