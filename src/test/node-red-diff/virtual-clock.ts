import { advance, backToRealTime, startVirtualTime } from "@/test/virtual-time";
import type { DiffCase } from "./types";
import type { DiffClock } from "./collect";

/**
 * A faked clock (src/test/virtual-time.ts) for the cases whose sends are timed against their
 * nodes' timers (a reset 500 ms after a trigger that repeats every 200 ms), so a loaded machine
 * cannot move a send past a timer. Node-RED's recordings were made in real time; the cases leave
 * their margins for that side.
 */
export function virtualClock(): DiffClock {
  return { install: startVirtualTime, uninstall: backToRealTime, now: () => Date.now(), sleep: advance };
}

/** A case whose messages are sent at set times: it runs on the virtual clock, alone. */
export function isTimed(c: DiffCase): boolean {
  return c.send.some((s) => (s.delayMs ?? 0) > 0);
}
