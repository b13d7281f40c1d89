/** setTimeout's longest wait (2^31 − 1 ms, about 24.8 days); a longer one would fire at once. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

export interface LongTimer {
  clear(): void;
}

/**
 * setTimeout for waits past setTimeout's limit (a rate of one message per 30 days): chained
 * timeouts of at most MAX_TIMEOUT_MS, the last one firing `fn`. Node-RED's own timers overflow
 * there (Node fires them after 1 ms, with a TimeoutOverflowWarning); ours wait as configured.
 */
export function longTimeout(fn: () => void, ms: number): LongTimer {
  let timer: NodeJS.Timeout;
  let cleared = false;
  // The legs are counted, not measured against Date.now(): a timer fires by the event loop's clock,
  // which can be a few milliseconds behind the wall clock read when it was made. Re-arming a leg
  // that fired "early" by Date.now() let a later message of the same wait overtake an earlier one
  // (a delay node sent 2, 3, 1).
  let left = Math.max(0, ms);
  const arm = () => {
    const leg = Math.min(left, MAX_TIMEOUT_MS);
    left -= leg;
    timer = setTimeout(() => {
      if (cleared) return;
      if (left > 0) arm();
      else fn();
    }, leg);
  };
  arm();
  return {
    clear() {
      cleared = true;
      clearTimeout(timer);
    },
  };
}

/** setInterval for periods past setTimeout's limit too: a plain setInterval up to it, chained long timeouts past it. */
export function longInterval(fn: () => void, ms: number): LongTimer {
  const period = Math.max(1, ms);
  if (period <= MAX_TIMEOUT_MS) {
    const id = setInterval(fn, period);
    return { clear: () => clearInterval(id) };
  }
  let current: LongTimer;
  let cleared = false;
  const next = () => {
    current = longTimeout(() => {
      if (cleared) return;
      next();
      fn();
    }, period);
  };
  next();
  return {
    clear() {
      cleared = true;
      current.clear();
    },
  };
}
