import { setTimeout as sleep } from "node:timers/promises";
import type { Arrival, DiffCase } from "./types";

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
): Promise<Arrival[]> {
  const settle = c.settleMs ?? 200;
  let n = 0;
  for (const { msg, delayMs } of c.send) {
    if (delayMs) await sleep(delayMs);
    deliver({ _msgid: `diff${++n}`, ...structuredClone(msg) });
  }
  // What reaches the flow from outside (an HTTP request to an http-in's path), after the messages.
  if (drive) await drive();
  if (c.expect !== undefined) {
    const deadline = Date.now() + EXPECT_LIMIT_MS + settle;
    while (arrivals().length < c.expect && Date.now() < deadline) await sleep(5);
    await sleep(GRACE_MS);
  } else {
    let seen = -1;
    let quietSince = Date.now();
    for (;;) {
      const now = arrivals().length;
      if (now !== seen) {
        seen = now;
        quietSince = Date.now();
      } else if (Date.now() - quietSince >= settle) break;
      await sleep(10);
    }
  }
  return [...arrivals()];
}
