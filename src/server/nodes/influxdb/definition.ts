import { z } from "zod";
import { defineNode } from "../types";
import { configNodeRef, configRefFromNodeRed } from "../../../shared/config-nodes";

/**
 * node-red-contrib-influxdb 0.7.0's four node types (influxdb.js, influxdb.html): the `influxdb`
 * server (InfluxDB 1.x, 1.8 with Flux, or 2.0), `influxdb out` (one measurement), `influxdb batch`
 * (several) and `influxdb in` (a query). Property names and defaults are the package's, so its
 * flows import as they are and export back.
 */

const str = (v: unknown, d = "") => (typeof v === "string" ? v : typeof v === "number" ? String(v) : d);
const VERSIONS = ["1.x", "1.8-flux", "2.0"] as const;
const versionOf = (v: unknown) => (VERSIONS as readonly unknown[]).includes(v) ? (v as (typeof VERSIONS)[number]) : "1.x";

export const influxdbConfig = z.object({
  influxdbVersion: z.enum(VERSIONS).default("1.x").meta({ title: "Version", description: "1.x: InfluxQL over /write and /query; 1.8-flux and 2.0: the v2 API (Flux queries)" }),
  hostname: z.string().trim().max(253).default("127.0.0.1").meta({ title: "Host (1.x)", description: "the server's name or address" }),
  port: z.number().int().min(1).max(65535).default(8086).meta({ title: "Port (1.x)" }),
  database: z.string().max(255).default("database").meta({ title: "Database (1.x)", description: "the database written to and queried" }),
  usetls: z.boolean().default(false).meta({ title: "Use TLS (1.x)", description: "https" }),
  tls: configNodeRef("tls-config", { title: "TLS configuration (1.x)", description: "With TLS: certificates and checks" }),
  url: z
    .string()
    .trim()
    .max(2000)
    .refine((v) => v === "" || /^https?:\/\/[^\s]+$/i.test(v), "must be an http:// or https:// URL")
    .default("http://localhost:8086")
    .meta({ title: "URL (1.8-flux, 2.0)", description: "the server, e.g. https://eu-central-1-1.aws.cloud2.influxdata.com" }),
  timeout: z.number().min(0.1).max(300).default(10).meta({ title: "Timeout in seconds (1.8-flux, 2.0)", description: "how long a request may take" }),
  rejectUnauthorized: z.boolean().default(true).meta({ title: "Verify server certificate (1.8-flux, 2.0)", description: "Over https; leave on outside tests" }),
});
export type InfluxdbConfig = z.infer<typeof influxdbConfig>;

export const influxdbNode = defineNode({
  type: "influxdb",
  version: 1,
  category: "config",
  kind: "config",
  name: "InfluxDB server",
  description: "An InfluxDB server (1.x, 1.8 with Flux, or 2.0) for influxdb out, batch and in nodes.",
  help: `The InfluxDB server that **influxdb out**, **influxdb batch** and **influxdb in** nodes write to and query, as node-red-contrib-influxdb's \`influxdb\` configuration node.

### Inputs

None: a configuration node has no wires.

### Outputs

None.

### Details

- **Version 1.x**: **Host**, **Port**, **Database**, with **Use TLS** and a **TLS configuration** for https. **Username** and **Password** go with every request as InfluxDB 1.x takes them (\`u\` and \`p\`); without them node-influx's defaults (\`root\`) are sent, as in Node-RED.
- **Version 1.8-flux**: **URL**, and **Username** and **Password** (sent as the token \`user:password\`); the database and retention policy are chosen on each node.
- **Version 2.0**: **URL** and **Token**; the organization and bucket are chosen on each node.
- The credentials are stored encrypted, never shown again, and left out of exports. Each may be \`\${NAME}\`: a variable or secret of the organization.

### Differences from Node-RED

- Requests pass the outbound rules of the shared runtime: private, loopback and link-local addresses (\`localhost\`, \`10.x\`, \`192.168.x\` …) are refused unless the operator sets \`OUTBOUND_ALLOW_PRIVATE=true\`. An InfluxDB on a device's network belongs to the device agent, which runs the node as Node-RED does.
- A failed 2.0 write is reported at once; the InfluxDB client's retries (up to 5, over about a minute, for a 5xx or a lost connection) are not made: a flow that must not lose points catches the error and sends them again.`,
  inputs: 0,
  outputs: 0,
  configSchema: influxdbConfig,
  credentials: {
    username: { type: "text", title: "Username", description: "1.x and 1.8-flux; may be ${NAME}" },
    password: { type: "password", title: "Password", description: "1.x and 1.8-flux; may be ${NAME}" },
    token: { type: "password", title: "Token", description: "2.0: an API token; may be ${NAME}" },
  },
  nodeRed: {
    type: "influxdb",
    toNodeRed: (c) => ({ hostname: c.hostname, port: c.port, protocol: c.usetls ? "https" : "http", database: c.database, usetls: c.usetls, tls: c.tls, influxdbVersion: c.influxdbVersion, url: c.url, timeout: c.timeout, rejectUnauthorized: c.rejectUnauthorized }),
    fromNodeRed: (p) => {
      const port = Number(p.port);
      const timeout = Number(p.timeout);
      return {
        influxdbVersion: versionOf(p.influxdbVersion),
        hostname: str(p.hostname, "127.0.0.1"),
        port: Number.isInteger(port) && port >= 1 && port <= 65535 ? port : 8086,
        database: str(p.database),
        // Node-RED's older `protocol: "https"` means TLS too.
        usetls: p.usetls === true || p.usetls === "true" || p.protocol === "https",
        tls: configRefFromNodeRed(p.tls),
        url: str(p.url, "http://localhost:8086"),
        timeout: Number.isFinite(timeout) && timeout >= 0.1 ? Math.min(timeout, 300) : 10,
        rejectUnauthorized: p.rejectUnauthorized !== false && p.rejectUnauthorized !== "false",
      };
    },
  },
});

const server = configNodeRef("influxdb", { title: "Server", description: "The InfluxDB server" });
const PRECISIONS_V1 = ["", "n", "u", "ms", "s", "m", "h"] as const;
const PRECISIONS_V2 = ["ns", "us", "ms", "s"] as const;
const precisionV1 = z.enum(PRECISIONS_V1).default("").meta({ title: "Time precision (1.x)", description: "of the timestamps written or read (n, u, ms, s, m, h); empty: nanoseconds; msg.precision wins" });
const retentionPolicy = z.string().max(255).default("").meta({ title: "Retention policy (1.x)", description: "empty: the database's default; msg.retentionPolicy wins" });
const v2Target = {
  database: z.string().max(255).default("database").meta({ title: "Database (1.8-flux)", description: "the database written to" }),
  precisionV18FluxV20: z.enum(PRECISIONS_V2).default("ms").meta({ title: "Time precision (1.8-flux, 2.0)", description: "of the timestamps written" }),
  retentionPolicyV18Flux: z.string().max(255).default("").meta({ title: "Retention policy (1.8-flux)", description: "empty: autogen" }),
  org: z.string().max(255).default("organisation").meta({ title: "Organization (2.0)" }),
  bucket: z.string().max(255).default("bucket").meta({ title: "Bucket (2.0)" }),
};
const v2FromNodeRed = (p: Record<string, unknown>) => ({
  database: str(p.database, "database"),
  precisionV18FluxV20: (PRECISIONS_V2 as readonly unknown[]).includes(p.precisionV18FluxV20) ? (p.precisionV18FluxV20 as (typeof PRECISIONS_V2)[number]) : "ms",
  retentionPolicyV18Flux: str(p.retentionPolicyV18Flux),
  org: str(p.org, "organisation"),
  bucket: str(p.bucket, "bucket"),
});
const v1PrecisionOf = (v: unknown) => ((PRECISIONS_V1 as readonly unknown[]).includes(v) ? (v as (typeof PRECISIONS_V1)[number]) : "");

const WRITE_HELP_DIFFERENCES = `### Differences from Node-RED

- The server's requests pass the outbound rules of the shared runtime (see the **InfluxDB server**'s help).
- A failed 2.0 write is reported at once, without the InfluxDB client's retries.`;

export const influxdbOutConfig = z.object({
  influxdb: server,
  measurement: z.string().max(1000).default("").meta({ title: "Measurement", description: "Empty: msg.measurement names it" }),
  precision: precisionV1,
  retentionPolicy,
  ...v2Target,
});

export const influxdbOutNode = defineNode({
  type: "influxdb-out",
  version: 1,
  category: "storage",
  name: "influxdb out",
  description: "Writes msg.payload to one InfluxDB measurement: a value, fields, or fields and tags.",
  help: `Writes points to one measurement of an InfluxDB server, as node-red-contrib-influxdb's \`influxdb out\`.

### Inputs

- \`payload\`: what is written:
  - a number, text or boolean: the field \`value\`;
  - an object: its fields (\`{ "temp": 21.5, "room": "kitchen" }\`);
  - an array \`[fields, tags]\`: one point with tags;
  - an array of \`[fields, tags]\` arrays: several points.
  A field named \`time\` is the point's timestamp (at the node's precision). Text such as \`"5i"\` is an integer (on 1.x, node-influx writes it as the number 5).
- \`measurement\` (string): the measurement, when the node names none or to write elsewhere.
- \`precision\`, \`retentionPolicy\` (1.x): win over the node's.

### Outputs

None. An error is the node's (a **catch** node gets it), with \`msg.influx_error\`: 1.x \`{ statusCode }\`, 2.0 \`{ errorMessage }\` (InfluxDB's answer).

### Details

On 1.x the line is written as node-influx writes it: the fields sorted, the tags in the message's order, numbers as they are (a whole number is a float to InfluxDB unless written \`"5i"\`), the measurement as given. On 1.8-flux and 2.0 as the InfluxDB client writes it: a number a float, \`"5i"\` an integer, a boolean \`T\`/\`F\`, the tags sorted (an empty one left out), every name escaped, and the time of writing when the point has none.

${WRITE_HELP_DIFFERENCES}`,
  inputs: 1,
  outputs: 0,
  configSchema: influxdbOutConfig,
  nodeRed: {
    type: "influxdb out",
    toNodeRed: (c) => ({ ...c }),
    fromNodeRed: (p) => ({ influxdb: configRefFromNodeRed(p.influxdb), measurement: str(p.measurement), precision: v1PrecisionOf(p.precision), retentionPolicy: str(p.retentionPolicy), ...v2FromNodeRed(p) }),
  },
});

export const influxdbBatchConfig = z.object({
  influxdb: server,
  precision: precisionV1,
  retentionPolicy,
  ...v2Target,
});

export const influxdbBatchNode = defineNode({
  type: "influxdb-batch",
  version: 1,
  category: "storage",
  name: "influxdb batch",
  description: "Writes a list of points, each naming its measurement, to InfluxDB.",
  help: `Writes several points, of any measurements, in one request, as node-red-contrib-influxdb's \`influxdb batch\`.

### Inputs

- \`payload\` (array): the points, each \`{ "measurement": "cpu", "fields": { … }, "tags": { … }, "timestamp": … }\` (\`tags\` and \`timestamp\` optional; a timestamp is a Date, a number or numeric text at the node's precision).
- \`precision\`, \`retentionPolicy\` (1.x): win over the node's.

### Outputs

None. An error is the node's, with \`msg.influx_error\`.

### Details

On 1.x the points are written as node-influx writes them (text such as \`"9i"\` stays text there, as in Node-RED); on 1.8-flux and 2.0 as the InfluxDB client writes them.

${WRITE_HELP_DIFFERENCES}`,
  inputs: 1,
  outputs: 0,
  configSchema: influxdbBatchConfig,
  nodeRed: {
    type: "influxdb batch",
    toNodeRed: (c) => ({ ...c }),
    fromNodeRed: (p) => ({ influxdb: configRefFromNodeRed(p.influxdb), precision: v1PrecisionOf(p.precision), retentionPolicy: str(p.retentionPolicy), ...v2FromNodeRed(p) }),
  },
});

export const influxdbInConfig = z.object({
  influxdb: server,
  query: z.string().max(100_000).default("").meta({ title: "Query", description: "InfluxQL (1.x) or Flux (1.8-flux, 2.0); msg.query wins" }),
  rawOutput: z.boolean().default(false).meta({ title: "Raw output (1.x)", description: "InfluxDB's JSON answer as it came" }),
  precision: precisionV1,
  retentionPolicy,
  org: z.string().max(255).default("organisation").meta({ title: "Organization (2.0)" }),
});

export const influxdbInNode = defineNode({
  type: "influxdb-in",
  version: 1,
  category: "storage",
  name: "influxdb in",
  description: "Queries InfluxDB (InfluxQL or Flux); the rows become msg.payload.",
  help: `Queries an InfluxDB server, as node-red-contrib-influxdb's \`influxdb in\`.

### Inputs

- \`query\` (string): the query, instead of the node's.
- \`rawOutput\`, \`precision\`, \`retentionPolicy\` (1.x): win over the node's.

### Outputs

- \`payload\`:
  - 1.x: the rows, each with its \`time\` a date and the series' tags; with several statements a list of rows per statement; with **Raw output** InfluxDB's JSON as it came. With a **Time precision** the times are asked for as numbers at it (and still given as dates).
  - 1.8-flux and 2.0: the rows of Flux's answer, every table's, each value typed by its column (numbers, booleans; times as RFC 3339 text).

### Details

An error is the node's (a **catch** node gets it), with \`msg.influx_error\`: 1.x \`{ statusCode }\`, 1.8-flux and 2.0 \`{ errorMessage }\` (InfluxDB's answer). The message keeps its other properties.

### Differences from Node-RED

- The server's requests pass the outbound rules of the shared runtime (see the **InfluxDB server**'s help).
- A 1.x answer's times are dates to the millisecond (node-influx's keep the nanoseconds in extra methods, which a message cannot carry).`,
  inputs: 1,
  outputs: 1,
  configSchema: influxdbInConfig,
  form: { query: { widget: "multiline" } },
  nodeRed: {
    type: "influxdb in",
    toNodeRed: (c) => ({ ...c }),
    fromNodeRed: (p) => ({
      influxdb: configRefFromNodeRed(p.influxdb),
      query: str(p.query),
      rawOutput: p.rawOutput === true || p.rawOutput === "true",
      precision: v1PrecisionOf(p.precision),
      retentionPolicy: str(p.retentionPolicy),
      org: str(p.org, "organisation"),
    }),
  },
});
