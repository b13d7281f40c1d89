import { describe, expect, it } from "vitest";
import { MemoryStore } from "./memory";
import { durableSubscription } from "./durable-subscription";
import { StoreUnavailableError, type KeyValueStore } from "./types";

/** A memory store whose first `failures` subscribe calls fail, as Redis does while connecting. */
function flakyStore(failures: number): KeyValueStore & { attempts: number } {
  const inner = new MemoryStore();
  let attempts = 0;
  return Object.assign(Object.create(inner) as KeyValueStore, {
    get attempts() {
      return attempts;
    },
    subscribe(channel: string, handler: (message: string) => void) {
      attempts++;
      if (attempts <= failures) return Promise.reject(new StoreUnavailableError("connect timed out"));
      return inner.subscribe(channel, handler);
    },
    publish: (channel: string, message: string) => inner.publish(channel, message),
  });
}

describe("durableSubscription", () => {
  it("keeps trying while the store cannot subscribe, then delivers", async () => {
    const store = flakyStore(3);
    const seen: string[] = [];
    const retries: number[] = [];
    const sub = durableSubscription(store, "revocations", (m) => seen.push(m), { initialDelayMs: 5, onRetry: (_e, n) => retries.push(n) });
    await sub.ready;
    expect(retries).toEqual([1, 2, 3]);
    await store.publish("revocations", "ses_1");
    await new Promise((r) => setTimeout(r, 10));
    expect(seen).toEqual(["ses_1"]);
    await sub.stop();
    await store.publish("revocations", "ses_2");
    await new Promise((r) => setTimeout(r, 10));
    expect(seen).toEqual(["ses_1"]);
  });

  it("stops trying once stopped, even before it ever subscribed", async () => {
    const store = flakyStore(1_000);
    const sub = durableSubscription(store, "c", () => undefined, { initialDelayMs: 20 });
    await new Promise((r) => setTimeout(r, 5));
    await sub.stop();
    const attempts = store.attempts;
    await new Promise((r) => setTimeout(r, 60));
    expect(store.attempts).toBe(attempts);
  });
});
