/** Samples this process's RSS every 50 ms from now until stop(); stop() returns idle and peak. */
export function startRssSampler(): { stop(): { idleRss: number; peakRss: number } } {
  const idleRss = process.memoryUsage.rss();
  let peakRss = idleRss;
  const sample = () => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  };
  const timer = setInterval(sample, 50);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { idleRss, peakRss };
    },
  };
}
