import { describe, expect, it } from "vitest";
import { createAppMetrics } from "./metrics";

function metrics() {
  const stats = { runningFlows: 0, messagesDelivered: 0, nodeErrors: 0 };
  const store = { kind: "memory", roundTrips: 0 };
  const app = createAppMetrics({ flowRuntime: { stats: () => stats }, store, db: { kind: "embedded", roundTrips: 0 }, flowsToRun: async () => 3 });
  return { app, stats, store };
}

const line = (text: string, start: string) => text.split("\n").find((l) => l.startsWith(start));

describe("createAppMetrics", () => {
  it("aggregates requests in plain numbers and reports them through prom-client", async () => {
    const { app } = metrics();
    app.httpRequest("/api/v1/flows/{id}", "GET", 200, 0.0005);
    app.httpRequest("/api/v1/flows/{id}", "GET", 200, 0.003);
    app.httpRequest("/api/v1/flows/{id}", "GET", 404, 20);
    app.httpRequest("hooks", "BREW", 418, 0.01);
    let text = await app.exposition();
    expect(line(text, 'flowplane_http_requests_total{route="/api/v1/flows/{id}",method="GET",status="200"}')).toMatch(/ 2$/);
    expect(line(text, 'flowplane_http_requests_total{route="/api/v1/flows/{id}",method="GET",status="404"}')).toMatch(/ 1$/);
    expect(line(text, 'flowplane_http_requests_total{route="hooks",method="other",status="418"}')).toMatch(/ 1$/);
    const bucket = (le: string) => line(text, `flowplane_http_request_duration_seconds_bucket{route="/api/v1/flows/{id}",method="GET",le="${le}"}`);
    expect(bucket("0.001")).toMatch(/ 1$/);
    expect(bucket("0.005")).toMatch(/ 2$/);
    expect(bucket("10")).toMatch(/ 2$/);
    expect(bucket("+Inf")).toMatch(/ 3$/);
    expect(line(text, 'flowplane_http_request_duration_seconds_count{route="/api/v1/flows/{id}",method="GET"}')).toMatch(/ 3$/);
    expect(line(text, "# TYPE flowplane_http_request_duration_seconds")).toBe("# TYPE flowplane_http_request_duration_seconds histogram");
    // A second scrape: counters stay where they are, then move by what happened since.
    app.httpRequest("/api/v1/flows/{id}", "GET", 200, 0.001);
    text = await app.exposition();
    expect(line(text, 'flowplane_http_requests_total{route="/api/v1/flows/{id}",method="GET",status="200"}')).toMatch(/ 3$/);
    const json = await app.registry.getMetricsAsJSON();
    expect(json.find((m) => m.name === "flowplane_http_request_duration_seconds")?.values.length).toBeGreaterThan(0);
    app.close();
  });

  it("reads the runtime, store and hub at scrape time", async () => {
    const { app, stats, store } = metrics();
    stats.runningFlows = 4;
    stats.messagesDelivered = 10;
    store.roundTrips = 7;
    app.webSocketClients = () => 2;
    let text = await app.exposition();
    expect(line(text, "flowplane_flows_running ")).toBe("flowplane_flows_running 4");
    expect(line(text, "flowplane_flows_to_run ")).toBe("flowplane_flows_to_run 3");
    expect(line(text, "flowplane_flow_messages_delivered_total ")).toBe("flowplane_flow_messages_delivered_total 10");
    expect(line(text, "flowplane_store_round_trips_total")).toBe('flowplane_store_round_trips_total{store="memory"} 7');
    expect(line(text, "flowplane_websocket_clients ")).toBe("flowplane_websocket_clients 2");
    stats.runningFlows = 1;
    stats.messagesDelivered = 15;
    text = await app.exposition();
    expect(line(text, "flowplane_flows_running ")).toBe("flowplane_flows_running 1");
    expect(line(text, "flowplane_flow_messages_delivered_total ")).toBe("flowplane_flow_messages_delivered_total 15");
    app.close();
  });
});
