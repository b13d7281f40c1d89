import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createRateLimiter } from "./rate-limit";
import { StoreUnavailableError, type KeyValueStore } from "./types";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/**
 * A TTL a key must outlive the next few calls by: on a loaded machine (CI runs suites side by side)
 * three round trips to Redis once took more than 80 ms, and a key meant to be there had expired.
 */
const LIVES_MS = 1_000;

async function waitFor(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(5);
  }
}

/**
 * The behaviour every KeyValueStore must share, so code written against the memory store in
 * development behaves the same on Redis in production. Each test works under its own random
 * prefix, so runs against a shared Redis never see each other's keys or channels.
 */
export function storeContract(name: string, make: () => Promise<KeyValueStore> | KeyValueStore): void {
  describe(name, () => {
    let store: KeyValueStore;
    let prefix: string;
    const key = (suffix: string) => `${prefix}:${suffix}`;

    beforeEach(async () => {
      prefix = `contract:${randomUUID()}`;
      store = await make();
    });

    afterEach(async () => {
      await store.close();
    });

    it("gets, sets and deletes", async () => {
      expect(await store.get(key("a"))).toBeNull();
      await store.set(key("a"), "1");
      await store.set(key("b"), "2");
      expect(await store.get(key("a"))).toBe("1");
      await store.set(key("a"), "one");
      expect(await store.get(key("a"))).toBe("one");

      expect(await store.del(key("a"), key("b"), key("missing"))).toBe(2);
      expect(await store.get(key("a"))).toBeNull();
      expect(await store.del(key("a"))).toBe(0);
      expect(await store.del()).toBe(0);
    });

    it("expires a value set with a TTL", async () => {
      await store.set(key("short"), "v", { ttlMs: LIVES_MS });
      expect(await store.get(key("short"))).toBe("v");
      const ttl = await store.ttl(key("short"));
      expect(ttl).not.toBeNull();
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(LIVES_MS);

      await sleep(LIVES_MS + 100);
      expect(await store.get(key("short"))).toBeNull();
      expect(await store.ttl(key("short"))).toBeNull();
    });

    it("drops the TTL when a key is set again without one", async () => {
      await store.set(key("k"), "v", { ttlMs: LIVES_MS });
      await store.set(key("k"), "w");
      expect(await store.ttl(key("k"))).toBeNull();
      await sleep(LIVES_MS + 100);
      expect(await store.get(key("k"))).toBe("w");
      await store.del(key("k"));
    });

    it("sets only absent keys with setIfAbsent", async () => {
      expect(await store.setIfAbsent(key("lock"), "first", { ttlMs: LIVES_MS })).toBe(true);
      expect(await store.setIfAbsent(key("lock"), "second")).toBe(false);
      expect(await store.get(key("lock"))).toBe("first");

      await sleep(LIVES_MS + 100);
      expect(await store.setIfAbsent(key("lock"), "third")).toBe(true);
      expect(await store.get(key("lock"))).toBe("third");
      expect(await store.ttl(key("lock"))).toBeNull();
      await store.del(key("lock"));
    });

    it("sets with setIfAbsentOrEqual only a missing key or one holding the same value", async () => {
      expect(await store.setIfAbsentOrEqual(key("route"), "flow-a", { ttlMs: 5_000 })).toBe(true);
      expect(await store.get(key("route"))).toBe("flow-a");
      const first = (await store.ttl(key("route")))!;
      expect(first).toBeGreaterThan(1_000);
      // The same value: the TTL is re-armed.
      expect(await store.setIfAbsentOrEqual(key("route"), "flow-a", { ttlMs: 60_000 })).toBe(true);
      expect(await store.ttl(key("route"))).toBeGreaterThan(first);
      // Another value: left as it is, TTL included.
      await store.set(key("route"), "flow-b", { ttlMs: 5_000 });
      expect(await store.setIfAbsentOrEqual(key("route"), "flow-a", { ttlMs: 60_000 })).toBe(false);
      expect(await store.get(key("route"))).toBe("flow-b");
      expect(await store.ttl(key("route"))).toBeLessThanOrEqual(5_000);
      // Without a TTL the key keeps none; an expired key counts as missing.
      await store.del(key("route"));
      expect(await store.setIfAbsentOrEqual(key("route"), "flow-a")).toBe(true);
      expect(await store.ttl(key("route"))).toBeNull();
      await store.set(key("route"), "flow-b", { ttlMs: 30 });
      await sleep(80);
      expect(await store.setIfAbsentOrEqual(key("route"), "flow-a", { ttlMs: 5_000 })).toBe(true);
      expect(await store.get(key("route"))).toBe("flow-a");
      await store.del(key("route"));
    });

    it("deletes with delIfEqual only a key holding that value", async () => {
      expect(await store.delIfEqual(key("route"), "flow-a")).toBe(false);
      await store.set(key("route"), "flow-b");
      expect(await store.delIfEqual(key("route"), "flow-a")).toBe(false);
      expect(await store.get(key("route"))).toBe("flow-b");
      expect(await store.delIfEqual(key("route"), "flow-b")).toBe(true);
      expect(await store.get(key("route"))).toBeNull();
      // An expired key is gone already.
      await store.set(key("route"), "flow-a", { ttlMs: 30 });
      await sleep(80);
      expect(await store.delIfEqual(key("route"), "flow-a")).toBe(false);
    });

    it("replaces only present keys with setIfPresent, so a renewal never resurrects a deleted key", async () => {
      expect(await store.setIfPresent(key("cas"), "ghost", { ttlMs: 1000 })).toBe(false);
      expect(await store.get(key("cas"))).toBeNull();
      await store.set(key("cas"), "v1", { ttlMs: LIVES_MS });
      expect(await store.setIfPresent(key("cas"), "v2", { ttlMs: 5000 })).toBe(true);
      expect(await store.get(key("cas"))).toBe("v2");
      expect(await store.ttl(key("cas"))).toBeGreaterThan(1000);
      await store.del(key("cas"));
      expect(await store.setIfPresent(key("cas"), "v3")).toBe(false);
      expect(await store.get(key("cas"))).toBeNull();
      // Expired counts as absent.
      await store.set(key("cas"), "short", { ttlMs: 30 });
      await sleep(80);
      expect(await store.setIfPresent(key("cas"), "late")).toBe(false);
      expect(await store.get(key("cas"))).toBeNull();
    });

    it("increments atomically under concurrency", async () => {
      const results = await Promise.all(Array.from({ length: 200 }, () => store.incr(key("counter"))));
      expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
      expect(await store.get(key("counter"))).toBe("200");

      expect(await store.incr(key("counter"), { by: 5 })).toBe(205);
      expect(await store.incr(key("counter"), { by: -10 })).toBe(195);
      expect(await store.incr(key("fresh"), { by: 3 })).toBe(3);
      await store.del(key("counter"), key("fresh"));
    });

    it("applies the incr TTL only when the key is created", async () => {
      // Windows wide enough that a busy machine's late timers cannot expire the key early.
      expect(await store.incr(key("window"), { ttlMs: 600 })).toBe(1);
      const created = Date.now();
      await sleep(200);
      expect(await store.incr(key("window"), { ttlMs: 600 })).toBe(2);
      const readAt = Date.now();
      const ttl = await store.ttl(key("window"));
      expect(ttl).not.toBeNull();
      // Not re-armed: at most 600 ms less the time since it was created, by the same clock (a timer
      // may fire a millisecond before Date.now() says 200 ms passed; one more for the store's own
      // clock's rounding). Re-arming would put it back near 600.
      expect(readAt - created).toBeGreaterThanOrEqual(190);
      expect(ttl).toBeLessThanOrEqual(600 - (readAt - created) + 1);

      await sleep(520);
      expect(await store.get(key("window"))).toBeNull();
      expect(await store.incr(key("window"), { ttlMs: 600 })).toBe(1);

      await store.set(key("plain"), "7");
      expect(await store.incr(key("plain"), { ttlMs: 100 })).toBe(8);
      expect(await store.ttl(key("plain"))).toBeNull();
      await store.del(key("window"), key("plain"));
    });

    it("re-arms and reports TTLs with expire and ttl", async () => {
      expect(await store.expire(key("none"), 100)).toBe(false);
      expect(await store.ttl(key("none"))).toBeNull();

      await store.set(key("k"), "v");
      expect(await store.ttl(key("k"))).toBeNull();
      expect(await store.expire(key("k"), LIVES_MS)).toBe(true);
      const ttl = await store.ttl(key("k"));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(LIVES_MS);

      await sleep(LIVES_MS + 100);
      expect(await store.get(key("k"))).toBeNull();
      expect(await store.ttl(key("k"))).toBeNull();
      expect(await store.expire(key("k"), 100)).toBe(false);
    });

    it("touchJson rewrites fields and re-arms the TTL in one step, and never re-creates a missing key", async () => {
      const record = { id: "s1", seen: "old", cap: new Date(Date.now() + 60_000).toISOString() };
      expect(await store.touchJson(key("missing"), { set: { seen: "new" }, ttlMs: 1_000 })).toBeNull();
      expect(await store.get(key("missing"))).toBeNull();

      await store.set(key("s"), JSON.stringify(record), { ttlMs: LIVES_MS });
      const touched = await store.touchJson(key("s"), { set: { seen: "new" }, ttlMs: 5_000, capAt: "cap" });
      expect(JSON.parse(touched!)).toEqual({ ...record, seen: "new" });
      expect(JSON.parse((await store.get(key("s")))!)).toEqual({ ...record, seen: "new" });
      const ttl = (await store.ttl(key("s")))!;
      expect(ttl).toBeGreaterThan(4_000);
      expect(ttl).toBeLessThanOrEqual(5_000);

      // Deleted meanwhile (a revoked session): the touch finds nothing and leaves nothing.
      await store.del(key("s"));
      expect(await store.touchJson(key("s"), { set: { seen: "again" }, ttlMs: 5_000 })).toBeNull();
      expect(await store.get(key("s"))).toBeNull();
    });

    it("touchJson never re-arms past the capAt instant, and leaves a value whose cap has passed as it was", async () => {
      const capped = { cap: new Date(Date.now() + 3 * LIVES_MS).toISOString(), seen: "old" };
      await store.set(key("c"), JSON.stringify(capped), { ttlMs: LIVES_MS });
      await store.touchJson(key("c"), { set: { seen: "new" }, ttlMs: 60_000, capAt: "cap" });
      const ttl = (await store.ttl(key("c")))!;
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(3 * LIVES_MS);

      const past = { cap: new Date(Date.now() - 1_000).toISOString(), seen: "old" };
      await store.set(key("p"), JSON.stringify(past), { ttlMs: 10_000 });
      expect(JSON.parse((await store.touchJson(key("p"), { set: { seen: "new" }, ttlMs: 60_000, capAt: "cap" }))!)).toEqual(past);
      expect(JSON.parse((await store.get(key("p")))!)).toEqual(past);
      await store.del(key("c"), key("p"));
    });

    it("touchJson sets only the top-level field, whatever the record holds and whatever the new text is", async () => {
      const cap = new Date(Date.now() + 60_000).toISOString();
      const cases: Array<{ record: Record<string, unknown>; seen: string }> = [
        // A string that spells the field inside it (its quotes are escaped in the JSON text).
        { record: { note: '"seen":"fake"', seen: "old", cap }, seen: "new" },
        // New text that needs escaping.
        { record: { seen: "old", cap }, seen: 'say "hi" \\ \n' },
        // A nested object with the same field name, before the top-level one.
        { record: { inner: { seen: "inner" }, seen: "old", cap }, seen: "new" },
        // The field written with escapes in the record, and a field that is not there yet.
        { record: { seen: "o\"ld", cap }, seen: "new" },
        { record: { other: "x", cap }, seen: "new" },
        // The field only inside a nested object; brackets and braces inside a string.
        { record: { inner: { seen: "inner" }, cap }, seen: "new" },
        { record: { ua: "Mozilla/5.0 {x} [y]", seen: "old", cap }, seen: "new" },
        // The field's name spelled again inside another field's text, and at the end of another name.
        { record: { id: "s", seen: "old", cap, user_agent: 'a "seen":"x"' }, seen: "2026-12-03T09:00:00.000Z" },
        { record: { last_seen: "other", seen: "old", cap }, seen: "new" },
      ];
      for (const [i, { record, seen }] of cases.entries()) {
        await store.set(key(`f${i}`), JSON.stringify(record), { ttlMs: 10_000 });
        const touched = await store.touchJson(key(`f${i}`), { set: { seen }, ttlMs: 5_000, capAt: "cap" });
        expect(JSON.parse(touched!)).toEqual({ ...record, seen });
        expect(JSON.parse((await store.get(key(`f${i}`)))!)).toEqual({ ...record, seen });
        expect((await store.ttl(key(`f${i}`)))!).toBeLessThanOrEqual(5_000);
        await store.del(key(`f${i}`));
      }
    });

    it("touchJson under concurrency with a delete: once deleted, the key stays deleted", async () => {
      await store.set(key("r"), JSON.stringify({ seen: "0" }), { ttlMs: 10_000 });
      const touches = Array.from({ length: 20 }, (_, i) => store.touchJson(key("r"), { set: { seen: String(i) }, ttlMs: 10_000 }));
      const deleted = store.del(key("r"));
      await Promise.all([...touches, deleted]);
      expect(await store.get(key("r"))).toBeNull();
    });

    it("keeps sets", async () => {
      expect(await store.setMembers(key("set"))).toEqual([]);
      await store.setAdd(key("set"), "a", "b", "a");
      await store.setAdd(key("set"), "c");
      expect((await store.setMembers(key("set"))).sort()).toEqual(["a", "b", "c"]);

      await store.setRemove(key("set"), "a", "missing");
      expect((await store.setMembers(key("set"))).sort()).toEqual(["b", "c"]);

      await store.setRemove(key("set"), "b", "c");
      expect(await store.setMembers(key("set"))).toEqual([]);
      expect(await store.del(key("set"))).toBe(0);

      await store.setAdd(key("expiring"), "x");
      expect(await store.expire(key("expiring"), 80)).toBe(true);
      await sleep(130);
      expect(await store.setMembers(key("expiring"))).toEqual([]);
    });

    it("delivers published messages to every subscriber until they unsubscribe", async () => {
      const first: string[] = [];
      const second: string[] = [];
      const other: string[] = [];
      const stopFirst = await store.subscribe(key("events"), (m) => first.push(m));
      const stopSecond = await store.subscribe(key("events"), (m) => second.push(m));
      const stopOther = await store.subscribe(key("other"), (m) => other.push(m));

      await store.publish(key("events"), "hello");
      await waitFor(() => first.length === 1 && second.length === 1);
      expect(first).toEqual(["hello"]);
      expect(second).toEqual(["hello"]);

      await stopFirst();
      await stopFirst();
      await store.publish(key("events"), "again");
      await waitFor(() => second.length === 2);
      expect(second).toEqual(["hello", "again"]);
      expect(first).toEqual(["hello"]);

      await stopSecond();
      await store.publish(key("other"), "elsewhere");
      await waitFor(() => other.length === 1);
      expect(other).toEqual(["elsewhere"]);
      expect(second).toEqual(["hello", "again"]);
      await stopOther();
    });

    it("keeps delivering to the others when a handler throws", async () => {
      const received: string[] = [];
      const warnings: Error[] = [];
      const onWarning = (warning: Error) => warnings.push(warning);
      process.on("warning", onWarning);
      try {
        const stopThrowing = await store.subscribe(key("events"), () => {
          throw new Error("handler bug");
        });
        const stopReceiving = await store.subscribe(key("events"), (m) => received.push(m));
        await store.publish(key("events"), "m");
        await waitFor(() => received.length === 1);
        await waitFor(() => warnings.some((w) => w.name === "StoreSubscriberWarning"));
        await stopThrowing();
        await stopReceiving();
      } finally {
        process.off("warning", onWarning);
      }
    });

    it("never delivers synchronously inside publish", async () => {
      const received: string[] = [];
      const stop = await store.subscribe(key("events"), (m) => received.push(m));
      const published = store.publish(key("events"), "m");
      expect(received).toEqual([]);
      await published;
      await waitFor(() => received.length === 1);
      await stop();
    });

    it("grants a lease to one holder at a time, with growing fencing tokens", async () => {
      // TTLs are long where a test asserts that a lease is still held, so a stalled machine cannot
      // let it expire between two calls; only the expiry test waits one out.
      const first = await store.leaseAcquire(key("lease"), "a", 5_000);
      expect(first).toMatchObject({ holder: "a" });
      expect(first!.token).toBeGreaterThan(0);
      expect(Math.abs(first!.since - Date.now())).toBeLessThan(5_000);
      expect(await store.leaseAcquire(key("lease"), "b", 5_000)).toBeNull();
      // Its own holder cannot take it twice either: a grant is proven by its token, not its name.
      expect(await store.leaseAcquire(key("lease"), "a", 5_000)).toBeNull();
      expect(await store.leaseGet(key("lease"))).toEqual(first);

      // Renewing re-arms the TTL (to the new one) for the grant with that token only.
      expect(await store.leaseRenew(key("lease"), first!.token, 60_000)).toBe(true);
      expect(await store.ttl(key("lease"))).toBeGreaterThan(5_000);
      expect(await store.leaseRenew(key("lease"), first!.token + 1, 1)).toBe(false);
      expect(await store.ttl(key("lease"))).toBeGreaterThan(5_000);
      expect(await store.leaseGet(key("lease"))).toEqual(first);

      // Released: another holder gets it at once, with a larger token.
      expect(await store.leaseRelease(key("lease"), first!.token + 1)).toBe(false);
      expect(await store.leaseRelease(key("lease"), first!.token)).toBe(true);
      expect(await store.leaseGet(key("lease"))).toBeNull();
      expect(await store.leaseRelease(key("lease"), first!.token)).toBe(false);
      const second = await store.leaseAcquire(key("lease"), "b", 5_000);
      expect(second!.token).toBeGreaterThan(first!.token);
      expect(await store.leaseGet(key("lease"))).toMatchObject({ holder: "b", token: second!.token });
      await store.leaseRelease(key("lease"), second!.token);
    });

    it("lets a lease expire, and the old holder can neither renew nor release the next grant", async () => {
      const stale = await store.leaseAcquire(key("lease"), "paused", 60);
      await sleep(120);
      expect(await store.leaseGet(key("lease"))).toBeNull();
      expect(await store.leaseRenew(key("lease"), stale!.token, 60)).toBe(false);
      const fresh = await store.leaseAcquire(key("lease"), "other", 60_000);
      expect(fresh!.token).toBeGreaterThan(stale!.token);
      expect(await store.leaseRenew(key("lease"), stale!.token, 60_000)).toBe(false);
      expect(await store.leaseRelease(key("lease"), stale!.token)).toBe(false);
      expect(await store.leaseGet(key("lease"))).toMatchObject({ holder: "other", token: fresh!.token });
      const ttl = await store.ttl(key("lease"));
      expect(ttl).toBeGreaterThan(30_000);
      await store.leaseRelease(key("lease"), fresh!.token);
    });

    it("grants a contested lease exactly once", async () => {
      const grants = await Promise.all(Array.from({ length: 20 }, (_, i) => store.leaseAcquire(key("contested"), `h${i}`, 10_000)));
      const won = grants.filter((g) => g !== null);
      expect(won).toHaveLength(1);
      expect(await store.leaseGet(key("contested"))).toEqual(won[0]);
      await store.leaseRelease(key("contested"), won[0]!.token);
    });

    it("accepts a publish nobody listens to, and says nobody got it", async () => {
      await expect(store.publish(key("nobody"), "m")).resolves.toBe(0);
      const stop = await store.subscribe(key("somebody"), () => undefined);
      expect(await store.publish(key("somebody"), "m")).toBeGreaterThan(0);
      await stop();
      expect(await store.publish(key("somebody"), "m")).toBe(0);
    });

    it("counts each channel's listeners, in the order asked", async () => {
      expect(await store.listeners([])).toEqual([]);
      const stop = await store.subscribe(key("counted"), () => undefined);
      expect(await store.listeners([key("silent"), key("counted"), key("silent")])).toEqual([0, 1, 0]);
      await stop();
      expect(await store.listeners([key("counted")])).toEqual([0]);
    });

    it("says a channel is unheard only when a publish to it would reach nobody (where it can say)", async () => {
      if (!store.unheard) return; // Redis: listeners may be elsewhere; callers always publish.
      expect(store.unheard(key("quiet"))).toBe(true);
      const stop = await store.subscribe(key("quiet"), () => undefined);
      const again = await store.subscribe(key("quiet"), () => undefined);
      expect(store.unheard(key("quiet"))).toBe(false);
      await stop();
      expect(store.unheard(key("quiet"))).toBe(false);
      await again();
      expect(store.unheard(key("quiet"))).toBe(true);
      expect(await store.publish(key("quiet"), "m")).toBe(0);
    });

    it("a round does in one trip what the methods of the same names do", async () => {
      const record = { id: "s1", seen: "old", cap: new Date(Date.now() + 60_000).toISOString() };
      await store.set(key("session"), JSON.stringify(record), { ttlMs: LIVES_MS });
      await store.set(key("generation"), "g1");
      await store.set(key("taken"), "first");

      const round = store.round();
      const [touched, missingTouch, generation, missing, set, notSet, hit1, hit2] = await Promise.all([
        round.touchJson(key("session"), { set: { seen: "new" }, ttlMs: 5_000, capAt: "cap" }),
        round.touchJson(key("no-session"), { set: { seen: "new" }, ttlMs: 5_000 }),
        round.get(key("generation")),
        round.get(key("nothing")),
        round.setIfAbsent(key("flag"), "1", { ttlMs: 5_000 }),
        round.setIfAbsent(key("taken"), "second"),
        round.windowHit(key("window"), 2, 60),
        round.windowHit(key("window"), 1, 60),
      ]);
      expect(JSON.parse(touched!)).toEqual({ ...record, seen: "new" });
      expect((await store.ttl(key("session")))!).toBeGreaterThan(4_000);
      expect(missingTouch).toBeNull();
      expect(await store.get(key("no-session"))).toBeNull();
      expect(generation).toBe("g1");
      expect(missing).toBeNull();
      expect([set, notSet]).toEqual([true, false]);
      expect(await store.get(key("flag"))).toBe("1");
      expect((await store.ttl(key("flag")))!).toBeGreaterThan(4_000);
      expect(await store.get(key("taken"))).toBe("first");
      // The window: created with its TTL by the first hit, counted on by the second.
      expect(hit1.consumed).toBe(2);
      expect(hit2.consumed).toBe(3);
      expect(hit2.msBeforeNext).toBeGreaterThan(55_000);
      expect(hit2.msBeforeNext).toBeLessThanOrEqual(60_000);
      expect(await store.get(key("window"))).toBe("3");
    });

    it("a rate limit counted in a round is the limiter's own counter", async () => {
      const limiter = createRateLimiter(store, { keyPrefix: `${prefix}:round`, points: 2, durationSec: 60 });
      const consume = () => {
        const round = store.round();
        // A round carries other work along; the limit is counted with it.
        const [limited] = [limiter.consume("k", 1, round), round.get(key("other"))];
        return limited;
      };
      expect(await consume()).toEqual({ allowed: true, remaining: 1, retryAfterSec: 0 });
      expect(await limiter.peek("k")).toMatchObject({ allowed: true, remaining: 1 });
      expect(await limiter.consume("k")).toMatchObject({ allowed: true, remaining: 0 });
      const refused = await consume();
      expect(refused.allowed).toBe(false);
      expect(refused.remaining).toBe(0);
      expect(refused.retryAfterSec).toBeGreaterThanOrEqual(1);
      expect(refused.retryAfterSec).toBeLessThanOrEqual(60);
      expect((await limiter.peek("k")).allowed).toBe(false);
      await limiter.reset("k");
      expect(await consume()).toEqual({ allowed: true, remaining: 1, retryAfterSec: 0 });
      await limiter.reset("k");
    });

    it("consumeEach counts several requests at once and answers each as if it had come alone", async () => {
      const limiter = createRateLimiter(store, { keyPrefix: `${prefix}:each`, points: 5, durationSec: 60 });
      expect(await limiter.consume("k")).toMatchObject({ allowed: true, remaining: 4 });
      const round = store.round();
      const [each] = await Promise.all([limiter.consumeEach("k", 6, round), round.get(key("other"))]);
      expect(each.map((r) => [r.allowed, r.remaining])).toEqual([
        [true, 3],
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0],
        [false, 0],
      ]);
      for (const refused of each.slice(4)) expect(refused.retryAfterSec).toBeGreaterThanOrEqual(1);
      // Every one of them counted: the next request alone is refused too.
      expect((await limiter.consumeEach("k", 1))[0]!.allowed).toBe(false);
      await expect(limiter.consumeEach("k", 0)).rejects.toThrow(RangeError);
      await limiter.reset("k");
    });

    it("rate limits through a second copy of the code share the counters (Next bundles its own copy)", async () => {
      // A fresh module graph stands for Next's bundle: its classes are not the ones that built the
      // store, so anything deciding by instanceof, or keeping counters in module state, fails here.
      vi.resetModules();
      const copy = (await import("./rate-limit")) as typeof import("./rate-limit");
      expect(copy.createRateLimiter).not.toBe(createRateLimiter);
      const settings = { keyPrefix: `${prefix}:copies`, points: 2, durationSec: 60 };
      const server = createRateLimiter(store, settings);
      const bundle = copy.createRateLimiter(store, settings);
      expect(await server.consume("k")).toMatchObject({ allowed: true, remaining: 1 });
      expect(await bundle.consume("k")).toMatchObject({ allowed: true, remaining: 0 });
      const refused = await bundle.consume("k");
      expect(refused.allowed).toBe(false);
      expect(refused.retryAfterSec).toBeGreaterThanOrEqual(1);
      expect((await server.peek("k")).allowed).toBe(false);
      await bundle.reset("k");
    });

    it("rate limits: allows the points, then refuses with a retry delay, until reset", async () => {
      const limiter = createRateLimiter(store, { keyPrefix: `${prefix}:login`, points: 3, durationSec: 60 });
      const who = "user@example.com";

      expect(await limiter.peek(who)).toEqual({ allowed: true, remaining: 3, retryAfterSec: 0 });
      expect(await limiter.consume(who)).toMatchObject({ allowed: true, remaining: 2 });
      expect(await limiter.consume(who)).toMatchObject({ allowed: true, remaining: 1 });
      expect(await limiter.consume(who)).toMatchObject({ allowed: true, remaining: 0 });

      const refused = await limiter.consume(who);
      expect(refused.allowed).toBe(false);
      expect(refused.remaining).toBe(0);
      expect(refused.retryAfterSec).toBeGreaterThanOrEqual(1);
      expect(refused.retryAfterSec).toBeLessThanOrEqual(60);

      const peeked = await limiter.peek(who);
      expect(peeked.allowed).toBe(false);
      expect(peeked.retryAfterSec).toBeGreaterThanOrEqual(1);

      // Other keys have their own budget.
      expect(await limiter.consume("someone-else")).toMatchObject({ allowed: true, remaining: 2 });

      await limiter.reset(who);
      expect(await limiter.peek(who)).toEqual({ allowed: true, remaining: 3, retryAfterSec: 0 });
      expect(await limiter.consume(who, 2)).toMatchObject({ allowed: true, remaining: 1 });
      expect((await limiter.consume(who, 2)).allowed).toBe(false);

      await limiter.reset(who);
      await limiter.reset("someone-else");
    });

    it("a window hit after another counts only when the one before it stayed within its bound, in one round", async () => {
      const [first, second] = [key("after:first"), key("after:second")];
      const round = async (bound: number) => {
        const r = store.round();
        return Promise.all([r.windowHit(first, 1, 60), r.windowHitAfter(second, 1, 60, bound)]);
      };
      const trips = store.roundTrips;
      expect(await round(2)).toEqual([{ consumed: 1, msBeforeNext: expect.any(Number) }, { consumed: 1, msBeforeNext: expect.any(Number) }]);
      expect(await round(2)).toMatchObject([{ consumed: 2 }, { consumed: 2 }]);
      // The first is past its bound now: the second is not counted.
      expect(await round(2)).toMatchObject([{ consumed: 3 }, null]);
      expect(await round(2)).toMatchObject([{ consumed: 4 }, null]);
      expect(await round(10)).toMatchObject([{ consumed: 5 }, { consumed: 3 }]);
      // One round trip per round on Redis (none in process).
      expect(store.roundTrips - trips).toBe(store.roundTrips === 0 ? 0 : 5);
      // After an operation that is not a window hit, nothing is counted.
      const r = store.round();
      const [, , skipped] = await Promise.all([r.windowHit(first, 1, 60), r.get(key("after:other")), r.windowHitAfter(second, 1, 60, 100)]);
      expect(skipped).toBeNull();
      await expect(store.round().windowHitAfter(second, 1, 60, -1)).rejects.toThrow(RangeError);
    });

    it("shares counters between limiters with the same prefix on one store", async () => {
      const options = { keyPrefix: `${prefix}:shared`, points: 2, durationSec: 60 };
      const a = createRateLimiter(store, options);
      const b = createRateLimiter(store, options);
      expect((await a.consume("k")).allowed).toBe(true);
      expect((await b.consume("k")).allowed).toBe(true);
      expect((await a.consume("k")).allowed).toBe(false);
      await a.reset("k");
    });

    it("rejects every call with StoreUnavailableError once closed", async () => {
      const limiter = createRateLimiter(store, { keyPrefix: `${prefix}:closed`, points: 1, durationSec: 60 });
      await store.close();
      await store.close();

      const calls: Array<[string, () => Promise<unknown>]> = [
        ["get", () => store.get(key("k"))],
        ["set", () => store.set(key("k"), "v")],
        ["setIfAbsent", () => store.setIfAbsent(key("k"), "v")],
        ["setIfPresent", () => store.setIfPresent(key("k"), "v")],
        ["setIfAbsentOrEqual", () => store.setIfAbsentOrEqual(key("k"), "v")],
        ["delIfEqual", () => store.delIfEqual(key("k"), "v")],
        ["del", () => store.del(key("k"))],
        ["incr", () => store.incr(key("k"))],
        ["expire", () => store.expire(key("k"), 100)],
        ["ttl", () => store.ttl(key("k"))],
        ["setAdd", () => store.setAdd(key("s"), "m")],
        ["setRemove", () => store.setRemove(key("s"), "m")],
        ["setMembers", () => store.setMembers(key("s"))],
        ["leaseAcquire", () => store.leaseAcquire(key("l"), "h", 100)],
        ["leaseRenew", () => store.leaseRenew(key("l"), 1, 100)],
        ["leaseRelease", () => store.leaseRelease(key("l"), 1)],
        ["leaseGet", () => store.leaseGet(key("l"))],
        ["publish", () => store.publish(key("c"), "m")],
        ["subscribe", () => store.subscribe(key("c"), () => undefined)],
        ["ping", () => store.ping()],
        ["round get", () => store.round().get(key("k"))],
        ["round touchJson", () => store.round().touchJson(key("k"), { set: { a: "b" }, ttlMs: 100 })],
        ["round setIfAbsent", () => store.round().setIfAbsent(key("k"), "v")],
        ["round windowHit", () => store.round().windowHit(key("w"), 1, 60)],
        ["rate limit consume in a round", () => limiter.consume("k", 1, store.round())],
        ["rate limit consume", () => limiter.consume("k")],
        ["rate limit peek", () => limiter.peek("k")],
        ["rate limit reset", () => limiter.reset("k")],
      ];
      for (const [label, call] of calls) {
        await expect(call(), label).rejects.toBeInstanceOf(StoreUnavailableError);
      }
    });
  });
}
