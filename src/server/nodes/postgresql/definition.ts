import { z } from "zod";
import { defineNode } from "../types";
import { configNodeRef, configRefFromNodeRed } from "../../../shared/config-nodes";
import { numberOrVariable } from "../../runtime/number-or-variable";

/**
 * node-red-contrib-postgresql 0.16's two node types (postgresql.js, postgresql.html): the
 * `postgreSQLConfig` configuration node (a PostgreSQL server, database and pool) and `postgresql`
 * (a query per message, its rows whole or split). Property names and defaults are the package's,
 * so its flows import as they are and export back.
 */

const str = (v: unknown, d = "") => (typeof v === "string" ? v : typeof v === "number" ? String(v) : d);

/** At most this many connections per database on an instance (the package's default, and our bound). */
export const PG_MAX_CONNECTIONS = 10;
/** A query's answer past this many bytes is refused (its connection closed). */
export const PG_RESULT_BYTES = 32 * 1024 * 1024;

const DIFFERENCES = `### Differences from Node-RED

- Connections pass the outbound rules of the shared runtime: private, loopback and link-local addresses (\`localhost\`, \`10.x\`, \`192.168.x\` …) and Unix sockets are refused unless the operator sets \`OUTBOUND_ALLOW_PRIVATE=true\`. A database on a device's network belongs to the device agent, which runs the node as Node-RED does.
- A pool holds at most ${PG_MAX_CONNECTIONS} connections on an instance.
- An answer larger than ${PG_RESULT_BYTES / 1024 / 1024} MiB is refused with an error (its connection is closed): select fewer rows, or **Split results** to read them in parts.
- A value read from global context (a *global* typed field in Node-RED) is not carried over at import: use a variable (\`\${NAME}\`).
- \`msg.query\` must be text, and \`msg.pgConfig\` takes plain settings only (\`host\`, \`port\`, \`database\`, \`user\`, \`password\`, \`ssl\` as true or \`{ rejectUnauthorized, ca }\`, \`application_name\`, timeouts): no \`connectionString\`. A missing user is \`postgres\`, never the server's own.`;

const typedText = (title: string, description: string, max: number, d: string) => z.string().trim().max(max).default(d).meta({ title, description });

export const postgresqlConfig = z.object({
  host: z.string().trim().min(1, "the server's name or address is required").max(253).default("127.0.0.1").meta({ title: "Host", description: "The PostgreSQL server's name or address; may be ${NAME}" }),
  port: numberOrVariable(z.number().int().min(1).max(65535)).default(5432).meta({ title: "Port", description: "Or ${NAME}: a variable holding it" }),
  database: typedText("Database", "May be ${NAME}", 63, "postgres"),
  ssl: z.boolean().default(false).meta({ title: "SSL", description: "Connect over TLS, the server's certificate checked" }),
  applicationName: typedText("Application name", "Shown in the server's pg_stat_activity; may be ${NAME}", 63, ""),
  max: z.number().int().min(1).max(PG_MAX_CONNECTIONS).default(PG_MAX_CONNECTIONS).meta({ title: "Max connections", description: `At most ${PG_MAX_CONNECTIONS}` }),
  idle: z.number().int().min(0).max(3_600_000).default(1000).meta({ title: "Idle timeout (ms)", description: "How long an unused connection stays open" }),
  connectionTimeout: z.number().int().min(0).max(300_000).default(10_000).meta({ title: "Connection timeout (ms)", description: "How long opening a connection may take (0: no limit)" }),
});
export type PostgresqlConfig = z.infer<typeof postgresqlConfig>;

/** A typed field of the package's configuration: its value, `${NAME}` for an environment variable, or null (refused) for global context. */
function typed(p: Record<string, unknown>, key: string, typeKey: string, refused: string[] | undefined): string | null {
  const kind = str(p[typeKey]);
  const value = str(p[key]);
  if (kind === "env") return value ? `\${${value}}` : "";
  if (kind === "global" || kind === "flow") {
    refused?.push(key);
    return null;
  }
  return value;
}
const intOr = (v: unknown, d: number, min: number, max: number) => {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN;
  return Number.isInteger(n) && n >= min ? Math.min(n, max) : d;
};

export const postgresqlConfigNode = defineNode({
  type: "postgresql-config",
  version: 1,
  category: "config",
  kind: "config",
  name: "PostgreSQL database",
  description: "A PostgreSQL server and database for postgresql nodes: address, user and password, pool.",
  help: `A PostgreSQL database that **postgresql** nodes query, as node-red-contrib-postgresql's \`postgreSQLConfig\` configuration node.

### Inputs

None: a configuration node has no wires.

### Outputs

None.

### Details

- **Host**, **Port** and **Database** name where the queries run; each may be \`\${NAME}\` (a variable of the organization; Node-RED's *env* typed fields import as such). **SSL** connects over TLS.
- **User** and **Password** are credentials: stored encrypted, never shown again, left out of exports; each may be \`\${NAME}\`. A flow of the package before 0.16 wrote them in its properties: they become the credentials at import.
- **Max connections**, **Idle timeout** and **Connection timeout** are the pool's, shared by every flow of the organization on an instance that uses this database (the same deployed revision and settings).

${DIFFERENCES}`,
  inputs: 0,
  outputs: 0,
  configSchema: postgresqlConfig,
  credentials: {
    user: { type: "text", title: "User", description: "May be ${NAME}" },
    password: { type: "password", title: "Password", description: "May be ${NAME}" },
  },
  nodeRed: {
    type: "postgreSQLConfig",
    absorbed: ["hostFieldType", "portFieldType", "databaseFieldType", "sslFieldType", "applicationNameType", "maxFieldType", "idleFieldType", "connectionTimeoutFieldType", "userFieldType", "passwordFieldType", "userEnv", "passwordEnv", "user", "password"],
    toNodeRed: (c) => {
      const field = (v: unknown, plain: string) => {
        const m = typeof v === "string" ? /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(v) : null;
        return m ? { value: m[1], type: "env" } : { value: v, type: plain };
      };
      const host = field(c.host, "str");
      const port = field(c.port, "num");
      const database = field(c.database, "str");
      const app = field(c.applicationName, "str");
      return {
        host: host.value,
        hostFieldType: host.type,
        port: port.value,
        portFieldType: port.type,
        database: database.value,
        databaseFieldType: database.type,
        ssl: c.ssl,
        sslFieldType: "bool",
        applicationName: app.value,
        applicationNameType: app.type,
        max: c.max,
        maxFieldType: "num",
        idle: c.idle,
        idleFieldType: "num",
        connectionTimeout: c.connectionTimeout,
        connectionTimeoutFieldType: "num",
        userFieldType: "cred",
        passwordFieldType: "cred",
      };
    },
    fromNodeRed: (p, refused) => {
      const host = typed(p, "host", "hostFieldType", refused);
      const database = typed(p, "database", "databaseFieldType", refused);
      const app = typed(p, "applicationName", "applicationNameType", refused);
      const portKind = str(p.portFieldType);
      const port = portKind === "env" && str(p.port) ? `\${${str(p.port)}}` : portKind === "global" ? (refused?.push("port"), 5432) : intOr(p.port, 5432, 1, 65535);
      const sslKind = str(p.sslFieldType);
      if (sslKind && sslKind !== "bool") refused?.push("ssl");
      for (const key of ["user", "password"]) if (str(p[`${key}FieldType`]) === "global") refused?.push(key);
      for (const [key, kind] of [["max", "maxFieldType"], ["idle", "idleFieldType"], ["connectionTimeout", "connectionTimeoutFieldType"]] as const) {
        const k = str(p[kind]);
        if (k && k !== "num") refused?.push(key);
      }
      return {
        host: host || "127.0.0.1",
        port,
        // PostgreSQL cuts a name at 63 bytes: the same here rather than a refusal.
        database: (database ?? "postgres").slice(0, 63),
        ssl: sslKind === "bool" || sslKind === "" ? p.ssl === true || p.ssl === "true" : false,
        applicationName: (app ?? "").slice(0, 63),
        max: intOr(p.max, PG_MAX_CONNECTIONS, 1, PG_MAX_CONNECTIONS),
        idle: intOr(p.idle, 1000, 0, 3_600_000),
        connectionTimeout: intOr(p.connectionTimeout, 10_000, 0, 300_000),
      };
    },
    // The user and password: an env typed field is the variable; a plain property (the package before 0.16) its value; global context is refused.
    credentialsFromNodeRed: (p) => {
      const cred = (key: "user" | "password") => {
        const kind = str(p[`${key}FieldType`]) || "str";
        if (kind === "env") {
          const name = str(p[`${key}Env`]) || str(p[key]);
          return name ? `\${${name}}` : "";
        }
        return kind === "str" || kind === "cred" ? str(p[key]) : "";
      };
      const out: Record<string, string> = {};
      const user = cred("user");
      const password = cred("password");
      if (user) out.user = user;
      if (password) out.password = password;
      return out;
    },
  },
});

export const postgresqlNodeConfig = z.object({
  postgreSQLConfig: configNodeRef("postgresql-config", { title: "Server", description: "The PostgreSQL database the queries run in" }),
  query: z.string().max(100_000).default("SELECT * FROM ;").meta({ title: "Query", description: "SQL, a Mustache template of the message ({{{msg.payload}}}); msg.query wins" }),
  split: z.boolean().default(false).meta({ title: "Split results in multiple messages", description: "Read the rows in parts; each next part after a msg.tick" }),
  rowsPerMsg: z.number().int().min(1).max(100_000).default(1).meta({ title: "Number of rows per message", description: "With Split results" }),
});

export const postgresqlNode = defineNode({
  type: "postgresql",
  version: 1,
  category: "storage",
  name: "postgresql",
  description: "Runs a query (a Mustache template, msg.query, with msg.params) on PostgreSQL; the rows become msg.payload.",
  help: `Runs a query on a PostgreSQL database, as node-red-contrib-postgresql's \`postgresql\` node.

### Inputs

- \`query\` (string): the query, instead of the node's.
- \`params\` (array): values for \`$1\`, \`$2\` … in the query, sent apart from its text (no SQL injection).
- \`queryParameters\` (object): values for \`$name\` in the query, by name (when \`params\` is not given).
- \`tick\`: with **Split results**, asks for the next part.
- \`pgConfig\` (object): a connection of this message's own (\`host\`, \`port\`, \`database\`, \`user\`, \`password\` …) instead of the server's pool.

### Outputs

- \`payload\`: the rows, each an object of its columns (\`int8\` and \`numeric\` as text, as PostgreSQL's client gives them; dates as dates; \`json\` parsed); for several statements all their rows together.
- \`pgsql\`: \`{ command, rowCount }\` (\`INSERT\`, \`UPDATE\`, \`SELECT\` …); for several statements a list of them, each with its \`rows\`.
- With **Split results**: one message per **Number of rows per message** rows (a row itself when it is 1), with \`parts\` (\`id\`, \`index\`, and \`count\` on the last, which also has \`complete: true\`); the next part comes after a message with \`tick\` (wire the end of the work back to this node): back-pressure.

### Details

- The **Query** is a Mustache template of the message: \`{{msg.topic}}\` is HTML-escaped as Mustache does, \`{{{msg.topic}}}\` is not. Prefer \`$1\` with \`msg.params\` to writing values into the text.
- An error is the node's (a **catch** node gets it): the message's \`payload\` is the error and the query, and \`parts\` \`{ id, abort: true }\`.
- The status shows the queries waiting: \`Queue: n\`, blue when idle, red with \`Error!\` after an error, yellow when more wait than the pool has connections.

${DIFFERENCES}
- A node does not send \`tick\` to a postgresql node wired before it (the package does, for chains of them): wire the tick back by hand.`,
  inputs: 1,
  outputs: 1,
  configSchema: postgresqlNodeConfig,
  form: { query: { widget: "code", language: "sql" } },
  nodeRed: {
    type: "postgresql",
    absorbed: ["outputs"],
    toNodeRed: (c) => ({ query: c.query, postgreSQLConfig: c.postgreSQLConfig, split: c.split, rowsPerMsg: c.rowsPerMsg, outputs: 1 }),
    fromNodeRed: (p) => {
      const rows = Number(p.rowsPerMsg);
      return {
        postgreSQLConfig: configRefFromNodeRed(p.postgreSQLConfig),
        query: str(p.query, "SELECT * FROM ;"),
        split: p.split === true || p.split === "true",
        rowsPerMsg: Number.isInteger(rows) && rows >= 1 ? Math.min(rows, 100_000) : 1,
      };
    },
  },
});
