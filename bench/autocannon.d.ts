/** The part of autocannon's programmatic API the benchmarks use (the package ships no types). */
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  export interface Options {
    url: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
    headers?: Record<string, string>;
    body?: string;
    /** Worker threads that fire the requests (off the caller's event loop). */
    workers?: number;
    /** Seconds before a request counts as timed out. */
    timeout?: number;
    title?: string;
  }

  /** Percentiles as autocannon reports them (latency in milliseconds). */
  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p2_5: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
  }

  export interface Result {
    title?: string;
    url: string;
    connections: number;
    /** Seconds. */
    duration: number;
    start: Date;
    finish: Date;
    errors: number;
    timeouts: number;
    non2xx: number;
    resets: number;
    "2xx": number;
    "4xx": number;
    "5xx": number;
    statusCodeStats: Record<string, { count: number }>;
    latency: Histogram;
    requests: Histogram & { sent: number };
    throughput: Histogram;
  }

  export interface Instance extends EventEmitter, PromiseLike<Result> {
    stop(): void;
  }

  function autocannon(options: Options): Instance;
  export default autocannon;
}
