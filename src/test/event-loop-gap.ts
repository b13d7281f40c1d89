import { PerformanceObserver } from "node:perf_hooks";
import { collectGarbage } from "@/server/gc";

/**
 * The longest gap between ticks of a 5 ms interval while `work` runs, and V8's pauses meanwhile
 * (for the failure message). A full collection runs first: the unit tier's files share one worker's
 * heap (vitest.config.ts), a few hundred MB by the time a late file runs, and a major collection of
 * their garbage due in the middle of the measurement would not be the test's subject.
 */
export async function maxEventLoopGap(work: () => Promise<unknown>): Promise<{ gap: number; gcPauses: string[] }> {
  collectGarbage();
  const gcPauses: string[] = [];
  const gcs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcPauses.push(`${e.duration.toFixed(1)} ms`);
  });
  gcs.observe({ entryTypes: ["gc"] });
  let last = performance.now();
  let max = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    max = Math.max(max, now - last);
    last = now;
  }, 5);
  try {
    await work();
  } finally {
    clearInterval(timer);
    gcs.disconnect();
  }
  return { gap: Math.max(max, performance.now() - last), gcPauses };
}
