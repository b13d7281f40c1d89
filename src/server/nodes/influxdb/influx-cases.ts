/**
 * The influxdb nodes' cases (node-red-contrib-influxdb 0.7.0, as Node-RED runs it): a flow of one
 * `influxdb` configuration node and one node under test, a message sent in, and what InfluxDB
 * (src/test/fake-influxdb.ts) answers. Recorded from Node-RED 5.0 by `npx tsx
 * scripts/influx-record.ts` into influx-cases.recorded.json: the requests the server saw, the message
 * that came out (JSON), and the error a catch node saw. `influxdb.test.ts` runs each against ours (not `cases.ts`: those are the differential harness's message cases).
 */
export interface InfluxCase {
  name: string;
  /** The configuration node's Node-RED properties; `hostname`/`port`/`url` point at the fake server. */
  config: Record<string, unknown>;
  credentials?: { username?: string; password?: string; token?: string };
  /** The node under test: `type` and its Node-RED properties. */
  node: Record<string, unknown> & { type: "influxdb out" | "influxdb batch" | "influxdb in" };
  msg: Record<string, unknown>;
  /** What the server answers (default: 204 to a write, an empty result to a query). */
  respond?: { status: number; type?: string; body?: string };
  /** The points carry the time of writing (2.x without a time): compared without it. */
  nowStamped?: boolean;
}

const v1 = { influxdbVersion: "1.x", protocol: "http", database: "home", usetls: false };
const v2 = { influxdbVersion: "2.0", timeout: 10, rejectUnauthorized: true };
const flux18 = { influxdbVersion: "1.8-flux", timeout: 10, rejectUnauthorized: true };
const out1 = (props: Record<string, unknown> = {}) => ({ type: "influxdb out" as const, measurement: "temperature", precision: "", retentionPolicy: "", ...props });
const out2 = (props: Record<string, unknown> = {}) => ({ type: "influxdb out" as const, measurement: "temperature", org: "acme", bucket: "sensors", precisionV18FluxV20: "ms", ...props });
const series = (rows: unknown[][], extra: Record<string, unknown> = {}) => JSON.stringify({ results: [{ statement_id: 0, series: [{ name: "temperature", columns: ["time", "value", "room"], values: rows, ...extra }] }] });
const FLUX_CSV = [
  "#datatype,string,long,dateTime:RFC3339,dateTime:RFC3339,dateTime:RFC3339,double,string,string,string,boolean",
  "#group,false,false,true,true,false,false,true,true,true,false",
  "#default,_result,,,,,,,,,",
  ",result,table,_start,_stop,_time,_value,_field,_measurement,room,ok",
  ",,0,2026-12-07T09:00:00Z,2026-12-07T10:00:00Z,2026-12-07T09:30:00Z,21.5,value,temperature,kitchen,true",
  ",,0,2026-12-07T09:00:00Z,2026-12-07T10:00:00Z,2026-12-07T09:31:00Z,,value,temperature,kitchen,false",
  "",
  "#datatype,string,long,dateTime:RFC3339,long,string",
  "#group,false,false,false,false,true",
  "#default,_result,,,,",
  ",result,table,_time,_value,room",
  ',,1,2026-12-07T09:30:00Z,42,"hall, ""north"""',
  ',,1,2026-12-07T09:31:00Z,43,"two\nlines"',
  "",
].join("\r\n");

export const cases: InfluxCase[] = [
  { name: "1.x out: a number is the field `value`", config: v1, node: out1(), msg: { payload: 23.5 } },
  {
    name: "1.x out: an object's fields, sorted; `5i` an integer, a string quoted, a boolean, `time` the timestamp at the node's precision",
    config: v1,
    node: out1({ precision: "ms" }),
    msg: { payload: { temp: 21.5, hum: "55i", room: "kitchen", on: true, time: 1700000000000 } },
  },
  { name: "1.x out: [fields, tags], the node's retention policy", config: v1, node: out1({ retentionPolicy: "autogen" }), msg: { payload: [{ temp: 20 }, { room: "hall", floor: 1 }] } },
  {
    name: "1.x out: an array of [fields, tags] points, a tag value with a space, seconds",
    config: v1,
    node: out1({ precision: "s" }),
    msg: {
      payload: [
        [{ v: 1, time: 1700000000 }, { s: "a" }],
        [{ v: 2, time: 1700000001 }, { s: "b b" }],
      ],
    },
  },
  {
    name: "1.x out: msg.measurement, msg.precision and msg.retentionPolicy win; quotes and backslashes in a string field",
    config: v1,
    node: out1(),
    msg: { measurement: "power,main phase", precision: "s", retentionPolicy: "week", payload: { kw: 1.25, note: 'say "hi" \\ ok' } },
  },
  { name: "1.x out: no measurement anywhere is the node's error", config: v1, node: out1({ measurement: "" }), msg: { payload: 1 } },
  { name: "1.x out: the user and password as InfluxDB 1.x takes them (u and p)", config: v1, credentials: { username: "bob", password: "p@ss w" }, node: out1(), msg: { payload: 7 } },
  {
    name: "1.x out: a refused write is the node's error, with msg.influx_error.statusCode",
    config: v1,
    node: out1(),
    msg: { payload: { temp: "hot" } },
    respond: { status: 400, type: "application/json", body: '{"error":"partial write: field type conflict"}' },
  },
  {
    name: "1.x out: a server error (5xx) is node-influx's 'service not available', statusCode 503",
    config: v1,
    node: out1(),
    msg: { payload: 2 },
    respond: { status: 500, type: "application/json", body: '{"error":"engine: write failed"}' },
  },
  {
    name: "1.x batch: a timestamp of 0 is written as it is (node-influx writes any but undefined)",
    config: v1,
    node: { type: "influxdb batch", precision: "s", retentionPolicy: "" },
    msg: { payload: [{ measurement: "boot", fields: { n: 1 }, timestamp: 0 }] },
  },
  {
    name: "1.x batch: points of several measurements, each with its tags and timestamp",
    config: v1,
    node: { type: "influxdb batch", precision: "", retentionPolicy: "" },
    msg: {
      payload: [
        { measurement: "cpu", fields: { idle: 90.5, busy: "9i" }, tags: { host: "a" }, timestamp: "1700000000000000000" },
        { measurement: "mem", fields: { free: 1024 } },
      ],
    },
  },
  {
    name: "1.x in: rows with their time as a date, the tags of a grouped series added",
    config: v1,
    node: { type: "influxdb in", query: "SELECT * FROM temperature GROUP BY room", rawOutput: false, precision: "", retentionPolicy: "" },
    msg: { payload: "" },
    respond: {
      status: 200,
      type: "application/json",
      body: JSON.stringify({
        results: [
          {
            statement_id: 0,
            series: [
              { name: "temperature", tags: { room: "hall" }, columns: ["time", "value"], values: [["2026-12-07T10:00:00Z", 21.5], ["2026-12-07T10:01:00.123456789Z", 21.7]] },
              { name: "temperature", tags: { room: "attic" }, columns: ["time", "value"], values: [["2026-12-07T10:00:00Z", 18]] },
            ],
          },
        ],
      }),
    },
  },
  {
    name: "1.x in: raw output is InfluxDB's answer as it came",
    config: v1,
    node: { type: "influxdb in", query: "SELECT * FROM temperature", rawOutput: true, precision: "", retentionPolicy: "" },
    msg: { payload: "" },
    respond: { status: 200, type: "application/json", body: series([["2026-12-07T10:00:00Z", 21.5, "kitchen"]]) },
  },
  {
    name: "1.x in: msg.query wins; the node's precision asks for epoch times",
    config: v1,
    node: { type: "influxdb in", query: "SELECT 1", rawOutput: false, precision: "ms", retentionPolicy: "" },
    msg: { query: "SELECT last(value) FROM temperature WHERE room = 'kitchen'" },
    respond: { status: 200, type: "application/json", body: series([[1765101600000, 21.5, "kitchen"]]) },
  },
  {
    name: "1.x in: two statements give two lists",
    config: v1,
    node: { type: "influxdb in", query: "SELECT * FROM a; SELECT * FROM b", rawOutput: false, precision: "", retentionPolicy: "" },
    msg: { payload: "" },
    respond: {
      status: 200,
      type: "application/json",
      body: JSON.stringify({ results: [{ statement_id: 0, series: [{ name: "a", columns: ["time", "x"], values: [["2026-12-07T10:00:00Z", 1]] }] }, { statement_id: 1 }] }),
    },
  },
  {
    name: "1.x in: an error in InfluxDB's results is the node's error",
    config: v1,
    node: { type: "influxdb in", query: "SELECT * FROM nowhere", rawOutput: false, precision: "", retentionPolicy: "" },
    msg: { payload: "" },
    respond: { status: 200, type: "application/json", body: '{"results":[{"statement_id":0,"error":"database not found: home"}]}' },
  },
  { name: "1.x in: no query anywhere is the node's error", config: v1, node: { type: "influxdb in", query: "", rawOutput: false, precision: "", retentionPolicy: "" }, msg: { payload: "" } },

  { name: "2.0 out: a number is the float field `value`, with the token, stamped with the time of writing", config: v2, credentials: { token: "tok-123" }, node: out2(), msg: { payload: 23.5 }, nowStamped: true },
  {
    name: "2.0 out: an object's fields: `5i` an integer, a whole number a float, a string, a boolean, `time` the timestamp",
    config: v2,
    credentials: { token: "tok-123" },
    node: out2({ precisionV18FluxV20: "s" }),
    msg: { payload: { temp: 21, hum: "55i", room: "kitchen, \"main\"", on: false, time: 1700000000 } },
  },
  {
    name: "2.0 out: [fields, tags]: tags sorted, an empty tag left out, a number tag written",
    config: v2,
    credentials: { token: "tok-123" },
    node: out2(),
    msg: { measurement: "air quality", payload: [{ co2: 415 }, { room: "hall", floor: 1, wing: "" }] },
    nowStamped: true,
  },
  {
    name: "2.0 out: an array of [fields, tags] points, each with its time",
    config: v2,
    credentials: { token: "tok-123" },
    node: out2({ precisionV18FluxV20: "ns" }),
    msg: {
      payload: [
        [{ v: 1.5, time: "1700000000000000000" }, { s: "a=b" }],
        [{ v: 2, time: "1700000001000000000" }, { s: "c" }],
      ],
    },
  },
  {
    name: "2.0 batch: points of several measurements",
    config: v2,
    credentials: { token: "tok-123" },
    node: { type: "influxdb batch", org: "acme", bucket: "sensors", precisionV18FluxV20: "ms" },
    msg: {
      payload: [
        { measurement: "cpu", fields: { idle: 90.5, busy: "9i", up: true }, tags: { host: "a" }, timestamp: 1700000000000 },
        { measurement: "mem", fields: { free: 1024 }, timestamp: 1700000000001 },
      ],
    },
  },
  {
    name: "2.0 out: a refused write is the node's error, InfluxDB's message its text",
    config: v2,
    credentials: { token: "tok-123" },
    node: out2(),
    msg: { payload: 1 },
    respond: { status: 400, type: "application/json; charset=utf-8", body: '{"code":"invalid","message":"unable to parse points: bad timestamp"}' },
    nowStamped: true,
  },
  {
    name: "2.0 in: Flux's annotated CSV as rows, typed by the annotations (defaults, empty values, quoted text)",
    config: v2,
    credentials: { token: "tok-123" },
    node: { type: "influxdb in", query: 'from(bucket: "sensors") |> range(start: -1h)', rawOutput: false, precision: "", retentionPolicy: "", org: "acme" },
    msg: { payload: "" },
    respond: { status: 200, type: "text/csv; charset=utf-8", body: FLUX_CSV },
  },
  {
    name: "2.0 in: msg.query wins",
    config: v2,
    credentials: { token: "tok-123" },
    node: { type: "influxdb in", query: "buckets()", rawOutput: false, precision: "", retentionPolicy: "", org: "acme" },
    msg: { query: 'from(bucket: "x") |> range(start: -5m)' },
    respond: { status: 200, type: "text/csv; charset=utf-8", body: "" },
  },
  {
    name: "1.8-flux out: the database and retention policy are the bucket, the user and password the token, no organization",
    config: flux18,
    credentials: { username: "bob", password: "secret" },
    node: out2({ database: "home", retentionPolicyV18Flux: "" }),
    msg: { payload: { temp: 20.5, time: 1700000000000 } },
  },
  {
    name: "1.8-flux in: no organization",
    config: flux18,
    credentials: { username: "bob", password: "secret" },
    node: { type: "influxdb in", query: 'from(bucket: "home/autogen") |> range(start: -1h)', rawOutput: false, precision: "", retentionPolicy: "", org: "acme" },
    msg: { payload: "" },
    respond: { status: 200, type: "text/csv; charset=utf-8", body: FLUX_CSV },
  },
];
