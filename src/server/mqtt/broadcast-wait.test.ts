import { afterEach, describe, expect, it, vi } from "vitest";
import { BroadcastLostError, untilAnnounced } from "./broadcast-wait";

afterEach(() => {
  vi.useRealTimers();
});

const options = { everyMs: 100, attempts: 2 };

describe("untilAnnounced: a subscription change's announcement, sent again until it comes back", () => {
  it("settles with the store, announcing again only while it waits", async () => {
    vi.useFakeTimers();
    let arrive!: (v: string) => void;
    const announce = vi.fn();
    const done = untilAnnounced(new Promise<string>((r) => (arrive = r)), announce, "SUBSCRIBE", options);
    await vi.advanceTimersByTimeAsync(150);
    expect(announce).toHaveBeenCalledTimes(1);
    arrive("stored");
    await expect(done).resolves.toBe("stored");
    await vi.advanceTimersByTimeAsync(1_000);
    expect(announce).toHaveBeenCalledTimes(1);
  });

  it("fails after its attempts, so the connection ends instead of waiting forever", async () => {
    vi.useFakeTimers();
    const announce = vi.fn();
    const done = untilAnnounced(new Promise<void>(() => undefined), announce, "UNSUBSCRIBE", options);
    const outcome = done.catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(300);
    expect(announce).toHaveBeenCalledTimes(2);
    const err = await outcome;
    expect(err).toBeInstanceOf(BroadcastLostError);
    expect((err as Error).message).toMatch(/UNSUBSCRIBE announcement did not come back from Redis within 300 ms \(sent 3 times\)/);
  });

  it("passes the store's own failure on at once", async () => {
    const announce = vi.fn();
    await expect(untilAnnounced(Promise.reject(new Error("Redis is gone")), announce, "SUBSCRIBE", options)).rejects.toThrow("Redis is gone");
    expect(announce).not.toHaveBeenCalled();
  });
});
