/**
 * Requests of one credential that arrive while its store round is in flight share the next one.
 *
 * Every authenticated request reads its session (or key) from the store, renews it, counts its
 * rate limit and reads two generations: one round trip, one script call on Redis (principal.ts).
 * On Redis that round trip is most of a request's cost (docs/BENCHMARKS.md, issue 39's seventeenth
 * round), and a client with several requests in flight at once (an API client, a device, the
 * editor opening a flow) made one per request, each renewing the same session. Here the first
 * request of a credential sends its round at once; requests of that credential arriving while it
 * is in flight wait for its answer and then go together in one round (a "group commit"), which
 * counts all of their points and renews the session once.
 *
 * What stays exact: a request is always checked by a round *sent after it arrived*, never by one
 * already on its way, so a session revoked (or a key, or a member) before the request came is
 * refused exactly as without sharing. The rate limit counts every request's point, in arrival
 * order, and each request gets the answer it would have got alone (`consumeEach`). When a round
 * fails (the store does not answer), the requests waiting behind it are refused with it (503), so
 * none waits for two timeouts in a row.
 *
 * Only where a round is a network trip (Redis): in process, a round costs less than the waiting.
 */
import type { RateLimiter } from "../store";

export interface SharedRound<T> {
  value: T;
  /** This request's place among the round's requests, in arrival order (0 for the first). */
  index: number;
  /** How many requests the round served. */
  count: number;
}

interface Waiter<T> {
  resolve(value: SharedRound<T>): void;
  reject(error: unknown): void;
}

interface Batch<T> {
  run: (count: number) => Promise<T>;
  waiters: Waiter<T>[];
}

interface Line {
  /** The requests that came while this key's round was in flight: they go in the next one. */
  next: Batch<unknown> | null;
}

export class SharedRounds {
  /** Keys with a round in flight (only those: a key leaves when its last round has answered). */
  private readonly lines = new Map<string, Line>();
  /** Rounds sent and requests they served (the tests read them). */
  rounds = 0;
  requests = 0;

  /**
   * Runs `run(count)` for `key`: at once when no round of that key is in flight, else after the
   * one in flight has answered, for every request of the key that came meanwhile (`run` of the
   * first of them; the key must say everything the round depends on). Resolves with the round's
   * value and this request's place in it; a failed round rejects all of its requests.
   */
  join<T>(key: string, run: (count: number) => Promise<T>): Promise<SharedRound<T>> {
    return new Promise<SharedRound<T>>((resolve, reject) => {
      const waiter = { resolve, reject } as Waiter<unknown>;
      const line = this.lines.get(key);
      if (line) {
        (line.next ??= { run, waiters: [] }).waiters.push(waiter);
        return;
      }
      const fresh: Line = { next: null };
      this.lines.set(key, fresh);
      this.start(key, fresh, { run, waiters: [waiter] });
    });
  }

  /** Keys with a round in flight. */
  get inFlight(): number {
    return this.lines.size;
  }

  private start(key: string, line: Line, batch: Batch<unknown>): void {
    const count = batch.waiters.length;
    this.rounds++;
    this.requests += count;
    let sent: Promise<unknown>;
    try {
      sent = batch.run(count);
    } catch (error) {
      sent = Promise.reject(error);
    }
    sent.then(
      (value) => {
        const next = line.next;
        line.next = null;
        if (next) this.start(key, line, next);
        else this.lines.delete(key);
        for (let index = 0; index < count; index++) batch.waiters[index]!.resolve({ value, index, count });
      },
      (error: unknown) => {
        // The requests that came while this round failed fail with it, at once: the store did not
        // answer (a frozen Redis times out after 2 s), and a second round in a row would double
        // their wait. Failing closed refuses them (503), it never lets one in. The next request
        // sends a round of its own.
        const next = line.next;
        line.next = null;
        this.lines.delete(key);
        for (const waiter of batch.waiters) waiter.reject(error);
        if (next) for (const waiter of next.waiters) waiter.reject(error);
      },
    );
  }
}

/**
 * A credential's round: shared through `rounds` (Redis) with the requests of the same `key` in
 * flight, else sent alone. The key is completed with the rate limit's identity, so requests share
 * a round only if they count against the same limit; a limit that cannot count in a round (one not
 * on Redis) never shares.
 */
export function credentialRound<T>(rounds: SharedRounds | null, key: string, limit: RateLimiter | undefined, run: (count: number) => Promise<T>): Promise<SharedRound<T>> {
  const w = limit?.window;
  if (!rounds || (limit && !w)) return run(1).then((value) => ({ value, index: 0, count: 1 }));
  return rounds.join(w ? `${key}\n${w.storeKey("")}/${w.points}/${w.durationSec}` : key, run);
}
