import { setImmediate as nextTurn } from "node:timers/promises";
import { vi } from "vitest";

/**
 * Virtual time for tests whose outcome depends on the order of their own waits and a node's
 * timers (a message sent 300 ms in, against a 500 ms timeout): on a loaded machine a real wait can
 * outlast the node's timer and flip the result. Timers, intervals, Date and performance are faked
 * and advance one millisecond at a time, each millisecond followed by real turns of the event loop,
 * in which the engine's deliveries (setImmediate) run. Real I/O and worker threads keep real time.
 */
const TURNS_PER_MS = 5;

export function startVirtualTime(): void {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"] });
}

export function backToRealTime(): void {
  vi.useRealTimers();
}

/** Real turns of the event loop: what was sent is delivered, and what that sent too. */
export async function settle(turns = TURNS_PER_MS): Promise<void> {
  for (let t = 0; t < turns; t++) await nextTurn();
}

/** Advances virtual time by `ms`, a millisecond at a time, letting deliveries run between. */
export async function advance(ms: number): Promise<void> {
  for (let i = 0; i < ms; i++) {
    await vi.advanceTimersByTimeAsync(1);
    await settle();
  }
}

/** Runs `fn` in virtual time, and real time again afterwards whatever happens. */
export async function inVirtualTime<T>(fn: () => Promise<T>): Promise<T> {
  startVirtualTime();
  try {
    return await fn();
  } finally {
    backToRealTime();
  }
}
