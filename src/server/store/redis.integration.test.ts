import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { RedisStore } from "./redis";
import { storeContract } from "./store.contract";
import { StoreUnavailableError } from "./types";
import { isListening, proxiedUrl } from "@/test/tcp-proxy";
import { monitorRedis } from "@/test/redis-monitor";

const explicitUrl = process.env.REDIS_URL;
const redisUrl = explicitUrl ?? "redis://127.0.0.1:6379";

// A configured REDIS_URL is a promise that Redis is there, so a down server must fail the run; the
// default local Redis is only a convenience, and without it the suite is skipped.
const redisAvailable = explicitUrl !== undefined || (await isListening(6379));

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe.skipIf(!redisAvailable)("RedisStore", () => {
  storeContract(
    "RedisStore contract",
    () => new RedisStore({ url: redisUrl, keyPrefix: `fptest:${randomUUID()}:` }),
  );

  it("fails fast while Redis is unreachable and recovers when it returns", async () => {
    const { proxy, url: proxied } = await proxiedUrl(redisUrl, 6379);
    const store = new RedisStore({ url: proxied, keyPrefix: `fptest:${randomUUID()}:` });
    try {
      await store.set("k", "v", { ttlMs: 60_000 });
      const received: string[] = [];
      await store.subscribe("events", (m) => received.push(m));

      await proxy.stop();
      const started = Date.now();
      await expect(store.get("k")).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - started).toBeLessThan(5_000);
      await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);

      await proxy.start(proxy.port);
      const deadline = Date.now() + 10_000;
      for (;;) {
        try {
          await store.ping();
          break;
        } catch (error) {
          expect(error).toBeInstanceOf(StoreUnavailableError);
          if (Date.now() > deadline) throw new Error("store did not recover within 10 s");
          await sleep(200);
        }
      }
      expect(await store.get("k")).toBe("v");

      // The subscriber connection reconnects on its own schedule and resubscribes; publish until
      // a message gets through rather than guessing when that has happened.
      while (received.length === 0) {
        if (Date.now() > deadline) throw new Error("subscription did not recover within 10 s");
        await store.publish("events", "back");
        await sleep(200);
      }
      expect(received[0]).toBe("back");
      await store.del("k");
    } finally {
      await store.close();
      await proxy.stop();
    }
  }, 30_000);

  it("sends a round as one command, and refuses operations added after it went out", async () => {
    const prefix = `fptest:${randomUUID()}:`;
    const store = new RedisStore({ url: redisUrl, keyPrefix: prefix });
    const commands: string[] = [];
    let counting = false;
    const monitor = await monitorRedis(redisUrl, (args, source) => {
      // Commands a client sent (not those a script ran) that touch this test's keys.
      if (counting && source !== "lua" && args.some((arg) => arg.startsWith(prefix))) commands.push(args[0]!.toLowerCase());
    });
    try {
      await store.set("session", JSON.stringify({ seen: "old" }), { ttlMs: 60_000 });
      await sleep(100);
      counting = true;
      const round = store.round();
      const results = Promise.all([
        round.touchJson("session", { set: { seen: "new" }, ttlMs: 60_000 }),
        round.get("access"),
        round.get("flows"),
        round.windowHit("limit", 1, 60),
      ]);
      expect(() => round.get("too-early-is-fine")).not.toThrow();
      await results;
      await expect(round.get("late")).rejects.toThrow(/has been sent/);
      // Mistakes reject, never throw, so what a round already holds stays observed.
      await expect(store.round().windowHit("w", 0, 60)).rejects.toThrow(RangeError);
      await expect(store.round().touchJson("t", { set: {}, ttlMs: -1 })).rejects.toThrow(RangeError);
      await sleep(100);
      // EVAL the first time on a connection, EVALSHA after: one command either way.
      expect(commands).toHaveLength(1);
      expect(commands[0]).toMatch(/^eval(sha)?$/);
    } finally {
      monitor.close();
      await store.del("session", "limit");
      await store.close();
    }
  });
});
