/** Nearest-rank percentile of already sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export interface LatencySummary {
  count: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarize(samplesMs: readonly number[]): LatencySummary {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const total = sorted.reduce((sum, v) => sum + v, 0);
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean: sorted.length > 0 ? total / sorted.length : Number.NaN,
  };
}

/** Runs `fn` `count` times one after another and summarizes how long each call took. */
export async function timeSequential(count: number, fn: (i: number) => Promise<void>): Promise<LatencySummary> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await fn(i);
    samples.push(performance.now() - started);
  }
  return summarize(samples);
}

/** Keeps `concurrency` calls of `fn` in flight for `durationMs`; resolves to completed calls per second. */
export async function throughputFor(concurrency: number, durationMs: number, fn: () => Promise<unknown>): Promise<{ perSecond: number; completed: number; seconds: number }> {
  const started = performance.now();
  const deadline = started + durationMs;
  let completed = 0;
  const lane = async () => {
    while (performance.now() < deadline) {
      await fn();
      completed++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: completed / seconds, completed, seconds };
}

export const fmt = {
  /** 12345.6 → "12,346" */
  int: (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "n/a"),
  /** Milliseconds with sensible precision. */
  ms: (n: number) => (Number.isFinite(n) ? `${n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : Math.round(n).toLocaleString("en-US")} ms` : "n/a"),
  mb: (bytes: number) => {
    const mb = bytes / (1024 * 1024);
    return `${mb < 10 ? mb.toFixed(1) : Math.round(mb).toLocaleString("en-US")} MB`;
  },
  kb: (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`,
  s: (ms: number) => `${(ms / 1000).toFixed(1)} s`,
};
