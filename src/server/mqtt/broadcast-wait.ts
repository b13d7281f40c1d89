/**
 * A persistent session's SUBSCRIBE and UNSUBSCRIBE, with Redis: aedes-persistence-redis stores the
 * change, publishes it on `$SYS/sub/add` or `$SYS/sub/rm` through the broker (every instance, this
 * one included, keeps a tree of the stored subscriptions that decides who gets a message queued
 * while away) and waits for its own copy to come back from Redis, without bound. Redis pub/sub keeps
 * nothing: a copy published while this instance's subscriber connection was reconnecting never
 * came back, the SUBACK never went, and the connection waited for it as long as it lived.
 *
 * Here the same announcement is published again every `everyMs` until a copy comes back (adding a
 * subscription to the tree twice, or removing it twice, changes nothing); after `attempts` the store
 * fails, and Aedes closes the connection: its client connects again and subscribes again, instead
 * of waiting forever.
 */

export const BROADCAST_RETRY = { everyMs: 2_000, attempts: 4 };

export class BroadcastLostError extends Error {
  constructor(what: string, waitedMs: number, sent: number) {
    super(`mqtt: the ${what} announcement did not come back from Redis within ${waitedMs} ms (sent ${sent} times)`);
    this.name = "BroadcastLostError";
  }
}

/** `pending` (the persistence's store, which ends when its announcement returns), with `announce` again until it does. */
export function untilAnnounced<T>(pending: Promise<T>, announce: () => void, what: string, options = BROADCAST_RETRY): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let sent = 0;
    const timer = setInterval(() => {
      if (sent === options.attempts) {
        clearInterval(timer);
        reject(new BroadcastLostError(what, options.everyMs * (options.attempts + 1), options.attempts + 1));
        return;
      }
      sent++;
      announce();
    }, options.everyMs);
    pending.then(
      (value) => {
        clearInterval(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearInterval(timer);
        reject(err as Error);
      },
    );
  });
}
