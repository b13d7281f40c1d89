import { setTimeout as sleep } from "node:timers/promises";
import type { Arrival, DiffCase } from "./types";

/**
 * The time a case runs in: real (Node-RED's recordings, and our untimed cases), or a faked clock
 * that advances only as the case says (virtual-clock.ts), so a loaded machine cannot reorder a
 * case's sends and its nodes' timers.
 */
export interface DiffClock {
  sleep(ms: number): Promise<void>;
  now(): number;
  /** Called before the flow starts and after it is done (before it closes). */
  install?(): void;
  uninstall?(): void;
}

export const realClock: DiffClock = { sleep: (ms) => sleep(ms), now: () => Date.now() };

/** After the expected count is reached, how long extra messages still count (to catch a duplicate). */
const GRACE_MS = 60;
const EXPECT_LIMIT_MS = 5000;

/**
 * Sends a case's messages through `deliver` (with their delays) and waits for what reaches the
 * collectors: until `expect` messages (plus a short grace), else until `settleMs` pass without a new
 * one. The same on both sides, so Node-RED and our engine are timed alike. `drive` (a driver of the
 * flow's own doors, e.g. HTTP requests to its http-in paths) runs after the messages are delivered;
 * what it records is among the arrivals.
 */
export async function collectArrivals(
  c: DiffCase,
  arrivals: () => Arrival[],
  deliver: (msg: Record<string, unknown>) => void,
  drive?: () => Promise<void>,
  clock: DiffClock = realClock,
): Promise<Arrival[]> {
  const settle = c.settleMs ?? 200;
  let n = 0;
  for (const { msg, delayMs } of c.send) {
    if (delayMs) await clock.sleep(delayMs);
    deliver({ _msgid: `diff${++n}`, ...structuredClone(msg) });
  }
  // What reaches the flow from outside (an HTTP request to an http-in's path), after the messages.
  if (drive) await drive();
  if (c.expect !== undefined) {
    const deadline = clock.now() + EXPECT_LIMIT_MS + settle;
    while (arrivals().length < c.expect && clock.now() < deadline) await clock.sleep(5);
    await clock.sleep(GRACE_MS);
  } else {
    let seen = -1;
    let quietSince = clock.now();
    for (;;) {
      const now = arrivals().length;
      if (now !== seen) {
        seen = now;
        quietSince = clock.now();
      } else if (clock.now() - quietSince >= settle) break;
      await clock.sleep(10);
    }
  }
  return [...arrivals()];
}
