import { describe, expect, it } from "vitest";
import { credentialRound, SharedRounds } from "./shared-rounds";
import type { RateLimiter } from "../store";

/** A round the test answers by hand: what it was sent with, and when. */
function gatedRounds() {
  const sent: Array<{ key: string; count: number; answer(value: string): void; fail(error: Error): void }> = [];
  const run = (key: string) => (count: number) =>
    new Promise<string>((resolve, reject) => {
      sent.push({ key, count, answer: resolve, fail: reject });
    });
  return { sent, run };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe("SharedRounds", () => {
  it("sends a key's first request at once, alone", async () => {
    const rounds = new SharedRounds();
    const { sent, run } = gatedRounds();
    const first = rounds.join("a", run("a"));
    expect(sent.map((s) => s.count)).toEqual([1]);
    sent[0]!.answer("r1");
    expect(await first).toEqual({ value: "r1", index: 0, count: 1 });
    expect(rounds.inFlight).toBe(0);
  });

  it("sends the requests that came while a round was in flight together, only after it answered", async () => {
    const rounds = new SharedRounds();
    const { sent, run } = gatedRounds();
    const first = rounds.join("a", run("a"));
    const later = [rounds.join("a", run("a")), rounds.join("a", run("a")), rounds.join("a", run("a"))];
    // Nothing goes out for them while the first round is in flight: an answer already on its way
    // could predate a revocation that happened before they came.
    await flush();
    expect(sent.map((s) => s.count)).toEqual([1]);
    sent[0]!.answer("r1");
    expect(await first).toEqual({ value: "r1", index: 0, count: 1 });
    expect(sent.map((s) => s.count)).toEqual([1, 3]);
    // A request coming now waits for the second round in turn.
    const fifth = rounds.join("a", run("a"));
    sent[1]!.answer("r2");
    expect(await Promise.all(later)).toEqual([
      { value: "r2", index: 0, count: 3 },
      { value: "r2", index: 1, count: 3 },
      { value: "r2", index: 2, count: 3 },
    ]);
    expect(sent.map((s) => s.count)).toEqual([1, 3, 1]);
    sent[2]!.answer("r3");
    expect(await fifth).toEqual({ value: "r3", index: 0, count: 1 });
    expect(rounds.inFlight).toBe(0);
    expect([rounds.rounds, rounds.requests]).toEqual([3, 5]);
  });

  it("never makes another key's requests wait", async () => {
    const rounds = new SharedRounds();
    const { sent, run } = gatedRounds();
    const a = rounds.join("a", run("a"));
    const b = rounds.join("b", run("b"));
    expect(sent.map((s) => [s.key, s.count])).toEqual([
      ["a", 1],
      ["b", 1],
    ]);
    sent[1]!.answer("rb");
    expect(await b).toMatchObject({ value: "rb" });
    sent[0]!.answer("ra");
    expect(await a).toMatchObject({ value: "ra" });
  });

  it("a failed round fails its requests and those waiting behind it, at once; the next request sends its own", async () => {
    const rounds = new SharedRounds();
    const { sent, run } = gatedRounds();
    const first = rounds.join("a", run("a"));
    const waiting = [rounds.join("a", run("a")), rounds.join("a", run("a"))];
    sent[0]!.fail(new Error("store down"));
    await expect(first).rejects.toThrow("store down");
    // Refused with it, not sent again: a store that does not answer would double their wait.
    for (const request of waiting) await expect(request).rejects.toThrow("store down");
    expect(sent.map((s) => s.count)).toEqual([1]);
    expect(rounds.inFlight).toBe(0);
    const third = rounds.join("a", run("a"));
    expect(sent.map((s) => s.count)).toEqual([1, 1]);
    sent[1]!.answer("back");
    expect(await third).toMatchObject({ value: "back", count: 1 });
  });

  it("a round that throws before it is sent fails its requests and frees the key", async () => {
    const rounds = new SharedRounds();
    await expect(
      rounds.join("a", () => {
        throw new Error("bad arguments");
      }),
    ).rejects.toThrow("bad arguments");
    expect(rounds.inFlight).toBe(0);
  });

  it("credentialRound shares only on Redis and only between requests counting against the same limit", async () => {
    const windowed = (prefix: string) => ({ window: { storeKey: (k: string) => `rl:${prefix}:${k}`, points: 10, durationSec: 60 } }) as unknown as RateLimiter;
    const inProcess = {} as RateLimiter;
    const rounds = new SharedRounds();
    const { sent, run } = gatedRounds();
    // No sharing without rounds (in process), nor with a limit that cannot count in a round.
    const alone = [credentialRound(null, "a", undefined, run("a")), credentialRound(rounds, "a", inProcess, run("a"))];
    expect(sent.map((s) => s.count)).toEqual([1, 1]);
    expect(rounds.rounds).toBe(0);
    sent[0]!.answer("x");
    sent[1]!.answer("y");
    expect(await Promise.all(alone)).toEqual([
      { value: "x", index: 0, count: 1 },
      { value: "y", index: 0, count: 1 },
    ]);
    // The same key under two limits: two lines, each sent at once.
    const api = credentialRound(rounds, "a", windowed("api"), run("a"));
    const other = credentialRound(rounds, "a", windowed("other"), run("a"));
    const apiAgain = credentialRound(rounds, "a", windowed("api"), run("a"));
    expect(sent.slice(2).map((s) => s.count)).toEqual([1, 1]);
    sent[2]!.answer("api");
    sent[3]!.answer("other");
    expect(await api).toMatchObject({ value: "api" });
    expect(await other).toMatchObject({ value: "other" });
    expect(sent.slice(4).map((s) => s.count)).toEqual([1]);
    sent[4]!.answer("api2");
    expect(await apiAgain).toMatchObject({ value: "api2", index: 0, count: 1 });
  });
});
