import http from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";

/**
 * A stand-in for InfluxDB's HTTP API (1.x `/write` and `/query`, 2.x `/api/v2/write` and
 * `/api/v2/query`) for the influxdb nodes' cases: it records every request (method, path with
 * its query string, the headers that carry meaning, the body un-gzipped) and answers what the case
 * says, else 204 to a write and an empty result to a query. Node-RED's recording
 * (scripts/influx-record.ts) and our tests run the same cases against it.
 */
export interface FakeInfluxRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface FakeInfluxAnswer {
  status: number;
  type?: string;
  body?: string;
}

const KEPT_HEADERS = ["authorization", "content-type", "content-encoding", "accept"];

export async function startFakeInflux(port = 0) {
  const requests: FakeInfluxRequest[] = [];
  let answer: ((req: FakeInfluxRequest) => FakeInfluxAnswer | undefined) | undefined;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let raw = Buffer.concat(chunks);
      if (req.headers["content-encoding"] === "gzip") raw = gunzipSync(raw);
      const headers: Record<string, string> = {};
      for (const h of KEPT_HEADERS) if (typeof req.headers[h] === "string") headers[h] = req.headers[h] as string;
      const recorded = { method: req.method ?? "", path: req.url ?? "", headers, body: raw.toString("utf8") };
      requests.push(recorded);
      const given = answer?.(recorded);
      const status = given?.status ?? (recorded.path.includes("/query") ? 200 : 204);
      const body = given?.body ?? (recorded.path.startsWith("/api/v2/query") ? "" : recorded.path.startsWith("/query") ? '{"results":[{"statement_id":0}]}' : "");
      res.writeHead(status, { "content-type": given?.type ?? (recorded.path.startsWith("/query") ? "application/json" : "text/csv; charset=utf-8"), "content-length": Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    answer(fn: typeof answer) {
      answer = fn;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
