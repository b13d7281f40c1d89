import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadTestFlow } from "@/test/runtime-harness";
import { startFakeInflux } from "@/test/fake-influxdb";
import { createSafeFetch } from "@/server/runtime/safe-fetch";
import { createOutboundRules } from "@/server/runtime/outbound";
import { cases, type InfluxCase } from "./influx-cases";
import { influxdbBatchNode, influxdbInNode, influxdbNode, influxdbOutNode } from "./definition";

/**
 * Each case of influx-cases.ts through our nodes against the stand-in InfluxDB, compared with what
 * Node-RED 5.0 with node-red-contrib-influxdb 0.7.0 did (influx-cases.recorded.json): the requests
 * InfluxDB got (method, path and query string, the headers that carry meaning, the body), the
 * message that came out and the error a catch node saw with its msg.influx_error.
 */
interface Recorded {
  requests: Array<{ method: string; path: string; headers: Record<string, string>; body: string }>;
  output?: Array<{ payload: unknown }>;
  errors?: Array<{ message: string; influx_error?: unknown }>;
}
const recorded = JSON.parse(readFileSync(path.join(__dirname, "influx-cases.recorded.json"), "utf8")) as { cases: Record<string, Recorded> };
const seal = (value: string) => `sealed:${Buffer.from(value).toString("base64")}`;
const services = {
  httpRequest: createSafeFetch({ allowPrivate: true }),
  outbound: createOutboundRules({ allowPrivate: true }),
  openCredential: (sealed: string) => Buffer.from(sealed.slice("sealed:".length), "base64").toString("utf8"),
};
const NODES = { "influxdb out": influxdbOutNode, "influxdb batch": influxdbBatchNode, "influxdb in": influxdbInNode };
/**
 * The request's address as InfluxDB reads it: our transport parses it as a WHATWG URL, which
 * writes a quote in a query string as %27 (node-influx's querystring leaves it); the server
 * decodes both to the same query.
 */
const sameQuery = (p: string) => p.replaceAll("%27", "'");
/** A point's trailing time, where the client stamps the time of writing. */
const unstamped = (body: string) => body.replace(/ \d{10,19}$/gm, " <now>");

let influx: Awaited<ReturnType<typeof startFakeInflux>>;
beforeAll(async () => {
  influx = await startFakeInflux();
});
afterAll(() => influx.close());

async function runOurs(c: InfluxCase, using: typeof services = services, arrivals?: number) {
  influx.requests.length = 0;
  influx.answer(() => c.respond);
  const where = c.config.influxdbVersion === "1.x" ? { hostname: "127.0.0.1", port: influx.port } : { url: `http://127.0.0.1:${influx.port}` };
  const config = influxdbNode.configSchema.parse(influxdbNode.nodeRed!.fromNodeRed({ ...c.config, ...where }, []));
  const definition = NODES[c.node.type];
  const { type: _type, ...props } = c.node;
  const nodeConfig = definition.configSchema.parse(definition.nodeRed!.fromNodeRed({ ...props, influxdb: "cfg" }, []));
  const sealed = Object.fromEntries(Object.entries(c.credentials ?? {}).map(([k, v]) => [k, seal(v)]));
  const flow = await loadTestFlow(
    [
      { id: "n", type: definition.type, config: nodeConfig },
      { id: "c", type: "catch", config: { scope: ["n"] } },
      { id: "out", type: "sink" },
      { id: "err", type: "sink" },
    ],
    [
      ...(c.node.type === "influxdb in" ? [{ source: "n", target: "out" }] : []),
      { source: "c", target: "err" },
    ],
    using,
    {},
    { configNodes: { cfg: { id: "cfg", type: "influxdb", name: "", config, revision: 1, sealed_credentials: sealed } } },
  );
  flow.send("n", structuredClone(c.msg));
  const expected = recorded.cases[c.name]!;
  await flow.waitFor(arrivals ?? (expected.output?.length ?? 0) + (expected.errors?.length ?? 0), 5000).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 50));
  const json = <T,>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
  const result = {
    requests: influx.requests.map((r) => ({ ...r, path: sameQuery(r.path), body: c.nowStamped ? unstamped(r.body) : r.body })),
    output: flow.arrivals.filter((a) => a.sink === "out").map((a) => json({ payload: a.msg.payload })),
    errors: flow.arrivals.filter((a) => a.sink === "err").map((a) => json({ message: (a.msg.error as { message: string }).message, ...(a.msg.influx_error !== undefined ? { influx_error: a.msg.influx_error } : {}) })),
  };
  await flow.close();
  return result;
}

describe("influxdb nodes, as Node-RED with node-red-contrib-influxdb runs them", () => {
  it("has a recording for every case", () => {
    expect(Object.keys(recorded.cases).sort()).toEqual(cases.map((c) => c.name).sort());
  });

  for (const c of cases) {
    it(c.name, async () => {
      const expected = recorded.cases[c.name]!;
      const ours = await runOurs(c);
      expect(ours.requests).toEqual(expected.requests.map((r) => ({ ...r, path: sameQuery(r.path), body: c.nowStamped ? unstamped(r.body) : r.body })));
      expect(ours.output).toEqual(expected.output ?? []);
      expect(ours.errors).toEqual(expected.errors ?? []);
    });
  }

  it("the outbound rules apply: a server on a private address is refused unless the operator allows it, and InfluxDB hears nothing", async () => {
    const strict = { ...services, httpRequest: createSafeFetch({ allowPrivate: false }), outbound: createOutboundRules({ allowPrivate: false }) };
    const ours = await runOurs(cases[0]!, strict, 1);
    expect(ours.requests).toEqual([]);
    expect(ours.errors).toHaveLength(1);
    expect(ours.errors[0]!.message).toMatch(/private|loopback|not allowed/i);
    expect(ours.errors[0]!.influx_error).toEqual({ statusCode: 503 });
  });
});
