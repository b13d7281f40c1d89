import autocannon, { type Options, type Result } from "autocannon";

export interface LoadResult {
  /** Completed 2xx responses per second. */
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  statusCodes: Record<string, number>;
  seconds: number;
  /** Mean response size (bytes), from autocannon's byte count. */
  bytesPerResponse: number;
}

export interface LoadOptions {
  url: string;
  connections?: number;
  /** Seconds. */
  duration: number;
  method?: Options["method"];
  headers?: Record<string, string>;
  body?: unknown;
}

/**
 * One autocannon run. The requests are fired from a worker thread (autocannon's `workers: 1`), so
 * the load generator does not share the server's event loop (on 2 cores it still shares the CPU).
 */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] = "application/json";
  }
  const result: Result = await autocannon({
    url: options.url,
    connections: options.connections ?? 10,
    duration: options.duration,
    method: options.method ?? "GET",
    headers,
    body,
    workers: 1,
    timeout: 30,
  });
  const ok = result["2xx"];
  const completed = Object.values(result.statusCodeStats).reduce((sum, s) => sum + s.count, 0);
  return {
    rps: ok / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: completed,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count])),
    seconds: result.duration,
    bytesPerResponse: completed > 0 ? result.throughput.total / completed : 0,
  };
}

/** A warning for the notes when a run got answers other than 2xx: its numbers partly measure the error path. */
export function problems(what: string, r: LoadResult): string | undefined {
  if (r.non2xx === 0 && r.errors === 0) return undefined;
  return `${what}: ${r.non2xx} non-2xx responses and ${r.errors} errors/timeouts (status codes ${JSON.stringify(r.statusCodes)})`;
}
