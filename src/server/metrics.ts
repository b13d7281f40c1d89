import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { FlowRuntimeStats } from "./flow-runtime/types";

/**
 * This instance's Prometheus metrics (GET /metrics, docs/ARCHITECTURE.md "Metrics"). One registry
 * per AppServices, never prom-client's global one: Next's bundles carry their own copy of
 * prom-client, and tests stand several apps up in one process.
 *
 * Labels are bounded: a route is its template (`/api/v1/flows/{id}`, `hooks`, `trpc`, `page`),
 * never a raw path, and nothing is labelled with a user, an organization or a flow. What already
 * counts somewhere (the engine, the store, the database, the hub) is read at scrape time, so the
 * request path pays one counter increment per store or database round trip and nothing more.
 */
export interface AppMetrics {
  readonly registry: Registry;
  /** One HTTP request answered: its route template, method and status, and how long it took. */
  httpRequest(route: string, method: string, status: number, seconds: number): void;
  /** Where the WebSocket hub's client count is read (the hub sets it; 0 without a hub). */
  webSocketClients: () => number;
  /** The Prometheus text exposition of every metric. */
  exposition(): Promise<string>;
  readonly contentType: string;
  close(): void;
}

export interface MetricSources {
  flowRuntime: { stats(): FlowRuntimeStats };
  store: { readonly kind: string; readonly roundTrips: number };
  db: { readonly kind: string; readonly roundTrips: number };
  /**
   * Flows that should run somewhere (deployed, enabled, not deleted, not failed to start): the same number on every
   * instance, read from the database on each scrape, so an alert can compare it with the sum of
   * flowplane_flows_running over the instances.
   */
  flowsToRun(): Promise<number>;
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** Seconds: from a fast REST read (a millisecond) to a slow page render. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A counter whose value lives elsewhere (a plain number counted where the work happens), read on each scrape. */
function mirrorCounter(registry: Registry, name: string, help: string, read: () => number, labels?: Record<string, string>): void {
  let last = 0;
  const counter = new Counter({
    name,
    help,
    registers: [registry],
    labelNames: labels ? Object.keys(labels) : [],
    collect() {
      const now = read();
      // A source never goes back; if it did (a test swapped it), the counter just stays.
      if (now > last) {
        if (labels) this.inc(labels, now - last);
        else this.inc(now - last);
        last = now;
      }
    },
  });
  // The labelled series is there from the first scrape, at 0.
  if (labels) counter.inc(labels, 0);
}

export function createAppMetrics(sources: MetricSources): AppMetrics {
  const registry = new Registry();
  // process_*, nodejs_* (heap, GC, handles, nodejs_eventloop_lag_seconds and its percentiles).
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: "flowplane_http_requests_total",
    help: "HTTP requests answered, by route template, method and status code.",
    labelNames: ["route", "method", "status"] as const,
    registers: [registry],
  });
  const durations = new Histogram({
    name: "flowplane_http_request_duration_seconds",
    help: "Time from a request's arrival until its handler returned, by route template and method.",
    labelNames: ["route", "method"] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  // prom-client hashes the label object on every call; the children, once made, are kept by key.
  const counterChildren = new Map<string, { inc(): void }>();
  const histogramChildren = new Map<string, { observe(value: number): void }>();

  const metrics: AppMetrics = {
    registry,
    contentType: registry.contentType,
    webSocketClients: () => 0,
    httpRequest(route, rawMethod, status, seconds) {
      const method = METHODS.has(rawMethod) ? rawMethod : "other";
      const key = `${route} ${method}`;
      let histogram = histogramChildren.get(key);
      if (!histogram) {
        histogram = durations.labels(route, method);
        histogramChildren.set(key, histogram);
      }
      histogram.observe(seconds);
      const statusKey = `${key} ${status}`;
      let counter = counterChildren.get(statusKey);
      if (!counter) {
        counter = requests.labels(route, method, String(status));
        counterChildren.set(statusKey, counter);
      }
      counter.inc();
    },
    exposition: () => registry.metrics(),
    close: () => registry.clear(),
  };

  new Gauge({
    name: "flowplane_flows_running",
    help: "Flows running on this instance.",
    registers: [registry],
    collect() {
      this.set(sources.flowRuntime.stats().runningFlows);
    },
  });
  new Gauge({
    name: "flowplane_flows_to_run",
    help: "Flows deployed, enabled and not in error in the whole installation (the same on every instance; NaN when the database did not answer).",
    registers: [registry],
    async collect() {
      this.set(await sources.flowsToRun().catch(() => Number.NaN));
    },
  });
  mirrorCounter(registry, "flowplane_flow_messages_delivered_total", "Messages delivered to nodes on this instance.", () => sources.flowRuntime.stats().messagesDelivered);
  mirrorCounter(registry, "flowplane_flow_node_errors_total", "Node errors on this instance.", () => sources.flowRuntime.stats().nodeErrors);
  new Gauge({
    name: "flowplane_websocket_clients",
    help: "WebSocket clients connected to this instance.",
    registers: [registry],
    collect() {
      this.set(metrics.webSocketClients());
    },
  });
  mirrorCounter(
    registry,
    "flowplane_store_round_trips_total",
    "Commands sent to the key-value store (always 0 in process; the rate limiter's own Redis calls are not counted).",
    () => sources.store.roundTrips,
    { store: sources.store.kind },
  );
  mirrorCounter(
    registry,
    "flowplane_database_round_trips_total",
    "Statements sent to the database (Prisma's queries, transactions' commits and rollbacks, and direct reads).",
    () => sources.db.roundTrips,
    { database: sources.db.kind },
  );
  return metrics;
}
