import { afterEach, describe, expect, it, vi } from "vitest";
import { ReplayGuard, withoutSent } from "./replay-guard";

const message = (counter: number, qos = 1, brokerId: string | null = "b1") => ({ cmd: "publish", qos, brokerId, brokerCounter: counter });

afterEach(() => {
  vi.useRealTimers();
});

describe("ReplayGuard: one road per message while a returning session's queue is replayed", () => {
  it("passes a message the first time and refuses its second copy, by broker id and counter", () => {
    const guard = new ReplayGuard();
    const connection = {};
    guard.watch(connection);
    expect(guard.first(connection, message(7))).toBe(true);
    expect(guard.first(connection, message(7))).toBe(false);
    // The counter as aedes-persistence-redis reads it back from a key (a string) is the same message.
    expect(guard.first(connection, { ...message(7), brokerCounter: "7" })).toBe(false);
    // Another broker's counter 7, and a counter sent out of order, are other messages.
    expect(guard.first(connection, message(7, 1, "b2"))).toBe(true);
    expect(guard.first(connection, message(3))).toBe(true);
  });

  it("a queued message already sent live is left out of the replay; one not sent stays", async () => {
    const guard = new ReplayGuard();
    const connection = {};
    guard.watch(connection);
    guard.first(connection, message(2));
    async function* queue() {
      yield* [message(1), message(2), message(3)];
    }
    const replayed: number[] = [];
    for await (const p of withoutSent(queue(), (p) => guard.sentAlready(connection, p))) replayed.push(p.brokerCounter);
    expect(replayed).toEqual([1, 3]);
    // Asking does not count as sending.
    expect(guard.first(connection, message(1))).toBe(true);
  });

  it("QoS 0, retained copies (no broker id), other packets and connections it does not watch always pass", () => {
    const guard = new ReplayGuard();
    const watched = {};
    guard.watch(watched);
    for (let i = 0; i < 2; i++) {
      expect(guard.first(watched, message(5, 0))).toBe(true);
      expect(guard.first(watched, message(5, 1, null))).toBe(true);
      expect(guard.first(watched, { ...message(6), cmd: "pubrel" })).toBe(true);
      expect(guard.first({}, message(9))).toBe(true);
    }
    expect(guard.sentAlready({}, message(9))).toBe(false);
  });

  it("stops watching a while after the replay, at once when the connection ends, and starts afresh for a new one", () => {
    vi.useFakeTimers();
    const guard = new ReplayGuard();
    const connection = {};
    guard.watch(connection);
    guard.first(connection, message(1));
    guard.settle(connection, 1_000);
    vi.advanceTimersByTime(999);
    expect(guard.first(connection, message(1))).toBe(false);
    vi.advanceTimersByTime(1);
    expect(guard.first(connection, message(1))).toBe(true);

    guard.watch(connection);
    guard.first(connection, message(2));
    guard.release(connection);
    expect(guard.first(connection, message(2))).toBe(true);

    // Watched again (a reconnection on the same object): what the last one was sent is forgotten.
    guard.watch(connection);
    guard.first(connection, message(3));
    guard.watch(connection);
    expect(guard.first(connection, message(3))).toBe(true);
  });
});
