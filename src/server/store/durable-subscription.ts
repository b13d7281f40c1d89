import type { KeyValueStore } from "./types";

export interface DurableSubscription {
  /** Settles when the first subscription is active (or the subscription was stopped first). */
  ready: Promise<void>;
  stop(): Promise<void>;
}

export interface DurableSubscriptionOptions {
  /** Told about each failed attempt (the store is down or slow); the subscription keeps trying. */
  onRetry?: (error: unknown, attempt: number) => void;
  /** First delay between attempts; it doubles up to maxDelayMs. */
  initialDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * A subscription that lasts as long as its owner: when the store cannot subscribe (Redis still
 * connecting at start-up, or down), it tries again with backoff instead of leaving a rejected
 * promise behind. For listeners whose absence would be silent: session and key revocations, an
 * organization's events. Resolves at once; `ready` settles when the first subscription is active.
 * The returned stop() ends it, whether or not it ever became active.
 */
export function durableSubscription(
  store: KeyValueStore,
  channel: string,
  handler: (message: string) => void,
  options: DurableSubscriptionOptions = {},
): DurableSubscription {
  const initial = options.initialDelayMs ?? 250;
  const max = options.maxDelayMs ?? 5_000;
  let stopped = false;
  let unsubscribe: (() => Promise<void>) | null = null;
  let timer: NodeJS.Timeout | null = null;
  let wake: (() => void) | null = null;

  const ready = (async () => {
    for (let attempt = 1; !stopped; attempt++) {
      try {
        const end = await store.subscribe(channel, handler);
        if (stopped) {
          await end().catch(() => undefined);
          return;
        }
        unsubscribe = end;
        return;
      } catch (error) {
        if (stopped) return;
        options.onRetry?.(error, attempt);
        const delay = Math.min(max, initial * 2 ** (attempt - 1));
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, delay);
          timer.unref?.();
        });
      }
    }
  })();

  return {
    ready,
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      wake?.();
      await ready;
      const end = unsubscribe;
      unsubscribe = null;
      if (end) await end().catch(() => undefined);
    },
  };
}
