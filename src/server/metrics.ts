import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type MetricObjectWithValues, type MetricValueWithName } from "prom-client";
import type { FlowRuntimeStats } from "./flow-runtime/types";

/**
 * This instance's Prometheus metrics (GET /metrics, src/server/http/README.md "Metrics"). One registry
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

/** One route template and method: its answers so far, as plain numbers. */
interface RequestSeries {
  labels: { route: string; method: string };
  /** Observations per bucket (not cumulative), DURATION_BUCKETS' order; above the last only in count. */
  buckets: Float64Array;
  sum: number;
  count: number;
  /** Answers per status code, and how many of them the counter has already been given. */
  statuses: Map<number, { n: number; flushed: number }>;
}

/**
 * flowplane_http_request_duration_seconds, fed from the plain numbers the request path keeps: a
 * prom-client Histogram whose get() reports them (prom-client still formats them). Observing
 * through prom-client itself validates and hashes the labels on every request (~1 µs each for the
 * histogram and the counter, about 2 % of a health check's time).
 */
const DURATIONS = "flowplane_http_request_duration_seconds";

class RequestDurations extends Histogram<"route" | "method"> {
  constructor(
    registry: Registry,
    private readonly series: () => Iterable<RequestSeries>,
  ) {
    super({
      name: DURATIONS,
      help: "Time from a request's arrival until its handler returned, by route template and method.",
      labelNames: ["route", "method"],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    });
  }

  override async get(): Promise<MetricObjectWithValues<MetricValueWithName<"route" | "method">>> {
    const values: Array<MetricValueWithName<"route" | "method" | "le">> = [];
    for (const s of this.series()) {
      let cumulative = 0;
      DURATION_BUCKETS.forEach((bound, i) => {
        cumulative += s.buckets[i]!;
        values.push({ labels: { ...s.labels, le: bound }, value: cumulative, metricName: `${DURATIONS}_bucket` });
      });
      values.push({ labels: { ...s.labels, le: "+Inf" }, value: s.count, metricName: `${DURATIONS}_bucket` });
      values.push({ labels: s.labels, value: s.sum, metricName: `${DURATIONS}_sum` });
      values.push({ labels: s.labels, value: s.count, metricName: `${DURATIONS}_count` });
    }
    // The shape prom-client's own Histogram.get() returns (the registry formats it); not super.get(),
    // which reads its (empty) series through getForPromString, below.
    const self = this as unknown as { help: string; type: string; aggregator: string };
    return { name: DURATIONS, help: self.help, type: self.type, aggregator: self.aggregator, values } as unknown as MetricObjectWithValues<
      MetricValueWithName<"route" | "method">
    >;
  }

  /** What the registry reads for the text format (prom-client's own histograms have it too). */
  getForPromString(): Promise<MetricObjectWithValues<MetricValueWithName<"route" | "method">>> {
    return this.get();
  }
}

export function createAppMetrics(sources: MetricSources): AppMetrics {
  const registry = new Registry();
  // process_*, nodejs_* (heap, GC, handles, nodejs_eventloop_lag_seconds and its percentiles).
  collectDefaultMetrics({ register: registry });

  // route → method → series: two map lookups and a few additions per request, nothing else.
  const byRoute = new Map<string, Map<string, RequestSeries>>();
  function* allSeries(): Iterable<RequestSeries> {
    for (const methods of byRoute.values()) yield* methods.values();
  }
  new Counter({
    name: "flowplane_http_requests_total",
    help: "HTTP requests answered, by route template, method and status code.",
    labelNames: ["route", "method", "status"] as const,
    registers: [registry],
    collect() {
      for (const s of allSeries()) {
        for (const [status, counted] of s.statuses) {
          if (counted.n > counted.flushed) {
            this.inc({ ...s.labels, status: String(status) }, counted.n - counted.flushed);
            counted.flushed = counted.n;
          }
        }
      }
    },
  });
  new RequestDurations(registry, allSeries);

  const metrics: AppMetrics = {
    registry,
    contentType: registry.contentType,
    webSocketClients: () => 0,
    httpRequest(route, rawMethod, status, seconds) {
      const method = METHODS.has(rawMethod) ? rawMethod : "other";
      let methods = byRoute.get(route);
      if (!methods) {
        methods = new Map();
        byRoute.set(route, methods);
      }
      let s = methods.get(method);
      if (!s) {
        s = { labels: { route, method }, buckets: new Float64Array(DURATION_BUCKETS.length), sum: 0, count: 0, statuses: new Map() };
        methods.set(method, s);
      }
      let i = 0;
      while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]!) i++;
      if (i < DURATION_BUCKETS.length) s.buckets[i]!++;
      s.sum += seconds;
      s.count++;
      const counted = s.statuses.get(status);
      if (counted) counted.n++;
      else s.statuses.set(status, { n: 1, flushed: 0 });
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
  mirrorCounter(
    registry,
    "flowplane_executions_not_stored_total",
    "Executions this instance could not store (the database refused or could not take them, or their organization was at its bound); each is counted as unrecorded for its flow.",
    () => sources.flowRuntime.stats().executionsNotStored ?? 0,
  );
  mirrorCounter(
    registry,
    "flowplane_context_writes_refused_total",
    "Context writes the database refused for their data: given up (not retried) and reported to the node that made them.",
    () => sources.flowRuntime.stats().contextWritesRefused ?? 0,
  );
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
