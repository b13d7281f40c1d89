import { z } from "zod";
import { defineNode } from "../types";
import { configNodeRef, configRefFromNodeRed } from "../../../shared/config-nodes";

/**
 * node-red-node-mysql 3.0's two node types (68-mysql.js, 68-mysql.html): the `MySQLdatabase`
 * configuration node (a MySQL or MariaDB server and database) and `mysql` (a query per message).
 * Property names and defaults are the package's, so its flows import as they are and export back.
 */

const str = (v: unknown, d = "") => (typeof v === "string" ? v : typeof v === "number" ? String(v) : d);

/** What the database's connections may be told; at most this many queries run at once per database (Node-RED: 50). */
export const MYSQL_CONNECTION_LIMIT = 10;
/** A query's answer past this many bytes is refused (its connection closed), so one SELECT cannot fill the runtime's memory. */
export const MYSQL_RESULT_BYTES = 32 * 1024 * 1024;

const DIFFERENCES = `### Differences from Node-RED

- Connections pass the outbound rules of the shared runtime: private, loopback and link-local addresses (\`localhost\`, \`10.x\`, \`192.168.x\` …) are refused unless the operator sets \`OUTBOUND_ALLOW_PRIVATE=true\`. A database on a device's network belongs to the device agent, which runs the node as Node-RED does.
- At most ${MYSQL_CONNECTION_LIMIT} queries of one database run at once on an instance (Node-RED: 50); more wait for a connection.
- An answer larger than ${MYSQL_RESULT_BYTES / 1024 / 1024} MiB is refused with an error (its connection is closed): select fewer rows, or page with \`LIMIT\`.
- "local" time is the server's time zone (UTC on ours unless its operator set \`TZ\`): set the **Timezone** to the database's (\`+01:00\`, \`Z\`) to read and write DATETIME values as its clock shows them.`;

export const mysqlDatabaseConfig = z.object({
  host: z.string().trim().min(1, "the server's name or address is required").max(253).default("127.0.0.1").meta({ title: "Host", description: "The MySQL or MariaDB server's name or address" }),
  port: z.number().int().min(1).max(65535).default(3306).meta({ title: "Port" }),
  db: z.string().trim().max(64).default("").meta({ title: "Database", description: "The database the queries run in (empty: each query names it, db.table)" }),
  tz: z
    .string()
    .trim()
    .max(64)
    .default("")
    .meta({ title: "Timezone", description: "±hh:mm, Z, or empty for local: how DATETIME values are read and written (another name, such as UTC, is taken as Z)" }),
  charset: z
    .string()
    .trim()
    .max(64)
    .regex(/^[A-Za-z0-9_]*$/, "a character set's name, such as UTF8 or UTF8MB4")
    .default("UTF8")
    .meta({ title: "Charset", description: "UTF8 (MySQL's 3-byte UTF-8, the default) or UTF8MB4 for emoji" }),
});
export type MysqlDatabaseConfig = z.infer<typeof mysqlDatabaseConfig>;

export const mysqlDatabaseNode = defineNode({
  type: "mysql-database",
  version: 1,
  category: "config",
  kind: "config",
  name: "MySQL database",
  description: "A MySQL or MariaDB database for mysql nodes: server, database, user and password.",
  help: `A MySQL or MariaDB database that **mysql** nodes query, as node-red-node-mysql's \`MySQLdatabase\` configuration node.

### Inputs

None: a configuration node has no wires.

### Outputs

None.

### Details

- **Host**, **Port** and **Database** name where the queries run (with no database, each query names its tables' database: \`db.table\`); **User** and **Password** are credentials: stored encrypted, never shown again, left out of exports. Each may be \`\${NAME}\`, a variable or secret of the organization.
- **Timezone**: \`±hh:mm\` or \`Z\`; empty is local time. DATETIME and DATE values are read into dates and dates written at it. Another text (\`UTC\`, \`GMT\`, \`Europe/Paris\`) is taken as \`Z\`, as mysql2 takes it in Node-RED.
- **Charset**: \`UTF8\` is MySQL's old 3-byte UTF-8; use \`UTF8MB4\` for emoji.
- Every flow of the organization on an instance that uses this database (the same deployed revision) shares its connections. The nodes show "connecting", "connected", or the server's error code; a database that cannot be reached is tried again every 20 seconds, and a connected one is checked every 290 seconds.

${DIFFERENCES}`,
  inputs: 0,
  outputs: 0,
  configSchema: mysqlDatabaseConfig,
  credentials: {
    user: { type: "text", title: "User", description: "May be ${NAME}" },
    password: { type: "password", title: "Password", description: "May be ${NAME}" },
  },
  nodeRed: {
    type: "MySQLdatabase",
    toNodeRed: (c) => ({ host: c.host, port: String(c.port), db: c.db, tz: c.tz, charset: c.charset }),
    fromNodeRed: (p) => {
      const port = Number(p.port);
      return {
        host: str(p.host, "127.0.0.1"),
        port: Number.isInteger(port) && port >= 1 && port <= 65535 ? port : 3306,
        db: str(p.db),
        tz: str(p.tz),
        charset: str(p.charset, "UTF8"),
      };
    },
  },
});

export const mysqlConfig = z.object({
  mydb: configNodeRef("mysql-database", { title: "Database", description: "The MySQL database the queries run in" }),
});

export const mysqlNode = defineNode({
  type: "mysql",
  version: 1,
  category: "storage",
  name: "mysql",
  description: "Runs msg.topic as a query on a MySQL or MariaDB database; the rows become msg.payload.",
  help: `Runs a query on a MySQL or MariaDB database, as node-red-node-mysql's \`mysql\` node. It allows any statement (SELECT, INSERT, DELETE …): bind values rather than writing them into the text, or SQL injection follows.

### Inputs

- \`topic\` (string): the query. Several statements separated by \`;\` run at once.
- \`payload\`: the values bound to it:
  - an array: each \`?\` takes the next value, quoted and escaped (\`SELECT * FROM t WHERE id = ?\`);
  - an object: each \`:name\` takes the property of that name (\`WHERE name = :name\`); a \`:name\` the object lacks stays in the text;
  - anything else binds nothing.

### Outputs

- \`payload\`: a SELECT's rows, each an object of its columns (DECIMAL as numbers, DATETIME and DATE as dates, BLOB as bytes, NULL as null); for INSERT, UPDATE or DELETE the result: \`affectedRows\`, \`insertId\`, \`changedRows\`, \`info\` …; for several statements a list of them. The message keeps its other properties.

### Details

- An error (an SQL error, a lost connection) is the node's, with the server's message (a **catch** node gets it); the status shows \`Error: <code>\`, and "OK" after a query that succeeded.
- A message that comes before the database is connected fails with "Database not connected". A \`topic\` that is not text is logged ("msg.topic : the query is not defined as a string"), and no catch node gets it.
- Queries run at once, on several connections: two messages sent together may finish in either order. Chain the nodes when one query must see another's writes.

${DIFFERENCES}`,
  inputs: 1,
  outputs: 1,
  configSchema: mysqlConfig,
  nodeRed: {
    type: "mysql",
    toNodeRed: (c) => ({ mydb: c.mydb }),
    fromNodeRed: (p) => ({ mydb: configRefFromNodeRed(p.mydb) }),
  },
});
